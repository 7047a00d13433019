//! The mutator's state between AFL++'s calls: the generator, a random stream
//! and the buffer a mutant is returned in.

use std::ffi::{CStr, CString};

use protograph::{mutate, splice, Generator, Mutation};

/// The longest mutant, unless `PROTOGRAPH_MAX_LEN` says otherwise: the
/// `-max_len` of the libFuzzer benchmark, so that both engines fuzz programs
/// of the same sizes. (AFL++ offers up to 1 MiB.)
pub const DEFAULT_MAX_LEN: usize = 4096;

/// One AFL++ session's mutator.
pub struct Mutator {
    generator: Generator,
    max_len: usize,
    /// The state of a splitmix64 stream, seeded by AFL++.
    random: u64,
    out: Vec<u8>,
    last: Mutation,
    description: CString,
}

impl Mutator {
    /// A mutator drawing from `generator`, seeded with AFL++'s `seed`.
    pub fn new(generator: Generator, seed: u32, max_len: usize) -> Mutator {
        Mutator {
            generator,
            max_len,
            random: u64::from(seed),
            out: Vec::new(),
            last: Mutation::Fresh,
            description: CString::default(),
        }
    }

    /// One mutant of `input`, at most `max_size` bytes and no longer than the
    /// cap or `input`. `other` is another
    /// queue entry (possibly empty): the fallback mutation splices it in,
    /// because AFL++'s own byte mutations already run in its havoc stage.
    pub fn fuzz(&mut self, input: &[u8], other: &[u8], max_size: usize) -> &[u8] {
        // The cap keeps mutants from growing past it; an entry AFL++'s havoc
        // already grew longer is mutated whole rather than cut mid-statement.
        let max_size = max_size.min(self.max_len.max(input.len()));
        let seed = self.next_seed();
        self.out.clear();
        self.out
            .extend_from_slice(&input[..input.len().min(max_size)]);
        let size = self.out.len();
        self.out.resize(max_size, 0);
        let splice_seed = self.next_seed();
        let generator = &self.generator;
        let mutated = mutate(
            &mut self.out,
            size,
            max_size,
            seed,
            generator,
            |data, size, max| {
                let own = data[..size].to_vec();
                splice(&own, other, &mut data[..max], splice_seed, generator)
            },
        );
        self.last = mutated.mutation;
        self.out.truncate(mutated.size);
        &self.out
    }

    /// The last mutation's name for AFL++'s file names
    /// (`…,execs:N,protograph-insert`), at most `max_len` bytes.
    pub fn describe(&mut self, max_len: usize) -> &CStr {
        let name = match self.last {
            // The fallback is a splice here.
            Mutation::Fallback => "splice",
            other => other.name(),
        };
        let mut text = format!("protograph-{name}");
        text.truncate(max_len);
        self.description = CString::new(text).expect("names have no NUL");
        &self.description
    }

    /// The next seed of the stream (splitmix64): AFL++ seeds the mutator
    /// once, `mutate` wants one seed per call.
    fn next_seed(&mut self) -> u32 {
        self.random = self.random.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.random;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 32) as u32
    }
}
