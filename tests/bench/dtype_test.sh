#!/usr/bin/env bash
# tests/bench/dtype_test.sh BENCH CSVQ - precision as an axis, end to end:
#  - --dtype: a bad, repeated or empty value exits 2 with one line naming it;
#  - matmul and conv at every dtype on the CPU backends: every backend that
#    lists a dtype (bench --list) runs it and passes; every one that does not
#    gives one skip row saying why; the dtype column, the repro (which re-runs
#    exactly its row) and accuracy_lost (above rel_err at bf16 and fp16, equal
#    to it at fp32);
#  - planted faults at bf16 fail with exit 1: one element one ulp too many
#    (BENCH_PLANT_ULP) and a backend computing from the unrounded fp32 inputs
#    (BENCH_PLANT_FP32), for every CPU backend that runs bf16 matmul.
here=$(dirname "$(realpath "${BASH_SOURCE[0]}")")
bench=$(realpath "$1")
csvq=$(realpath "$2")
. "$here/testlib.sh"
test_begin
. "$here/expect_usage.sh"

expect_usage "bad --dtype 'fp32,bf17': 'bf17' is not one of fp32, tf32, bf16, fp16, amp-bf16, amp-fp16, all" \
  --suite matmul --dtype fp32,bf17
expect_usage "--dtype names 'bf16' twice" --suite matmul --dtype bf16,bf16
expect_usage "--dtype 'all,fp16': 'all' already names every dtype (fp32, tf32, bf16, fp16): give 'all' alone" --suite matmul --dtype all,fp16
expect_usage "--dtype 'fp32,all': 'all' already names every dtype" --suite matmul --dtype fp32,all
expect_usage "--dtype 'all,all': 'all' already names every dtype" --suite matmul --dtype all,all
expect_usage "bad --dtype ''" --suite matmul --dtype ''
expect_usage "'u8' is not one of" --suite matmul --dtype u8
expect_usage "--dtype selects nothing in suite 'train'" --suite train --dtype bf16

# the CPU backends of a suite and the dtypes each lists (bench --list)
cpu_dtypes() { "$bench" --list --suite "$1" | awk '$2 == "cpu" { print $1, $3 }'; }

for suite in matmul conv; do
  case $suite in matmul) size=33x17x9 ;; conv) size=fwd:mb2ic5ih7oc6kh3ph1 ;; esac
  backends=$(cpu_dtypes $suite | awk '{ print $1 }' | paste -sd, -)
  "$bench" --suite $suite --sizes $size --backend "$backends" --dtype all --min-time 0.01 \
    --out run-$suite --no-plots >/dev/null 2>&1
  rc=$?
  [ $rc -eq 0 ] || fail "$suite --dtype all: exit $rc"
  while read -r b dts; do
    for dt in fp32 tf32 bf16 fp16; do
      got=$("$csvq" run-$suite/results.csv backend dtype check note |
            awk -F'\t' -v b="$b" -v d="$dt" '$1 == b && $2 == d { print $3 "\t" $4 }')
      if [[ ",$dts," == *",$dt,"* ]]; then
        # listed: passes, or (this machine, this build) a skip that says why
        case "$got" in
          pass*) ;;
          skip*"on this CPU"*|skip*"exports no"*|skip*"not found at build time"*) ;;
          *) fail "$suite $b $dt (listed): '$got'" ;;
        esac
      else
        [[ "$got" == "skip	$b has no $dt path"* ]] || fail "$suite $b $dt (not listed): '$got'"
      fi
    done
  done < <(cpu_dtypes $suite)
  # accuracy_lost: the rounding of the inputs shows at bf16, not at fp32
  "$csvq" run-$suite/results.csv backend dtype check rel_err accuracy_lost |
    awk -F'\t' '$3 == "pass" && $2 == "fp32" && $4 != $5 { bad = bad " " $1 }
                $3 == "pass" && ($2 == "bf16" || $2 == "fp16") && !($5 > $4) { bad = bad " " $1 "/" $2 }
                END { if (bad) { print bad; exit 1 } }' >bad.txt || fail "$suite accuracy_lost:$(cat bad.txt)"
done

# a bf16 row's repro re-runs exactly that row
repro=$("$csvq" run-matmul/results.csv backend dtype repro | awk -F'\t' '$1 == "cpu-naive" && $2 == "bf16" { print $3 }')
case "$repro" in *"--dtype bf16"*) ;; *) fail "bf16 repro without --dtype bf16: '$repro'" ;; esac
# shellcheck disable=SC2086
"$bench" ${repro#bench } --out run-repro --no-plots >/dev/null 2>&1 || fail "repro failed: $repro"
[ "$("$csvq" run-repro/results.csv suite case backend dtype mode)" = \
  "$("$csvq" run-matmul/results.csv suite case backend dtype mode | awk -F'\t' '$3 == "cpu-naive" && $4 == "bf16"')" ] \
  || fail "the repro did not re-run exactly its row"

# planted faults: every CPU backend whose bf16 matmul passed above
for b in $("$csvq" run-matmul/results.csv backend dtype check | awk -F'\t' '$2 == "bf16" && $3 == "pass" { print $1 }'); do
  for plant in BENCH_PLANT_ULP BENCH_PLANT_FP32; do
    env "$plant=$b" "$bench" --suite matmul --sizes 33x17x9 --backend "$b" --dtype bf16 \
      --min-time 0.01 --out "p-$plant-$b" --no-plots >/dev/null 2>&1
    rc=$?
    [ $rc -eq 1 ] || fail "$plant=$b: exit $rc, want 1"
    [ "$("$csvq" "p-$plant-$b/results.csv" check)" = fail ] || fail "$plant=$b: row not failed"
  done
done
test_end cli.dtype
