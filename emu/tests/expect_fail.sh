#!/usr/bin/env bash
# emu/tests/expect_fail.sh - runs a command that must fail cleanly:
#
#   expect_fail.sh STATUS REGEX COMMAND [ARGS...]
#
# Passes when COMMAND exits with exactly STATUS (so not a crash: a signal
# gives 128+N) and its output (stdout and stderr) matches the extended
# regular expression REGEX.  Prints the output either way.
set -u
if [ $# -lt 3 ]; then
    echo "usage: $0 STATUS REGEX COMMAND [ARGS...]" >&2
    exit 2
fi
want=$1 re=$2
shift 2
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
if [ "$rc" -ne "$want" ]; then
    echo "expect_fail: exit status $rc, expected $want" >&2
    exit 1
fi
if ! printf '%s\n' "$out" | grep -Eq -- "$re"; then
    echo "expect_fail: output does not match: $re" >&2
    exit 1
fi
echo "expect_fail: exit status $rc and the expected message"
