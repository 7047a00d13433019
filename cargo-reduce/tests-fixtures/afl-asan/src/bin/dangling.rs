//! A heap-use-after-free WRITE of 1 byte, as in asan-demo's `dangling`: `f`
//! frees the scratch buffer, a later `w` writes through the dangling
//! pointer. Silent without AddressSanitizer (`AFL_USE_ASAN` builds).
use afl::fuzz;

const SCRATCH: usize = 64;

#[inline(never)]
fn run(program: &[u8]) -> u64 {
    let scratch: *mut [u8; SCRATCH] = Box::into_raw(Box::new([0u8; SCRATCH]));
    let (mut freed, mut sum) = (false, 0u64);
    for op in program.chunks(2) {
        match op {
            [b'f', _] if !freed => {
                drop(unsafe { Box::from_raw(scratch) });
                freed = true;
            }
            [b'w', value] => store(scratch, sum as u8, *value),
            [a, b] => sum = sum.wrapping_add(u64::from(*a) * u64::from(*b)),
            _ => {}
        }
    }
    if !freed {
        drop(unsafe { Box::from_raw(scratch) });
    }
    sum
}

/// The planted bug: it does not know whether the buffer was freed.
#[inline(never)]
fn store(scratch: *mut [u8; SCRATCH], at: u8, value: u8) {
    let index = SCRATCH / 2 + usize::from(at) % (SCRATCH / 2);
    unsafe { (*scratch)[index] = value };
}

fn main() {
    fuzz!(|data: &[u8]| {
        std::hint::black_box(run(data));
    });
}
