function add(a, b) { return a + b; }
assertEq(add.call(null, 1, 2), 3);
assertEq(add.apply(null, [3, 4]), 7);
var add5 = add.bind(null, 5);
assertEq(add5(1), 6);
assertEq(add5.name, 'bound add');
assertEq(add.length, 2);
var f = new Function('x', 'y', 'return x * y');
assertEq(f(6, 7), 42);
var g = Function('return 1');
assertEq(g(), 1);
assert(add.toString().indexOf('return a + b') >= 0, 'toString');
assert(Function.prototype.toString.call(Math.max).indexOf('native code') >= 0, 'native toString');
assert(add instanceof Function, 'instanceof Function');
assert(Function.prototype[Symbol.hasInstance].call(Function, add), 'hasInstance');
var counter = (function () { var n = 0; return function () { return ++n; }; })();
counter();
assertEq(counter(), 2);
var arrow = (x) => x + 1;
assertEq([1, 2].map(arrow).join(), '2,3');
function rest(...args) { return args.length; }
assertEq(rest(1, 2, 3), 3);
function defaults(a, b = a * 2) { return b; }
assertEq(defaults(4), 8);
