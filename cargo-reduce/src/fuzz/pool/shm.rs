//! The pool's shared memory: one memfd holding the control region (header and
//! one area per worker slot) and the round area (input offsets, outcome
//! slots, input bytes), which grows with the largest round.

use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicU8, Ordering};

use rustix::fs::{memfd_create, MemfdFlags};

use super::protocol::{
    control_size, read_note, worker_area_offset, write_note, Header, Mapping, Note, WorkerArea,
    MAGIC, MAP_ALIGN, NOTE_NONE, NO_INDEX, PROTOCOL_VERSION, SLOT_PENDING,
};

/// A round's inputs, concatenated: input `i` is `data[ends[i - 1]..ends[i]]`.
#[derive(Debug, Default)]
pub(crate) struct Batch {
    /// All inputs, back to back.
    pub data: Vec<u8>,
    /// End offset of each input in `data`.
    pub ends: Vec<u64>,
}

impl Batch {
    /// Number of inputs.
    pub(super) fn len(&self) -> usize {
        self.ends.len()
    }

    /// Empties the batch, keeping its buffers.
    pub(super) fn clear(&mut self) {
        self.data.clear();
        self.ends.clear();
    }

    /// Bytes the batch takes in the round area.
    pub(super) fn footprint(&self) -> usize {
        round_layout(self.len(), self.data.len()).3
    }
}

/// Round parameters that go into the header besides the inputs.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RoundParams {
    /// Indices a worker claims at once.
    pub chunk: u64,
    /// Whether a passing outcome is accepted.
    pub accept_pass: bool,
    /// Malloc limit in bytes (0: none).
    pub malloc_limit: u64,
}

/// (offsets_at, slots_at, data_at, total) for `count` inputs of `bytes` bytes.
fn round_layout(count: usize, bytes: usize) -> (usize, usize, usize, usize) {
    let offsets_at = 0;
    let slots_at = offsets_at + (count + 1) * 8;
    let data_at = slots_at + count.div_ceil(8) * 8;
    (offsets_at, slots_at, data_at, data_at + bytes)
}

/// The memfd and the parent's mappings of it.
#[derive(Debug)]
pub(crate) struct SharedMemory {
    fd: OwnedFd,
    slots: usize,
    control: Mapping,
    round: Option<Mapping>,
    len: usize,
}

impl SharedMemory {
    /// A new memfd with a control region for `slots` workers.
    pub(super) fn create(slots: usize) -> io::Result<Self> {
        let fd = memfd_create(c"cargo-reduce-pool", MemfdFlags::CLOEXEC)?;
        let len = control_size(slots);
        set_len(&fd, len)?;
        let control = Mapping::new(fd.as_raw_fd(), 0, len)?;
        let shm = SharedMemory {
            fd,
            slots,
            control,
            round: None,
            len,
        };
        let header = shm.header();
        header
            .version
            .store(u64::from(PROTOCOL_VERSION), Ordering::Relaxed);
        header.slots.store(slots as u64, Ordering::Relaxed);
        header.best.0.store(NO_INDEX, Ordering::Relaxed);
        header.magic.store(MAGIC, Ordering::Release);
        Ok(shm)
    }

    /// The descriptor workers inherit.
    pub(super) fn fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }

    /// Current length of the memfd.
    pub(super) fn len(&self) -> u64 {
        self.len as u64
    }

    /// The round header.
    pub(super) fn header(&self) -> &Header {
        // SAFETY: the control mapping starts with the header.
        unsafe { &*(self.control.ptr() as *const Header) }
    }

    fn area_ptr(&self, slot: usize) -> *mut u8 {
        assert!(slot < self.slots, "worker slot {slot} out of range");
        self.control.ptr().wrapping_add(worker_area_offset(slot))
    }

    /// Worker `slot`'s status words.
    pub(super) fn area(&self, slot: usize) -> &WorkerArea {
        // SAFETY: `area_ptr` checked the slot; areas lie in the control mapping.
        unsafe { &*(self.area_ptr(slot) as *const WorkerArea) }
    }

    /// The note worker `slot` left, if any.
    pub(super) fn note(&self, slot: usize) -> Option<Note> {
        // SAFETY: `area_ptr` points into the control mapping.
        unsafe { read_note(self.area_ptr(slot)) }
    }

    /// Forgets worker `slot`'s note if it is of `kind`, so the worker can
    /// note again; false if it is not (the test noted a failure of its own).
    pub(super) fn forget_note(&self, slot: usize, kind: u32) -> bool {
        let status = &self.area(slot).note_kind;
        let exchanged =
            status.compare_exchange(kind, NOTE_NONE, Ordering::AcqRel, Ordering::Relaxed);
        exchanged.is_ok()
    }

    /// Notes `text` as worker `slot`'s note of `kind`, in place of a note
    /// of that kind or of none; false if the worker noted something else.
    pub(super) fn replace_note(&self, slot: usize, kind: u32, text: &[u8]) -> bool {
        self.forget_note(slot, kind);
        // SAFETY: `area_ptr` points to a mapped worker area.
        unsafe { write_note(self.area_ptr(slot), kind, 0, text) }
    }

    /// Clears worker `slot`'s area for a new process.
    pub(super) fn reset_area(&self, slot: usize) {
        let area = self.area(slot);
        area.current.store(0, Ordering::Relaxed);
        area.range_end.store(0, Ordering::Relaxed);
        area.resume_from.store(0, Ordering::Relaxed);
        area.resume_to.store(0, Ordering::Relaxed);
        area.note_len.store(0, Ordering::Relaxed);
        area.note_kind.store(NOTE_NONE, Ordering::Release);
    }

    /// Writes a round's inputs and parameters (workers must be idle).
    pub(super) fn load_round(&mut self, batch: &Batch, params: RoundParams) -> io::Result<()> {
        let count = batch.len();
        let (offsets_at, slots_at, data_at, total) = round_layout(count, batch.data.len());
        self.reserve(total)?;
        let base = self
            .round
            .as_ref()
            .map_or(std::ptr::null_mut(), Mapping::ptr);
        // SAFETY: `reserve` mapped at least `total` bytes at `base`, laid out
        // as computed above; no worker reads the round area between rounds.
        unsafe {
            let offsets = base.add(offsets_at) as *mut u64;
            offsets.write(0);
            std::ptr::copy_nonoverlapping(batch.ends.as_ptr(), offsets.add(1), count);
            std::ptr::write_bytes(base.add(slots_at), SLOT_PENDING, count);
            std::ptr::copy_nonoverlapping(batch.data.as_ptr(), base.add(data_at), batch.data.len());
        }
        let header = self.header();
        header.count.store(count as u64, Ordering::Relaxed);
        header.chunk.store(params.chunk.max(1), Ordering::Relaxed);
        header
            .accept_pass
            .store(u64::from(params.accept_pass), Ordering::Relaxed);
        header
            .malloc_limit
            .store(params.malloc_limit, Ordering::Relaxed);
        header
            .offsets_at
            .store(offsets_at as u64, Ordering::Relaxed);
        header.slots_at.store(slots_at as u64, Ordering::Relaxed);
        header.data_at.store(data_at as u64, Ordering::Relaxed);
        header.next.0.store(0, Ordering::Relaxed);
        header.best.0.store(NO_INDEX, Ordering::Release);
        Ok(())
    }

    /// Grows the file and the round mapping to hold `bytes` of round area.
    fn reserve(&mut self, bytes: usize) -> io::Result<()> {
        let mapped = self.round.as_ref().map_or(0, Mapping::len);
        if mapped >= bytes && mapped > 0 {
            return Ok(());
        }
        let want = bytes.max(2 * mapped).max(MAP_ALIGN).div_ceil(MAP_ALIGN) * MAP_ALIGN;
        let offset = control_size(self.slots);
        set_len(&self.fd, offset + want)?;
        self.len = offset + want;
        self.round = None;
        self.round = Some(Mapping::new(self.fd(), offset, want)?);
        Ok(())
    }

    /// The outcome slot of input `index` of the current round.
    pub(super) fn slot(&self, index: usize) -> u8 {
        let header = self.header();
        assert!(index < header.count.load(Ordering::Relaxed) as usize);
        let at = header.slots_at.load(Ordering::Relaxed) as usize + index;
        let base = self
            .round
            .as_ref()
            .map_or(std::ptr::null_mut(), Mapping::ptr);
        // SAFETY: `load_round` laid out `count` slots at `slots_at`.
        unsafe { (*(base.add(at) as *const AtomicU8)).load(Ordering::Acquire) }
    }

    /// Lowers the round's lowest accepted index to `index`.
    pub(super) fn lower_best(&self, index: usize) {
        self.header()
            .best
            .0
            .fetch_min(index as u64, Ordering::AcqRel);
    }

    /// The round's lowest accepted index so far.
    pub(super) fn best(&self) -> Option<usize> {
        let best = self.header().best.0.load(Ordering::Acquire);
        (best != NO_INDEX).then_some(best as usize)
    }

    /// The next index workers would claim.
    pub(super) fn next_unclaimed(&self) -> usize {
        self.header().next.0.load(Ordering::Relaxed) as usize
    }
}

fn set_len(fd: &OwnedFd, len: usize) -> io::Result<()> {
    Ok(rustix::fs::ftruncate(fd, len as u64)?)
}
