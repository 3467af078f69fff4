#!/usr/bin/env bash
# Every CUDA kernel's stack frame fits CUDA's default stack per thread (cudaLimitStackSize, 1024
# bytes). A kernel whose frame is larger makes the driver raise the context's stack limit at its
# first launch and reserve the larger frame for every thread the device can hold at once, beside
# the scene (the first GPU run saw it: benchmarks/results/gpu-2026-12-04-nvidia-h200.md): memory
# the ledger does not see, allocated inside a render. The traversal stack (bvh_traverse.h, 768
# bytes) leaves the rest of a kernel a quarter of that; terrain.h's TraceScratch keeps all of a
# ray's traces in one such stack.
#
# Reads ptxas's report from the compile of the build itself (kernels/CMakeLists.txt keeps it in
# LOG, WR_CUDA_RESOURCE_USAGE): the kernels checked are the ones built, with the build's flags, and
# nothing is compiled a second time. tools/kernel-resources.sh makes it a table; the test fails
# naming each kernel and architecture above the limit, and where an architecture built has no rows
# or fewer kernels than another. The launcher rewrites LOG whenever the object is compiled (turning
# the report on changes the compile's flags), so the report is always the object's. No GPU.
#   usage: test_cuda_kernel_stack.sh REPO_ROOT LOG ARCH...
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: test_cuda_kernel_stack.sh REPO_ROOT LOG ARCH..." >&2; exit 2; }
repo=$1 log=$2
shift 2
limit=1024
[ -f "$log" ] || { echo "test_cuda_kernel_stack.sh: no ptxas report at $log (build the library first)"; exit 1; }
table=$(bash "$repo/tools/kernel-resources.sh" "$log")
echo "$table"
# Rows: | kernel | arch | registers | stack frame | spill stores | spill loads |
rows=$(echo "$table" | awk 'NR > 2' | wc -l)
expected=$(grep -c "Compiling entry function" "$log" || true)
if [ "$rows" -eq 0 ] || [ "$rows" -ne "$expected" ]; then
  echo "test_cuda_kernel_stack.sh: $rows rows in the table for $expected kernels compiled"
  exit 1
fi
# Each architecture built has the same kernels: as many rows for each.
per_arch=""
for arch in "$@"; do
  case "$arch" in
    *[!0-9]*) echo "test_cuda_kernel_stack.sh: architecture '$arch' is not a number (e.g. 90)" >&2; exit 2 ;;
  esac
  n=$(echo "$table" | awk -F'|' -v arch="sm_$arch" 'NR > 2 { gsub(/ /, "", $3); if ($3 == arch) ++n } END { print n + 0 }')
  per_arch="$per_arch $n"
  [ "$n" -gt 0 ] || { echo "test_cuda_kernel_stack.sh: no kernel of sm_$arch in the report"; exit 1; }
done
if [ "$(echo $per_arch | tr ' ' '\n' | sort -u | wc -l)" -ne 1 ] || [ $(( ${per_arch// /+} )) -ne "$rows" ]; then
  echo "test_cuda_kernel_stack.sh: kernels per architecture ($*):$per_arch, $rows rows in all"
  exit 1
fi
over=$(echo "$table" | awk -F'|' -v limit="$limit" 'NR > 2 && $5 + 0 > limit { gsub(/ /, "", $2); gsub(/ /, "", $3); gsub(/ /, "", $5); print "  " $2 " on " $3 ": " $5 " bytes" }')
if [ -n "$over" ]; then
  echo "kernels whose stack frame exceeds CUDA's default $limit bytes per thread:"
  echo "$over"
  exit 1
fi
echo "all $rows kernels (architectures: $*) within $limit bytes of stack per thread"
