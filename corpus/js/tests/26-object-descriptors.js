var o = {};
Object.defineProperties(o, {
  ro: { value: 1, writable: false, enumerable: true },
  acc: { get: function () { return 2; }, set: function (v) { this._v = v; }, configurable: true },
});
var descs = Object.getOwnPropertyDescriptors(o);
assertEq(descs.ro.writable, false);
assertEq(typeof descs.acc.get, 'function');
assertEq(o.acc, 2);
o.acc = 9;
assertEq(o._v, 9);
var sealed = Object.seal({ s: 1 });
assert(Object.isSealed(sealed) && !Object.isFrozen(sealed), 'sealed');
var frozen = Object.freeze([1, 2]);
assert(Object.isFrozen(frozen), 'frozen');
var fixed = Object.preventExtensions({ f: 1 });
assert(!Object.isExtensible(fixed), 'preventExtensions');
assertEq(Object.getOwnPropertyDescriptor(Array.prototype, 'length').writable, true);
if (typeof Object.groupBy === 'function') {
  var grouped = Object.groupBy(['ant', 'bee', 'cat'], function (w) { return w.length; });
  assertEq(grouped[3].length, 3);
}
assertEq(Object.entries(Object.getOwnPropertyDescriptor(Math, 'PI')).length, 4);
