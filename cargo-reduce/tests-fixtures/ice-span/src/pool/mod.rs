//! Connections: where they come from, and how they are checked out.

pub mod checkout;
pub mod source;

/// A fixed set of connection slots.
pub struct Pool {
    slots: Vec<bool>,
}

impl Pool {
    /// A pool of `size` free slots.
    pub fn new(size: usize) -> Pool {
        Pool { slots: vec![false; size] }
    }

    /// Takes a free slot, if there is one.
    pub fn take(&mut self) -> Option<usize> {
        let free = self.slots.iter().position(|used| !used)?;
        self.slots[free] = true;
        Some(free)
    }

    /// Gives slot `slot` back.
    pub fn give_back(&mut self, slot: usize) {
        self.slots[slot] = false;
    }
}
