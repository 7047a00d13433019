// discover.js: engine discovery for the Prototype Graph.
//
// Walks everything reachable from `globalThis` breadth first, through own
// property names and symbols and through prototypes, and builds a Prototype
// Graph (the JSON form read by protograph's `Graph`). It never runs engine code
// on the objects it walks: properties are read with
// Object.getOwnPropertyDescriptor and only a data descriptor's `value` is
// looked at (accessors are recorded as such, their getters are not invoked),
// callability is `typeof`, and constructibility is tested by constructing a
// Proxy of the function whose `construct` trap returns at once.
//
// The script defines `__pgDiscover` (reused by learn.js) and its completion
// value is the discovered graph as a JSON string, so a host only has to print
// the value of evaluating it as a classic script.
//
// Object ids are JavaScript expressions relative to the global object, e.g.
// `Object.prototype` or `Object.getPrototypeOf(Int8Array)`; property paths are
// preferred over prototype paths. `{X}` is the type of objects whose prototype
// is X (instances); `*` in a signature id stands for an unknown type.
var __pgDiscover = (function () {
  'use strict';
  // Captured before anything can be wrapped by learn.js, and only ever called
  // through `apply`, so later wrapping never re-enters this code.
  var apply = Reflect.apply;
  var getOwnNames = Object.getOwnPropertyNames;
  var ownKeys = Reflect.ownKeys;
  var getDesc = Object.getOwnPropertyDescriptor;
  var getProto = Object.getPrototypeOf;
  var create = Object.create;
  var ProxyCtor = Proxy;
  var MapCtor = Map;
  var mapGet = Map.prototype.get;
  var mapSet = Map.prototype.set;
  var testIdent = RegExp.prototype.test;
  var stringify = JSON.stringify;
  var IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
  var ROOT = 'globalThis';
  var PRIMITIVES = ['undefined', 'null', 'boolean', 'number', 'string', 'symbol', 'bigint'];
  var SAMPLES = { boolean: false, number: 0, string: '', symbol: Symbol.iterator, bigint: 0n };

  function isObject(v) {
    return (typeof v === 'object' && v !== null) || typeof v === 'function';
  }

  function isIdent(key) {
    return apply(testIdent, IDENT, [key]);
  }

  /** protograph's own globals (`__pgDiscover`, `__pgLearn`) are not the engine's. */
  function isOwnGlobal(name) {
    return name.length > 4 && name[0] === '_' && name[1] === '_' && name[2] === 'p' && name[3] === 'g';
  }

  function isConstructor(f) {
    try {
      // The trap answers instead of f, so f's own code never runs.
      var probe = new ProxyCtor(f, { construct: function () { return {}; } });
      new probe();
      return true;
    } catch (e) {
      return false;
    }
  }

  function dataValue(desc) {
    return desc !== undefined && 'value' in desc ? desc.value : undefined;
  }

  function Walker() {
    this.ids = new MapCtor();
    this.objects = [];
    this.next = 0;
    this.protoScan = 0;
    this.symbols = new MapCtor();
    this.edgeKeys = create(null);
    this.graph = { root: ROOT, types: create(null), signatures: create(null), edges: [] };
    var wellKnown = getOwnNames(Symbol);
    for (var i = 0; i < wellKnown.length; i++) {
      var sym = dataValue(getDesc(Symbol, wellKnown[i]));
      if (typeof sym === 'symbol') apply(mapSet, this.symbols, [sym, wellKnown[i]]);
    }
    for (var j = 0; j < PRIMITIVES.length; j++) this.type(PRIMITIVES[j]);
  }

  /** The id of a known object, or undefined. */
  Walker.prototype.idOf = function (obj) {
    return apply(mapGet, this.ids, [obj]);
  };

  /** Adds a type vertex (once) and returns its record. */
  Walker.prototype.type = function (id) {
    var t = this.graph.types[id];
    if (t === undefined) {
      t = { accessors: [] };
      this.graph.types[id] = t;
    }
    return t;
  };

  Walker.prototype.signature = function (id, arity) {
    if (this.graph.signatures[id] === undefined) this.graph.signatures[id] = { arity: arity };
  };

  /** Adds an edge once; `extra` is the label field (`name` or `index`). */
  Walker.prototype.edge = function (kind, from, to, label, value) {
    var key = kind + '\u0000' + from + '\u0000' + to + '\u0000' + (label ? value : '');
    if (this.edgeKeys[key]) return;
    this.edgeKeys[key] = true;
    var e = { kind: kind, from: from, to: to };
    if (label) e[label] = value;
    var edges = this.graph.edges;
    edges[edges.length] = e;
  };

  /** Names a new object and queues it for the walk. */
  Walker.prototype.add = function (obj, id) {
    apply(mapSet, this.ids, [obj, id]);
    this.objects[this.objects.length] = obj;
    this.type(id);
    return id;
  };

  /** The edge label of a property key, or undefined for unnamed symbols. */
  Walker.prototype.label = function (key) {
    if (typeof key !== 'symbol') return key;
    var name = apply(mapGet, this.symbols, [key]);
    return name === undefined ? undefined : '@@' + name;
  };

  Walker.prototype.childId = function (parent, key) {
    if (typeof key === 'symbol') {
      return parent + '[Symbol.' + apply(mapGet, this.symbols, [key]) + ']';
    }
    if (isIdent(key)) return parent === ROOT ? key : parent + '.' + key;
    return parent + '[' + stringify(key) + ']';
  };

  /** Records the own properties of one object, naming new objects found. */
  Walker.prototype.visit = function (obj) {
    var id = this.idOf(obj);
    var keys = ownKeys(obj);
    for (var i = 0; i < keys.length; i++) {
      var label = this.label(keys[i]);
      if (label === undefined || (obj === globalThis && isOwnGlobal(label))) continue;
      var desc;
      try {
        desc = getDesc(obj, keys[i]);
      } catch (e) {
        continue;
      }
      if (desc === undefined) continue;
      if (!('value' in desc)) {
        var acc = this.type(id).accessors;
        acc[acc.length] = label;
        continue;
      }
      var v = desc.value;
      var target;
      if (isObject(v)) {
        target = this.idOf(v);
        if (target === undefined) target = this.add(v, this.childId(id, keys[i]));
      } else {
        target = v === null ? 'null' : typeof v;
      }
      this.edge('property', id, target, 'name', label);
    }
  };

  /** Walks breadth first from the objects added so far until nothing is new. */
  Walker.prototype.run = function () {
    for (;;) {
      while (this.next < this.objects.length) this.visit(this.objects[this.next++]);
      // Only once no property path is left, name prototypes by their object.
      var named = false;
      for (; this.protoScan < this.objects.length; this.protoScan++) {
        var o = this.objects[this.protoScan];
        var p = getProto(o);
        if (p !== null && this.idOf(p) === undefined) {
          this.add(p, 'Object.getPrototypeOf(' + this.idOf(o) + ')');
          named = true;
        }
      }
      if (!named) return this;
    }
  };

  /** Starts (or continues) the walk at `obj` named `id`. */
  Walker.prototype.walkFrom = function (obj, id) {
    if (this.idOf(obj) === undefined) this.add(obj, id);
    return this.run();
  };

  /** Adds proto edges and signatures for every object named so far. */
  Walker.prototype.finish = function () {
    for (var k in SAMPLES) {
      var wrapper = this.idOf(getProto(SAMPLES[k]));
      if (wrapper !== undefined) this.edge('proto', k, wrapper);
    }
    for (var i = 0; i < this.objects.length; i++) {
      var o = this.objects[i];
      var id = this.idOf(o);
      var p = getProto(o);
      if (p !== null) this.edge('proto', id, this.idOf(p));
      if (typeof o !== 'function') continue;
      var length = dataValue(getDesc(o, 'length'));
      var arity = typeof length === 'number' && length >= 0 && length < 16 ? length : 0;
      var params = '';
      for (var a = 0; a < arity; a++) params += (a ? ', *' : '*');
      var sig = 'call(*' + (arity ? '; ' + params : '') + ') -> *';
      this.signature(sig, arity);
      this.edge('call', id, sig);
      if (isConstructor(o)) {
        var proto = dataValue(getDesc(o, 'prototype'));
        var ret = isObject(proto) && this.idOf(proto) !== undefined ? this.instance(this.idOf(proto)) : '*';
        var newSig = 'new(' + params + ') -> ' + ret;
        this.signature(newSig, arity);
        this.edge('construct', id, newSig);
        if (ret !== '*') this.edge('return', newSig, ret);
      }
    }
    return this.graph;
  };

  /** The instance type `{P}` of a named prototype P, with its proto edge. */
  Walker.prototype.instance = function (protoId) {
    var id = '{' + protoId + '}';
    this.type(id);
    this.edge('proto', id, protoId);
    return id;
  };

  return {
    Walker: Walker,
    isObject: isObject,
    /** Discovers the whole engine and returns the graph object. */
    discover: function () {
      var w = new Walker();
      w.add(globalThis, ROOT);
      return w.run().finish();
    },
  };
})();

JSON.stringify(__pgDiscover.discover());
