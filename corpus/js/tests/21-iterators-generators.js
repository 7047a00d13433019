function* count(n) { for (var i = 0; i < n; i++) yield i; return 'end'; }
var it = count(2);
assertEq(it.next().value, 0);
assertEq(it.next().value, 1);
var last = it.next();
assert(last.done && last.value === 'end', 'return value');
assertArrayEq([...count(3)], [0, 1, 2]);
var g = count(5);
assertEq(g.return(9).value, 9);
assertThrows(Error, function () { count(1).throw(new Error('x')); });
function* delegate() { yield* [1, 2]; yield* count(1); }
assertArrayEq(Array.from(delegate()), [1, 2, 0]);
var entries = Object.entries({ a: 1 })[Symbol.iterator]();
assertEq(entries.next().value[0], 'a');
var strIt = 'ab'[Symbol.iterator]();
assertEq(strIt.next().value, 'a');
var mapIt = new Map([[1, 2]]).entries();
assertEq(mapIt.next().value[1], 2);
var setIt = new Set([7]).values();
assertEq(setIt.next().value, 7);
var reIt = 'a1b2'.matchAll(/\d/g);
assertEq(reIt.next().value[0], '1');
var pairs = [];
for (var [k, v] of new Map([['x', 1]])) pairs.push(k + v);
assertEq(pairs[0], 'x1');
