//! A heap-use-after-free WRITE of 1 byte: a command frees the scratch
//! buffer but keeps its pointer, and a later command writes through it.
//! Uninstrumented, the write lands in freed memory past the allocator's own
//! bookkeeping and nothing notices.
#![no_main]

use libfuzzer_sys::fuzz_target;

const SCRATCH: usize = 64;

/// A little machine over a scratch buffer that it may free too early.
struct Machine {
    scratch: *mut [u8; SCRATCH],
    freed: bool,
    sum: u64,
}

impl Machine {
    fn new() -> Self {
        Machine {
            scratch: Box::into_raw(Box::new([0u8; SCRATCH])),
            freed: false,
            sum: 0,
        }
    }

    /// Frees the scratch buffer (once), keeping the dangling pointer.
    #[inline(never)]
    fn release(&mut self) {
        if !self.freed {
            drop(unsafe { Box::from_raw(self.scratch) });
            self.freed = true;
        }
    }

    /// Stores `value` in the upper half of the scratch buffer: the planted
    /// bug, it does not check `freed`.
    #[inline(never)]
    fn store(&mut self, at: u8, value: u8) {
        let index = SCRATCH / 2 + usize::from(at) % (SCRATCH / 2);
        unsafe { (*self.scratch)[index] = value };
    }

    fn run(&mut self, program: &[u8]) {
        for op in program.chunks(2) {
            match op {
                [b'f', _] => self.release(),
                [b'w', value] => self.store(self.sum as u8, *value),
                [a, b] => self.sum = self.sum.wrapping_add(u64::from(*a) * u64::from(*b)),
                _ => {}
            }
        }
    }
}

impl Drop for Machine {
    fn drop(&mut self) {
        self.release();
    }
}

fuzz_target!(|data: &[u8]| {
    let mut machine = Machine::new();
    machine.run(data);
    std::hint::black_box(machine.sum);
});
