#!/usr/bin/env bash
# Builds libwr once per variant of the CUDA tuning knobs (kernels/cuda_tuning.h, WR_CUDA_BVH_*
# in src/scene/bvh_builder.h, the traversal's loop shape WR_CUDA_NESTED_LOOPS in
# kernels/cuda_tuning.h), each changing one knob from the shipped values, for
# scripts/gpu-check.sh to time side by side on one GPU (wr-bench-gpu --sweep under each). Needs no
# GPU. Reuses a configured build with CUDA on: a variant recompiles only the kernel and the C API
# object, then the build is put back to the shipped values.
#
#   usage: scripts/build-cuda-variants.sh BUILD_DIR OUT_DIR
#   writes OUT_DIR/<variant>/{libwr.so.0,kernel-resources.md} and OUT_DIR/variants.txt (name and
#   definitions, one a line). kernel-resources.md has figures where BUILD_DIR was configured
#   with -DWR_CUDA_RESOURCE_USAGE=ON (gpu-check.sh and gpu-bundle.sh do that).
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: scripts/build-cuda-variants.sh BUILD_DIR OUT_DIR" >&2; exit 2; }
build=$1
out=$2
[ -f "$build/CMakeCache.txt" ] || { echo "build-cuda-variants: $build is not a configured build" >&2; exit 2; }
grep -q '^WR_ENABLE_CUDA:BOOL=ON' "$build/CMakeCache.txt" ||
  { echo "build-cuda-variants: $build is not built with CUDA" >&2; exit 2; }
jobs=$(nproc 2>/dev/null || echo 2)

# name | definitions (empty: the shipped values)
variants=(
  "shipped|"
  "tile-4x8|WR_CUDA_TILE_W_SHIFT=2"
  "tile-16x2|WR_CUDA_TILE_W_SHIFT=4"
  "block-256|WR_CUDA_BLOCK_THREADS=256"
  "min-blocks-12|WR_CUDA_MIN_BLOCKS_PER_SM=12"
  "min-blocks-16|WR_CUDA_MIN_BLOCKS_PER_SM=16"
  "bvh-cost4-leaf16|WR_CUDA_BVH_TRAVERSAL_COST=4.0f;WR_CUDA_BVH_MAX_LEAF=16"
  "bvh-cost1-leaf4|WR_CUDA_BVH_TRAVERSAL_COST=1.0f;WR_CUDA_BVH_MAX_LEAF=4"
  "one-loop|WR_CUDA_NESTED_LOOPS=0"  # the host's loop shape; its modelled cost: benchmarks/results/cuda-warp-model-2026-11-30.md
)

rm -rf "$out"
mkdir -p "$out"
for v in "${variants[@]}"; do
  name=${v%%|*}
  defs=${v#*|}
  echo "build-cuda-variants: $name ${defs:-(shipped values)}"
  cmake "$build" -DWR_CUDA_TUNING="$defs" >/dev/null
  rm -f "$build/kernels/CMakeFiles/wr_cuda_backend.dir/cuda_kernels.cu.o"  # each variant's own compile and report
  cmake --build "$build" -j "$jobs" --target wr >"$out/build-$name.log" 2>&1 ||
    { tail -n 30 "$out/build-$name.log" >&2; exit 1; }
  mkdir -p "$out/$name"
  cp -L "$build/lib/libwr.so.0" "$out/$name/"
  # registers and stack of this variant's kernels, where the build was configured to report them
  # (kernels/CMakeLists.txt keeps ptxas's report of the compile beside the object)
  if [ -f "$build/kernels/cuda_kernels.ptxas.log" ]; then
    bash "$(dirname "$0")/../tools/kernel-resources.sh" "$build/kernels/cuda_kernels.ptxas.log" >"$out/$name/kernel-resources.md"
  else
    echo "(no ptxas report: $build was configured with WR_CUDA_RESOURCE_USAGE off)" >"$out/$name/kernel-resources.md"
  fi
  echo "$name ${defs:-(shipped values)}" >>"$out/variants.txt"
done
cmake "$build" -DWR_CUDA_TUNING="" >/dev/null
cmake --build "$build" -j "$jobs" --target wr >"$out/build-restore.log" 2>&1 ||
  { tail -n 30 "$out/build-restore.log" >&2; exit 1; }
