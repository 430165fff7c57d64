#!/usr/bin/env bash
# tests/cli_bounds_test.sh BENCH CSVQ [CHECK_DUMP] - input is bounded (issue 15):
#  - bench --plot DIR whose results.csv is /dev/zero, a FIFO or a folder: exit 2
#    naming it, at once, under an address-space cap (the old reader read
#    /dev/zero until the OOM killer came); a row over 16 MiB is exit 2 naming
#    the limit; a UTF-8 BOM is skipped; a column named twice is exit 2 naming
#    both positions.
# Each block failed before its fix.
set -u
bench=$(realpath "$1")
csvq=$(realpath "$2")
. "$(dirname "$0")/testlib.sh"
test_begin
asan=0
ldd "$bench" 2>/dev/null | grep -q libasan && asan=1
# capped CMD...: CMD under a 2 GB address-space cap (bench maps ~1 GB of CUDA
# libraries; not under ASan, which reserves terabytes) and a 30 s timeout;
# sets out (stderr and stdout) and rc.
capped() {
  out=$( { [ "$asan" = 1 ] || ulimit -v 2000000; timeout 30 "$@"; } 2>&1)
  rc=$?
}
# plot_refused DIR WORD: bench --plot DIR exits 2 with one line containing WORD
plot_refused() {
  capped "$bench" --plot "$1" --no-plots
  [ "$rc" -eq 2 ] || fail "--plot $1: exit $rc, want 2: $out"
  [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] || fail "--plot $1: want one line: $out"
  grep -qF -- "$2" <<<"$out" || fail "--plot $1: message does not name '$2': $out"
}

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

test_end cli.bounds
