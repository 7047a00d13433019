//! AFL++'s IJON annotations (afl.rs 0.16 and later) steer the fuzzer's
//! search; a reduction has no search to steer, so they do nothing here.
//! The functions have the signatures of afl-compiler-rt's, and each macro
//! expands as afl.rs's does (its arguments inside its `unsafe` block,
//! passed to functions of the same types): code that builds with afl.rs
//! builds here, unedited and without new warnings. Where afl.rs's own
//! expansion does not compile (`ijon_max!` names an undefined
//! `_IJON_LOC_CACHE`; `ijon_bits!`, `ijon_dist!`, `ijon_strdist!` and
//! `ijon_cmp!` call two-argument functions with one) this one does. The two variadic functions
//! cannot be written in stable Rust: they are declared as afl.rs declares
//! them and defined below as a bare return.

macro_rules! ijon_no_ops {
    ($( fn $name:ident($($arg:ident: $ty:ty),*) $(-> $ret:ty = $value:expr)?; )*) => {
        $(
            /// An IJON annotation: does nothing in a reduction.
            ///
            /// # Safety
            /// None needed; `unsafe` as afl.rs declares it.
            #[allow(unused_variables)]
            pub unsafe fn $name($($arg: $ty),*) $(-> $ret)? {
                $($value)?
            }
        )*
    };
}

ijon_no_ops! {
    fn ijon_max(addr: u32, val: u64);
    fn ijon_min(addr: u32, val: u64);
    fn ijon_set(addr: u32, val: u32);
    fn ijon_inc(addr: u32, val: u32);
    fn ijon_xor_state(val: u32);
    fn ijon_reset_state();
    fn ijon_simple_hash(x: u64) -> u64 = x;
    fn ijon_hashint(old: u32, val: u32) -> u32 = old ^ val;
    fn ijon_hashstr(old: u32, val: *const std::os::raw::c_char) -> u32 = old;
    fn ijon_hashmen(old: u32, val: *const u8, len: usize) -> u32 = old;
    fn ijon_hashstack_backtrace() -> u32 = 0;
    fn ijon_hashstack() -> u32 = 0;
    fn ijon_strdist(a: *const u8, b: *const u8) -> u32 = 0;
    fn ijon_memdist(a: *const u8, b: *const u8, len: usize) -> u32 = 0;
}

extern "C" {
    /// An IJON annotation (variadic): does nothing in a reduction.
    pub fn ijon_max_variadic(addr: u32, ...);
    /// An IJON annotation (variadic): does nothing in a reduction.
    pub fn ijon_min_variadic(addr: u32, ...);
}

// A C variadic call may simply return; the symbols are defined only here
// (`ret` is the return on x86 and on AArch64 alike).
#[cfg(any(target_arch = "x86_64", target_arch = "x86", target_arch = "aarch64"))]
std::arch::global_asm!(
    ".globl ijon_max_variadic",
    ".globl ijon_min_variadic",
    "ijon_max_variadic:",
    "ijon_min_variadic:",
    "ret",
);

/// Calls the IJON function `$f` with address 0 and the arguments, as
/// every IJON macro that records at its own place does.
#[doc(hidden)]
#[macro_export]
macro_rules! __ijon_call {
    ($f:ident, $($x:expr),+) => {{
        unsafe { $crate::$f(0, $($x),+) };
    }};
}

/// IJON: counts `$x` (a `u32`) at this place; nothing here.
#[macro_export]
macro_rules! ijon_inc {
    ($x:expr) => {
        $crate::__ijon_call!(ijon_inc, $x)
    };
}

/// IJON: sets `$x` (a `u32`) at this place; nothing here.
#[macro_export]
macro_rules! ijon_set {
    ($x:expr) => {
        $crate::__ijon_call!(ijon_set, $x)
    };
}

/// IJON: the largest of the values (C variadic arguments); nothing here.
#[macro_export]
macro_rules! ijon_max {
    ($($x:expr),+ $(,)?) => {
        $crate::__ijon_call!(ijon_max_variadic, $($x),+, 0u64)
    };
}

/// IJON: the smallest of the values (C variadic arguments); nothing here.
#[macro_export]
macro_rules! ijon_min {
    ($($x:expr),+ $(,)?) => {
        $crate::__ijon_call!(ijon_min_variadic, $($x),+, 0u64)
    };
}

/// IJON: mixes `$n` (a `u32`) into the state; nothing here.
#[macro_export]
macro_rules! ijon_state {
    ($n:expr) => {
        unsafe { $crate::ijon_xor_state($n) }
    };
}

/// IJON: the value of `$x`, evaluated outside the macro's `unsafe` (as in
/// afl.rs).
#[macro_export]
macro_rules! ijon_ctx {
    ($x:expr) => {{
        unsafe { $crate::ijon_xor_state(0) };
        let temp = $x;
        unsafe { $crate::ijon_xor_state(0) };
        temp
    }};
}

/// IJON: the largest `$x` (a `u64`) at `$addr`; nothing here.
#[macro_export]
macro_rules! ijon_max_at {
    ($addr:expr, $x:expr) => {
        unsafe { $crate::ijon_max($addr, $x) }
    };
}

/// IJON: the smallest `$x` (a `u64`) at `$addr`; nothing here.
#[macro_export]
macro_rules! ijon_min_at {
    ($addr:expr, $x:expr) => {
        unsafe { $crate::ijon_min($addr, $x) }
    };
}

/// IJON: the distance of two numbers, as afl.rs computes it.
#[doc(hidden)]
#[macro_export]
macro_rules! _ijon_abs_dist {
    ($x:expr, $y:expr) => {
        if $x < $y {
            $y - $x
        } else {
            $x - $y
        }
    };
}

/// IJON: the leading zeros of `$x`; nothing here.
#[macro_export]
macro_rules! ijon_bits {
    ($x:expr) => {
        unsafe {
            $crate::ijon_set(
                $crate::ijon_hashint(
                    $crate::ijon_hashstack(),
                    if $x == 0 {
                        0
                    } else {
                        $x.leading_zeros() as u32
                    },
                ),
                0,
            )
        }
    };
}

/// IJON: the distance of two C strings; nothing here.
#[macro_export]
macro_rules! ijon_strdist {
    ($x:expr, $y:expr) => {
        unsafe {
            $crate::ijon_set(
                $crate::ijon_hashint($crate::ijon_hashstack(), $crate::ijon_strdist($x, $y)),
                0,
            )
        }
    };
}

/// IJON: the distance of two `u32`s; nothing here.
#[macro_export]
macro_rules! ijon_dist {
    ($x:expr, $y:expr) => {
        unsafe {
            $crate::ijon_set(
                $crate::ijon_hashint($crate::ijon_hashstack(), $crate::_ijon_abs_dist!($x, $y)),
                0,
            )
        }
    };
}

/// IJON: the bits two numbers share; nothing here.
#[macro_export]
macro_rules! ijon_cmp {
    ($x:expr, $y:expr) => {
        unsafe {
            $crate::ijon_inc(
                $crate::ijon_hashint($crate::ijon_hashstack(), ($x ^ $y).count_ones()),
                0,
            )
        }
    };
}

/// IJON: the largest `$x` (a `u64`) per call stack; nothing here.
#[macro_export]
macro_rules! ijon_stack_max {
    ($x:expr) => {{
        unsafe { $crate::ijon_max($crate::ijon_hashint(0, $crate::ijon_hashstack()), $x) };
    }};
}

/// IJON: the smallest `$x` (a `u64`) per call stack; nothing here.
#[macro_export]
macro_rules! ijon_stack_min {
    ($x:expr) => {{
        unsafe { $crate::ijon_min($crate::ijon_hashint(0, $crate::ijon_hashstack()), $x) };
    }};
}
