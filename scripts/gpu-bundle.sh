#!/usr/bin/env bash
# Prepares, on a machine WITHOUT a GPU, everything scripts/gpu-check.sh needs to check the
# CUDA backend on a lent GPU machine that has CUDA, CMake and ctest but none of this project's
# Debian packages and no network. Builds (CMake preset gpu-bundle: CUDA for sm_80 to sm_90,
# -lineinfo so that compute-sanitizer names file and line, libstdc++ linked statically) the CUDA
# backend's tests, the tests against independent truth that run on either backend
# (test_sensor, test_scene_intersect, test_reference_embree), wr-bench-gpu and
# wr-bench-memory, and puts them with libwr and every shared library they load that is not
# glibc's, the C++ runtime's or the CUDA driver's into one folder:
#   <dir>/bin/{test_cuda_backend,test_sensor,...,wr-bench-gpu,wr-bench-memory}   <dir>/lib/*.so*
#   <dir>/CTestTestfile.cmake   the GPU tests with their labels (tests/CMakeLists.txt,
#                               wr_add_gpu_test): ctest --test-dir <dir> -L cuda
#   <dir>/bundle.txt            commit (and whether the tree had uncommitted changes), CUDA
#                               version, and the newest GLIBC / GLIBCXX versions its files need
#   <dir>/glibc.txt             every bundled file's newest GLIBC (and GLIBCXX) version
#   <dir>/kernel-resources.md   (ptxas: registers, stack frame, spills per kernel and arch)
#   <dir>/variants/<variant>/libwr.so.0   (with --variants: scripts/build-cuda-variants.sh, for the
#                               tuning sweep)
#   <dir>.tar.gz                the folder, compressed (at most 64 MiB: the device tool's limit)
# Then, on the GPU machine, from the repository root:
#   scripts/gpu-check.sh --prebuilt <dir>.tar.gz --out <folder>
#
# The bundle must load on the GPU machine's glibc, which may be older than the one here: the
# programs and libwr may need at most GLIBC_2.34 (kMaxGlibc below), which this script checks on
# every file it bundles (objdump -T). That is why libstdc++ is linked in rather than shipped
# (Debian 12's libstdc++.so.6 needs GLIBC_2.36, its libgcc_s.so.1 2.35; the programs use the GPU
# machine's libgcc_s: CMakeLists.txt, WR_STATIC_CXX_RUNTIME). Embree and TBB
# are shared libraries that need the GPU machine's libstdc++; their GLIBCXX need is
# recorded, and gpu-check.sh checks it there.
#
#   usage: scripts/gpu-bundle.sh [--variants] [--arch LIST] [dir]
#     dir          default build-gpu-bundle; the build itself goes to <dir>-build
#     --variants   also builds the tuning variants for gpu-check.sh's sweep (without them the sweep
#                  reports "not run"). With every CUDA architecture above, their nine libwr make
#                  the bundle about three times the 64 MiB the device tool carries; --arch 90
#                  shrinks each libwr, but Embree's library alone is most of that limit, so even
#                  then such a bundle is for a GPU machine reached some other way.
#     --arch LIST  the CUDA architectures to build, e.g. 90 or "80;90" (default 80;86;89;90); a
#                  bundle runs on GPUs of the lowest of them or newer (each comes with its PTX);
#                  bundle.txt records them and gpu-check.sh stops on an older GPU, saying so.
set -euo pipefail
shopt -s nullglob  # variants/*/libwr.so.0 is empty without --variants
cd "$(dirname "$0")/.."
variants=no
archs="80;86;89;90"
while [ $# -gt 0 ]; do
  case "$1" in
    --variants) variants=yes; shift ;;
    --arch)
      [ $# -ge 2 ] && [[ "$2" =~ ^[0-9]+(\;[0-9]+)*$ ]] ||
        { echo "gpu-bundle: --arch takes architectures such as 90 or \"80;90\", not '${2:-}'" >&2; exit 2; }
      archs=$2
      shift 2 ;;
    -*) echo "usage: scripts/gpu-bundle.sh [--variants] [--arch LIST] [dir] (unknown option '$1')" >&2; exit 2 ;;
    *) break ;;
  esac
done
dir="${1:-build-gpu-bundle}"
build="$dir-build"
max_glibc=2.34    # the newest GLIBC symbol version a bundled file may need
max_bundle_mib=64  # the device tool carries at most this much

# The commit the bundle is built from, and whether tracked files differed from it, read before
# the build starts (what is compiled is the tree as it is now).
commit=$(git rev-parse HEAD 2>/dev/null || echo unknown)
dirty=no
[ -z "$(git status --porcelain --untracked-files=no 2>/dev/null)" ] || dirty=yes

bash scripts/setup.sh
command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ] || { echo "gpu-bundle: nvcc not found" >&2; exit 2; }
[ -x /usr/local/cuda/bin/nvcc ] && export PATH="/usr/local/cuda/bin:$PATH"
command -v objdump >/dev/null 2>&1 || { echo "gpu-bundle: objdump not found (binutils)" >&2; exit 2; }

cmake --preset gpu-bundle -B "$build" "-DCMAKE_CUDA_ARCHITECTURES=$archs" >/dev/null
# The kernel object is always recompiled, so that ptxas's report (kept beside it by
# kernels/CMakeLists.txt) is of this build.
rm -f "$build/kernels/CMakeFiles/wr_cuda_backend.dir/cuda_kernels.cu.o"
# The tests against independent truth that also run on a CUDA context (tests/CMakeLists.txt,
# wr_add_backend_test).
backend_programs=$(cat "$build/tests/cuda-backend-tests.txt")
echo "gpu-bundle: building in $build (log: $build/bundle-build.log)"
# shellcheck disable=SC2086  # one word per program
cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)" --target test_cuda_backend wr-bench-gpu wr-bench-memory \
  $backend_programs >"$build/bundle-build.log" 2>&1 || { tail -n 40 "$build/bundle-build.log" >&2; exit 1; }

rm -rf "$dir" "$dir.tar.gz"
mkdir -p "$dir/bin" "$dir/lib"
cp "$build/tests/test_cuda_backend" "$build/benchmarks/wr-bench-gpu" "$build/benchmarks/memory/wr-bench-memory" "$dir/bin/"
for program in $backend_programs; do cp "$build/tests/$program" "$dir/bin/"; done
cp "$build/tests/gpu-bundle/CTestTestfile.cmake" "$dir/CTestTestfile.cmake"
bash tools/kernel-resources.sh "$build/kernels/cuda_kernels.ptxas.log" >"$dir/kernel-resources.md"
# libwr once per tuning variant, for gpu-check.sh's sweep
[ $variants = no ] || bash scripts/build-cuda-variants.sh "$build" "$dir/variants"
# Every library the programs resolve, but glibc's own, the C++ runtime's (linked in, or the GPU
# machine's for Embree) and the driver's (those must be the GPU machine's).
for bin in "$dir"/bin/*; do
  ldd "$bin" | awk '/=> \// {print $3}'
done | sort -u | while read -r lib; do
  case "$(basename "$lib")" in
    libc.so*|libm.so*|libdl.so*|librt.so*|libpthread.so*|ld-linux*|libcuda.so*|libnvidia*|libstdc++.so*|libgcc_s.so*) ;;
    *) cp -L "$lib" "$dir/lib/" ;;
  esac
done

# ---- what the bundle needs of the GPU machine ----
newest() { { grep -o "$1_[0-9.]*" || true; } | sed "s/^$1_//" | sort -V | tail -n 1; }
{
  echo "| file | newest GLIBC | newest GLIBCXX (the GPU machine's libstdc++) |"
  echo "|---|---|---|"
  for f in "$dir"/bin/* "$dir"/lib/* "$dir"/variants/*/libwr.so.0; do
    symbols=$(objdump -T "$f")
    g=$(newest GLIBC <<<"$symbols")
    x=$(newest GLIBCXX <<<"$symbols")
    echo "| ${f#"$dir"/} | ${g:--} | ${x:--} |"
  done
} >"$dir/glibc.txt"
# "version file" of the newest GLIBC any file needs; the newest GLIBCXX.
floor_line=$(awk -F'|' '$3 ~ /[0-9]/ {gsub(/ /, "", $2); gsub(/ /, "", $3); print $3, $2}' "$dir/glibc.txt" |
  sort -V | tail -n 1)
floor=${floor_line%% *} floor_file=${floor_line#* }
cxx_floor=$(awk -F'|' '$4 ~ /[0-9]/ {gsub(/ /, "", $4); print $4}' "$dir/glibc.txt" | sort -V | tail -n 1)
programs_floor=$(for f in "$dir"/bin/* "$dir"/lib/libwr.so* "$dir"/variants/*/libwr.so.0; do objdump -T "$f"; done | newest GLIBC)
cxx_users=$(awk -F'|' '$4 ~ /[0-9]/ {gsub(/ /, "", $2); print $2}' "$dir/glibc.txt" | paste -sd ' ')

{
  echo "commit=$commit"
  echo "dirty=$dirty"
  echo "built=$(date -u '+%Y-%m-%d %H:%M') UTC on $(uname -sr), $(ldd --version | head -n 1)"
  echo "cuda=$(nvcc --version | grep -o 'release [0-9.]*' | head -n 1 | sed 's/release //')"
  echo "cuda_architectures=$archs"
  echo "variants=$variants"
  echo "glibc_floor=$floor"
  echo "glibc_floor_file=$floor_file"
  echo "glibc_floor_programs=$programs_floor"
  echo "glibcxx_floor=$cxx_floor"
  echo "glibcxx_users=$cxx_users"
} >"$dir/bundle.txt"
# The toolkit's CUDA version alone, as older gpu-check.sh read it.
sed -n 's/^cuda=//p' "$dir/bundle.txt" >"$dir/cuda-version.txt"

echo "gpu-bundle: newest GLIBC any bundled file needs: $floor ($floor_file); the programs and libwr: $programs_floor"
echo "gpu-bundle: newest GLIBCXX (the GPU machine's libstdc++, for ${cxx_users:-no file}): ${cxx_floor:-none}"
if [ "$(printf '%s\n' "$floor" "$max_glibc" | sort -V | tail -n 1)" != "$max_glibc" ]; then
  echo "gpu-bundle: FAILED: $floor_file needs GLIBC_$floor, above $max_glibc (see $dir/glibc.txt)" >&2
  exit 1
fi

# The same folder as one compressed file, for the device tool, which carries at most 64 MiB.
tar czf "$dir.tar.gz" -C "$(dirname "$dir")" "$(basename "$dir")"
size_kib=$(du -k "$dir.tar.gz" | cut -f1)
echo "gpu-bundle: $dir ($(du -sh "$dir" | cut -f1)), $dir.tar.gz ($(du -sh "$dir.tar.gz" | cut -f1)), commit $commit$([ $dirty = yes ] && echo ' (uncommitted changes)')"
ls -l "$dir/bin" "$dir/lib"
if [ "$size_kib" -gt $((max_bundle_mib * 1024)) ]; then
  if [ $variants = yes ]; then
    echo "gpu-bundle: note: $dir.tar.gz is over $max_bundle_mib MiB, more than the device tool carries (the variants)" >&2
  else
    echo "gpu-bundle: FAILED: $dir.tar.gz is over $max_bundle_mib MiB, the device tool's limit" >&2
    exit 1
  fi
fi
echo "gpu-bundle: on the GPU machine: scripts/gpu-check.sh --prebuilt $dir.tar.gz --out <folder>"
