#![no_main]
// A one-time lazy initialisation, as memchr's choice of routine on its
// first call: the first `t` of a process builds the table (edges of their
// own), every later one only reads it; `n` takes a branch of its own; `a`
// one of two, by the input's address (as vector code does by alignment);
// `h` never ends; `f` leaves a file open, and `d` takes one of two
// branches by the number its file gets (which a file left open by an
// input before it would change); `m` one of eight by where a fresh
// mapping lands (which a randomized address layout changes); `r` one of
// eight by a `HashMap`'s first key (which its random seed changes); `b`
// one of eight by where small allocations land (which anything allocated
// and freed before the test would change); `p` panics.
// With `LAZY_RUN_LOG` set, each run appends its input, a space, its
// process id and a newline to that file (the pool tests count runs, and
// the processes they ran in).
use libfuzzer_sys::fuzz_target;
use std::collections::HashMap;
use std::hint::black_box;
use std::os::unix::io::AsRawFd;
use std::sync::OnceLock;

static TABLE: OnceLock<[u8; 256]> = OnceLock::new();

fn table() -> &'static [u8; 256] {
    TABLE.get_or_init(|| {
        let mut table = [0u8; 256];
        for (i, entry) in table.iter_mut().enumerate() {
            *entry = (i as u8).rotate_left(3);
        }
        table
    })
}

fn spin() -> ! {
    loop {
        black_box(0u8);
    }
}

fn log_run(data: &[u8]) {
    use std::io::Write;
    if let Some(path) = std::env::var_os("LAZY_RUN_LOG") {
        let mut log = std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(path)
            .unwrap();
        let pid = format!(" {}\n", std::process::id());
        log.write_all(&[data, pid.as_bytes()].concat()).unwrap();
    }
}

fuzz_target!(|data: &[u8]| {
    log_run(data);
    for &byte in data {
        match byte {
            b't' => {
                black_box(table()[usize::from(byte)]);
            }
            b'n' => {
                black_box(byte.count_ones());
            }
            b'a' if data.as_ptr() as usize % 16 == 0 => {
                black_box(1);
            }
            b'a' => {
                black_box(2);
            }
            b'h' => spin(),
            b'f' => std::mem::forget(std::fs::File::open("/dev/null")),
            b'm' => {
                let block = vec![0u8; 1 << 20];
                match (block.as_ptr() as usize >> 12) % 8 {
                    0 => black_box(5),
                    1 => black_box(6),
                    2 => black_box(7),
                    3 => black_box(8),
                    4 => black_box(9),
                    5 => black_box(10),
                    6 => black_box(11),
                    _ => black_box(12),
                };
            }
            b'r' => {
                let map: HashMap<u8, ()> = (0..8).map(|k| (k, ())).collect();
                match map.keys().next() {
                    Some(0) => black_box(13),
                    Some(1) => black_box(14),
                    Some(2) => black_box(15),
                    Some(3) => black_box(16),
                    Some(4) => black_box(17),
                    Some(5) => black_box(18),
                    Some(6) => black_box(19),
                    _ => black_box(20),
                };
            }
            b'b' => {
                let blocks: Vec<Vec<u8>> = (1..=32).map(|n| vec![0u8; n * 16]).collect();
                let fold = blocks.iter().fold(0, |f, b| f ^ (b.as_ptr() as usize >> 4));
                match fold % 8 {
                    0 => black_box(21),
                    1 => black_box(22),
                    2 => black_box(23),
                    3 => black_box(24),
                    4 => black_box(25),
                    5 => black_box(26),
                    6 => black_box(27),
                    _ => black_box(28),
                };
            }
            b'd' => match std::fs::File::open("/dev/null").map(|f| f.as_raw_fd() % 2) {
                Ok(0) => {
                    black_box(3);
                }
                _ => {
                    black_box(4);
                }
            },
            b'p' => panic!("planted: p"),
            _ => {}
        }
    }
});
