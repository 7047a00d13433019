// learn.js: learning signatures from tests, for the Prototype Graph.
//
// Needs discover.js evaluated first (it defines __pgDiscover). Calling
// `__pgLearn(tests)` with an array of {name, source}:
//   1. discovers the engine, naming every builtin object;
//   2. replaces every builtin function (and accessor getter) reachable from
//      globalThis with a Proxy whose apply and construct traps record the
//      types of `this`, the arguments and the result of each call that
//      returns normally;
//   3. runs each test with indirect eval, in order, in the same realm (a test
//      that throws is reported and the next one still runs);
//   4. returns, as a JSON string, {graph, failures}: the discovered graph plus
//      one signature vertex per distinct observed (callee, types) tuple, with
//      its call/construct, parameter and return edges.
//
// The traps call nothing but functions captured before wrapping, and a
// re-entrancy flag turns recording off while a trap is recording, so the
// wrappers never observe themselves. Objects whose prototype has a
// Symbol.toStringTag but no name yet (iterators, generators) get the name
// `%Tag%` the first time they are seen, and their prototype is discovered and
// wrapped on the spot so later calls on it are observed too.
var __pgLearn = (function (pg) {
  'use strict';
  var apply = Reflect.apply;
  var construct = Reflect.construct;
  var defineProperty = Object.defineProperty;
  var getDesc = Object.getOwnPropertyDescriptor;
  var ownKeys = Reflect.ownKeys;
  var getProto = Object.getPrototypeOf;
  var create = Object.create;
  var ProxyCtor = Proxy;
  var mapGet = Map.prototype.get;
  var mapSet = Map.prototype.set;
  var indirectEval = eval;
  var stringify = JSON.stringify;
  var toStringTag = Symbol.toStringTag;
  var MAX_ARGS = 8;
  var MAX_DEPTH = 4;

  var walker;
  var wrappers;
  // Wrapped getter functions, to the property label they read.
  var getters;
  var wrappedUpTo;
  var seen;
  // True while recording (and after the tests): traps then only forward.
  var busy = true;

  function idOf(v) {
    return walker.idOf(v);
  }

  /** The Prototype Graph type of a value. */
  function typeName(v, depth) {
    if (v === null) return 'null';
    if (!pg.isObject(v)) return typeof v;
    var id = idOf(v);
    if (id !== undefined) return id;
    var p;
    try {
      p = getProto(v);
    } catch (e) {
      return 'Object.prototype';
    }
    if (p === null) return instance('null');
    var pid = idOf(p);
    if (pid === undefined) pid = nameTagged(p);
    if (pid === undefined) {
      if (depth >= MAX_DEPTH) return 'Object.prototype';
      pid = typeName(p, depth + 1);
    }
    return instance(pid);
  }

  function instance(protoId) {
    if (protoId === 'null') {
      walker.type('{null}');
      return '{null}';
    }
    return walker.instance(protoId);
  }

  /** Names (and walks and wraps) an unnamed builtin prototype, if tagged. */
  function nameTagged(p) {
    var desc = getDesc(p, toStringTag);
    if (desc === undefined || typeof desc.value !== 'string') return undefined;
    var id = '%' + desc.value + '%';
    if (walker.graph.types[id] !== undefined) return undefined;
    walker.walkFrom(p, id);
    wrapNew();
    return id;
  }

  function record(kind, target, thisArg, args, result) {
    var self = typeName(thisArg, 0);
    var ret = typeName(result, 0);
    var getter = apply(mapGet, getters, [target]);
    if (getter !== undefined) {
      // A getter's result types the property itself.
      walker.edge('property', self, ret, 'name', getter);
      return;
    }
    var callee = idOf(target);
    var n = args.length < MAX_ARGS ? args.length : MAX_ARGS;
    var types = [];
    for (var i = 0; i < n; i++) types[i] = typeName(args[i], 0);
    var list = '';
    for (var j = 0; j < n; j++) list += (j ? ', ' : '') + types[j];
    var sig = kind === 'call' ? 'call(' + self + (n ? '; ' + list : '') + ') -> ' + ret : 'new(' + list + ') -> ' + ret;
    var key = callee + '\u0000' + sig;
    if (seen[key]) return;
    seen[key] = true;
    walker.signature(sig, n);
    walker.edge(kind === 'call' ? 'call' : 'construct', callee, sig);
    if (kind === 'call') walker.edge('parameter', self, sig, 'index', 0);
    for (var k = 0; k < n; k++) walker.edge('parameter', types[k], sig, 'index', k + 1);
    walker.edge('return', sig, ret);
  }

  /** Records a call that returned `result` (unless already recording). */
  function observed(kind, target, thisArg, args, result) {
    if (!busy) {
      busy = true;
      try {
        record(kind, target, thisArg, args, result);
      } finally {
        busy = false;
      }
    }
    return result;
  }

  var handler = {
    apply: function (target, thisArg, args) {
      return observed('call', target, thisArg, args, apply(target, thisArg, args));
    },
    construct: function (target, args, newTarget) {
      return observed('new', target, undefined, args, construct(target, args, newTarget));
    },
  };

  /** The (cached) Proxy standing for builtin function f. */
  function wrapper(f) {
    var w = apply(mapGet, wrappers, [f]);
    if (w === undefined) {
      w = new ProxyCtor(f, handler);
      apply(mapSet, wrappers, [f, w]);
      apply(mapSet, walker.ids, [w, idOf(f)]);
    }
    return w;
  }

  function wrapProperty(obj, key) {
    var desc = getDesc(obj, key);
    if (desc === undefined || !desc.configurable) return;
    if ('value' in desc) {
      if (typeof desc.value !== 'function' || desc.value === indirectEval) return;
      if (idOf(desc.value) === undefined) return;
      desc.value = wrapper(desc.value);
    } else if (typeof desc.get === 'function' && apply(mapGet, getters, [desc.get]) !== undefined) {
      desc.get = wrapper(desc.get);
    } else {
      return;
    }
    try {
      defineProperty(obj, key, desc);
    } catch (e) {
      // Exotic objects may refuse; their functions just go unobserved.
    }
  }

  /** Wraps the functions held by objects named since the last call. */
  function wrapNew() {
    var objects = walker.objects;
    for (; wrappedUpTo < objects.length; wrappedUpTo++) {
      var o = objects[wrappedUpTo];
      noteGetters(o);
      var keys = ownKeys(o);
      for (var i = 0; i < keys.length; i++) wrapProperty(o, keys[i]);
    }
  }

  return function learn(tests) {
    walker = new pg.Walker();
    walker.add(globalThis, walker.graph.root);
    walker.run();
    wrappers = new Map();
    getters = new Map();
    wrappedUpTo = 0;
    seen = create(null);
    wrapNew();
    var failures = [];
    for (var t = 0; t < tests.length; t++) {
      busy = false;
      try {
        indirectEval(tests[t].source);
      } catch (e) {
        busy = true;
        failures[failures.length] = { name: tests[t].name, error: describe(e) };
      }
      busy = true;
    }
    return stringify({ graph: walker.finish(), failures: failures });
  };

  /** Remembers the property label of each getter of `obj`. */
  function noteGetters(obj) {
    var keys = ownKeys(obj);
    for (var i = 0; i < keys.length; i++) {
      var desc = getDesc(obj, keys[i]);
      var label = walker.label(keys[i]);
      if (desc !== undefined && typeof desc.get === 'function' && label !== undefined) {
        apply(mapSet, getters, [desc.get, label]);
      }
    }
  }

  function describe(e) {
    try {
      return pg.isObject(e) ? String(e.name) + ': ' + String(e.message) : String(e);
    } catch (err) {
      return 'unprintable exception';
    }
  }
})(__pgDiscover);
