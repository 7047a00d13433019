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
var i8 = new Int8Array([1, 2, 3, 200]);
assertEq(i8[3], -56);
assertEq(Uint8Array.from([1, 2, 3]).length, 3);
assertEq(Uint16Array.of(65535, 65536)[1], 0);
var u8c = new Uint8ClampedArray([300, -5]);
assertArrayEq(Array.from(u8c), [255, 0]);
var f32 = new Float32Array(4);
f32.set([1.5, 2.5], 1);
assertArrayEq(Array.from(f32), [0, 1.5, 2.5, 0]);
assertArrayEq(Array.from(f32.subarray(1, 3)), [1.5, 2.5]);
var f64 = new Float64Array([3, 1, 2]).sort();
assertArrayEq(Array.from(f64), [1, 2, 3]);
assertArrayEq(Array.from(new Int16Array(3).fill(-2)), [-2, -2, -2]);
assertArrayEq(Array.from(new Int32Array([1, 2]).map(function (x) { return x * 3; })), [3, 6]);
assertEq(new Uint32Array([1, 2, 3]).reduce(function (a, b) { return a + b; }), 6);
assertEq(new BigInt64Array([5n])[0], 5n);
assertEq(new BigUint64Array([-1n])[0], 18446744073709551615n);
assertEq(new Int8Array([1, 2, 3]).indexOf(2), 1);
assertEq(new Int8Array([1, 2, 3]).join('|'), '1|2|3');
assertEq(new Int8Array([1, 2, 3]).slice(1).length, 2);
assertEq(new Int8Array(8).byteLength, 8);
assertEq(Int32Array.BYTES_PER_ELEMENT, 4);
assertEq(new Float64Array(2).buffer.byteLength, 16);
assertEq(new Uint8Array([1, 2, 3]).at(-1), 3);
assertArrayEq(Array.from(new Uint8Array([3, 1, 2]).toSorted()), [1, 2, 3]);
