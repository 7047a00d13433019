//! A small inventory module with one planted type error (E0308): the
//! quick start reduces it to the few tokens rustc needs to report it.

use std::collections::HashMap;

#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    pub name: String,
    pub quantity: u32,
    pub price_cents: u64,
}

#[derive(Default)]
pub struct Inventory {
    items: HashMap<String, Item>,
}

impl Inventory {
    pub fn add(&mut self, name: &str, quantity: u32, price_cents: u64) {
        let entry = self.items.entry(name.to_string()).or_insert(Item {
            name: name.to_string(),
            quantity: 0,
            price_cents,
        });
        entry.quantity += quantity;
    }

    pub fn average_price(&self) -> u64 {
        let count = self.items.len();
        // The planted bug: a `usize` where a `u64` is expected.
        let total: u64 = self.items.values().map(|i| i.price_cents).sum();
        if count == 0 {
            return 0;
        }
        total / count
    }
}
