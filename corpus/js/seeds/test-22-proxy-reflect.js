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
var target = { a: 1 };
var log = [];
var proxy = new Proxy(target, {
  get: function (t, k, r) { log.push('get ' + String(k)); return Reflect.get(t, k, r); },
  set: function (t, k, v, r) { log.push('set ' + k); return Reflect.set(t, k, v, r); },
  has: function (t, k) { return k === 'hidden' ? false : Reflect.has(t, k); },
  deleteProperty: function (t, k) { log.push('delete ' + k); return Reflect.deleteProperty(t, k); },
  ownKeys: function (t) { return Reflect.ownKeys(t); },
});
proxy.b = 2;
assertEq(proxy.a + proxy.b, 3);
assert(!('hidden' in proxy) && 'a' in proxy, 'has trap');
delete proxy.a;
assertArrayEq(Object.keys(proxy), ['b']);
assert(log.length >= 4, 'traps ran');
var callable = new Proxy(function (x) { return x; }, { apply: function (t, th, args) { return args[0] * 2; } });
assertEq(callable(21), 42);
var revocable = Proxy.revocable({}, {});
revocable.revoke();
assertThrows(TypeError, function () { return revocable.proxy.x; });
assertEq(Reflect.apply(Math.max, null, [1, 3, 2]), 3);
assertEq(Reflect.construct(Date, [0]).getTime(), 0);
assert(Reflect.defineProperty(target, 'c', { value: 3 }), 'defineProperty');
assertEq(Reflect.getOwnPropertyDescriptor(target, 'c').writable, false);
assertEq(Reflect.getPrototypeOf([]), Array.prototype);
assert(Reflect.setPrototypeOf({}, null), 'setPrototypeOf');
assert(Reflect.isExtensible(target) && Reflect.preventExtensions(target), 'extensible');
assert(!Reflect.isExtensible(target), 'not extensible');
assertArrayEq(Reflect.ownKeys({ z: 1 }), ['z']);
