#!/usr/bin/env bash
# The CUDA compiler launcher of wr_cuda_backend where WR_CUDA_RESOURCE_USAGE is on
# (kernels/CMakeLists.txt): runs the compile command given after LOG and keeps its whole output in
# LOG, so that ptxas's report (per kernel and architecture: registers, stack frame, spills) is read
# from the build's own compile (tools/kernel-resources.sh, tests/kernels/test_cuda_kernel_stack.sh,
# scripts/gpu-bundle.sh and gpu-check.sh) rather than from a second compile or a build log. The
# rest of the output (warnings, errors) passes through; the report's lines do not, so that a build
# stays readable. The compiler's exit status is returned.
#   usage: nvcc_resource_log.sh LOG COMPILER ARGS...
set -uo pipefail
log=$1
shift
"$@" >"$log.part" 2>&1
rc=$?
grep -v -E '^ptxas info +: |^ +[0-9]+ bytes stack frame, ' "$log.part" >&2
mv -f "$log.part" "$log"
exit $rc
