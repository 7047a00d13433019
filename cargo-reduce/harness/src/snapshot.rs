//! A coverage test process's memory, put back between tests.
//!
//! Every input of a coverage replay must start from the same state, so
//! that its features are its own (see `worker::run_in_forks`). A fork per
//! input gave that, at the price of a `fork` and an `exit` per input. Now
//! one fork runs many inputs and, before each test but its first, puts
//! back what the test before changed: every page of a private writable
//! mapping (the heap, the program's and its libraries' data, thread-local
//! storage) that differs from what it was when the fork began, and the
//! program break. What it cannot put back (a test that mapped or unmapped
//! memory, left a thread running or a file open) it sees, and says so:
//! the next test then gets a fork of its own.
//!
//! Which pages to look at comes from `/proc/self/pagemap`: a page the fork
//! has not written is still the fork server's (shared, not "exclusively
//! mapped"), and the fork server waits unchanged while the fork runs. So a
//! test costs a read of the pagemap and a comparison of the pages tests
//! wrote, not of all memory. A page that was not there when the fork began
//! (never touched, or a file's page not yet copied) is dropped again
//! (`MADV_DONTNEED`: zeros, or the file's bytes, as before).
//!
//! Left out: the kernel's state besides the break, the mappings, the
//! threads and the descriptor table (signal handlers, file offsets: as in
//! a fork, which shares them with its parent), and the test thread's
//! stack below the frame that runs the tests (dead frames that only a read
//! of uninitialized memory would see).

use crate::sys;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::os::unix::io::AsRawFd;
use std::sync::atomic::Ordering;

/// At most this many mappings are watched (a process that has more is
/// served a fork per input).
const MAX_REGIONS: usize = 96;

/// More pages than this (64 MiB of 4 KiB pages; a sanitizer's shadow, say)
/// cost about what a fork does to scan: a fork per input then.
const MAX_PAGES: usize = 1 << 14;

/// Set (to anything) in a worker's environment: a fork per input, as
/// before the snapshot, to tell whether it is the snapshot that matters.
const FORK_PER_INPUT_ENV: &str = "CARGO_REDUCE_FORK_PER_INPUT";

/// `/proc/self/pagemap`'s bits: the page is in memory, or swapped out;
/// it is mapped by this process alone.
const PAGE_PRESENT: u64 = 1 << 63;
const PAGE_SWAPPED: u64 = 1 << 62;
const PAGE_EXCLUSIVE: u64 = 1 << 56;

/// A page's slot when it was not there as the fork began.
const ABSENT: u32 = u32::MAX;

#[derive(Clone, Copy, Default)]
struct Region {
    start: usize,
    pages: usize,
    /// Its first page's index in the tables.
    first: usize,
}

/// The fork's memory as it began, and what must be as it was for it to be
/// put back. Lives on the test thread's stack and in a mapping of its own,
/// never in the memory it watches.
pub(crate) struct Snapshot {
    regions: [Region; MAX_REGIONS],
    count: usize,
    page: usize,
    /// One mapping: the pagemap entries read (`u64` per page), the slots
    /// (`u32` per page: its saved copy's number, or [`ABSENT`]), and from
    /// `copies_at` (a page boundary) the copies.
    area: *mut u8,
    area_len: usize,
    pages: usize,
    copies_at: usize,
    brk: usize,
    stat: ProcessStat,
    lowest_free_fd: sys::c_int,
    pagemap: File,
    stat_file: File,
}

/// What `/proc/self/stat` says of the process that must not change.
#[derive(PartialEq, Eq, Clone, Copy)]
struct ProcessStat {
    threads: u64,
    vsize: u64,
}

impl Snapshot {
    /// Saves this fork's private writable memory; `None` where it cannot
    /// (an unknown test stack, no pagemap, too many mappings or pages, an
    /// AddressSanitizer build, or [`FORK_PER_INPUT_ENV`] set). Called on
    /// the test thread, the process's only one, before anything it saves
    /// is written: what it allocates here is freed before the copy.
    pub(crate) fn take() -> Option<Snapshot> {
        let tests_stack = crate::stack::tests_stack()?;
        if cfg!(cargo_reduce_asan) || std::env::var_os(FORK_PER_INPUT_ENV).is_some() {
            return None;
        }
        let pagemap = File::open("/proc/self/pagemap").ok()?;
        let stat_file = File::open("/proc/self/stat").ok()?;
        let page = crate::stack::page_size();
        let (regions, count) = private_writable_regions(page, tests_stack)?;
        let pages = regions[..count].iter().map(|r| r.pages).sum::<usize>();
        if pages > MAX_PAGES {
            return None;
        }
        let copies_at = (pages * 12 / page + 1) * page;
        let area_len = copies_at + pages * page;
        // SAFETY: a fresh private mapping; only touched pages cost memory.
        let area = unsafe {
            sys::mmap(
                std::ptr::null_mut(),
                area_len.max(1),
                sys::PROT_READ | sys::PROT_WRITE,
                sys::MAP_PRIVATE | sys::MAP_ANONYMOUS | sys::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if area == sys::MAP_FAILED {
            return None;
        }
        let mut snapshot = Snapshot {
            regions,
            count,
            page,
            area: area.cast(),
            area_len,
            pages,
            copies_at,
            brk: program_break(),
            stat: ProcessStat {
                threads: 0,
                vsize: 0,
            },
            lowest_free_fd: 0,
            pagemap,
            stat_file,
        };
        snapshot.stat = process_stat(&snapshot.stat_file)?;
        snapshot.lowest_free_fd = lowest_free_fd(&snapshot.stat_file)?;
        snapshot.save().then_some(snapshot)
    }

    /// Puts the memory back as the fork began, if the process's mappings,
    /// threads and descriptors are still those it began with; `false` if
    /// not (its memory is then as the last test left it).
    #[inline(never)]
    pub(crate) fn restore(&mut self) -> bool {
        if program_break() != self.brk && !set_program_break(self.brk) {
            return false;
        }
        let unchanged = process_stat(&self.stat_file) == Some(self.stat)
            && lowest_free_fd(&self.stat_file) == Some(self.lowest_free_fd)
            && self.read_pagemap();
        if unchanged {
            for i in 0..self.count {
                self.restore_region(self.regions[i]);
            }
            std::sync::atomic::compiler_fence(Ordering::SeqCst);
        }
        unchanged
    }

    /// Copies the pages that are there into the area; `false` if the
    /// pagemap cannot be read.
    fn save(&mut self) -> bool {
        if !self.read_pagemap() {
            return false;
        }
        let mut saved = 0u32;
        for region in &self.regions[..self.count] {
            for i in 0..region.pages {
                let index = region.first + i;
                let there = self.entry(index) & (PAGE_PRESENT | PAGE_SWAPPED) != 0;
                let slot = match there {
                    true => {
                        // SAFETY: a page of a listed mapping, and its copy's
                        // place in the area.
                        unsafe {
                            std::ptr::copy_nonoverlapping(
                                (region.start + i * self.page) as *const u8,
                                self.copy_of(saved),
                                self.page,
                            )
                        };
                        saved += 1;
                        saved - 1
                    }
                    false => ABSENT,
                };
                // SAFETY: `index < pages`: the slots' part of the area.
                unsafe { *self.slots().add(index) = slot };
            }
        }
        true
    }

    /// Reads every region's pagemap entries into the area; `false` if a
    /// region is no longer mapped whole or the read fails.
    fn read_pagemap(&mut self) -> bool {
        for region in &self.regions[..self.count] {
            // SAFETY: the entries' part of the area, `pages` u64s from
            // `first`.
            let entries = unsafe {
                std::slice::from_raw_parts_mut(
                    self.entries().add(region.first).cast::<u8>(),
                    region.pages * 8,
                )
            };
            let at = (region.start / self.page * 8) as u64;
            if !region.mapped(self.page) || self.pagemap.read_exact_at(entries, at).is_err() {
                return false;
            }
        }
        true
    }

    /// Puts back the pages of `region` that this fork wrote (or dropped).
    fn restore_region(&self, region: Region) {
        let mut drop_from = None;
        for i in 0..=region.pages {
            let at = region.start + i * self.page;
            let drop_this = i < region.pages && {
                let index = region.first + i;
                // SAFETY: `index < pages`: the slots' part of the area.
                let slot = unsafe { *self.slots().add(index) };
                let entry = self.entry(index);
                let written = entry & PAGE_EXCLUSIVE != 0 || entry & PAGE_PRESENT == 0;
                match (slot, written) {
                    (ABSENT, _) => entry & PAGE_EXCLUSIVE != 0,
                    (_, false) => false,
                    (slot, true) => {
                        // SAFETY: a page of a mapped region, and its copy.
                        unsafe { put_back(at as *mut u8, self.copy_of(slot), self.page) };
                        false
                    }
                }
            };
            match (drop_this, drop_from) {
                (true, None) => drop_from = Some(at),
                (false, Some(from)) => {
                    // SAFETY: pages of a private mapping that were not there
                    // as the fork began: dropped, they read as they did.
                    unsafe {
                        sys::madvise(from as *mut sys::c_void, at - from, sys::MADV_DONTNEED)
                    };
                    drop_from = None;
                }
                _ => {}
            }
        }
    }

    fn entries(&self) -> *mut u64 {
        self.area.cast()
    }

    fn slots(&self) -> *mut u32 {
        self.area.wrapping_add(self.pages * 8).cast()
    }

    fn entry(&self, index: usize) -> u64 {
        // SAFETY: `index < pages`: the entries' part of the area.
        unsafe { *self.entries().add(index) }
    }

    fn copy_of(&self, slot: u32) -> *mut u8 {
        self.area
            .wrapping_add(self.copies_at + slot as usize * self.page)
    }
}

impl Drop for Snapshot {
    fn drop(&mut self) {
        // SAFETY: the mapping `take` made.
        unsafe { sys::munmap(self.area.cast(), self.area_len.max(1)) };
    }
}

impl Region {
    /// Whether the whole region is still mapped.
    fn mapped(&self, page: usize) -> bool {
        // SAFETY: `msync` only checks an asynchronous flush's range.
        unsafe {
            sys::msync(
                self.start as *mut sys::c_void,
                self.pages * page,
                sys::MS_ASYNC,
            ) == 0
        }
    }
}

/// Copies `len` bytes of `saved` over `live` if they differ.
///
/// # Safety
///
/// `live` is writable and `saved` readable for `len` bytes; they do not
/// overlap.
unsafe fn put_back(live: *mut u8, saved: *const u8, len: usize) {
    // SAFETY: the caller's contract.
    unsafe {
        if std::slice::from_raw_parts(live, len) != std::slice::from_raw_parts(saved, len) {
            std::ptr::copy_nonoverlapping(saved, live, len);
        }
    }
}

/// The private writable mappings of `/proc/self/maps`, without `skip`
/// (the test thread's stack below its outermost frame's page).
fn private_writable_regions(
    page: usize,
    skip: (usize, usize),
) -> Option<([Region; MAX_REGIONS], usize)> {
    let maps = std::fs::read_to_string("/proc/self/maps").ok()?;
    let mut regions = [Region::default(); MAX_REGIONS];
    let (mut count, mut first) = (0, 0);
    for line in maps.lines() {
        let mut fields = line.split(' ');
        let (range, perms) = (fields.next()?, fields.next()?);
        if !perms.starts_with("rw") || !perms.ends_with('p') {
            continue;
        }
        let (start, end) = range.split_once('-')?;
        let start = usize::from_str_radix(start, 16).ok()?;
        let end = usize::from_str_radix(end, 16).ok()?;
        for (start, end) in [(start, end.min(skip.0)), (start.max(skip.1), end)] {
            if start < end {
                let pages = (end - start) / page;
                *regions.get_mut(count)? = Region {
                    start,
                    pages,
                    first,
                };
                count += 1;
                first += pages;
            }
        }
    }
    Some((regions, count))
}

fn program_break() -> usize {
    // SAFETY: `brk(0)` only reads the break.
    unsafe { sys::syscall(sys::SYS_brk, 0usize) as usize }
}

fn set_program_break(at: usize) -> bool {
    // SAFETY: moves the break back to where the heap ended as the fork
    // began; the memory above it is nobody's once the heap is put back.
    unsafe { sys::syscall(sys::SYS_brk, at) as usize == at }
}

/// The process's thread count and virtual size (`/proc/self/stat`'s
/// fields 20 and 23, counted after the command's closing parenthesis).
fn process_stat(stat: &File) -> Option<ProcessStat> {
    let mut text = [0u8; 1024];
    let n = stat.read_at(&mut text, 0).ok()?;
    let text = std::str::from_utf8(&text[..n]).ok()?;
    let mut fields = text.get(text.rfind(')')? + 2..)?.split(' ');
    // After the command: state is field 3, so field N is the (N-3)th.
    let threads = fields.nth(20 - 3)?.parse().ok()?;
    let vsize = fields.nth(23 - 20 - 1)?.parse().ok()?;
    Some(ProcessStat { threads, vsize })
}

/// The lowest descriptor number not in use.
fn lowest_free_fd(any: &File) -> Option<sys::c_int> {
    // SAFETY: duplicates an open descriptor onto the lowest free number.
    let fd = unsafe { sys::fcntl(any.as_raw_fd(), sys::F_DUPFD, 0) };
    if fd < 0 {
        return None;
    }
    // SAFETY: closes the descriptor made above, ours alone.
    unsafe { sys::close(fd) };
    Some(fd)
}
