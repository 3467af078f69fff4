#!/usr/bin/env bash
# Every CUDA kernel's stack frame fits CUDA's default stack per thread (cudaLimitStackSize, 1024
# bytes). A kernel whose frame is larger makes the driver raise the context's stack limit at its
# first launch and reserve the larger frame for every thread the device can hold at once, beside
# the scene (the first GPU run saw it: benchmarks/results/gpu-2026-12-04-nvidia-h200.md): memory
# the ledger does not see, allocated inside a render. The traversal stack (bvh_traverse.h, 768
# bytes) leaves the rest of a kernel a quarter of that; terrain.h's TraceScratch keeps all of a
# ray's traces in one such stack.
#
# Compiles kernels/cuda_kernels.cu as kernels/CMakeLists.txt does (-O3, --fmad=false, the shipped
# tuning knobs) for each architecture given, with ptxas's report (tools/kernel-resources.sh turns
# it into a table), and fails naming each kernel and architecture above the limit. Needs nvcc,
# no GPU.
#   usage: test_cuda_kernel_stack.sh NVCC REPO_ROOT BUILD_INCLUDE_DIR WORK_DIR ARCH...
set -euo pipefail
[ $# -ge 5 ] || { echo "usage: test_cuda_kernel_stack.sh NVCC REPO_ROOT BUILD_INCLUDE_DIR WORK_DIR ARCH..." >&2; exit 2; }
nvcc=$1 repo=$2 build_include=$3 work=$4
shift 4
limit=1024
mkdir -p "$work"
log="$work/ptxas.log"
gencode=()
for arch in "$@"; do
  case "$arch" in
    *[!0-9]*) echo "test_cuda_kernel_stack.sh: architecture '$arch' is not a number (e.g. 90)" >&2; exit 2 ;;
  esac
  gencode+=("--generate-code=arch=compute_$arch,code=sm_$arch")
done
if ! "$nvcc" -O3 -DNDEBUG "${gencode[@]}" --fmad=false -Xptxas=-v -std=c++17 --threads 2 \
    -I"$repo/kernels" -I"$repo/include" -I"$build_include" -I"$repo/src" \
    -c "$repo/kernels/cuda_kernels.cu" -o "$work/cuda_kernels.o" >"$log" 2>&1; then
  cat "$log"
  echo "test_cuda_kernel_stack.sh: nvcc failed (above)"
  exit 1
fi
table=$(bash "$repo/tools/kernel-resources.sh" "$log")
echo "$table"
# Rows: | kernel | arch | registers | stack frame | spill stores | spill loads |
over=$(echo "$table" | awk -F'|' -v limit="$limit" 'NR > 2 && $5 + 0 > limit { gsub(/ /, "", $2); gsub(/ /, "", $3); gsub(/ /, "", $5); print "  " $2 " on " $3 ": " $5 " bytes" }')
rows=$(echo "$table" | awk 'NR > 2' | wc -l)
expected=$(grep -c "Compiling entry function" "$log" || true)
if [ "$rows" -eq 0 ] || [ "$rows" -ne "$expected" ]; then
  echo "test_cuda_kernel_stack.sh: $rows rows in the table for $expected kernels compiled"
  exit 1
fi
if [ -n "$over" ]; then
  echo "kernels whose stack frame exceeds CUDA's default $limit bytes per thread:"
  echo "$over"
  exit 1
fi
echo "all $rows kernels (architectures: $*) within $limit bytes of stack per thread"
