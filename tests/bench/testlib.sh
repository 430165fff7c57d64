# tests/bench/testlib.sh - sourced by the shell tests: a scratch folder to work in
# (removed on exit), fail() to count failures, test_end to report and exit.
#   . testlib.sh; test_begin; ...; fail "what went wrong"; ...; test_end NAME
set -u

test_begin() {
    work=$(mktemp -d) || exit 2
    trap 'rm -rf "$work"' EXIT
    cd "$work" || exit 2
    fails=0
}

fail() { echo "FAILED: $*" >&2; fails=$((fails + 1)); }

test_end() {
    [ "$fails" -eq 0 ] && echo "$1: all checks passed"
    exit $((fails > 0))
}
