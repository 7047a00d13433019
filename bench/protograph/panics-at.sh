#!/bin/sh
# Oracle for `cargo-reduce file`: exit 0 when FILE still makes boa_eval fail
# at LOCATION (a "path:line:col" suffix such as
# "boa_engine-0.22.0/src/builtins/array/mod.rs:1005:21"): a panic at that
# location, or a failed allocation (which aborts) whose first Boa frame in
# the backtrace is there.
#
#   bench/protograph/panics-at.sh LOCATION FILE
#
# The runner is the fuzz binary itself run on one input (set BOA_EVAL to use
# another build); libFuzzer prints Rust's panic line or the allocation
# failure and its backtrace, which are grepped.
set -u
location=$1
file=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
exe=${BOA_EVAL:-${CARGO_TARGET_DIR:-$root/target-boa}/x86_64-unknown-linux-gnu/release/boa_eval}
# The address-space cap of bench/protograph/run (4 GiB): a huge allocation
# fails at once instead of filling the machine's memory.
out=$(ulimit -v 4194304; RUST_BACKTRACE=1 "$exe" -timeout=10 -rss_limit_mb=2048 "$file" 2>&1)
if printf '%s\n' "$out" | grep -F "panicked at" | grep -qF "$location:"; then
    exit 0
fi
printf '%s\n' "$out" | grep -q "memory allocation of [0-9]* bytes failed" &&
    printf '%s\n' "$out" | grep -m1 -E '^ +at .*/registry/src/' | grep -qF "$location"
