#!/usr/bin/env bash
# scripts/gpu-check.sh on stand-ins (no GPU needed, a few seconds): an nvidia-smi that names a
# "Stand-in GPU", a compute-sanitizer, and a bundle whose one test passes at once and whose
# wr-bench-gpu prints its heading and then hangs (STAND_IN_HANG=1) or prints a table. Cut off
# part-way, the script keeps every step it finished: it writes its results file section by
# section. Eight runs:
#   - SIGKILL while the benchmark runs (what a device tool does at its limit): the header and the
#     tests section are in the results file, the benchmark's is not;
#   - SIGTERM there: the same, plus a "Stopped" section naming the step, exit status 143, and the
#     benchmark's process is gone;
#   - --deadline 3: every step is skipped with a note, exit status 3 (incomplete);
#   - a whole run, with a stand-in compute-sanitizer that reports one invalid read and a sweep
#     whose benchmark finds no CUDA device: tests, benchmark, grid-kinds and memory pass, the sweep and
#     memcheck (that error, read through CTest's memcheck) fail, exit 1;
#   - once more without those faults: every step passes, exit 0, and the sweep's benchmark saw
#     the variant's folder in front of the LD_LIBRARY_PATH it was started with (extended, not
#     replaced);
#   - a bundle that records a newer glibc than this machine has: stopped before any step, exit 2;
#   - a bundle built for CUDA architectures newer than the GPU's: stopped before any step, exit 2;
#   - a bundle built without tuning variants (gpu-bundle.sh without --variants): the sweep is reported
#     not run, saying why, and the run passes, exit 0.
#
#   usage: test_gpu_check_stand_ins.sh REPOSITORY_ROOT WORK_DIR
set -uo pipefail
root=$1 work=$2
rm -rf "$work"
mkdir -p "$work/path" "$work/bundle/bin" "$work/bundle/lib"
fail() { echo "FAILED: $*" >&2; exit 1; }

cat >"$work/path/nvidia-smi" <<'EOF'
#!/bin/sh
case "$*" in
  *--query-gpu=name,driver_version*) printf 'name, driver_version\nStand-in GPU, 999.99\n' ;;
  *--query-gpu=name*) echo "Stand-in GPU" ;;
  *--query-gpu=driver_version*) echo "999.99" ;;
  *--query-gpu=compute_cap*) echo "9.0" ;;
  *) echo "| NVIDIA-SMI 999.99    Driver Version: 999.99    CUDA Version: 99.9 |" ;;
esac
EOF
cat >"$work/bundle/bin/stand_in_test" <<'EOF'
#!/bin/sh
echo "stand-in test: checked one thing"
EOF
cat >"$work/bundle/bin/wr-bench-gpu" <<EOF
#!/bin/bash
echo "# wr-bench-gpu (stand-in)"
echo \$\$ >"$work/bench.pid"
[ -z "\${STAND_IN_HANG:-}" ] || exec sleep 60
sweep="" kinds=""
for a in "\$@"; do [ "\$a" = --sweep ] && sweep=1; [ "\$a" = --grid-kinds ] && kinds=1; done
if [ -n "\$kinds" ]; then echo "| height field, grid | stand-in |"; exit 0; fi
if [ -n "\$sweep" ]; then
  echo "\$LD_LIBRARY_PATH" >"$work/sweep-ld-library-path"
  if [ -n "\${STAND_IN_SWEEP_NO_DEVICE:-}" ]; then echo "no CUDA device: stand-in"; exit 2; fi
fi
while [ \$# -gt 0 ]; do [ "\$1" = --csv ] && csv=\$2; shift; done
printf 'terrain,triangles,num_envs,width,height,ms_median,ms_min,ms_max,grays_per_s\\n"t",1,64,106,60,1.0,0.9,1.1,0.4\\n' >"\$csv"
echo "| stand-in | table |"
EOF
cat >"$work/bundle/bin/wr-bench-memory" <<EOF
#!/bin/bash
while [ \$# -gt 0 ]; do [ "\$1" = --csv ] && csv=\$2; shift; done
cp "$root/benchmarks/results/memory-2026-11-30-cpu.csv" "\$csv"
echo "# wr-bench-memory (stand-in)"
EOF
cat >"$work/path/compute-sanitizer" <<'EOF'
#!/bin/bash
# CTest's CudaSanitizer memcheck: --log-file FILE, then the options, then the test's command.
log=/dev/stdout
while [ $# -gt 0 ] && [[ $1 == --* ]]; do [ "$1" = --log-file ] && log=$2; shift 2; done
"$@"
rc=$?
{ echo "========= COMPUTE-SANITIZER"
  if [ -n "${STAND_IN_MEMORY_ERROR:-}" ]; then
    echo "========= Invalid __global__ read of size 4 bytes"
    echo "=========     at depth_kernel+0x10 in kernels/cuda_kernels.cu:123"
    echo "========= ERROR SUMMARY: 1 error"
  else
    echo "========= ERROR SUMMARY: 0 errors"
  fi
} >"$log"
exit $rc
EOF
chmod +x "$work/path/nvidia-smi" "$work/path/compute-sanitizer" "$work/bundle/bin/"*
mkdir -p "$work/bundle/variants/shipped"
echo "shipped (shipped values)" >"$work/bundle/variants/variants.txt"
cat >"$work/bundle/CTestTestfile.cmake" <<'EOF'
if(POLICY CMP0152)
  cmake_policy(SET CMP0152 NEW)
endif()
file(REAL_PATH . _wr_bundle)
add_test([=[cuda:stand-in]=] "${_wr_bundle}/bin/stand_in_test")
set_tests_properties([=[cuda:stand-in]=] PROPERTIES LABELS [=[cuda;memcheck]=])
EOF
printf 'commit=0000000\ndirty=no\nbuilt=stand-in\ncuda=13.0\nglibc_floor=2.17\nglibc_floor_file=bin/stand_in_test\n' \
  >"$work/bundle/bundle.txt"
echo "(stand-in: no ptxas report)" >"$work/bundle/kernel-resources.md"

# run_until_bench OUT SIGNAL: starts gpu-check.sh, sends SIGNAL once the benchmark has started;
# sets rc to its exit status.
run_until_bench() {
  local out=$1 sig=$2 pid i
  rm -f "$work/bench.pid"
  STAND_IN_HANG=1 PATH="$work/path:$PATH" bash "$root/scripts/gpu-check.sh" --prebuilt "$work/bundle" --out "$out" \
    >"$out.stdout" 2>&1 &
  pid=$!
  for i in $(seq 1 300); do [ -f "$work/bench.pid" ] && break; sleep 0.1; done
  [ -f "$work/bench.pid" ] || { kill -KILL $pid; cat "$out.stdout" >&2; fail "the stand-in benchmark never started"; }
  kill "-$sig" $pid
  wait $pid
  rc=$?
  results=$(ls "$out"/gpu-*-stand-in-gpu.md 2>/dev/null) || fail "$out: no results file"
}

run_until_bench "$work/killed" KILL
kill -KILL "$(cat "$work/bench.pid")" 2>/dev/null  # SIGKILL leaves the step's processes behind
grep -q '^# GPU check: Stand-in GPU' "$results" || fail "SIGKILL: no header in $results"
grep -A 2 '^## tests' "$results" | grep -q '^\*\*passed' || fail "SIGKILL: no passed tests section in $results"
grep -q 'stand-in' "$work/killed"/gpu-*-logs/ctest.log || fail "SIGKILL: the tests' log is missing"
! grep -q '^## benchmark' "$results" || fail "SIGKILL: a benchmark section for a benchmark that never ended"
echo "SIGKILL during the benchmark: header and tests section kept ($results)"

run_until_bench "$work/stopped" TERM
[ $rc -eq 143 ] || fail "SIGTERM: exit status $rc, not 143"
grep -A 2 '^## tests' "$results" | grep -q '^\*\*passed' || fail "SIGTERM: no passed tests section in $results"
grep -A 2 '^## Stopped' "$results" | grep -q 'SIGTERM during the step "benchmark"' || fail "SIGTERM: no Stopped section naming the step"
sleep 1
! kill -0 "$(cat "$work/bench.pid")" 2>/dev/null || fail "SIGTERM: the benchmark's process was left running"
echo "SIGTERM during the benchmark: tests section and a Stopped section, exit 143, the step's process ended"

out="$work/deadline"
PATH="$work/path:$PATH" bash "$root/scripts/gpu-check.sh" --prebuilt "$work/bundle" --out "$out" --deadline 3 \
  >"$out.stdout" 2>&1
rc=$?
results=$(ls "$out"/gpu-*-stand-in-gpu.md) || fail "--deadline 3: no results file"
[ $rc -eq 3 ] || { cat "$out.stdout" >&2; fail "--deadline 3: exit status $rc, not 3"; }
for s in tests benchmark grid-kinds memory sweep memcheck; do
  grep -A 2 "^## $s\$" "$results" | grep -q 'not run: it takes about .* before the deadline' ||
    fail "--deadline 3: step $s not reported as skipped for the deadline"
done
grep -q '^## Summary' "$results" || fail "--deadline 3: no summary"
echo "--deadline 3: every step skipped with a note, exit 3"

for error in 1 ""; do
  out="$work/whole$error"
  rm -f "$work/sweep-ld-library-path"
  STAND_IN_MEMORY_ERROR=$error STAND_IN_SWEEP_NO_DEVICE=$error LD_LIBRARY_PATH=/stand-in/driver/lib \
    PATH="$work/path:$PATH" bash "$root/scripts/gpu-check.sh" --prebuilt "$work/bundle" --out "$out" >"$out.stdout" 2>&1
  rc=$?
  results=$(ls "$out"/gpu-*-stand-in-gpu.md) || fail "whole run: no results file"
  for s in tests benchmark grid-kinds memory; do
    grep -A 2 "^## $s\$" "$results" | grep -q '^\*\*passed' || { cat "$results" >&2; fail "whole run: step $s did not pass"; }
  done
  grep -q '^| height field, grid | stand-in |' "$results" || fail "whole run: the grid kinds' table is not in the results"
  ls "$out"/memory-*-cuda-stand-in-gpu.csv >/dev/null 2>&1 || fail "whole run: no memory CSV next to the results"
  if [ -n "$error" ]; then
    [ $rc -eq 1 ] || fail "whole run with a memory error: exit status $rc, not 1"
    grep -A 2 '^## memcheck$' "$results" | grep -q '^\*\*FAILED: 1 memory errors' ||
      { cat "$results" >&2; fail "memcheck's error not reported"; }
    grep -q 'cuda_kernels.cu:123' "$results" || fail "compute-sanitizer's report (file and line) not in the results"
    grep -A 2 '^## sweep$' "$results" | grep -q '^\*\*FAILED: shipped(exit 2)' ||
      { cat "$results" >&2; fail "a sweep whose benchmark found no device was not reported as failed"; }
    echo "whole run with faults: the sweep without a device and memcheck's invalid read FAILED, exit 1"
  else
    [ $rc -eq 0 ] || { cat "$out.stdout" >&2; fail "whole run: exit status $rc, not 0"; }
    for s in sweep memcheck; do
      grep -A 2 "^## $s\$" "$results" | grep -q '^\*\*passed' || fail "whole run: $s did not pass"
    done
    case $(cat "$work/sweep-ld-library-path") in
      "$work/bundle/variants/shipped:$work/bundle/lib:/stand-in/driver/lib") ;;
      *) fail "the sweep's LD_LIBRARY_PATH was '$(cat "$work/sweep-ld-library-path")'" ;;
    esac
    echo "whole run: every step passed, exit 0; the sweep extended LD_LIBRARY_PATH"
  fi
done

# A bundle whose bundle.txt is edited by the sed script `edit` stops before any step with exit
# status 2 and says why (`why`, a grep pattern, in the results' stop section); `what` names it.
expect_stop() {
  local name=$1 edit=$2 why=$3 what=$4
  cp -r "$work/bundle" "$work/$name-bundle"
  sed -i "$edit" "$work/$name-bundle/bundle.txt"
  local out="$work/$name" rc
  PATH="$work/path:$PATH" bash "$root/scripts/gpu-check.sh" --prebuilt "$work/$name-bundle" --out "$out" >"$out.stdout" 2>&1
  rc=$?
  [ $rc -eq 2 ] || fail "$what: exit status $rc, not 2"
  grep -A 2 '^## Stopped before any step' "$out"/gpu-*.md | grep -q "$why" || fail "$what: no clear stop in the results"
  echo "$what: stopped before any step, exit 2"
}

# A bundle that needs a newer glibc than this machine's.
expect_stop new-glibc 's/^glibc_floor=.*/glibc_floor=99.0/' "glibc is .*, the bundle needs 99.0" \
  "a bundle needing glibc 99.0"
# A bundle built for a newer GPU than this one (the stand-in is 9.0), naming the --arch to use.
expect_stop newer-arch "\$a cuda_architectures=100;120" \
  "built for CUDA architectures 100;120, this GPU (Stand-in GPU) is 90: .*--arch 90" \
  "a bundle for architectures 100;120"

# A bundle built without --variants: the sweep is not run, says why, and fails nothing.
cp -r "$work/bundle" "$work/no-variants-bundle"
rm -rf "$work/no-variants-bundle/variants"
echo "variants=no" >>"$work/no-variants-bundle/bundle.txt"
out="$work/no-variants"
PATH="$work/path:$PATH" bash "$root/scripts/gpu-check.sh" --prebuilt "$work/no-variants-bundle" --out "$out" >"$out.stdout" 2>&1
rc=$?
[ $rc -eq 0 ] || { cat "$out.stdout" >&2; fail "a bundle without variants: exit status $rc, not 0"; }
grep -A 2 '^## sweep$' "$out"/gpu-*.md | grep -q '^\*\*not run: the bundle was built without variants' ||
  { cat "$out"/gpu-*.md >&2; fail "a bundle without variants: the sweep not reported as not run"; }
echo "a bundle without variants: the sweep not run, saying why, exit 0"
