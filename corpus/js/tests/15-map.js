var m = new Map([['a', 1], ['b', 2]]);
assertEq(m.size, 2);
assertEq(m.set('c', 3), m);
assertEq(m.get('c'), 3);
assert(m.has('a') && !m.has('z'), 'has');
assert(m.delete('a') && !m.delete('a'), 'delete');
var keys = [];
m.forEach(function (v, k) { keys.push(k + v); });
assertArrayEq(keys, ['b2', 'c3']);
assertArrayEq(Array.from(m.keys()), ['b', 'c']);
assertArrayEq(Array.from(m.values()), [2, 3]);
assertArrayEq(Array.from(m.entries())[0], ['b', 2]);
assertArrayEq([...m][1], ['c', 3]);
var objKey = {};
m.set(objKey, 'obj').set(NaN, 'nan');
assertEq(m.get(objKey), 'obj');
assertEq(m.get(NaN), 'nan');
m.clear();
assertEq(m.size, 0);
// ES2024: guarded so the corpus also runs on older engines.
if (typeof Map.groupBy === 'function') {
  var grouped = Map.groupBy([1, 2, 3, 4], function (x) { return x % 2 ? 'odd' : 'even'; });
  assertArrayEq(grouped.get('odd'), [1, 3]);
}
