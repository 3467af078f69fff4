#!/usr/bin/env bash
# Prepares, on a machine WITHOUT a GPU, everything scripts/gpu-check.sh needs to check the
# CUDA backend on a lent GPU machine that has CUDA but none of this project's Debian packages
# and no network: builds test_cuda_backend, the tests against independent truth that run on
# either backend (test_sensor, test_scene_intersect, test_reference_embree), wr-bench-gpu and
# wr-bench-memory with CUDA on (compiling needs no GPU) and copies them, libwr and every shared
# library they load that is not glibc or the CUDA driver into one folder:
#   <dir>/bin/{test_cuda_backend,test_sensor,...,wr-bench-gpu,wr-bench-memory}   <dir>/lib/*.so*
#   <dir>/backend-tests.txt     (those test programs and the test spec of their CUDA cases)
#   <dir>/kernel-resources.md   (ptxas: registers, stack frame, spills per kernel and arch)
#   <dir>/variants/<variant>/libwr.so.0   (scripts/build-cuda-variants.sh, for the tuning sweep)
#   <dir>.tar.gz                the folder, compressed
# Then, on the GPU machine, from the repository root:
#   scripts/gpu-check.sh --prebuilt <dir>      (or <dir>.tar.gz)
#
#   usage: scripts/gpu-bundle.sh [dir]     (default: build-gpu-bundle; the build itself goes
#                                           to <dir>-build)
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${1:-build-gpu-bundle}"
build="$dir-build"
bash scripts/setup.sh
command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ] || { echo "gpu-bundle: nvcc not found" >&2; exit 2; }
[ -x /usr/local/cuda/bin/nvcc ] && export PATH="/usr/local/cuda/bin:$PATH"

cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DWR_ENABLE_CUDA=ON -DWR_BUILD_APPS=OFF \
  -DCMAKE_CUDA_ARCHITECTURES="80;86;89;90" -DWR_CUDA_RESOURCE_USAGE=ON >/dev/null
# The kernel object is always recompiled, so that ptxas reports its resources in this log.
rm -f "$build/kernels/CMakeFiles/wr_cuda.dir/cuda_backend.cu.o"
# The tests against independent truth that also run on a CUDA context (tests/CMakeLists.txt,
# wr_add_backend_test): their programs, each with the Catch2 test spec of its CUDA cases.
backend_programs=$(cut -f1 "$build/tests/cuda-backend-tests.txt")
# shellcheck disable=SC2086  # one word per program
cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)" --target test_cuda_backend wr-bench-gpu wr-bench-memory \
  $backend_programs >"$build/bundle-build.log" 2>&1 || { tail -n 40 "$build/bundle-build.log" >&2; exit 1; }

rm -rf "$dir"
mkdir -p "$dir/bin" "$dir/lib"
cp "$build/tests/test_cuda_backend" "$build/benchmarks/wr-bench-gpu" "$build/benchmarks/memory/wr-bench-memory" "$dir/bin/"
for program in $backend_programs; do cp "$build/tests/$program" "$dir/bin/"; done
cp "$build/tests/cuda-backend-tests.txt" "$dir/backend-tests.txt"
bash tools/kernel-resources.sh "$build/bundle-build.log" >"$dir/kernel-resources.md"
# the toolkit's CUDA version: the GPU machine's driver must support at least this one
nvcc --version | grep -o 'release [0-9.]*' | head -n 1 | sed 's/release //' >"$dir/cuda-version.txt"
# libwr once per tuning variant, for gpu-check.sh's sweep
bash scripts/build-cuda-variants.sh "$build" "$dir/variants"
# Every library the programs resolve, but glibc's own and the driver's (those must be the
# GPU machine's). libstdc++ travels too: the GPU machine's may be older than the one built with.
for bin in "$dir"/bin/*; do
  ldd "$bin" | awk '/=> \// {print $3}'
done | sort -u | while read -r lib; do
  case "$(basename "$lib")" in
    libc.so*|libm.so*|libdl.so*|librt.so*|libpthread.so*|ld-linux*|libcuda.so*|libnvidia*) ;;
    *) cp -L "$lib" "$dir/lib/" ;;
  esac
done
# The same folder as one compressed file, for a device tool that carries at most 64 MiB (the
# folder itself is about that, Embree's library being most of it):
#   scripts/gpu-check.sh --prebuilt <dir>.tar.gz
tar czf "$dir.tar.gz" -C "$(dirname "$dir")" "$(basename "$dir")"
echo "gpu-bundle: $dir ($(du -sh "$dir" | cut -f1)), $dir.tar.gz ($(du -sh "$dir.tar.gz" | cut -f1)):"
ls -l "$dir/bin" "$dir/lib"
