try { var v0 = this.BigInt64Array(true, -1n, 9007199254740993n); } catch (e) {}
try { var v1 = this.SharedArrayBuffer.prototype.valueOf(); } catch (e) {}
try { var v2 = this.SyntaxError.name.charAt(v0); } catch (e) {}
try { var v3 = this.NaN.constructor.NaN.toFixed(v2); } catch (e) {}
try { var v4 = this.ArrayBuffer.prototype.constructor(""); } catch (e) {}
try { var v5 = this.Atomics.store.length.toExponential(v1); } catch (e) {}
try { var v6 = new (this.Float16Array)(v1, "abc", this.Math.fround); } catch (e) {}
try { var v7 = v6.BYTES_PER_ELEMENT.toFixed.toString(); } catch (e) {}
