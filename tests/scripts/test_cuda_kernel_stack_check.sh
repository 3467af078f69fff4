#!/usr/bin/env bash
# tests/kernels/test_cuda_kernel_stack.sh on ptxas reports written here (no nvcc needed): it passes
# a report whose every frame is within 1024 bytes on every architecture, and fails, naming what,
# on a frame above the limit, on an architecture with fewer kernels than another, on an
# architecture asked for but absent, and on a missing report.
#   usage: test_cuda_kernel_stack_check.sh REPO_ROOT
set -euo pipefail
repo=$1
check="$repo/tests/kernels/test_cuda_kernel_stack.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# kernel ARCH FRAME: one kernel's lines of a ptxas -v report
kernel() {
  cat <<LOG
ptxas info    : Compiling entry function '_ZN2wr4cuda48_GLOBAL__N__81be62e9_15_cuda_kernels_cu_3f2fd6f913output_kernelINS_14RenderFeaturesILb0ELb0ENS_18CameraTemplateRaysENS_10BvhTerrainEEELb0EEEvNS_7BvhViewE' for '$1'
ptxas info    : Function properties for _ZN2wr4cuda48_GLOBAL__N__81be62e9_15_cuda_kernels_cu_3f2fd6f913output_kernelINS_14RenderFeaturesILb0ELb0ENS_18CameraTemplateRaysENS_10BvhTerrainEEELb0EEEvNS_7BvhViewE
    $2 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 56 registers, used 0 barriers, $2 bytes cumulative stack size
ptxas info    : Compiling entry function '_ZN2wr4cuda16intersect_kernelINS_10BvhTerrainEEEvNT_4ViewE' for '$1'
ptxas info    : Function properties for _ZN2wr4cuda16intersect_kernelINS_10BvhTerrainEEEvNT_4ViewE
    768 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 40 registers, used 0 barriers, 768 bytes cumulative stack size
LOG
}

failures=0
# expect passes|fails NAME PATTERN LOG ARCH...: the check's verdict, and PATTERN in its output
expect() {
  local want=$1 name=$2 pattern=$3 log=$4 out rc=0
  shift 4
  out=$(bash "$check" "$repo" "$log" "$@" 2>&1) || rc=$?
  if { [ "$want" = passes ] && [ $rc -ne 0 ]; } || { [ "$want" = fails ] && [ $rc -eq 0 ]; } ||
     ! grep -qF -- "$pattern" <<<"$out"; then
    echo "FAILED: $name: expected the check to $want saying '$pattern'; it exited $rc with:"
    echo "$out"
    failures=$((failures + 1))
  else
    echo "ok: $name"
  fi
}

{ kernel sm_80 1024; kernel sm_90 1008; } >"$work/within.log"
expect passes "every frame within the limit" "all 4 kernels (architectures: 80 90) within 1024 bytes" \
  "$work/within.log" 80 90
{ kernel sm_80 1008; kernel sm_90 1040; } >"$work/over.log"
expect fails "a frame above the limit" "output_kernel<plain> on sm_90: 1040 bytes" "$work/over.log" 80 90
{ kernel sm_80 1008; kernel sm_90 1008 | head -n 4; } >"$work/fewer.log"
expect fails "an architecture with fewer kernels" "kernels per architecture (80 90): 2 1" "$work/fewer.log" 80 90
expect fails "an architecture asked for but absent" "no kernel of sm_86 in the report" "$work/within.log" 80 86 90
expect fails "no report" "no ptxas report at $work/none.log" "$work/none.log" 80 90

[ $failures -eq 0 ] || { echo "$failures case(s) failed"; exit 1; }
echo "all cases passed"
