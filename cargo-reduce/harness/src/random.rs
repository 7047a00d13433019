//! The stand-in's `getrandom`, in place of the C library's. std seeds each
//! thread's `RandomState` (every `HashMap` and `HashSet`) from it, as does
//! any other code that calls the C library's `getrandom`, and a map's
//! iteration order picks the code that runs after it. In a coverage
//! replay (`FLAG_FIXED_RANDOM`) the bytes are a fixed sequence, so that an
//! input's features are the same in every worker, run and machine;
//! otherwise they are the kernel's, as without the stand-in.
//!
//! std calls `getrandom` through a weak symbol so that a program can
//! interpose it ("e.g. for perf measurements that want to disable
//! randomness"); the program's own definition wins over the C library's.
//! Code that makes the system call itself (the `getrandom` crate's Linux
//! backend) or reads `/dev/urandom` is not covered. Under AddressSanitizer
//! ours is kept too: a sanitizer's interceptors are weak symbols on Linux
//! (and the runtime rustc ships has none for `getrandom`), so the
//! AddressSanitizer coverage build replays with the same sequence. A
//! companion stand-in leaves it out: its engine's stand-in defines it.
//!
//! The sequence's state is ordinary memory, so a test process that puts
//! its memory back between inputs (the snapshot) gives each input the
//! same bytes from the same point.

#[cfg(not(cargo_reduce_companion))]
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

#[cfg(not(cargo_reduce_companion))]
use crate::sys;

/// Whether `getrandom` gives the fixed sequence.
#[cfg(not(cargo_reduce_companion))]
static FIXED: AtomicBool = AtomicBool::new(false);

/// The fixed sequence's state (splitmix64), from an arbitrary constant.
#[cfg(not(cargo_reduce_companion))]
static STATE: AtomicU64 = AtomicU64::new(0x243f_6a88_85a3_08d3);

/// Makes `getrandom` give the fixed sequence from now on (or the
/// kernel's bytes), and keeps it in the program: the linker takes it from
/// the stand-in only if the stand-in's code refers to it.
pub fn fix(fixed: bool) {
    #[cfg(not(cargo_reduce_companion))]
    {
        FIXED.store(fixed, Ordering::Relaxed);
        std::hint::black_box(getrandom as *const ());
    }
    #[cfg(cargo_reduce_companion)]
    let _ = fixed;
}

/// The next eight bytes of the fixed sequence.
#[cfg(not(cargo_reduce_companion))]
fn next_word() -> u64 {
    let mut z = STATE
        .fetch_add(0x9e37_79b9_7f4a_7c15, Ordering::Relaxed)
        .wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// `getrandom(2)`, as the C library's: the fixed sequence when
/// [`fix`]ed, else the system call.
///
/// # Safety
/// As `getrandom`: `buf` is valid for `len` bytes of writes.
#[cfg(not(cargo_reduce_companion))]
#[no_mangle]
pub unsafe extern "C" fn getrandom(
    buf: *mut sys::c_void,
    len: sys::size_t,
    flags: sys::c_uint,
) -> sys::ssize_t {
    if !FIXED.load(Ordering::Relaxed) {
        // SAFETY: the caller's arguments, passed on.
        return unsafe { sys::syscall(sys::SYS_getrandom, buf, len, flags) as sys::ssize_t };
    }
    let out = buf.cast::<u8>();
    for start in (0..len).step_by(8) {
        let word = next_word().to_le_bytes();
        let n = (len - start).min(8);
        // SAFETY: `start + n <= len`, within the caller's buffer.
        unsafe { std::ptr::copy_nonoverlapping(word.as_ptr(), out.add(start), n) };
    }
    len as sys::ssize_t
}
