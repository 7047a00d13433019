try { var v0 = this.eval.name.length.valueOf(); } catch (e) {}
try { var v1 = this.Uint32Array.prototype.constructor.BYTES_PER_ELEMENT.toLocaleString(); } catch (e) {}
try { var v2 = this.encodeURI(["toString"].join.call(({}), "")); } catch (e) {}
try { var v3 = this.Array(2147483647); } catch (e) {}
try { var v4 = (new (this.Number)(v3)).valueOf(); } catch (e) {}
try { var v5 = this.BigUint64Array(73448, Symbol("😀"), undefined); } catch (e) {}
try { var v6 = (new (this.Function)("g", "-1", (9007199254740993n)[Symbol.toStringTag])).bind(null, [-18446744073709551617n, null, 31450].every.length); } catch (e) {}
