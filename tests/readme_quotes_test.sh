#!/usr/bin/env bash
# tests/readme_quotes_test.sh ROOT - README's code quotes are real code: in
# each ```c block, the lines after a "/* in FILE */" marker must each stand,
# as written, in FILE. Fails naming the line that drifted.
set -u
root=$1
fail=0
n=0
file=
inblock=0
while IFS= read -r line; do
  case $line in
    '```c') inblock=1; file=; continue ;;
    '```') inblock=0; continue ;;
  esac
  [ "$inblock" = 1 ] || continue
  if [[ $line =~ ^/\*\ in\ ([^ ]+)\ \*/$ ]]; then file=${BASH_REMATCH[1]}; continue; fi
  [ -n "$file" ] || continue
  n=$((n + 1))
  if ! grep -qxF -- "$line" "$root/$file"; then
    echo "README quotes a line $file does not have: $line"
    fail=1
  fi
done < "$root/README.md"
[ "$n" -gt 0 ] || { echo "no quoted line found"; exit 1; }
[ "$fail" = 0 ] && echo "$n quoted lines, each in its file"
exit "$fail"
