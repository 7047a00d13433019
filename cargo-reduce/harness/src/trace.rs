//! The call path of a panic: the return addresses on the panicking thread's
//! stack, as offsets into the target binary, so that the parent (which has
//! the binary and its debug information) can name the functions. Naming
//! them here would cost a symbolizer in every worker and milliseconds per
//! panic; unwinding costs microseconds, and the parent names each address
//! once.
//!
//! The stack is walked with the unwinder that Rust's panics use already
//! (`_Unwind_Backtrace`, from libgcc_s or libunwind, which std links), so
//! the stand-in needs no new dependency in the user's lock file. The walk
//! allocates nothing ([`Frames`]), so signal handlers and the allocator
//! use it too; from a signal handler it goes on through the kernel's signal
//! frame into the interrupted code (glibc's and musl's `__restore_rt` carry
//! unwind information, and libgcc knows the trampoline besides), and
//! [`capture_from`] starts it at the interrupted instruction.

use crate::sys::{self, c_int, c_void};
use std::sync::atomic::{AtomicU64, Ordering};

/// Most return addresses kept: the panic machinery takes about ten frames,
/// the rest is the user's code, of which the parent keeps the top few.
pub const MAX_FRAMES: usize = 40;

/// The binary's load bias (0 for a non-PIE executable): an address minus
/// it is the binary's own virtual address, which the debug information uses.
static BIAS: AtomicU64 = AtomicU64::new(0);
/// The binary's loaded addresses, [LOW, HIGH): frames outside (libc, the
/// unwinder, the vDSO) are left out.
static LOW: AtomicU64 = AtomicU64::new(0);
static HIGH: AtomicU64 = AtomicU64::new(0);

#[repr(C)]
struct UnwindContext {
    _private: [u8; 0],
}

type TraceFn = extern "C" fn(*mut UnwindContext, *mut c_void) -> c_int;

/// `_URC_NO_REASON`: go on walking.
const URC_NO_REASON: c_int = 0;
/// `_URC_FAILURE`: stop walking (the buffer is full).
const URC_FAILURE: c_int = 9;

extern "C" {
    fn _Unwind_Backtrace(trace: TraceFn, arg: *mut c_void) -> c_int;
    fn _Unwind_GetIPInfo(context: *mut UnwindContext, ip_before_insn: *mut c_int) -> usize;
}

/// Finds where the binary is loaded. Call once, before the first test.
pub fn init() {
    // SAFETY: `first_object` only reads the header dl_iterate_phdr passes.
    unsafe { sys::dl_iterate_phdr(Some(first_object), std::ptr::null_mut()) };
}

/// Notes the load bias and address range of the first object
/// `dl_iterate_phdr` reports, which is the main program.
unsafe extern "C" fn first_object(
    info: *mut sys::dl_phdr_info,
    _size: usize,
    _data: *mut c_void,
) -> c_int {
    // SAFETY: dl_iterate_phdr passes a valid info and its program headers.
    let info = unsafe { &*info };
    let headers = unsafe { std::slice::from_raw_parts(info.dlpi_phdr, info.dlpi_phnum.into()) };
    let loads = headers.iter().filter(|h| h.p_type == sys::PT_LOAD);
    let low = loads.clone().map(|h| h.p_vaddr).min();
    let high = loads.map(|h| h.p_vaddr + h.p_memsz).max();
    let bias = info.dlpi_addr;
    let (low, high) = (low.unwrap_or(0), high.unwrap_or(0));
    BIAS.store(bias, Ordering::Relaxed);
    LOW.store(bias + low, Ordering::Relaxed);
    HIGH.store(bias + high, Ordering::Relaxed);
    1 // The first object is enough.
}

/// Return addresses, innermost first, as offsets into the binary; filled
/// without allocating.
#[derive(Clone, Copy)]
pub struct Frames {
    frames: [u64; MAX_FRAMES],
    len: usize,
}

impl Frames {
    /// The addresses.
    pub fn as_slice(&self) -> &[u64] {
        &self.frames[..self.len]
    }
}

/// A walk in progress: the frames so far, and the instruction it starts at.
struct Walk {
    found: Frames,
    /// The absolute address of the first frame to keep (0: every frame).
    start: u64,
    started: bool,
}

/// The return addresses of the calling thread's stack, innermost first,
/// as offsets into the binary (at most [`MAX_FRAMES`]). Without [`init`],
/// none.
pub fn capture() -> Vec<u64> {
    capture_from(0).as_slice().to_vec()
}

/// The calling thread's stack from the frame executing `pc` outwards (0:
/// from the caller's): a signal handler passes the interrupted
/// instruction (see `fault_trace`), so its own frames are left out. That
/// frame's address is the instruction's plus one, as the parent looks
/// names up at an address minus one (the call before a return address).
/// If the walk never reaches `pc` (no unwind information to cross the
/// signal frame), the frame of `pc` alone. Async-signal-safe: no
/// allocation, no lock of ours.
pub fn capture_from(pc: usize) -> Frames {
    let mut walk = Walk {
        found: Frames {
            frames: [0; MAX_FRAMES],
            len: 0,
        },
        start: pc as u64,
        started: pc == 0,
    };
    if HIGH.load(Ordering::Relaxed) == 0 {
        return walk.found;
    }
    // SAFETY: `on_frame` gets `walk` back as its argument and only writes
    // within its buffer.
    unsafe { _Unwind_Backtrace(on_frame, (&mut walk as *mut Walk).cast()) };
    if !walk.started {
        keep(&mut walk.found, pc as u64 + 1);
    }
    walk.found
}

extern "C" fn on_frame(context: *mut UnwindContext, arg: *mut c_void) -> c_int {
    // SAFETY: `capture_from` passes its `Walk`; the unwinder passes a live
    // context.
    let walk = unsafe { &mut *arg.cast::<Walk>() };
    let mut before: c_int = 0;
    let ip = unsafe { _Unwind_GetIPInfo(context, &mut before) } as u64;
    walk.started |= ip == walk.start;
    if !walk.started {
        return URC_NO_REASON;
    }
    // An interrupted instruction, not a return address: see `capture_from`.
    keep(&mut walk.found, if before != 0 { ip + 1 } else { ip });
    if walk.found.len == MAX_FRAMES {
        URC_FAILURE
    } else {
        URC_NO_REASON
    }
}

/// Adds `ip` (absolute) to `frames` if it is in the binary and there is room.
fn keep(frames: &mut Frames, ip: u64) {
    let in_binary = (LOW.load(Ordering::Relaxed)..HIGH.load(Ordering::Relaxed)).contains(&ip);
    if in_binary && frames.len < MAX_FRAMES {
        frames.frames[frames.len] = ip - BIAS.load(Ordering::Relaxed);
        frames.len += 1;
    }
}
