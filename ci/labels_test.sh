#!/usr/bin/env bash
# ci/labels_test.sh CI_TEST BUILD_DIR - every CTest label that ci/test selects
# or excludes (-L / -LE) must be carried by at least one test of the build:
# an exclusion of a label no test has excludes nothing, silently.
set -u
script=$1 build=$2
labels=$(ctest --test-dir "$build" --print-labels 2>/dev/null | sed -n 's/^  *//p')
fails=0
for l in $(grep -oE -- '-LE? +[A-Za-z0-9_.-]+' "$script" | awk '{ print $2 }' | sort -u); do
  if ! grep -qx -- "$l" <<<"$labels"; then
    echo "FAILED: $script names CTest label '$l', which no test carries (labels: $(echo $labels))" >&2
    fails=$((fails + 1))
  fi
done
echo "labels: $fails unknown"
[ $fails -eq 0 ]
