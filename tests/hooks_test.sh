#!/usr/bin/env bash
# tests/hooks_test.sh ROOT - the test hooks are named once (harness/test_hooks.h)
# and documented once (README "### Test hooks"): the two lists are the same,
# and no source reads a BENCH_ variable by a literal name other than the
# documented settings. Fails naming what differs.
set -u
root=$1
fail=0
header=$(grep -o '^#define HOOK_[A-Z0-9_]* "BENCH_[A-Z0-9_]*"' "$root/harness/test_hooks.h" \
         | grep -o 'BENCH_[A-Z0-9_]*' | sort)
readme=$(sed -n '/^### Test hooks/,/^## /p' "$root/README.md" | grep -o '^| `BENCH_[A-Z0-9_]*`' \
         | grep -o 'BENCH_[A-Z0-9_]*' | sort)
[ -n "$header" ] || { echo "no hook in harness/test_hooks.h"; exit 1; }
if [ "$header" != "$readme" ]; then
  echo "harness/test_hooks.h and README's Test hooks table differ:"
  diff <(printf '%s\n' "$header") <(printf '%s\n' "$readme") | sed 's/^</  header only:/; s/^>/  README only:/' | grep only
  fail=1
fi
settings="BENCH_PLOTS_DIR BENCH_CUDA_SYNC"
while IFS= read -r hit; do
  name=$(printf '%s' "$hit" | grep -o 'BENCH_[A-Z0-9_]*' | head -1)
  case " $settings " in *" $name "*) continue ;; esac
  echo "read by a literal name, not through harness/test_hooks.h: $hit"
  fail=1
done < <(cd "$root" && grep -rnoE '(getenv|dp_planted)\("BENCH_[A-Z0-9_]*"' \
           --include=*.c --include=*.cu --include=*.h --include=*.cpp \
           bench cpu harness kernels ops report suites ci 2>/dev/null)
[ "$fail" = 0 ] && echo "$(printf '%s\n' "$header" | wc -l) hooks, named once and documented"
exit "$fail"
