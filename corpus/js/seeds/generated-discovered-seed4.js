try { var v0 = this.Math.sinh.name.search(null); } catch (e) {}
try { var v1 = this.Array(9007199254740991); } catch (e) {}
try { var v2 = this.Array.prototype.includes.length.toPrecision(true); } catch (e) {}
try { var v3 = new (this.FinalizationRegistry)(undefined); } catch (e) {}
try { var v4 = v3.constructor.length.toString("(a|b)*c+"); } catch (e) {}
try { var v5 = this.AggregateError.name.toLocaleLowerCase(); } catch (e) {}
try { var v6 = this.AggregateError.name.constructor.prototype.lastIndexOf(null); } catch (e) {}
try { var v7 = new (this.isFinite.bind.length.constructor)(-18446744073709551617n); } catch (e) {}
