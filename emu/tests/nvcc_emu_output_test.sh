#!/usr/bin/env bash
# emu/tests/nvcc_emu_output_test.sh - nvcc-emu refuses an output that is one
# of its inputs (#33 D1): `nvcc-emu x.cu -o x.cu`, also through ./x.cu, a
# symlink, a hard link, or -c without -o naming an input's own .o: one line
# naming the file, exit 2, the input untouched.
#
#   nvcc_emu_output_test.sh NVCC_EMU WORK_DIR
set -u
nvcc_emu=$1 work=$2
fail=0
bad() { echo "FAIL: $*" >&2; fail=1; }
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
cat >victim.cu <<'SRC'
// a source nvcc-emu must never overwrite
__global__ void k(int *p) { p[threadIdx.x] = 1; }
int main() { return 0; }
SRC
ln -s victim.cu link.cu
ln victim.cu hard.cu
mkdir sub
before=$(cksum <victim.cu)
# each case: the arguments after nvcc-emu
cases=("victim.cu -o victim.cu" "victim.cu -o ./victim.cu" "./victim.cu -o $work/victim.cu"
       "victim.cu -o link.cu" "link.cu -o victim.cu" "victim.cu -o hard.cu"
       "victim.cu --output-file=victim.cu" "-ovictim.cu victim.cu"
       "-c victim.cu -o sub/../victim.cu")
for c in "${cases[@]}"; do
    # shellcheck disable=SC2086
    err=$("$nvcc_emu" $c 2>&1 >/dev/null)
    rc=$?
    echo "nvcc-emu $c: rc=$rc: $err"
    [ "$rc" -eq 2 ] || bad "'$c' gave exit status $rc, not 2"
    [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || bad "'$c' gave more than one line"
    case $err in *"is also an input"*) ;; *) bad "'$c': the message does not say the output is an input" ;; esac
    [ "$(cksum <victim.cu)" = "$before" ] || { bad "'$c' changed victim.cu"; exit 1; }
    [ -L link.cu ] || bad "'$c' replaced the symlink"
done
# -c without -o writes <base>.o next to the cwd: an input named so is refused
cp victim.cu obj.cu && printf 'not an object\n' >obj.o
err=$("$nvcc_emu" -c obj.cu obj.o 2>&1 >/dev/null); rc=$?
echo "nvcc-emu -c obj.cu obj.o: rc=$rc: $err"
[ "$rc" -eq 2 ] && [ "$(cat obj.o)" = "not an object" ] || bad "-c obj.cu obj.o overwrote the input obj.o"
# a distinct output still builds
"$nvcc_emu" -c victim.cu -o victim.o || bad "a distinct output was refused"
[ -s victim.o ] || bad "victim.o was not written"
[ "$fail" = 0 ] && echo "nvcc_emu_output ok"
exit "$fail"
