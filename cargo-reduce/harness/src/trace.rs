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

/// Most return addresses kept from the top of the stack: the panic
/// machinery takes about ten frames, the rest is the user's code, of which
/// the parent keeps the top few.
pub const MAX_FRAMES: usize = 40;

/// Most return addresses kept from the bottom of a deeper stack (a
/// [`Reach::Whole`] walk). The parent takes recursions out of a call path;
/// with the top frames alone, a deep recursion's were cut off at whatever
/// phase of its cycle the top ended, and one panic had two call paths.
pub const BOTTOM_FRAMES: usize = 40;

/// Most frames a [`Reach::Whole`] walk goes through: a deeper stack's
/// bottom frames are those this far down.
const WALK_LIMIT: usize = 1 << 16;

/// How much of a stack a walk keeps.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// The top [`MAX_FRAMES`] frames: a stack overflow's, whose stack is as
    /// deep as the limit and whose place is the recursion at its top.
    Top,
    /// The top frames and, below them, the bottom [`BOTTOM_FRAMES`].
    Whole,
}

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

/// Return addresses, innermost first, as offsets into the binary: the top
/// frames, then the bottom ones of a deeper stack; filled without
/// allocating.
#[derive(Clone, Copy)]
pub struct Frames {
    frames: [u64; MAX_FRAMES + BOTTOM_FRAMES],
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
    /// The frames below the top ones, the latest [`BOTTOM_FRAMES`] in a
    /// ring: frame `n` past the top is at `n % BOTTOM_FRAMES`.
    bottom: [u64; BOTTOM_FRAMES],
    below_top: usize,
    walked: usize,
    reach: Reach,
    /// The absolute address of the first frame to keep (0: every frame).
    start: u64,
    started: bool,
}

impl Walk {
    /// Keeps `ip` (absolute) if it is in the binary: among the top frames
    /// while there is room, else in the bottom ring. Whether to go on.
    fn keep(&mut self, ip: u64) -> bool {
        self.walked += 1;
        let in_binary = (LOW.load(Ordering::Relaxed)..HIGH.load(Ordering::Relaxed)).contains(&ip);
        let offset = ip.wrapping_sub(BIAS.load(Ordering::Relaxed));
        if in_binary && self.found.len < MAX_FRAMES {
            self.found.frames[self.found.len] = offset;
            self.found.len += 1;
        } else if in_binary && self.reach == Reach::Whole {
            self.bottom[self.below_top % BOTTOM_FRAMES] = offset;
            self.below_top += 1;
        }
        match self.reach {
            Reach::Top => self.found.len < MAX_FRAMES,
            Reach::Whole => self.walked < WALK_LIMIT,
        }
    }

    /// The frames found: the top ones, then the bottom ring's, outermost
    /// last.
    fn finish(mut self) -> Frames {
        let kept = self.below_top.min(BOTTOM_FRAMES);
        for n in self.below_top - kept..self.below_top {
            self.found.frames[self.found.len] = self.bottom[n % BOTTOM_FRAMES];
            self.found.len += 1;
        }
        self.found
    }
}

/// The return addresses of the calling thread's stack, innermost first,
/// as offsets into the binary (the top [`MAX_FRAMES`] and the bottom
/// [`BOTTOM_FRAMES`]). Without [`init`], none.
pub fn capture() -> Vec<u64> {
    capture_from(0, Reach::Whole).as_slice().to_vec()
}

/// The calling thread's stack from the frame executing `pc` outwards (0:
/// from the caller's): a signal handler passes the interrupted
/// instruction (see `fault_trace`), so its own frames are left out. That
/// frame's address is the instruction's plus one, as the parent looks
/// names up at an address minus one (the call before a return address).
/// If the walk never reaches `pc` (no unwind information to cross the
/// signal frame), the frame of `pc` alone. `reach` says how much of the
/// stack to keep. Async-signal-safe: no allocation, no lock of ours.
pub fn capture_from(pc: usize, reach: Reach) -> Frames {
    let mut walk = Walk {
        found: Frames {
            frames: [0; MAX_FRAMES + BOTTOM_FRAMES],
            len: 0,
        },
        bottom: [0; BOTTOM_FRAMES],
        below_top: 0,
        walked: 0,
        reach,
        start: pc as u64,
        started: pc == 0,
    };
    if HIGH.load(Ordering::Relaxed) == 0 {
        return walk.found;
    }
    // SAFETY: `on_frame` gets `walk` back as its argument and only writes
    // within its buffers.
    unsafe { _Unwind_Backtrace(on_frame, (&mut walk as *mut Walk).cast()) };
    if !walk.started {
        walk.keep(pc as u64 + 1);
    }
    walk.finish()
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
    match walk.keep(if before != 0 { ip + 1 } else { ip }) {
        true => URC_NO_REASON,
        false => URC_FAILURE,
    }
}
