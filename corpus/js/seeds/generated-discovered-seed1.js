try { var v0 = this.BigUint64Array.name.toUpperCase.toString(); } catch (e) {}
try { var v1 = this.Int16Array(v0, "valueOf", "prototype"); } catch (e) {}
try { var v2 = this.EvalError(Symbol("-1")); } catch (e) {}
try { var v3 = this.ArrayBuffer.isView.name.substring(this.Math.sign, 22140); } catch (e) {}
try { var v4 = this.NaN.constructor.prototype.constructor.isSafeInteger(null); } catch (e) {}
try { var v5 = new (this.URIError)(v4); } catch (e) {}
try { var v6 = this.Atomics.exchange.toString.bind("constructor"); } catch (e) {}
try { var v7 = this.isFinite(-1n); } catch (e) {}
