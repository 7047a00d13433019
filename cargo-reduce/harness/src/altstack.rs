//! Alternate signal stacks, on which the fault handler runs when a thread
//! overflows its own stack: the test thread's, and one for every thread
//! the target starts. A thread without one dies of an overflow before any
//! handler can run, as a plain SIGSEGV; std gives its threads one only
//! when its runtime started the program, which libFuzzer's `main` (and so
//! the stand-in's) does not. So the stand-in stands in for
//! `pthread_create` too, as sanitizer runtimes do: each new thread gets an
//! alternate stack for as long as its start routine runs.
//!
//! Under a sanitizer (`--cfg cargo_reduce_asan`) the sanitizer's own
//! `pthread_create` does this (ASan's `use_sigaltstack`), and ours, which
//! would shadow it, is left out. So is it from a companion stand-in
//! (`cfg(cargo_reduce_companion)`, see the crate's docs): the engine's
//! own stand-in in the same program defines it.
//!
//! Each is sized as std sizes its own, at least the kernel's
//! `AT_MINSIGSTKSZ` and `SIGSTKSZ` (here at least 64 KiB), and mapped with
//! a guard page below, so that a handler overflowing it faults instead of
//! writing over memory.

use crate::{stack, sys};

/// Least size of an alternate signal stack.
const MIN_SIZE: usize = 64 * 1024;

/// An alternate signal stack installed for the calling thread: removed and
/// unmapped on drop.
struct AltStack {
    region: *mut sys::c_void,
    len: usize,
}

impl AltStack {
    /// Maps one (with its guard page) and installs it for the calling
    /// thread; `None` if that failed.
    fn install() -> Option<AltStack> {
        let page = stack::page_size();
        // SAFETY: getauxval has no preconditions (0 when the kernel does not say).
        let least = unsafe { sys::getauxval(sys::AT_MINSIGSTKSZ) } as usize;
        let size = least.max(sys::SIGSTKSZ).max(MIN_SIZE).div_ceil(page) * page;
        // SAFETY: a fresh private mapping, used only as this thread's
        // alternate stack.
        unsafe {
            let flags = sys::MAP_PRIVATE | sys::MAP_ANONYMOUS | sys::MAP_STACK;
            let access = sys::PROT_READ | sys::PROT_WRITE;
            let region = sys::mmap(std::ptr::null_mut(), page + size, access, flags, -1, 0);
            if region == sys::MAP_FAILED {
                return None;
            }
            let alt = AltStack {
                region,
                len: page + size,
            };
            let stack = sys::stack_t {
                ss_sp: region.cast::<u8>().add(page).cast(),
                ss_flags: 0,
                ss_size: size,
            };
            let guarded = sys::mprotect(region, page, sys::PROT_NONE) == 0;
            (guarded && sys::sigaltstack(&stack, std::ptr::null_mut()) == 0).then_some(alt)
        }
    }
}

impl Drop for AltStack {
    fn drop(&mut self) {
        let off = sys::stack_t {
            ss_sp: std::ptr::null_mut(),
            ss_flags: sys::SS_DISABLE,
            ss_size: 0,
        };
        // SAFETY: this thread's alternate stack is ours and not in use
        // (no handler runs on it now); after it is removed, nothing does.
        unsafe {
            sys::sigaltstack(&off, std::ptr::null_mut());
            sys::munmap(self.region, self.len);
        }
    }
}

/// Makes sure the calling thread has an alternate signal stack for the
/// rest of its life (one it has already is kept).
pub fn ensure() {
    let mut current = sys::stack_t {
        ss_sp: std::ptr::null_mut(),
        ss_flags: 0,
        ss_size: 0,
    };
    // SAFETY: reads the calling thread's alternate stack.
    let known = unsafe { sys::sigaltstack(std::ptr::null(), &mut current) } == 0;
    if known && current.ss_flags & sys::SS_DISABLE == 0 {
        return;
    }
    std::mem::forget(AltStack::install());
}

/// Keeps our `pthread_create` in the program: the linker takes it from
/// the stand-in only if the stand-in's code refers to it before the C
/// library (or std) is searched.
pub fn keep_linked() {
    #[cfg(not(any(cargo_reduce_asan, cargo_reduce_companion)))]
    std::hint::black_box(pthread_create as *const ());
}

/// A new thread's start routine and its argument.
#[cfg(not(cargo_reduce_asan))]
struct Start {
    routine: sys::start_routine,
    arg: *mut sys::c_void,
}

/// `pthread_create`, as the C library's, with an alternate signal stack
/// for the new thread while its start routine runs.
///
/// # Safety
/// As `pthread_create`.
#[cfg(not(any(cargo_reduce_asan, cargo_reduce_companion)))]
#[no_mangle]
pub unsafe extern "C" fn pthread_create(
    thread: *mut sys::pthread_t,
    attr: *const sys::pthread_attr_t,
    routine: sys::start_routine,
    arg: *mut sys::c_void,
) -> sys::c_int {
    let start = Box::into_raw(Box::new(Start { routine, arg }));
    // SAFETY: the caller's arguments; `start` goes to the new thread, or
    // is taken back if there is none.
    unsafe {
        let created = real_pthread_create(thread, attr, with_alt_stack, start.cast());
        if created != 0 {
            drop(Box::from_raw(start));
        }
        created
    }
}

#[cfg(not(cargo_reduce_asan))]
extern "C" fn with_alt_stack(start: *mut sys::c_void) -> *mut sys::c_void {
    // SAFETY: the `Start` that `pthread_create` made for this thread.
    let start = unsafe { Box::from_raw(start.cast::<Start>()) };
    let alt = AltStack::install();
    let result = (start.routine)(start.arg);
    drop(alt);
    result
}

/// The C library's `pthread_create`, which ours shadows: the next
/// definition after the program's (glibc, or a dynamic musl).
#[cfg(all(target_env = "gnu", not(cargo_reduce_asan)))]
unsafe fn real_pthread_create(
    thread: *mut sys::pthread_t,
    attr: *const sys::pthread_attr_t,
    routine: extern "C" fn(*mut sys::c_void) -> *mut sys::c_void,
    arg: *mut sys::c_void,
) -> sys::c_int {
    use std::sync::atomic::{AtomicUsize, Ordering};
    type Create = unsafe extern "C" fn(
        *mut sys::pthread_t,
        *const sys::pthread_attr_t,
        sys::start_routine,
        *mut sys::c_void,
    ) -> sys::c_int;
    static REAL: AtomicUsize = AtomicUsize::new(0);
    let mut real = REAL.load(Ordering::Acquire);
    if real == 0 {
        // C string literals are Rust 1.77, and the stand-in builds with the
        // user's toolchain.
        #[allow(clippy::manual_c_str_literals)]
        let name = b"pthread_create\0".as_ptr().cast();
        // SAFETY: looks up a symbol by its NUL-terminated name.
        real = unsafe { sys::dlsym(sys::RTLD_NEXT, name) } as usize;
        if real == 0 {
            return sys::EAGAIN;
        }
        REAL.store(real, Ordering::Release);
    }
    // SAFETY: dlsym found the C library's pthread_create, of this type.
    unsafe { std::mem::transmute::<usize, Create>(real)(thread, attr, routine, arg) }
}

/// musl's `pthread_create`, which ours shadows (musl defines it as a weak
/// alias of this).
#[cfg(all(target_env = "musl", not(cargo_reduce_asan)))]
unsafe fn real_pthread_create(
    thread: *mut sys::pthread_t,
    attr: *const sys::pthread_attr_t,
    routine: extern "C" fn(*mut sys::c_void) -> *mut sys::c_void,
    arg: *mut sys::c_void,
) -> sys::c_int {
    extern "C" {
        fn __pthread_create(
            thread: *mut sys::pthread_t,
            attr: *const sys::pthread_attr_t,
            routine: sys::start_routine,
            arg: *mut sys::c_void,
        ) -> sys::c_int;
    }
    // SAFETY: the caller's arguments, as musl's pthread_create takes them.
    unsafe { __pthread_create(thread, attr, routine, arg) }
}
