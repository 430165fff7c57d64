#!/usr/bin/env bash
# tests/bench/rounds_test.sh BENCH CSVQ - bench --rounds N (cli.rounds): a
# problem's CPU host rows measured together in alternating rounds
# (harness/runner.c host_group; the order itself: unit.harness.measure).
# Every CPU backend of matmul (from --list) at two sizes: the rows are the
# same set as without --rounds (sizes x CPU backends), each passing row has
# its exact repetitions and a note naming every other passing row of its
# problem, and the CSV's `# rounds:` line says how they were measured. Bad
# values and a selection with one CPU backend are refused (exit 2, one line,
# nothing written).
set -u
here=$(dirname "$(realpath "${BASH_SOURCE[0]}")")
bench=$(realpath "$1")
csvq=$(realpath "$2")
. "$here/testlib.sh"
test_begin
. "$here/expect_usage.sh"

expect_usage "'1' (want an integer from 2 to 1000)" --suite matmul --backend cpu-naive,cpu-omp --rounds 1
expect_usage "'1001'" --suite matmul --backend cpu-naive,cpu-omp --rounds 1001
expect_usage "'x'" --suite matmul --backend cpu-naive,cpu-omp --rounds x
expect_usage "two or more CPU backends" --suite matmul --backend cpu-omp --rounds 2
expect_usage "two or more CPU backends" --suite matmul --backend cpu-naive,cpu-omp,cuda-naive --mode resident --rounds 2

cpus=$("$bench" --list --suite matmul | awk '$2 == "cpu" { print $1 }' | paste -sd, -)
ncpu=$(tr ',' '\n' <<<"$cpus" | grep -c .)
[ "$ncpu" -ge 2 ] || fail "matmul lists $ncpu CPU backends: $cpus"
sizes=24,40
reps=4
rounds=2
args=(--suite matmul --sizes "$sizes" --backend "$cpus" --threads 1 --reps "$reps" --no-plots)
"$bench" "${args[@]}" --out plain >/dev/null 2>plain.err || fail "the run without --rounds: $(tail -1 plain.err)"
"$bench" "${args[@]}" --rounds "$rounds" --out rounds >/dev/null 2>rounds.err ||
  fail "the run with --rounds: $(tail -1 rounds.err)"

# the same rows: sizes x CPU backends, each once, checked alike
key() { "$csvq" "$1/results.csv" case backend mode check | sort; }
want=$(( $(tr ',' '\n' <<<"$sizes" | grep -c .) * ncpu ))
[ "$(key rounds | wc -l)" -eq "$want" ] || fail "--rounds: $(key rounds | wc -l) rows, want $want"
[ "$(key plain)" = "$(key rounds)" ] || fail "--rounds changed the rows: $(diff <(key plain) <(key rounds))"
[ "$("$csvq" rounds/results.csv check | grep -c pass)" -ge 2 ] || fail "fewer than 2 rows passed"

# each passing row: its repetitions, and the others of its problem in its note
"$csvq" rounds/results.csv case backend check reps note >rows.txt
bad=$(awk -F'\t' -v reps="$reps" -v r="$rounds" '
  $3 == "pass" { n++; c[n] = $1; b[n] = $2; k[n] = $4; note[n] = $5 }
  END {
    for (i = 1; i <= n; i++) {
      if (k[i] != reps) print c[i] " " b[i] ": " k[i] " repetitions, want " reps
      if (index(note[i], "interleaved in " r " rounds with") == 0)
        print c[i] " " b[i] ": the note says nothing of the rounds: " note[i]
      for (j = 1; j <= n; j++)
        if (j != i && c[j] == c[i] && index(note[i] " ", " " b[j] " ") == 0)
          print c[i] " " b[i] ": the note does not name " b[j] ": " note[i]
    }
  }' rows.txt)
[ -z "$bad" ] || fail "$bad"
grep -q "^# rounds: $rounds " rounds/results.csv || fail "no '# rounds: $rounds' context line"
! grep -q "^# rounds:" plain/results.csv || fail "a run without --rounds has a rounds line"
! grep -q "interleaved" <("$csvq" plain/results.csv note) || fail "a run without --rounds says interleaved"
test_end cli.rounds
