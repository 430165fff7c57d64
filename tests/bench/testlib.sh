# tests/bench/testlib.sh - sourced by the shell tests: a scratch folder to work in
# (removed on exit), fail() to count failures, test_end to report and exit,
# none_left PID... (no process left behind).
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

# Whether none of the pids is alive (waits up to 5 s: a death signal is
# asynchronous); the ones alive are killed and named.
none_left() {
  local p left
  for _ in $(seq 50); do
    left=""
    for p in "$@"; do kill -0 "$p" 2>/dev/null && left="$left $p"; done
    [ -z "$left" ] && return 0
    sleep 0.1
  done
  for p in $left; do kill -KILL "$p"; done
  fail "processes left behind:$left"
  return 1
}
