assertEq(encodeURIComponent('a b&c/d'), 'a%20b%26c%2Fd');
assertEq(decodeURIComponent('a%20b%26c'), 'a b&c');
assertEq(encodeURI('http://x/a b?q=1'), 'http://x/a%20b?q=1');
assertEq(decodeURI('%41%20'), 'A ');
assertThrows(URIError, function () { decodeURIComponent('%'); });
// Annex B: optional outside browsers.
if (typeof escape === 'function') {
  assertEq(escape('a b'), 'a%20b');
  assertEq(unescape('%u0041'), 'A');
}
assertEq(typeof globalThis, 'object');
assertEq((0, eval)('1 + 1'), 2);
assertEq(eval('var evalLocal = 3; evalLocal'), 3);
assertEq(void 0, undefined);
assertEq(typeof NaN + typeof Infinity, 'numbernumber');
assert(globalThis.Array === Array, 'globalThis properties');
