#!/usr/bin/env node
'use strict';
import def, { a as b, c } from "mod";
import * as ns from 'ns';
export { b as d };
export default function named() {}
export const e = 1;
label: for (let i = 0; i < 10; i++) { if (i) continue label; else break label; }
for (const k in obj) {}
for await (const v of gen()) {}
while (x) { x--; }
do { x++; } while (x < 3);
switch (y) { case 1: z(); break; default: w(); }
try { throw new Error("e"); } catch (err) { debugger; } finally { ; }
try {} catch {}
with (o) {}
var f = function* g() { yield 1; yield* h(); };
let arrow = async (p, ...rest) => { await p; return rest; };
let single = q => q ** 2;
class A extends B { static #priv = 1; static { init(); } constructor() { super(); this.x = new.target; } get v() { return this.#priv; } set v(n) {} async *m() {} static s() {} }
const obj2 = { a, b: 2, [c]: 3, ...rest, m() {}, get g() { return 1; }, 'str': 4, 5: 6 };
const [x1, , x2 = 3, ...xs] = arr;
const { p1, p2: { q1 }, p3 = 4, ...ps } = o;
let t = `tmpl ${a + b} \n end`;
let tagged = tag`x${1}`;
let re = /ab+c/gi;
let n = a ? b : c;
let m = a?.b?.[c]?.(d);
let u = typeof a, v2 = void 0, w2 = delete o.p, nn = !a, neg = -a, bn = ~a;
a ||= b; a &&= c; a ??= d; a += 1; a >>>= 2;
let s = (a, b), par = (a + b) * c;
let big = 123n, hex = 0xFF, flt = 1.5e3, esc = "\u0041\t";
let jsx = <div className="x" {...props}>text {expr}<br/><></></div>;
let imp = import("dyn");
let meta = import.meta.url;
let inst = a instanceof B, inn = 'x' in o;
let seq = [1, 2, ...xs];
if (a) b(); else if (c) d();
async function af() { for await (const z of y) {} }
function dflt(a = 1, { b } = {}, [c] = []) { return arguments; }
let nul = null, tr = true, fa = false, un = undefined, th = this;
new Foo;
let opt = a?.b;
/* block */ // line
