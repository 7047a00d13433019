#!/bin/sh
# Interesting iff rustc still reports E0308 (mismatched types) for "$1" with
# the planted bug's own message: checking the error code alone lets a
# reducer slip to some other type mismatch. Build products go to the
# candidate's private directory.
rustc --edition 2021 --crate-type lib --emit metadata --out-dir "$(dirname "$1")" "$1" 2>&1 |
    grep -q 'expected `u64`, found `usize`'
