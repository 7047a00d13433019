#![no_main]
// The edges of the harness (issue 26): a SIGSEGV handler of the program's
// own, installed before the stand-in's; stack overflows on threads the
// target spawns; allocation failures it handles; the end of the address
// space's mappings; the alternate signal stack; a panic message larger
// than a pipe's atomic write; an endless loop that calls a function; a
// hang in a system call.
use libfuzzer_sys::fuzz_target;
use std::hint::black_box;

/// The address at which the program's own handler takes a fault as its own.
const OWN_FAULT: usize = 0x42;

/// A handler installed before `main`, as a C library's constructor or a
/// sanitizer runtime installs one: faults at `OWN_FAULT` are its own (it
/// exits with 42); others it leaves to the default action, as std's does.
extern "C" fn own_handler(_: libc::c_int, info: *mut libc::siginfo_t, _: *mut libc::c_void) {
    unsafe {
        if (*info).si_addr() as usize == OWN_FAULT {
            libc::_exit(42);
        }
        libc::signal(libc::SIGSEGV, libc::SIG_DFL);
    }
}

extern "C" fn install_own_handler() {
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = own_handler as usize;
        action.sa_flags = libc::SA_SIGINFO;
        libc::sigaction(libc::SIGSEGV, &action, std::ptr::null_mut());
    }
}

#[used]
#[link_section = ".init_array"]
static INSTALL: extern "C" fn() = install_own_handler;

fn recurse(depth: u64) -> u64 {
    let frame = black_box([depth; 64]);
    if depth == 0 {
        return frame[0];
    }
    recurse(depth - 1).wrapping_add(frame[1])
}

/// Takes about `frames` × 64 KiB of stack, then runs `bottom` there.
fn descend(frames: u64, bottom: &dyn Fn()) -> u64 {
    let frame = black_box([frames as u8; 64 << 10]);
    if frames == 0 {
        bottom();
        return u64::from(frame[0]);
    }
    descend(frames - 1, bottom).wrapping_add(u64::from(frame[1]))
}

/// Maps single pages, alternately readable and not (so they never merge),
/// until the kernel refuses one more mapping (`vm.max_map_count`). Leaks
/// them: the process is at the limit from then on.
fn exhaust_mappings() {
    let page = 4096;
    for i in 0.. {
        let prot = if i % 2 == 0 { libc::PROT_READ } else { libc::PROT_NONE };
        let flags = libc::MAP_PRIVATE | libc::MAP_ANONYMOUS;
        let map = unsafe { libc::mmap(std::ptr::null_mut(), page, prot, flags, -1, 0) };
        if map == libc::MAP_FAILED {
            return;
        }
    }
}

/// Panics unless the calling thread's alternate signal stack is at least
/// the kernel's least size and 64 KiB, with an inaccessible page below.
fn check_alternate_stack() {
    let mut current: libc::stack_t = unsafe { std::mem::zeroed() };
    assert_eq!(unsafe { libc::sigaltstack(std::ptr::null(), &mut current) }, 0);
    assert_eq!(current.ss_flags & libc::SS_DISABLE, 0, "no alternate stack");
    let least = unsafe { libc::getauxval(libc::AT_MINSIGSTKSZ) } as usize;
    assert!(current.ss_size >= least.max(64 << 10), "{} bytes", current.ss_size);
    let low = current.ss_sp as usize;
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
    let below = maps.lines().find(|line| {
        let range = line.split_whitespace().next().unwrap();
        let (_, end) = range.split_once('-').unwrap();
        usize::from_str_radix(end, 16).unwrap() == low
    });
    let guarded = below.is_some_and(|line| line.split_whitespace().nth(1) == Some("---p"));
    assert!(guarded, "no guard page below the alternate stack: {below:?}");
}

/// Work for `spin_with_step`'s loop, in a function of its own: the same
/// work as the loop does between two calls.
#[inline(never)]
fn step(mut x: u64) -> u64 {
    for _ in 0..black_box(64) {
        x = black_box(x.wrapping_mul(31) ^ 7);
    }
    x
}

/// An endless loop that calls `step`: stopped at any moment, the test is
/// in `step` or in the loop itself, about half the time each. (With a
/// cheaper loop body it was in `step` 74% of the time, and 16 samples all
/// landed there in 1 timeout of 120.)
#[inline(never)]
fn spin_with_step(mut x: u64) -> u64 {
    while black_box(true) {
        for _ in 0..black_box(64) {
            x = black_box(x.wrapping_mul(31) ^ 7);
        }
        x = step(x);
    }
    x
}

/// `step`'s work, inlined into `spin_with_inlined_step`: its code has the
/// loop's addresses, under the name of a function of its own.
#[inline(always)]
fn inlined_step(mut x: u64) -> u64 {
    for _ in 0..black_box(64) {
        x = black_box(x.wrapping_mul(31) ^ 7);
    }
    x
}

/// `spin_with_step` with the step inlined (a parser's loop around an
/// inlined `peek`).
#[inline(never)]
fn spin_with_inlined_step(mut x: u64) -> u64 {
    while black_box(true) {
        for _ in 0..black_box(64) {
            x = black_box(x.wrapping_mul(31) ^ 7);
        }
        x = inlined_step(x);
    }
    x
}

/// Waits for input on a pipe that never gets any: a hang in a system
/// call, which fails the test if the call is ever cut short.
#[inline(never)]
fn wait_for_input() {
    let mut fds = [0; 2];
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    let mut byte = 0u8;
    let read = unsafe { libc::read(fds[0], (&mut byte as *mut u8).cast(), 1) };
    panic!("read returned {read}: {}", std::io::Error::last_os_error());
}

/// Spins with the signal that asks for the stack (cargo-reduce's
/// `STACK_SIGNAL`, 40) blocked: a test whose stack cannot be taken.
#[inline(never)]
fn spin_deaf() {
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, 40);
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
    }
    black_box(spin_with_step(7));
}

/// One level of a three-function recursion (a parser's value, item and
/// array calling each other) `depth` levels deep, with `spin_with_step`'s
/// endless loop at the bottom. (With two functions, samples a frame apart
/// happened to line up from the bottom; with three they did not.)
#[inline(never)]
fn nest_value(depth: u64) -> u64 {
    black_box(nest_item(depth)).wrapping_add(1)
}

#[inline(never)]
fn nest_item(depth: u64) -> u64 {
    black_box(nest_array(depth)).wrapping_add(1)
}

#[inline(never)]
fn nest_array(depth: u64) -> u64 {
    if depth == 0 {
        return spin_with_step(7);
    }
    black_box(nest_value(depth - 1)).wrapping_add(1)
}

/// The number after `prefix` in `data`.
fn number_after(data: &[u8], prefix: &[u8]) -> Option<u64> {
    std::str::from_utf8(data.strip_prefix(prefix)?).ok()?.parse().ok()
}

fuzz_target!(|data: &[u8]| {
    if data == b"own-fault" {
        unsafe { std::ptr::write_volatile(OWN_FAULT as *mut u8, 1) };
    } else if data == b"segv" {
        unsafe { std::ptr::write_volatile(black_box(16usize) as *mut u8, 1) };
    } else if data == b"thread-overflow" {
        let thread = std::thread::Builder::new().stack_size(256 << 10);
        let _ = thread.spawn(|| black_box(recurse(u64::MAX))).unwrap().join();
    } else if data.starts_with(b"reserve-") {
        // An allocation that fails, handled: the test goes on.
        let mut buffer = Vec::<u8>::new();
        assert!(buffer.try_reserve(isize::MAX as usize - (1 << 20)).is_err());
        match &data[8..] {
            b"panic" => panic!("after a handled allocation failure"),
            b"segv" => unsafe { std::ptr::write_volatile(black_box(16usize) as *mut u8, 1) },
            _ => {}
        }
    } else if data == b"alloc-fail" {
        black_box(Vec::<u8>::with_capacity(isize::MAX as usize - (1 << 20)));
    } else if let Some(kib) = number_after(data, b"deep-then-maps:") {
        black_box(descend(kib / 64, &exhaust_mappings));
    } else if let Some(kib) = number_after(data, b"deep:") {
        black_box(descend(kib / 64, &|| {}));
    } else if data == b"altstack" {
        check_alternate_stack();
    } else if let Some(depth) = number_after(data, b"nest-loop-calls:") {
        black_box(nest_array(depth));
    } else if data == b"loop-inlines" {
        black_box(spin_with_inlined_step(7));
    } else if data == b"loop-calls" {
        black_box(spin_with_step(7));
    } else if data == b"deaf-loop" {
        spin_deaf();
    } else if data == b"read-hang" {
        wait_for_input();
    } else if data == b"big-panic" {
        panic!("{}", "x".repeat(16 << 10));
    }
});
