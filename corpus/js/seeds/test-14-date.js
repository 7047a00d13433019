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
var d = new Date(Date.UTC(2020, 1, 29, 12, 30, 15, 250));
assertEq(d.getUTCFullYear(), 2020);
assertEq(d.getUTCMonth(), 1);
assertEq(d.getUTCDate(), 29);
assertEq(d.getUTCDay(), 6);
assertEq(d.getUTCHours() + d.getUTCMinutes() + d.getUTCSeconds(), 57);
assertEq(d.getUTCMilliseconds(), 250);
assertEq(d.toISOString(), '2020-02-29T12:30:15.250Z');
assertEq(d.toJSON(), '2020-02-29T12:30:15.250Z');
assertEq(d.getTime(), d.valueOf());
assertEq(Date.parse('2020-02-29T12:30:15.250Z'), d.getTime());
var e = new Date(d.getTime());
e.setUTCFullYear(2021);
e.setUTCMonth(0, 15);
e.setUTCHours(1, 2, 3, 4);
assertEq(e.toISOString(), '2021-01-15T01:02:03.004Z');
e.setTime(0);
assertEq(e.getTime(), 0);
assert(typeof Date.now() === 'number', 'now');
assert(typeof Date() === 'string', 'Date() string');
assert(isNaN(new Date('garbage').getTime()), 'invalid date');
assert(d.toUTCString().indexOf('2020') >= 0, 'toUTCString');
assert(typeof d.toString() === 'string' && typeof d.toDateString() === 'string', 'toString');
assert(typeof d.getFullYear() === 'number' && typeof d.getTimezoneOffset() === 'number', 'local getters');
assertEq(new Date(2020, 0, 1).getMonth(), 0);
assertEq(d[Symbol.toPrimitive]('number'), d.getTime());
