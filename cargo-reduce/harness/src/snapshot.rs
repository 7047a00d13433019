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
//! A large mapping is watched through the pages it has, which the kernel
//! lists without walking what is not populated (the pagemap's
//! `PAGEMAP_SCAN`, Linux 6.7). AddressSanitizer's shadow, terabytes
//! reserved, is watched as the shadow of each watched mapping; its
//! reads and writes go through `/proc/self/mem`, the kernel copying: the
//! sanitizer's checks of a plain copy would stop at poisoned bytes
//! (redzones, freed memory), and no instrumented code may touch the
//! shadow itself. The shadow of the test stack, and the fake stack where
//! the sanitizer moves frames whose locals' addresses are taken (this
//! code's own among them), are left out with the stack. What the
//! sanitizer's allocator maps inside the space it reserved is not
//! watched: put back, the allocator maps it again before use
//! (docs/design/coverage.md).
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

/// At most this many runs of pages are watched page by page: the small
/// mappings, and the runs a large one had (a process that has more is
/// served a fork per input).
const MAX_REGIONS: usize = 1024;

/// More pages than this (64 MiB of 4 KiB pages) cost about what a fork
/// does to scan: a fork per input then.
const MAX_PAGES: usize = 1 << 14;

/// A mapping of more pages than this is watched through the pages it has
/// (see the module's documentation), at most [`MAX_SPARSE`] of them.
const DENSE_PAGES: usize = 512;
const MAX_SPARSE: usize = 64;

/// How many runs of pages one `PAGEMAP_SCAN` call reports.
const SCAN_BATCH: usize = 64;

/// The room in the area for `/proc/self/maps` as the fork begins (a longer
/// one is served a fork per input).
const MAPS_ROOM: usize = 256 << 10;

/// Whether [`FORK_PER_INPUT_ENV`] is set, read by [`prepare`].
static FORK_PER_INPUT: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Reads what the snapshot takes from the environment. Called once as the
/// process starts: [`Snapshot::take`] allocates nothing, so that the
/// memory it saves is the test process's as it was, heap and all (the
/// addresses a test's allocations get, and so its features, follow it).
pub(crate) fn prepare() {
    let set = std::env::var_os(FORK_PER_INPUT_ENV).is_some();
    FORK_PER_INPUT.store(set, Ordering::Relaxed);
}

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

/// Pages watched one by one.
#[derive(Clone, Copy, Default)]
struct Region {
    start: usize,
    pages: usize,
    /// Its first page's index in the tables.
    first: usize,
}

/// A large mapping, `[start, end)`, watched through the pages it has: its
/// runs of pages at the start are [`Region`]s; a page outside them is new.
#[derive(Clone, Copy, Default)]
struct Span {
    start: usize,
    end: usize,
}

/// What is watched: the regions, sorted by address, and the large mappings.
struct Watched {
    regions: [Region; MAX_REGIONS],
    count: usize,
    spans: [Span; MAX_SPARSE],
    span_count: usize,
}

/// The fork's memory as it began, and what must be as it was for it to be
/// put back. Lives on the test thread's stack and in a mapping of its own,
/// never in the memory it watches.
pub(crate) struct Snapshot {
    watched: Watched,
    page: usize,
    /// One mapping, with room for [`MAX_PAGES`]: the pagemap entries read
    /// (`u64` per page), the slots (`u32` per page: its saved copy's
    /// number, or [`ABSENT`]), and from `copies_at` (a page boundary) the
    /// copies.
    area: *mut u8,
    area_len: usize,
    copies_at: usize,
    brk: usize,
    stat: ProcessStat,
    lowest_free_fd: sys::c_int,
    pagemap: File,
    stat_file: File,
    /// `/proc/self/mem`, through which the watched pages are read and
    /// written under AddressSanitizer; `None`: directly.
    mem: Option<File>,
}

/// What `/proc/self/stat` says of the process that must not change.
#[derive(PartialEq, Eq, Clone, Copy)]
struct ProcessStat {
    threads: u64,
    vsize: u64,
}

impl Snapshot {
    /// Saves this fork's private writable memory; `None` where it cannot
    /// (an unknown test stack, no pagemap, too many mappings or pages, a
    /// large mapping on a kernel without `PAGEMAP_SCAN`, or
    /// [`FORK_PER_INPUT_ENV`] set). Called on the test thread, the
    /// process's only one, before anything it saves is written. It
    /// allocates nothing (the maps are read into its own area): a block
    /// allocated and freed here would move where the first test's
    /// allocations land, and with them, in some targets, their features.
    pub(crate) fn take() -> Option<Snapshot> {
        let tests_stack = crate::stack::tests_stack()?;
        if FORK_PER_INPUT.load(Ordering::Relaxed) {
            return None;
        }
        let pagemap = File::open("/proc/self/pagemap").ok()?;
        let stat_file = File::open("/proc/self/stat").ok()?;
        let mem = match cfg!(cargo_reduce_asan) {
            true => Some(
                File::options()
                    .read(true)
                    .write(true)
                    .open("/proc/self/mem")
                    .ok()?,
            ),
            false => None,
        };
        let page = crate::stack::page_size();
        // The area first, sized for the most pages, so that it is known to
        // be no memory to watch, nor is its shadow.
        let maps_at = (MAX_PAGES * 12 / page + 1) * page;
        let copies_at = maps_at + MAPS_ROOM;
        let area_len = copies_at + MAX_PAGES * page;
        // SAFETY: a fresh private mapping; only touched pages cost memory.
        let area = unsafe {
            sys::mmap(
                std::ptr::null_mut(),
                area_len,
                sys::PROT_READ | sys::PROT_WRITE,
                sys::MAP_PRIVATE | sys::MAP_ANONYMOUS | sys::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if area == sys::MAP_FAILED {
            return None;
        }
        // SAFETY: the maps' room of the fresh area.
        let room =
            unsafe { std::slice::from_raw_parts_mut(area.cast::<u8>().add(maps_at), MAPS_ROOM) };
        let own = (area as usize, area as usize + area_len);
        let Some(watched) = watched_memory(room, own, tests_stack, page, &pagemap) else {
            // SAFETY: the mapping made above.
            unsafe { sys::munmap(area, area_len) };
            return None;
        };
        let mut snapshot = Snapshot {
            watched,
            page,
            area: area.cast(),
            area_len,
            copies_at,
            brk: program_break(),
            stat: ProcessStat {
                threads: 0,
                vsize: 0,
            },
            lowest_free_fd: 0,
            pagemap,
            stat_file,
            mem,
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
        if !unchanged {
            return false;
        }
        let regions = &self.watched.regions[..self.watched.count];
        let put_back = regions.iter().all(|&region| self.restore_region(region));
        let restored = put_back && self.drop_new_pages();
        std::sync::atomic::compiler_fence(Ordering::SeqCst);
        restored
    }

    /// Drops the pages a test brought into the large mappings (those
    /// outside the runs they had); `false` if they cannot be listed.
    fn drop_new_pages(&self) -> bool {
        let watched = &self.watched;
        let regions = &watched.regions[..watched.count];
        watched.spans[..watched.span_count].iter().all(|span| {
            present_runs(&self.pagemap, span.start, span.end, |start, end| {
                drop_outside(regions, start, end, self.page);
                true
            })
        })
    }

    /// Copies the pages that are there into the area; `false` if the
    /// pagemap cannot be read.
    fn save(&mut self) -> bool {
        if !self.read_pagemap() {
            return false;
        }
        let mut saved = 0u32;
        for region in &self.watched.regions[..self.watched.count] {
            for i in 0..region.pages {
                let index = region.first + i;
                let there = self.entry(index) & (PAGE_PRESENT | PAGE_SWAPPED) != 0;
                let slot = match there {
                    true => {
                        if !self.read_page(region.start + i * self.page, self.copy_of(saved)) {
                            return false;
                        }
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
        for region in &self.watched.regions[..self.watched.count] {
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

    /// Puts back the pages of `region` that this fork wrote (or dropped),
    /// and drops those it brought in, a run of pages at a time; `false` if
    /// one could not be written back.
    fn restore_region(&self, region: Region) -> bool {
        let mut put_back = true;
        let mut run: Option<Run> = None;
        for i in 0..=region.pages {
            let at = region.start + i * self.page;
            let action = match i < region.pages {
                true => self.action(region.first + i),
                false => Action::Keep,
            };
            run = match run {
                Some(run) if run.goes_on_with(action) => Some(Run {
                    pages: run.pages + 1,
                    ..run
                }),
                ended => {
                    if let Some(ended) = ended {
                        put_back &= self.apply(ended);
                    }
                    Some(Run {
                        at,
                        pages: 1,
                        action,
                    })
                }
            };
        }
        put_back
    }

    /// What to do with the page at `index` of the tables.
    fn action(&self, index: usize) -> Action {
        // SAFETY: `index < pages`: the slots' part of the area.
        let slot = unsafe { *self.slots().add(index) };
        let entry = self.entry(index);
        let written = entry & PAGE_EXCLUSIVE != 0 || entry & PAGE_PRESENT == 0;
        match (slot, written) {
            (ABSENT, _) if entry & PAGE_EXCLUSIVE != 0 => Action::Drop,
            (ABSENT, _) | (_, false) => Action::Keep,
            (slot, true) => Action::PutBack(slot),
        }
    }

    /// Does what `run` says to its pages; `false` if they could not be
    /// written back.
    fn apply(&self, run: Run) -> bool {
        let len = run.pages * self.page;
        match run.action {
            Action::Keep => true,
            Action::Drop => {
                drop_pages(run.at, run.at + len);
                true
            }
            Action::PutBack(slot) => self.put_back(run.at, self.copy_of(slot), len),
        }
    }

    fn entries(&self) -> *mut u64 {
        self.area.cast()
    }

    fn slots(&self) -> *mut u32 {
        self.area.wrapping_add(MAX_PAGES * 8).cast()
    }

    fn entry(&self, index: usize) -> u64 {
        // SAFETY: `index < pages`: the entries' part of the area.
        unsafe { *self.entries().add(index) }
    }

    fn copy_of(&self, slot: u32) -> *mut u8 {
        self.area
            .wrapping_add(self.copies_at + slot as usize * self.page)
    }

    /// Copies the watched page at `at` to `to`, a page of the area.
    fn read_page(&self, at: usize, to: *mut u8) -> bool {
        // SAFETY: `to` is a page of the area, no watched memory.
        let to = unsafe { std::slice::from_raw_parts_mut(to, self.page) };
        match &self.mem {
            Some(mem) => mem.read_exact_at(to, at as u64).is_ok(),
            None => {
                // SAFETY: a page of a mapped region.
                to.copy_from_slice(unsafe {
                    std::slice::from_raw_parts(at as *const u8, to.len())
                });
                true
            }
        }
    }

    /// Copies `saved` (`len` bytes of the area's copies) over the watched
    /// pages at `at`: directly, each page that differs; through
    /// `/proc/self/mem`, in one write. `false` if it cannot.
    fn put_back(&self, at: usize, saved: *const u8, len: usize) -> bool {
        // SAFETY: `saved` is `len` bytes of the area.
        let saved = unsafe { std::slice::from_raw_parts(saved, len) };
        match &self.mem {
            Some(mem) => mem.write_all_at(saved, at as u64).is_ok(),
            None => {
                for (i, page) in saved.chunks(self.page).enumerate() {
                    // SAFETY: a page of a mapped region, writable (private,
                    // writable mappings only), and no page of the area.
                    unsafe { put_back((at + i * self.page) as *mut u8, page.as_ptr(), page.len()) };
                }
                true
            }
        }
    }
}

/// What a restore does to a page.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Action {
    /// Nothing: it is as it was.
    Keep,
    /// Copy the saved page of this slot back.
    PutBack(u32),
    /// Drop it: it was not there.
    Drop,
}

/// Pages in a row that a restore does one thing to.
#[derive(Clone, Copy)]
struct Run {
    at: usize,
    pages: usize,
    /// For [`Action::PutBack`], the first page's slot.
    action: Action,
}

impl Run {
    /// Whether the page after the run, to be done `next`, joins it: the
    /// same action, and for a put back the next saved copy.
    fn goes_on_with(&self, next: Action) -> bool {
        match (self.action, next) {
            (Action::PutBack(first), Action::PutBack(slot)) => {
                first as usize + self.pages == slot as usize
            }
            (this, next) => this == next,
        }
    }
}

impl Drop for Snapshot {
    fn drop(&mut self) {
        // SAFETY: the mapping `take` made.
        unsafe { sys::munmap(self.area.cast(), self.area_len) };
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

/// What to watch, `/proc/self/maps` read into `room`: every private
/// writable mapping but the snapshot's own area (`own`), the test stack
/// and, under AddressSanitizer, the fake stack, and the shadows of those
/// left out; `None` if more than [`MAX_PAGES`] pages (or the maps do not
/// fit).
fn watched_memory(
    room: &mut [u8],
    own: (usize, usize),
    tests_stack: (usize, usize),
    page: usize,
    pagemap: &File,
) -> Option<Watched> {
    let maps = read_maps(room)?;
    let fake_stack = shadow::fake_stack(maps);
    let skipped = [
        tests_stack,
        shadow::of(tests_stack, page),
        fake_stack,
        shadow::of(fake_stack, page),
        own,
        shadow::of(own, page),
    ];
    let watched = private_writable_regions(maps, page, &skipped, pagemap)?;
    let pages = watched.regions[..watched.count].iter().map(|r| r.pages);
    (pages.sum::<usize>() <= MAX_PAGES).then_some(watched)
}

/// `/proc/self/maps`, read into `room`; `None` if it does not fit.
fn read_maps(room: &mut [u8]) -> Option<&str> {
    let maps = File::open("/proc/self/maps").ok()?;
    let mut len = 0;
    loop {
        match maps.read_at(&mut room[len..], len as u64).ok()? {
            0 => break,
            _ if len == room.len() => return None,
            read => len += read,
        }
    }
    std::str::from_utf8(&room[..len]).ok()
}

/// The mappings of `maps` (`/proc/self/maps`): address range, permissions.
fn mappings(maps: &str) -> impl Iterator<Item = Option<(usize, usize, &str)>> {
    maps.lines().map(|line| {
        let mut fields = line.split(' ');
        let (range, perms) = (fields.next()?, fields.next()?);
        let (start, end) = range.split_once('-')?;
        let start = usize::from_str_radix(start, 16).ok()?;
        let end = usize::from_str_radix(end, 16).ok()?;
        Some((start, end, perms))
    })
}

/// Address ranges, in a fixed room (nothing here may allocate).
struct Ranges {
    ranges: [(usize, usize); MAX_REGIONS],
    count: usize,
}

impl Ranges {
    /// Adds `[start, end)` without the ranges `skipped`; `None` if full.
    fn add_without(&mut self, start: usize, end: usize, skipped: &[(usize, usize)]) -> Option<()> {
        let mut from = start;
        while from < end {
            // The first skipped range that overlaps what is left.
            let next = skipped
                .iter()
                .filter(|&&(low, high)| low < high && high > from && low < end)
                .min();
            let to = next.map_or(end, |&(low, _)| low.max(from));
            if from < to {
                *self.ranges.get_mut(self.count)? = (from, to);
                self.count += 1;
            }
            from = next.map_or(end, |&(_, high)| high);
        }
        Some(())
    }

    /// The ranges sorted, those that overlap or touch joined.
    fn merged(&mut self) -> &[(usize, usize)] {
        let ranges = &mut self.ranges[..self.count];
        ranges.sort_unstable();
        let mut joined = 0;
        for i in 0..ranges.len() {
            match joined {
                0 => joined = 1,
                _ if ranges[i].0 <= ranges[joined - 1].1 => {
                    ranges[joined - 1].1 = ranges[joined - 1].1.max(ranges[i].1);
                }
                _ => {
                    ranges[joined] = ranges[i];
                    joined += 1;
                }
            }
        }
        &ranges[..joined]
    }
}

/// The private writable mappings of `maps`, without the address ranges
/// `skipped`, and under AddressSanitizer the shadow of each (not the
/// shadow's own mappings, terabytes reserved): the small ones whole, the
/// large ones as the runs of pages they have (`None` where the kernel
/// cannot list them).
fn private_writable_regions(
    maps: &str,
    page: usize,
    skipped: &[(usize, usize)],
    pagemap: &File,
) -> Option<Watched> {
    let mut ranges = Ranges {
        ranges: [(0, 0); MAX_REGIONS],
        count: 0,
    };
    for mapping in mappings(maps) {
        let (start, end, perms) = mapping?;
        if !perms.starts_with("rw") || !perms.ends_with('p') || shadow::holds(start, end) {
            continue;
        }
        let first = ranges.count;
        ranges.add_without(start, end, skipped)?;
        for i in first..ranges.count {
            let (low, high) = shadow::of(ranges.ranges[i], page);
            ranges.add_without(low, high, skipped)?;
        }
    }
    watched(ranges.merged(), page, pagemap)
}

/// The regions and spans that watch `ranges` (sorted, apart): a small one
/// whole, a large one through the runs of pages it has.
fn watched(ranges: &[(usize, usize)], page: usize, pagemap: &File) -> Option<Watched> {
    let mut watched = Watched {
        regions: [Region::default(); MAX_REGIONS],
        count: 0,
        spans: [Span::default(); MAX_SPARSE],
        span_count: 0,
    };
    let mut first = 0;
    let mut add = |watched: &mut Watched, start: usize, end: usize| -> bool {
        let pages = (end - start) / page;
        let Some(region) = watched.regions.get_mut(watched.count) else {
            return false;
        };
        *region = Region {
            start,
            pages,
            first,
        };
        watched.count += 1;
        first += pages;
        true
    };
    for &(start, end) in ranges {
        if (end - start) / page <= DENSE_PAGES {
            add(&mut watched, start, end).then_some(())?;
            continue;
        }
        *watched.spans.get_mut(watched.span_count)? = Span { start, end };
        watched.span_count += 1;
        present_runs(pagemap, start, end, |start, end| {
            add(&mut watched, start, end)
        })
        .then_some(())?;
    }
    Some(watched)
}

/// Calls `each(start, end)` for the runs of pages of `[start, end)` that
/// are in memory or swapped out, in order, until it returns `false`;
/// `false` then, or where the kernel has no `PAGEMAP_SCAN`.
fn present_runs(
    pagemap: &File,
    start: usize,
    end: usize,
    mut each: impl FnMut(usize, usize) -> bool,
) -> bool {
    let there = sys::PAGE_IS_PRESENT | sys::PAGE_IS_SWAPPED;
    let mut runs = [sys::page_region::default(); SCAN_BATCH];
    let mut from = start as u64;
    while from < end as u64 {
        let mut scan = sys::pm_scan_arg {
            size: std::mem::size_of::<sys::pm_scan_arg>() as u64,
            start: from,
            end: end as u64,
            vec: runs.as_mut_ptr() as u64,
            vec_len: SCAN_BATCH as u64,
            category_anyof_mask: there,
            return_mask: there,
            ..Default::default()
        };
        // SAFETY: `vec` points to `runs`, `vec_len` long; the scan writes
        // at most that many runs there and the walk's end to `scan`.
        let found = unsafe { sys::pagemap_scan(pagemap.as_raw_fd(), &mut scan) };
        let Ok(found) = usize::try_from(found) else {
            return false;
        };
        let listed = &runs[..found.min(SCAN_BATCH)];
        if !listed
            .iter()
            .all(|run| each(run.start as usize, run.end as usize))
        {
            return false;
        }
        if scan.walk_end <= from {
            return false; // No progress: not a walk this code knows.
        }
        from = scan.walk_end;
    }
    true
}

/// Drops the pages of `[start, end)` that none of `regions` (sorted by
/// address) holds.
fn drop_outside(regions: &[Region], start: usize, end: usize, page: usize) {
    let mut at = start;
    let first = regions.partition_point(|r| r.start + r.pages * page <= start);
    for region in regions[first..].iter().take_while(|r| r.start < end) {
        if at < region.start {
            drop_pages(at, region.start);
        }
        at = at.max(region.start + region.pages * page);
    }
    if at < end {
        drop_pages(at, end);
    }
}

/// Drops the pages `[from, to)` of a private mapping, which were not there
/// as the fork began: they read as they did (zeros, or the file's bytes).
fn drop_pages(from: usize, to: usize) {
    // SAFETY: see above; no page of the area or of the live stack.
    unsafe { sys::madvise(from as *mut sys::c_void, to - from, sys::MADV_DONTNEED) };
}

/// Where AddressSanitizer keeps its record of an address range, and the
/// frames it moves off the stack.
mod shadow {
    /// The pages of the shadow of `[low, high)` (none without the sanitizer).
    #[cfg(cargo_reduce_asan)]
    pub(super) fn of((low, high): (usize, usize), page: usize) -> (usize, usize) {
        extern "C" {
            /// `sanitizer/asan_interface.h`.
            fn __asan_get_shadow_mapping(scale: *mut usize, offset: *mut usize);
        }
        let (mut scale, mut offset) = (0, 0);
        // SAFETY: writes the two values.
        unsafe { __asan_get_shadow_mapping(&mut scale, &mut offset) };
        let (low, high) = ((low >> scale) + offset, (high >> scale) + offset);
        (low / page * page, high.div_ceil(page) * page)
    }

    /// The mapping that holds the test thread's fake stack: with
    /// `detect_stack_use_after_return` (on by default since LLVM 15) the
    /// frames whose locals' addresses are taken live there, the
    /// snapshot's own among them, and are left out with the stack.
    #[cfg(cargo_reduce_asan)]
    pub(super) fn fake_stack(maps: &str) -> (usize, usize) {
        extern "C" {
            /// `sanitizer/asan_interface.h`: null without a fake stack.
            fn __asan_get_current_fake_stack() -> *mut std::ffi::c_void;
        }
        // SAFETY: only reads the thread's fake stack pointer.
        let at = unsafe { __asan_get_current_fake_stack() } as usize;
        let holds = |&(start, end): &(usize, usize)| at != 0 && (start..end).contains(&at);
        let ranges = super::mappings(maps)
            .flatten()
            .map(|(start, end, _)| (start, end));
        ranges.into_iter().find(holds).unwrap_or((0, 0))
    }

    /// Whether `[start, end)` is in the shadow itself.
    #[cfg(cargo_reduce_asan)]
    pub(super) fn holds(start: usize, end: usize) -> bool {
        // The highest address a process has on these targets, plus one.
        const TOP: usize = if cfg!(target_arch = "x86_64") {
            1 << 47
        } else {
            1 << 48
        };
        let (low, _) = of((0, 0), 1);
        let (_, high) = of((TOP, TOP), 1);
        low <= start && end <= high
    }

    #[cfg(not(cargo_reduce_asan))]
    pub(super) fn of(_: (usize, usize), _: usize) -> (usize, usize) {
        (0, 0)
    }

    #[cfg(not(cargo_reduce_asan))]
    pub(super) fn holds(_: usize, _: usize) -> bool {
        false
    }

    #[cfg(not(cargo_reduce_asan))]
    pub(super) fn fake_stack(_: &str) -> (usize, usize) {
        (0, 0)
    }
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
