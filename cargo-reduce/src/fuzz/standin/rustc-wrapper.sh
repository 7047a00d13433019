#!/bin/sh
# Written by cargo-reduce for its coverage builds (cargo's RUSTC_WRAPPER;
# fuzz/standin/sancov_exempt.rs): the stand-in crate, whose source is under
# $CARGO_REDUCE_STAND_IN/src/, is compiled without SanitizerCoverage (the
# flag $CARGO_REDUCE_SANCOV_PASS), as the fuzz engines' own runtimes are;
# every other crate as cargo asks.
# Then the user's own wrapper, if they had one, or rustc.
exempt=
for arg in "$@"; do
    case $arg in "$CARGO_REDUCE_STAND_IN"/src/*) exempt=1 ;; esac
done
if [ -n "$exempt" ]; then
    for arg in "$@"; do
        shift
        [ "$arg" = "$CARGO_REDUCE_SANCOV_PASS" ] || set -- "$@" "$arg"
    done
fi
exec ${CARGO_REDUCE_RUSTC_WRAPPER:+"$CARGO_REDUCE_RUSTC_WRAPPER"} "$@"
