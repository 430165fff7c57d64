#!/usr/bin/env bash
# tests/bench/bounds_test.sh BENCH CSVQ [CHECK_DUMP] - input is bounded:
#  - bench --plot DIR whose results.csv is /dev/zero, a FIFO or a folder: exit 2
#    naming it, at once, under an address-space cap (the old reader read
#    /dev/zero until the OOM killer came); a row over 16 MiB is exit 2 naming
#    the limit; a UTF-8 BOM is skipped; a column named twice is exit 2 naming
#    both positions;
#  - --sizes of matmul, transfer, stream, train: signs, spaces, points,
#    overflow, bogus suffixes get one line naming value and limit;
#  - tools/check_dump.py without NumPy: one line, exit 2.
# Each block failed before its fix.
set -u
bench=$(realpath "$1")
csvq=$(realpath "$2")
here=$(dirname "$(realpath "$0")")
check_dump=${3:+$(realpath "$3")}
. "$here/testlib.sh"
test_begin
asan=0
ldd "$bench" 2>/dev/null | grep -q libasan && asan=1
# capped CMD...: CMD under a 2 GB address-space cap (bench maps ~1 GB of CUDA
# libraries; not under ASan, which reserves terabytes) and a 30 s timeout;
# sets out (stderr and stdout) and rc.
# (OpenBLAS threads stay at 1: under a cap they can hang at exit)
capped() {
  out=$( { [ "$asan" = 1 ] || ulimit -v 2000000; OPENBLAS_NUM_THREADS=1 timeout 30 "$@"; } 2>&1)
  rc=$?
}
# plot_refused DIR WORD: bench --plot DIR exits 2 with one line containing WORD
plot_refused() {
  capped "$bench" --plot "$1" --no-plots
  [ "$rc" -eq 2 ] || fail "--plot $1: exit $rc, want 2: $out"
  [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] || fail "--plot $1: want one line: $out"
  grep -qF -- "$2" <<<"$out" || fail "--plot $1: message does not name '$2': $out"
}

# --sizes of every suite: a sign, a space, a point, overflow, a bogus suffix
# are one line naming the value and the limit (they were "a problem of none
# of the selected suites", or named no limit)
. "$here/expect_usage.sh"   # expect_usage WORD ARGS... (no files left)
expect_usage "matmul size '-5x2x2': M must be a whole number from 1 to 2147483647 (got '-5')" \
  --suite matmul --sizes -5x2x2
expect_usage "matmul size '64x 8x8': N must be a whole number from 1 to 2147483647 (got ' 8')" \
  --suite matmul --sizes '64x 8x8'
expect_usage "matmul size '0': N must be a whole number from 1 to 2147483647 (got '0')" --suite matmul --sizes 0
expect_usage "K must be a whole number from 1 to 2147483647 (got '99999999999')" --suite matmul --sizes 2x2x99999999999
expect_usage "matmul size '5x5': want N or MxNxK (3 dimensions, got 2)" --suite matmul --sizes 5x5
expect_usage "matmul size '5x5x5x5': want N or MxNxK (more than 3 dimensions)" --suite matmul --sizes 5x5x5x5
for v in -5 +5 5KB '5 KiB' 0 99999999999999999999 17GiB 1.5MiB; do
  expect_usage "transfer size '$v': want a whole number of bytes from 1 to 17179869184 (16 GiB)" \
    --suite transfer --sizes "$v"
done
for v in -5 ' 5' 1.5M 1T 99999999999999999999; do
  expect_usage "stream problem 'copy:$v': N must be a whole number of elements from 1 to 2^36" \
    --suite stream --sizes "copy:$v"
done
expect_usage "(got '-5')" --suite stream --sizes copy:-5
expect_usage "the batch after -b must be a number from 1 to 4096 (got '-5')" --suite train --sizes cnn-b-5
expect_usage "the batch after -b must be a number from 1 to 4096 (got ' 5')" --suite train --sizes 'cnn-b 5'
expect_usage "batch 99999999999999999999 out of range 1..4096" --suite train --sizes cnn-b99999999999999999999

# tools/check_dump.py without NumPy: one line naming it and how to install
# it, exit 2 (it was a traceback); a numpy.py that fails to import stands in
if [ -n "$check_dump" ] && command -v python3 >/dev/null 2>&1; then
  mkdir nonumpy
  echo 'raise ImportError("No module named numpy", name="numpy")' > nonumpy/numpy.py
  out=$(PYTHONPATH=nonumpy python3 "$check_dump" . 2>&1)
  rc=$?
  [ "$rc" -eq 2 ] || fail "check_dump.py without numpy: exit $rc, want 2: $out"
  [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] && grep -qF "the Python module 'numpy' is missing" <<<"$out" \
    && grep -qF "pip install numpy" <<<"$out" || fail "check_dump.py without numpy: $out"
  rm -rf nonumpy
else
  echo "cli.bounds: python3 not found: tools/check_dump.py without NumPy not checked"
fi

# a real run to start from
"$bench" --suite matmul --sizes 48 --backend cpu-naive,cpu-omp --reps 2 --out run --no-plots \
  >run.log 2>&1 || fail "the base run exited $?: $(tail -3 run.log)"

# results.csv that is not a file: refused before a byte is read
mkdir zero fifo folder
ln -s /dev/zero zero/results.csv
plot_refused zero "'zero/results.csv' is a character device, not a results.csv"
mkfifo fifo/results.csv
plot_refused fifo "'fifo/results.csv' is a FIFO, not a results.csv"
mkdir folder/results.csv
plot_refused folder "'folder/results.csv' is a folder, not a results.csv"

# a row over the 16 MiB limit (a regular file of 17 MB without a newline)
mkdir long
{ head -c 17000000 /dev/zero | tr '\0' x; } > long/results.csv
plot_refused long "long/results.csv:1: line is longer than 16777216 bytes (the limit)"

# a BOM (a spreadsheet's save) is skipped: the same rows, the report redrawn
mkdir bom
{ printf '\xEF\xBB\xBF'; cat run/results.csv; } > bom/results.csv
capped "$bench" --plot bom --no-plots
[ "$rc" -eq 0 ] || fail "--plot of a results.csv with a BOM: exit $rc: $out"
[ "$("$csvq" bom/results.csv suite backend check)" = "$("$csvq" run/results.csv suite backend check)" ] \
  || fail "BOM: rows differ"
grep -q 'All .* checks passed' bom/report.md 2>/dev/null || fail "BOM: no report.md: $(ls bom)"

# a column named twice: refused naming it and both positions
mkdir dupcol
hdr=$(grep -v '^#' run/results.csv | head -1)
col=$(cut -d, -f9 <<<"$hdr")
nth=$(tr ',' '\n' <<<"$hdr" | grep -n '^note$' | cut -d: -f1)
sed "/^suite,/s/,note,/,$col,/" run/results.csv > dupcol/results.csv
line=$(grep -n '^suite,' dupcol/results.csv | cut -d: -f1)
plot_refused dupcol "dupcol/results.csv:$line: column '$col' is named twice in the header (columns 9 and $nth)"

# a name that closes gnuplot's string: the backend was pasted into the
# speedup chart's xtics and eval'd, so this cell ran system() and --plot
# exited 0. Refused on reading (exit 2 naming file, line, column and the
# character), nothing written; a lone quote the same.
mkdir inj quote
line=$(grep -n '^matmul,' run/results.csv | grep ',cpu-omp,' | head -1 | cut -d: -f1)
sed "${line}s/,cpu-omp,/,\"a\"\" 0); system(\"\"touch PWNED\"\"); set xtics (\"\"b\",/" \
  run/results.csv > inj/results.csv
grep -qF 'system(""touch PWNED"")' inj/results.csv || fail "inj: the cell was not planted"
capped "$bench" --plot inj
[ "$rc" -eq 2 ] || fail "--plot inj: exit $rc, want 2: $out"
[ ! -e PWNED ] && [ ! -e inj/PWNED ] || fail "--plot inj: the backend cell ran a command (PWNED exists)"
grep -qF "inj/results.csv:$line: column 'backend': character '\"' (0x22) at position 2 is not allowed in a name" \
  <<<"$out" || fail "--plot inj: message does not name file, line, column and character: $out"
[ "$(ls inj)" = results.csv ] || fail "--plot inj: wrote files: $(ls inj)"
sed "${line}s/,cpu-omp,/,\"cpu\"\"omp\",/" run/results.csv > quote/results.csv
capped "$bench" --plot quote
[ "$rc" -eq 2 ] && grep -qF "quote/results.csv:$line: column 'backend': character '\"'" <<<"$out" \
  || fail "--plot quote: exit $rc: $out"
[ "$(ls quote)" = results.csv ] || fail "--plot quote: wrote files: $(ls quote)"

# context lines are capped (256 of 4096 bytes): 256 MiB of '#' lines took 25 s
# and 5.25 GB before "no rows"; now refused at the 257th, naming the limit
mkdir ctx ctxlong ctxbig xrows
{ for i in $(seq 300); do echo "# k$i: v"; done; grep -v '^#' run/results.csv; } > ctx/results.csv
plot_refused ctx "ctx/results.csv:257: more than 256 '#' lines (the limit of context lines)"
{ printf '# %05000d\n' 0; grep -v '^#' run/results.csv; } > ctxlong/results.csv
plot_refused ctxlong "ctxlong/results.csv:1: a '#' line longer than 4096 bytes (the limit of a context line)"
{ yes '#' | head -c 134217728; echo suite; } > ctxbig/results.csv   # 128 MiB: 2.6 GB before
plot_refused ctxbig "ctxbig/results.csv:257: more than 256 '#' lines"
# the header's columns are checked before any row: header x and 16 Mi rows
# of x (32 MB) took 730-850 MB in --plot and bench-gate before "no column"
{ echo x; yes x | head -n 16777214; } > xrows/results.csv
plot_refused xrows "xrows/results.csv:1: not a bench results file: no column 'suite'"
if [ -x /usr/bin/time ] && [ "$asan" = 0 ]; then
  /usr/bin/time -f '%M' -o xrows/rss "$bench" --plot xrows --no-plots >/dev/null 2>&1
  base=$( { /usr/bin/time -f '%M' "$bench" --list >/dev/null; } 2>&1 | tail -1)
  rss=$(tail -1 xrows/rss)
  [ $((rss - base)) -lt 65536 ] || fail "--plot of 32 MB of rows without the columns: ${rss} KB (bench alone ${base} KB)"
fi
rm -f ctxbig/results.csv xrows/results.csv

# a chart scripts' folder of 3990 bytes (within bench's limit of 4000): every
# chart failed, cut at ~2045 bytes by a 2048-byte parameter buffer
long=$PWD
while [ $(( ${#long} + 201 )) -lt 3990 ]; do long=$long/$(printf 'd%.0s' $(seq 200)); done
long=$long/$(printf 'e%.0s' $(seq $(( 3990 - ${#long} - 1 ))))
[ ${#long} -eq 3990 ] || fail "long folder is ${#long} bytes"
mkdir -p "$long" && cp "$here"/../../plots/*.gp "$long"/
mkdir longdir && cp run/results.csv longdir/
BENCH_PLOTS_DIR=$long capped "$bench" --plot longdir
[ "$rc" -eq 0 ] && [ -s longdir/plots/error-matmul.png ] && [ -s longdir/plots/throughput-matmul.svg ] \
  || fail "--plot with a 3990-byte BENCH_PLOTS_DIR: exit $rc: $(head -c 300 <<<"$out")"

test_end cli.bounds
