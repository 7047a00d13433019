// Shared assertions for the protograph learning corpus. Run first: the
// learning prelude evaluates every file in one realm, in order.
function assert(cond, message) {
  if (!cond) throw new Error('assertion failed: ' + message);
}
function assertEq(actual, expected, message) {
  if (!Object.is(actual, expected)) {
    throw new Error((message || 'assertEq') + ': expected ' + String(expected) + ', got ' + String(actual));
  }
}
function assertThrows(ErrorType, fn, message) {
  try {
    fn();
  } catch (e) {
    assert(e instanceof ErrorType, (message || 'assertThrows') + ': wrong error ' + e);
    return;
  }
  throw new Error((message || 'assertThrows') + ': nothing thrown');
}
function assertArrayEq(actual, expected, message) {
  assertEq(actual.length, expected.length, (message || 'array') + ' length');
  for (var i = 0; i < expected.length; i++) assertEq(actual[i], expected[i], (message || 'array') + '[' + i + ']');
}
var xs = [5, 1, 4, 2, 3];
assertArrayEq(xs.map(function (x) { return x * 10; }), [50, 10, 40, 20, 30]);
assertArrayEq(xs.filter(function (x) { return x % 2; }), [5, 1, 3]);
assertEq(xs.reduce(function (s, x) { return s + x; }, 0), 15);
assertEq(xs.reduceRight(function (s, x) { return s + String(x); }, ''), '32415');
var seen = 0;
xs.forEach(function () { seen++; });
assertEq(seen, 5);
assert(xs.some(function (x) { return x > 4; }), 'some');
assert(xs.every(function (x) { return x > 0; }), 'every');
assertEq(xs.find(function (x) { return x < 3; }), 1);
assertEq(xs.findIndex(function (x) { return x === 4; }), 2);
assertEq(xs.findLast(function (x) { return x > 3; }), 4);
assertEq(xs.findLastIndex(function (x) { return x > 3; }), 2);
assertArrayEq([1, [2, [3, [4]]]].flat(2).slice(0, 3), [1, 2, 3]);
assertArrayEq([1, 2].flatMap(function (x) { return [x, x]; }), [1, 1, 2, 2]);
assertArrayEq(xs.toSorted(), [1, 2, 3, 4, 5]);
assertArrayEq(xs.toReversed(), [3, 2, 4, 1, 5]);
assertArrayEq(xs.with(0, 9).slice(0, 2), [9, 1]);
assertArrayEq(xs.toSpliced(0, 4), [3]);
assertEq(xs.at(-1), 3);
assertArrayEq(xs.slice().sort(function (a, b) { return b - a; }), [5, 4, 3, 2, 1]);
assertArrayEq(Array.from(['a', 'b'].entries())[1], [1, 'b']);
assertArrayEq(Array.from(['a', 'b'].keys()), [0, 1]);
assertArrayEq(Array.from(['a', 'b'].values()), ['a', 'b']);
for (var x of xs[Symbol.iterator]()) seen += x;
assertEq(seen, 20);
