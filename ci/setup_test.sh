#!/usr/bin/env bash
# ci/setup_test.sh SETUP - ci/setup.sh's bench_ensure_packages on an offline
# machine (bench.sh and ci/test source it): apt-get that cannot reach its
# servers, root or not. Optional libraries missing: one line naming them, and
# the build goes on (0); a build tool missing: the apt-get line to run, 1;
# nothing missing: silent, apt-get never called.
set -u
setup=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
fail() { echo "FAILED: $*" >&2; fails=$((fails + 1)); }
mkdir "$work/bin"
# stand-ins: dpkg-query says only "git" is installed; apt-get is offline and
# records that it was called; id -u says $FAKE_UID
cat >"$work/bin/dpkg-query" <<'X'
#!/bin/sh
for a; do p=$a; done
[ "$p" = git ] && printf 'install ok installed'
exit 0
X
cat >"$work/bin/apt-get" <<X
#!/bin/sh
echo "\$*" >>"$work/apt.calls"
echo "E: Failed to fetch: Temporary failure resolving 'deb.debian.org'" >&2
exit 100
X
cat >"$work/bin/id" <<'X'
#!/bin/sh
echo "${FAKE_UID:-1000}"
X
chmod +x "$work/bin/"*
run() { # run UID TOOLS PACKAGES: bench_ensure_packages' status and stderr
  PATH="$work/bin:$PATH" FAKE_UID=$1 bash -c ". '$setup'; BENCH_TOOLS='$2'; BENCH_PACKAGES='$3'; bench_ensure_packages" \
    2>"$work/err"
}
for uid in 0 1000; do
  rm -f "$work/apt.calls"
  run "$uid" "cmake bash" "git libopenblas-dev gnuplot-nox"
  rc=$?
  [ "$rc" -eq 0 ] || fail "uid $uid, optional packages missing offline: exit $rc: $(cat "$work/err")"
  grep -q 'going on without libopenblas-dev gnuplot-nox (' "$work/err" || fail "uid $uid: no line naming the missing packages: $(cat "$work/err")"
  [ "$uid" -eq 0 ] && { [ -s "$work/apt.calls" ] || fail "root: apt-get was not tried"; }
  [ "$uid" -ne 0 ] && [ -e "$work/apt.calls" ] && fail "not root: apt-get was called"
  run "$uid" "cmake no-such-tool-29" "git"
  rc=$?
  [ "$rc" -eq 1 ] || fail "uid $uid, a build tool missing: exit $rc, want 1"
  grep -q 'missing tools the build needs: no-such-tool-29' "$work/err" && grep -q 'apt-get install .*no-such-tool-29' "$work/err" \
    || fail "uid $uid: the missing tool is not named with its install line: $(cat "$work/err")"
done
rm -f "$work/apt.calls"
run 0 "cmake" "git"
[ $? -eq 0 ] && [ ! -s "$work/err" ] && [ ! -e "$work/apt.calls" ] || fail "all present: not silent, or apt-get called: $(cat "$work/err")"
[ "$fails" -eq 0 ] && echo "ci/setup_test.sh: all checks passed"
exit $((fails > 0))
