var arr = structuredCloneFree([1, 2]);
function structuredCloneFree(x) { return JSON.parse(JSON.stringify(x)); }
assertArrayEq(arr, [1, 2]);
assertEq(Array.prototype.concat.call([], arr).length, 2);
assertEq(Object.prototype.toString.call(new Date(0)), '[object Date]');
assertEq(Object.prototype.toString.call(/x/), '[object RegExp]');
assertEq(Object.prototype.toString.call(function () {}), '[object Function]');
assertEq(Object.prototype.toString.call(new Map()), '[object Map]');
// Iterator helpers and Set methods are ES2025: guarded for older engines.
if (typeof Iterator === 'function' && typeof Iterator.from === 'function') {
  var it = [1, 2, 3, 4].values().map(function (x) { return x * 2; }).filter(function (x) { return x > 2; });
  assertArrayEq(it.toArray(), [4, 6, 8]);
  assertEq([5, 6].values().take(1).toArray()[0], 5);
  assertEq([5, 6].values().drop(1).toArray()[0], 6);
  assertEq([1, 2].values().reduce(function (a, b) { return a + b; }), 3);
  assert([1, 2].values().some(function (x) { return x === 2; }), 'iterator some');
  assertEq(Iterator.from({ next: function () { return { done: true }; } }).toArray().length, 0);
}
if (typeof Set.prototype.union === 'function') {
  var union = new Set([1, 2]).union(new Set([3]));
  assertEq(union.size, 3);
  assertEq(new Set([1, 2]).intersection(new Set([2])).size, 1);
}
