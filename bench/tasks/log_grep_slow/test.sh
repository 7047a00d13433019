#!/usr/bin/env bash
# The log_grep task with a slow oracle: every test first sleeps 50 ms, as a
# test that compiles or boots something would.  Shows the -j speed-up.
sleep 0.05
exec "$(dirname "$(readlink -f "$0")")/../log_grep/test.sh" "$1"
