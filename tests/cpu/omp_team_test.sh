#!/usr/bin/env bash
# tests/cpu/omp_team_test.sh SRC - every OpenMP parallel region of cpu/
# (cpu-omp's GEMM, convolution and training steps, and the elementwise ops
# the other CPU backends share) ends as cpu/omp_team.h says: no combined
# `parallel for`, no `omp barrier`, no worksharing construct (for, single,
# sections) without nowait, and every `omp parallel` block holds a yield
# barrier (omp_team_end or gemm_yield_barrier). A source scan: the barrier
# OpenMP adds is invisible in a result, and its cost shows only beside
# another process (bench --neighbour busy), never in a test that may not
# time. Left out: stream_cpu.c (the STREAM suite, not a matmul, conv or
# train path; its static first-touch schedule is what STREAM prescribes).
# A planted bare region (a file of src's cpu/ copied with one added) must
# fail the scan: the test checks its own rule too.
set -u
src=$(realpath "$1")
here=$(dirname "$(realpath "${BASH_SOURCE[0]}")")
. "$here/../bench/testlib.sh"
test_begin

# scan FILE...: one line per region or construct breaking the rule
scan() {
  awk '
    FNR == 1 { depth = 0; want = 0; inreg = 0 }
    # join continued pragma lines
    { line = $0 }
    cont != "" { line = cont " " line; cont = "" }
    /\\$/ { sub(/\\$/, "", line); cont = line; next }
    {
      p = line
      gsub(/\/\*.*\*\//, "", p)
      if (p ~ /^[ \t]*#[ \t]*pragma[ \t]+omp[ \t]+parallel[ \t]+for/) print FILENAME ":" FNR ": combined parallel for"
      else if (p ~ /^[ \t]*#[ \t]*pragma[ \t]+omp[ \t]+barrier/) print FILENAME ":" FNR ": omp barrier"
      else if (p ~ /^[ \t]*#[ \t]*pragma[ \t]+omp[ \t]+(for|single|sections)([ \t]|$)/ && p !~ /nowait/)
        print FILENAME ":" FNR ": worksharing without nowait"
      else if (p ~ /^[ \t]*#[ \t]*pragma[ \t]+omp[ \t]+parallel([ \t]|$)/) {
        if (inreg) print FILENAME ":" FNR ": nested parallel region"
        want = FNR; next
      }
      if (want && p ~ /[^ \t]/) {            # the statement after the pragma
        if (p !~ /^[ \t]*\{[ \t]*$/) { print FILENAME ":" want ": region is not a block"; want = 0; next }
        inreg = want; want = 0; depth = 0; found = 0
      }
      if (inreg) {
        if (p ~ /omp_team_end\(|gemm_yield_barrier\(/) found = 1
        n = split(p, ch, "")
        for (i = 1; i <= n; i++) { if (ch[i] == "{") depth++; else if (ch[i] == "}") depth-- }
        if (depth == 0) {
          if (!found) print FILENAME ":" inreg ": region ends without a yield barrier"
          inreg = 0
        }
      }
    }' "$@"
}

files=()
for f in "$src"/cpu/*.c; do
  [ "$(basename "$f")" = stream_cpu.c ] && continue
  grep -q '#pragma omp' "$f" && files+=("$f")
done
[ "${#files[@]}" -ge 10 ] || fail "only ${#files[@]} files of cpu/ have OpenMP regions: wrong folder?"
scan "${files[@]}" >bad.txt
[ -s bad.txt ] && fail "regions that end in a spinning barrier (cpu/omp_team.h):
$(sed "s|$src/||" bad.txt)"

# the rule itself: planted regions, each one breaking it once
cat >plant.c <<'PLANT'
void a(int n, float *x)
{
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; i++) x[i] = 0;
}
void b(int n, float *x)
{
#pragma omp parallel
    {
#pragma omp for schedule(static) \
    nowait
        for (int i = 0; i < n; i++) x[i] = 0;
    }
}
void c(int n, float *x)
{
    atomic_int arrived = 0;
#pragma omp parallel
    {
#pragma omp for
        for (int i = 0; i < n; i++) x[i] = 0;
#pragma omp barrier
        omp_team_end(&arrived);
    }
}
void d(int n, float *x)
{
    atomic_int arrived = 0;
#pragma omp parallel if (n > 1)
    {
        if (n) { x[0] = 1; }
#pragma omp for schedule(dynamic, 1) nowait
        for (int i = 0; i < n; i++) x[i] = 0;
        omp_team_end(&arrived);
    }
}
PLANT
scan plant.c | sed 's|^plant.c:||' >plant.txt
want='3: combined parallel for
8: region ends without a yield barrier
20: worksharing without nowait
22: omp barrier'
[ "$(cat plant.txt)" = "$want" ] || fail "the planted regions: got
$(cat plant.txt)
want
$want"
test_end omp_team_test
