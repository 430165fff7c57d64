#!/usr/bin/env bash
# tests/designated_test.sh ROOT - every initialiser of a suite_def, suite_gpu,
# suite_steps, suite_collective or backend_def names its members (.name =
# ...): C files are held to it by the compiler (BENCH_DESIGNATED, harness/backend.h), the GPU halves and tests
# compiled as C++ by this check. Fails naming the file and line.
set -u
root=$1
fail=0
n=0
while IFS=: read -r file line _; do
  n=$((n + 1))
  # the first token after '{' (or '{ {' for an array), comments and blank lines skipped
  first=$(tail -n +"$line" "$root/$file" | perl -0777 -pe "s{/\\*.*?\\*/}{}gs; s{//[^\\n]*}{}g" | tr "\\n" " " \
          | sed -E 's/^[^=]*=[[:space:]]*\{[[:space:]]*(\{[[:space:]]*)?//' | cut -c1)
  if [ "$first" != "." ] && [ "$first" != "}" ]; then
    echo "$file:$line: a positional initialiser (name its members)"
    fail=1
  fi
done < <(cd "$root" && grep -rnE '^(static )?const (suite_def|suite_gpu|suite_steps|suite_collective|backend_def) [A-Za-z_0-9]+(\[\])? = \{' \
           --include=*.c --include=*.cu --include=*.h suites harness tests bench cpu kernels report 2>/dev/null)
[ "$n" -gt 0 ] || { echo "no initialiser found"; exit 1; }
[ "$fail" = 0 ] && echo "$n initialisers, every one by member name"
exit "$fail"
