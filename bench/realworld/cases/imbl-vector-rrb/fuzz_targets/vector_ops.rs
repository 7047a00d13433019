//! Typed fuzz target for `imbl::Vector` (persistent RRB-tree vector).
//!
//! Mirrors upstream `fuzz/fuzz_targets/vector.rs`: a sequence of `Arbitrary`
//! actions (push/pop at both ends, insert, remove, join, split) is replayed on an
//! `imbl::Vector` and on a `std::vec::Vec` model, and the two must agree.  One
//! addition: `JoinRepeated` appends or prepends a run of `count` copies of a
//! value, so that inputs of a few bytes can grow the tree past one level
//! (chunks hold 64 elements).
#![no_main]

use arbitrary::Arbitrary;
use imbl::Vector;
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug)]
enum Action {
    PushFront(u8),
    PushBack(u8),
    PopFront,
    PopBack,
    Insert(u16, u8),
    Remove(u16),
    JoinLeft(Vec<u8>),
    JoinRight(Vec<u8>),
    JoinRepeated { left: bool, value: u8, count: u16 },
    SplitLeft(u16),
    SplitRight(u16),
}

fn cap(len: usize, index: u16) -> usize {
    if len == 0 { 0 } else { usize::from(index) % len }
}

fuzz_target!(|actions: Vec<Action>| {
    let mut vec: Vector<u8> = Vector::new();
    let mut model: Vec<u8> = Vec::new();
    for action in actions {
        match action {
            Action::PushFront(v) => {
                model.insert(0, v);
                vec.push_front(v);
            }
            Action::PushBack(v) => {
                model.push(v);
                vec.push_back(v);
            }
            Action::PopFront => {
                let expected = if model.is_empty() { None } else { Some(model.remove(0)) };
                assert_eq!(expected, vec.pop_front());
            }
            Action::PopBack => assert_eq!(model.pop(), vec.pop_back()),
            Action::Insert(i, v) => {
                let i = cap(model.len(), i);
                model.insert(i, v);
                vec.insert(i, v);
            }
            Action::Remove(i) => {
                if model.is_empty() {
                    continue;
                }
                let i = cap(model.len(), i);
                assert_eq!(model.remove(i), vec.remove(i));
            }
            Action::JoinLeft(items) => {
                let mut left: Vector<u8> = items.iter().copied().collect();
                left.append(vec);
                vec = left;
                model.splice(0..0, items);
            }
            Action::JoinRight(items) => {
                vec.append(items.iter().copied().collect());
                model.extend(items);
            }
            Action::JoinRepeated { left, value, count } => {
                let run: Vector<u8> = std::iter::repeat(value).take(usize::from(count)).collect();
                if left {
                    let mut run = run;
                    run.append(vec);
                    vec = run;
                    model.splice(0..0, std::iter::repeat(value).take(usize::from(count)));
                } else {
                    vec.append(run);
                    model.extend(std::iter::repeat(value).take(usize::from(count)));
                }
            }
            Action::SplitLeft(i) => {
                let i = cap(model.len(), i);
                let right = vec.split_off(i);
                assert_eq!(right.len(), model.len() - i);
                model.truncate(i);
            }
            Action::SplitRight(i) => {
                let i = cap(model.len(), i);
                vec = vec.split_off(i);
                model.drain(..i);
            }
        }
        assert_eq!(model.len(), vec.len());
    }
    assert!(model.iter().eq(vec.iter()));
});
