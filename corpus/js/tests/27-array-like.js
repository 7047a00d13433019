var like = { length: 3, 0: 'a', 1: 'b', 2: 'c' };
assertEq(Array.prototype.join.call(like, '+'), 'a+b+c');
assertArrayEq(Array.prototype.map.call(like, function (x) { return x.toUpperCase(); }), ['A', 'B', 'C']);
assertArrayEq(Array.prototype.slice.call('xyz', 1), ['y', 'z']);
assertEq(Array.prototype.indexOf.call(like, 'c'), 2);
Array.prototype.push.call(like, 'd');
assertEq(like.length, 4);
assertArrayEq(Array.from(like), ['a', 'b', 'c', 'd']);
function args() { return Array.prototype.slice.call(arguments); }
assertArrayEq(args(1, 2), [1, 2]);
assertEq(Array.prototype.filter.call('hello', function (c) { return c === 'l'; }).length, 2);
assertEq(String.prototype.toUpperCase.call(true), 'TRUE');
assertEq(Number.prototype.toString.call(255, 16), 'ff');
assertArrayEq(Array.prototype.concat.call(1, 2).map(function (x) { return typeof x; }), ['object', 'number']);
