#!/usr/bin/env bash
# tests/report/schema_readme.sh BENCH README - results/README.md's column
# table (between the schema:begin and schema:end marker comments) must be
# exactly what `bench --columns` prints from the schema (harness/schema.h).
# Fails, with the diff, when a column was added, renamed or re-documented in
# one place only; fails when the markers are missing.
set -u
bench=$1 readme=$2
want=$("$bench" --columns) || { echo "FAILED: $bench --columns exited $?" >&2; exit 1; }
have=$(awk '/<!-- schema:end/ { on = 0 } on { print } /<!-- schema:begin/ { on = 1 }' "$readme")
if [ -z "$have" ]; then
  echo "FAILED: $readme has no table between <!-- schema:begin --> and <!-- schema:end --> markers" >&2
  exit 1
fi
if ! diff -u <(printf '%s\n' "$have") <(printf '%s\n' "$want") >&2; then
  echo "FAILED: $readme's column table differs from 'bench --columns' (-: README, +: schema)" >&2
  exit 1
fi
echo "schema_readme: $(printf '%s\n' "$want" | grep -c '^| `') columns match"
