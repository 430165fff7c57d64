# tests/bench/expect_usage.sh - sourced by the CLI tests (needs $bench, $work and fail()):
# expect_usage WORD ARGS... runs bench ARGS and expects exit 2 with one stderr
# line containing WORD, and no file left in $work.
expect_usage() {
  local word=$1
  shift
  local out rc
  out=$("$bench" "$@" 2>&1 >/dev/null)
  rc=$?
  [ "$rc" -eq 2 ] || fail "bench $* exited $rc, want 2"
  [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] || fail "bench $*: want one line, got: $out"
  printf '%s' "$out" | grep -qF -- "$word" || fail "bench $*: message does not name '$word': $out"
  [ -z "$(ls -A "$work")" ] || { fail "bench $* left files: $(ls -A "$work")"; rm -rf "${work:?}"/*; }
}
