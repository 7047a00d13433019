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
var re = new RegExp('(?<year>\\d{4})-(?<month>\\d{2})', 'g');
var m = re.exec('on 2024-05 and 2025-06');
assertEq(m.groups.year, '2024');
assertEq(re.lastIndex, 10);
assertEq(re.exec('on 2024-05 and 2025-06').groups.month, '06');
assert(/ab+c/i.test('xABBC'), 'test');
assertEq(/a/gimsuy.flags, 'gimsuy');
assertEq(/x[a-c]+y/.source, 'x[a-c]+y');
var sticky = /foo/y;
sticky.lastIndex = 3;
assert(sticky.test('barfoo'), 'sticky');
assert(/\u{1F600}/u.unicode, 'unicode flag');
assertEq(RegExp.prototype[Symbol.replace].call(/b/, 'abc', 'B'), 'aBc');
assertArrayEq(RegExp.prototype[Symbol.split].call(/,/, 'a,b'), ['a', 'b']);
assertEq(RegExp.prototype[Symbol.search].call(/c/, 'abc'), 2);
assertEq(RegExp.prototype[Symbol.match].call(/b/, 'abc')[0], 'b');
assertEq(String(/a/g), '/a/g');
assertEq(new RegExp(/x/g, 'i').flags, 'i');
assert(/^\p{Lu}$/u.test('Ä'), 'property escape');
assertEq(/(a)|(b)/.exec('b')[1], undefined);
