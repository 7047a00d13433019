#![allow(dead_code)]
//! Inner doc.
/// Outer doc.
#[derive(Debug)]
pub(crate) struct S<'a, T: Clone + 'a, const N: usize> where T: Default { pub f: &'a T, g: [u8; N] }
struct Tuple(pub u8, i32);
struct Unit;
enum E { A, B(u8), C { x: i32 } = 3 }
union U { a: u32, b: f32 }
type Alias<T> = Vec<T>;
const C: u8 = 1;
static mut M: &str = "s";
trait Tr: Sized { type Out; const K: u8; fn m(&self) -> Self::Out; fn d() {} }
impl<T> Tr for S<'_, T, 3> where T: Clone + Default { type Out = (); const K: u8 = 0; fn m(&self) {} }
extern "C" { fn ext(x: i32) -> i32; }
extern crate alloc;
mod inner { pub use super::*; use std::{io::{self, Read}, fmt as f}; }
macro_rules! mac { ($x:expr) => { $x }; ($($t:tt)*) => {}; }
unsafe fn uf() {}
async fn af() -> impl Future<Output = ()> { async move {}.await }
fn generic<T: ?Sized + for<'b> Fn(&'b u8) -> u8>(t: &T) -> dyn Fn() { todo!() }
fn all(mut a: i32, (b, c): (u8, u8), _: u8) -> ! {
    let x: Option<&mut [u8]> = None;
    let y = if a > 0 { 1 } else if a < 0 { -1 } else { 0 };
    let z = match x { Some(ref v) if v.len() > 1 => 1, None | Some(_) => 2, };
    let w = loop { break 'outer; };
    'outer: for i in 0..10 { while let Some(q) = it.next() { continue; } }
    let cl = |p: u8, q| -> u8 { p + q };
    let mv = move || a;
    let arr = [0u8; 4];
    let tup = (1, 2.5, 'c', b'b', "s", b"bs", r"raw", r#"raw2"#, true);
    let st = S { f: &t, g: arr, ..Default::default() };
    let Tuple(p, ..) = tup;
    let S { f, g: _, .. } = st;
    let r = &mut a as *const i32;
    let d = *r;
    let ix = arr[1..=2].len();
    let ty = <Vec<u8> as IntoIterator>::into_iter(vec![1, 2]);
    let tf = a?.b.0;
    let un = unsafe { uf() };
    let bl = { 1 };
    let ne = !a; let ng = -a;
    a += 1; a <<= 2;
    let lit = 1_000u64 + 0xff + 0o7 + 0b1 + 1e10 as u64;
    let rng = ..; let rng2 = 1..;
    let tryb = try_fn()?;
    let gen = Vec::<u8>::new();
    let m = mac!(1);
    let fp: fn(u8) -> u8 = id;
    let slice: &[u8] = &[];
    let ptr: *mut u8 = std::ptr::null_mut();
    let tup_t: (u8,) = (1,);
    let never: ! = panic!();
    let abs = crate::x::y;
    let sf = self::z; let sp = super::w;
    let l = 'l';
    let nested = Some(Some(1));
    if let Some(Some(n)) = nested { }
    let lt: &'static str = "";
    let yieldy = async { 1 };
    let cst = const { 1 };
    return;
}
impl E { pub const fn new() -> Self { Self::A } }
/* block */
