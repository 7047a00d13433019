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
var log = [];
var p = Promise.resolve(1).then(function (x) { log.push(x); return x + 1; });
p.catch(function () {}).finally(function () {});
Promise.reject(new Error('no')).catch(function (e) { log.push(e.message); });
Promise.all([1, Promise.resolve(2)]).then(function (xs) { log.push(xs.length); });
Promise.allSettled([Promise.reject(1)]).then(function (rs) { log.push(rs[0].status); });
Promise.any([Promise.reject(1), Promise.resolve(3)]).then(function (x) { log.push(x); });
Promise.race([new Promise(function () {}), Promise.resolve(4)]).then(function (x) { log.push(x); });
var resolveLater;
var pending = new Promise(function (resolve) { resolveLater = resolve; });
resolveLater('done');
assert(pending instanceof Promise, 'promise');
if (typeof Promise.withResolvers === 'function') {
  var wr = Promise.withResolvers();
  wr.resolve(5);
  assert(wr.promise instanceof Promise, 'withResolvers');
}
async function asyncAdd(a, b) { return (await a) + b; }
assert(asyncAdd(1, 2) instanceof Promise, 'async function');
assertEq(log.length, 0, 'callbacks run later');
