#![no_main]
// One way to fail per input prefix: everything but a panic kills the process.
use libfuzzer_sys::fuzz_target;
use std::hint::black_box;

fn recurse(depth: u64) -> u64 {
    let frame = black_box([depth; 64]);
    if depth == 0 {
        return frame[0];
    }
    recurse(depth - 1).wrapping_add(frame[1])
}

/// One level of a two-function recursion, as a parser's value and array
/// call each other; panics at the bottom, through `nest_shifted` if
/// `shifted` (one frame more, another phase of the cycle).
#[inline(never)]
fn nest_value(depth: u64, shifted: bool) -> u64 {
    black_box(nest_array(depth, shifted)).wrapping_add(1)
}

#[inline(never)]
fn nest_array(depth: u64, shifted: bool) -> u64 {
    if depth == 0 {
        return if shifted { nest_shifted() } else { nest_leaf() };
    }
    black_box(nest_value(depth - 1, shifted)).wrapping_add(1)
}

#[inline(never)]
fn nest_shifted() -> u64 {
    black_box(nest_leaf()).wrapping_add(1)
}

#[inline(never)]
fn nest_leaf() -> u64 {
    panic!("nested too deep")
}

/// Takes about `frames` × 64 KiB of stack, then loops forever at the
/// bottom if `hang`.
fn descend(frames: u64, hang: bool) -> u64 {
    let frame = black_box([frames as u8; 64 << 10]);
    if frames == 0 {
        while hang {
            black_box(&frame);
        }
        return u64::from(frame[0]);
    }
    descend(frames - 1, hang).wrapping_add(u64::from(frame[1]))
}

/// The lowest address of the calling thread's stack, as the C library
/// reports it.
fn stack_low() -> usize {
    unsafe {
        let mut attr: libc::pthread_attr_t = std::mem::zeroed();
        assert_eq!(libc::pthread_getattr_np(libc::pthread_self(), &mut attr), 0);
        let mut low = std::ptr::null_mut();
        let mut size = 0;
        assert_eq!(libc::pthread_attr_getstack(&attr, &mut low, &mut size), 0);
        libc::pthread_attr_destroy(&mut attr);
        low as usize
    }
}

/// How many bytes of the calling thread's stack lie below `here`.
fn stack_left(here: usize) -> usize {
    here - stack_low()
}

/// Recurses in 1 KiB frames until one lies `kib` KiB below `low`.
fn past(low: usize, kib: usize) -> u64 {
    let frame = black_box([kib as u8; 1 << 10]);
    if (frame.as_ptr() as usize) + (kib << 10) < low {
        return u64::from(frame[0]);
    }
    past(low, kib).wrapping_add(u64::from(frame[1]))
}

/// As `descend`, but as `stacker::maybe_grow` does: with less than 256
/// KiB of its stack left, it goes on on a thread of its own.
fn descend_growing(frames: u64) -> u64 {
    let frame = black_box([frames as u8; 64 << 10]);
    if frames == 0 {
        return u64::from(frame[0]);
    }
    let rest = if stack_left(frame.as_ptr() as usize) < 256 << 10 {
        std::thread::scope(|s| {
            let grown = std::thread::Builder::new().stack_size(64 << 20);
            grown.spawn_scoped(s, || descend_growing(frames - 1)).unwrap().join().unwrap()
        })
    } else {
        descend_growing(frames - 1)
    };
    rest.wrapping_add(u64::from(frame[1]))
}

/// The number after `prefix` in `data`.
fn number_after(data: &[u8], prefix: &[u8]) -> Option<u64> {
    std::str::from_utf8(data.strip_prefix(prefix)?).ok()?.parse().ok()
}

fuzz_target!(|data: &[u8]| {
    let entry = 0u8;
    if let Some(kib) = number_after(data, b"stack-left:") {
        // Fails unless `kib` KiB of the stack lie below the target's entry.
        let left = stack_left(black_box(&entry) as *const u8 as usize);
        assert!(left >= (kib as usize) << 10, "{} KiB left", left >> 10);
    } else if let Some(kib) = number_after(data, b"deep:") {
        black_box(descend(kib / 64, false));
    } else if let Some(depth) = number_after(data, b"nest:") {
        black_box(nest_array(depth, false));
    } else if let Some(depth) = number_after(data, b"nest-shifted:") {
        black_box(nest_array(depth, true));
    } else if let Some(kib) = number_after(data, b"past:") {
        // Overflows the stack by `kib` KiB.
        black_box(past(stack_low(), kib as usize));
    } else if let Some(kib) = number_after(data, b"deep-growing:") {
        black_box(descend_growing(kib / 64));
    } else if let Some(kib) = number_after(data, b"deep-hang:") {
        black_box(descend(kib / 64, true));
    } else if data.starts_with(b"abort") {
        std::process::abort();
    } else if data.starts_with(b"overflow") {
        black_box(recurse(u64::MAX));
    } else if data.starts_with(b"loop") {
        loop {
            black_box(data);
        }
    } else if data.starts_with(b"slow") {
        // Slow but finite, unless an `L` follows: a short timeout probe
        // takes `slow` for a hang, the real timeout does not.
        if data[4..].contains(&b'L') {
            loop {
                black_box(data);
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(60));
    } else if data.starts_with(b"patient") {
        // Panics, at once with a `!`, else after 1.2 s: a short timeout
        // takes the slow ones for hangs, a longer one does not.
        if !data.contains(&b'!') {
            std::thread::sleep(std::time::Duration::from_millis(1200));
        }
        panic!("patient");
    } else if data.starts_with(b"stuck") {
        // Panics with a `~` and a `!`; with the `~` alone, never ends.
        while data.contains(&b'~') {
            if data.contains(&b'!') {
                panic!("stuck");
            }
            black_box(data);
        }
    } else if let Some(chunks) = number_after(data, b"grow:") {
        // Fills memory slowly: 16 MiB touched every 10 ms (at least).
        let mut held = Vec::new();
        for _ in 0..chunks {
            held.push(black_box(vec![1u8; 16 << 20]));
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    } else if data.starts_with(b"alloc") {
        // One allocation above the malloc limit.
        black_box(Vec::<u8>::with_capacity(3 << 30));
    } else if data.starts_with(b"huge-alloc") {
        // One allocation larger than AddressSanitizer's allocator serves
        // (1 TiB), and than the malloc limit.
        black_box(Vec::<u8>::with_capacity(2 << 40));
    } else if data.starts_with(b"rss") {
        // Touched allocations below the malloc limit, 4 GiB at most: only
        // the RSS watchdog sees these. Then wait for it: on a loaded
        // machine its poll may come after the last allocation, and a test
        // that returned would pass.
        for _ in 0..64 {
            std::mem::forget(black_box(vec![1u8; 64 << 20]));
        }
        loop {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    } else if data.starts_with(b"segv") {
        unsafe { std::ptr::write_volatile(black_box(16usize) as *mut u8, 1) };
    } else if data.starts_with(b"exit") {
        std::process::exit(7);
    } else if data.starts_with(b"caught, then hang") {
        // libFuzzer's process ends at the panic: the hang never comes.
        let _ = std::panic::catch_unwind(|| panic!("caught before a hang"));
        loop {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    } else if data.starts_with(b"caught") {
        // libFuzzer aborts on any panic, caught or not: so does the pool.
        let _ = std::panic::catch_unwind(|| panic!("caught inside the target"));
    } else if data.starts_with(b"capacity") {
        // A panic inside the standard library ("capacity overflow").
        black_box(Vec::<u64>::with_capacity(usize::MAX / 4));
    }
});
