#!/usr/bin/env bash
# tests/tools/check_dump_test.sh BENCH CHECK_DUMP - tools/check_dump.py on real
# and hostile dumps (issue 33's W2, H7, T1):
#  - a real dump of mlp-small (NumPy only) passes;
#  - a NaN in loss.npy, in a gradient, an infinite learning rate: exit 1, named;
#  - a FIFO in place of input.npy is refused at once, never read (no hang);
#  - a .npy header claiming a huge shape, labels outside the classes (negative
#    too, which NumPy would silently wrap): refused with a line, no traceback;
#  - a bad case beside good ones: every case is reported, the good ones pass.
# Needs a python3 with NumPy (ci/test installs python3-numpy); exit 77 without.
set -u
here=$(dirname "$(realpath "${BASH_SOURCE[0]}")")
bench=$(realpath "$1")
check=$(realpath "$2")
. "$here/../bench/testlib.sh"
test_begin
py=
for c in python3 /usr/bin/python3; do
  if command -v "$c" >/dev/null 2>&1 && "$c" -c 'import numpy' 2>/dev/null; then py=$c; break; fi
done
if [ -z "$py" ]; then echo "tools.check_dump: no python3 with NumPy (apt-get install python3-numpy)"; exit 77; fi

"$bench" --suite train --sizes mlp-small-b4 --backend cpu-omp,cpu-blas --reps 1 --dump d --out r \
  --no-plots >run.txt 2>&1 || { fail "the dump run exited $?: $(tail -3 run.txt)"; test_end tools.check_dump; }
cases=$(ls d | wc -l)
[ "$cases" -eq 2 ] || fail "$cases dumped cases, want 2"
out=$(timeout 60 "$py" "$check" d 2>&1); rc=$?
[ $rc -eq 0 ] || fail "a real dump: exit $rc: $out"

a=$(ls d | head -1); b=$(ls d | tail -1)
# plant(): a copy of case a with one file rewritten by a Python snippet ($1 the name, $2 the code,
# run with f = the file's path)
plant() {
  rm -rf "p/$1"; mkdir -p p; cp -r "d/$a" "p/$1"
  F="p/$1/$2" "$py" -c "import os, numpy as np; f = os.environ['F']; $3" || fail "plant $1"
}
# expect_refused NAME PATTERN: the planted case fails (exit 1), its line matches, no traceback
expect_refused() {
  local out rc
  out=$(timeout 60 "$py" "$check" "p/$1" 2>&1); rc=$?
  [ $rc -eq 1 ] || fail "$1: exit $rc, want 1: $out"
  grep -q -- "$2" <<<"$out" || fail "$1: no line matching '$2': $out"
  grep -q Traceback <<<"$out" && fail "$1: a traceback: $out"
}
plant nan-loss loss.npy "np.save(f, np.array(float('nan'), dtype=np.float32))"
expect_refused nan-loss "loss.npy: 1 values are NaN or infinite"
plant nan-grad grad/fc1.weight.npy "a = np.load(f); a.flat[3] = np.nan; np.save(f, a)"
expect_refused nan-grad "grad/fc1.weight.npy: 1 values are NaN"
plant inf-lr config.txt "import re; t = open(f).read(); open(f, 'w').write(re.sub(r'(?m)^lr=.*$', 'lr=inf', t))"
expect_refused inf-lr "lr=inf is not finite"
plant huge input.npy "import numpy.lib.format as m; h = open(f, 'wb'); m.write_array_header_1_0(h, {'descr': '<f4', 'fortran_order': False, 'shape': (1 << 40,)}); h.write(b'0' * 64)"
expect_refused huge "the header claims shape"
plant label-big labels.npy "np.save(f, np.array([0, 1, 1000, 2], dtype=np.int64))"
expect_refused label-big "labels from 0 to 1000"
plant label-neg labels.npy "np.save(f, np.array([0, -1, 1, 2], dtype=np.int64))"
expect_refused label-neg "labels from -1"
# a FIFO: refused at once (a blocking open or read would wait for a writer forever)
rm -rf p/fifo; cp -r "d/$a" p/fifo; rm p/fifo/input.npy; mkfifo p/fifo/input.npy
out=$(timeout 20 "$py" "$check" p/fifo 2>&1); rc=$?
[ $rc -eq 1 ] || fail "a FIFO input.npy: exit $rc (124: it hung), want 1: $out"
grep -q "input.npy: not a regular file" <<<"$out" || fail "a FIFO input.npy is not named: $out"
# every case reported: a hostile case between two good ones
mkdir mixed; cp -r "d/$a" mixed/1-good; cp -r p/huge mixed/2-bad; cp -r "d/$b" mixed/3-good
out=$(timeout 60 "$py" "$check" mixed 2>&1); rc=$?
[ $rc -eq 1 ] || fail "mixed: exit $rc, want 1"
[ "$(grep -c "^mixed/[13]-good: mlp-small, sgd: loss" <<<"$out")" -eq 2 ] || fail "mixed: the good cases were not both checked: $out"
grep -q "^mixed/2-bad: FAIL: " <<<"$out" || fail "mixed: the bad case is not reported: $out"
test_end tools.check_dump
