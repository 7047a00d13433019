try { var v0 = new (this.DataView)(null); } catch (e) {}
try { var v1 = this.parseInt(false, null); } catch (e) {}
try { var v2 = this.Reflect.preventExtensions.length.toLocaleString(); } catch (e) {}
try { var v3 = this.isFinite[Symbol.hasInstance](v2); } catch (e) {}
try { var v4 = this.parseInt.name.trimStart(); } catch (e) {}
try { var v5 = this.ReferenceError.prototype.toString.constructor(undefined); } catch (e) {}
try { var v6 = this.Function.apply.apply("length", Symbol("-1")); } catch (e) {}
try { var v7 = this.Infinity.constructor.MAX_SAFE_INTEGER.toLocaleString(); } catch (e) {}
