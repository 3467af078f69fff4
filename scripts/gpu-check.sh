#!/usr/bin/env bash
# One command for a machine with an NVIDIA GPU: installs what is missing (scripts/setup.sh),
# configures a fresh build-gpu/ with CUDA on for this GPU's architecture, builds everything
# with all cores, runs the whole CTest suite (GPU tests included, and required to run rather
# than skip), runs the rendering tests under compute-sanitizer's memcheck where it is available,
# runs the full wr-bench-gpu, times the tuning variants of
# scripts/build-cuda-variants.sh side by side (wr-bench-gpu --sweep under each), runs
# wr-bench-memory on the GPU (benchmarks/results/memory-<date>-cuda-<gpu name>.{csv,png}), and writes
#   benchmarks/results/gpu-<date>-<gpu name>.md
#   with the GPU, driver, CUDA version, date, commit, test summary, the kernels' registers and
#   stack (ptxas) and every benchmark figure.
#
#   usage: scripts/gpu-check.sh                    build here, run everything
#          scripts/gpu-check.sh --prebuilt DIR     run the GPU programs of a bundle made by
#                                                  scripts/gpu-bundle.sh on another machine
#                                                  (DIR, or the DIR.tar.gz it also writes):
#                                                  for a GPU machine without this project's
#                                                  Debian packages or a network (the CPU tests
#                                                  run in CI); needs no nvcc here
#
# Exit status: 0 when everything passed; 1 when the build, a test or the benchmark failed (the
# results file is written first); 2 when this machine has no usable NVIDIA GPU or no nvcc.
# Logs of every step are kept in build-gpu/gpu-check-logs/. Takes a few minutes on one GPU
# (budget: 8): a 16-core build, the test suite, and about 20 s of benchmark.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
root=$(pwd)
build="$root/build-gpu"
start_all=$SECONDS

die() {  # message, exit status
  echo "gpu-check: $1" >&2
  exit "${2:-2}"
}

# Times every libwr variant of scripts/build-cuda-variants.sh (a folder VARIANTS with variants.txt
# and one sub-folder per variant) with `wr-bench-gpu --sweep`, one after another in this run, so
# that their ratios compare like with like. Arguments: the benchmark, VARIANTS, the
# LD_LIBRARY_PATH the variant's folder goes in front of. Writes $logs/sweep-<variant>.{log,csv}.
status_sweep=0
sweep_s=0
run_sweep() {
  local bench=$1 variants=$2 base_path=$3 name t0=$SECONDS
  status_sweep=0
  sweep_variants=$variants
  while read -r name _; do
    echo "gpu-check: sweep: $name"
    (cd "$root" && LD_LIBRARY_PATH="$variants/$name${base_path:+:$base_path}" timeout 120 "$bench" --sweep \
      --obj assets/parkour_terrain.obj --csv "$logs/sweep-$name.csv") </dev/null >"$logs/sweep-$name.log" 2>&1 ||
      status_sweep=1
  done <"$variants/variants.txt"
  cp "$variants/variants.txt" "$logs/sweep-variants.txt"
  sweep_s=$((SECONDS - t0))
  [ $status_sweep -eq 0 ] || echo "gpu-check: SWEEP FAILED (logs: $logs/sweep-*.log)" >&2
}

# The sweep as one Markdown table: each variant's ms and G rays/s per row of the targets, its
# time relative to the shipped values' in this same run (< 1: faster), and the depth kernel's
# registers per thread on sm_90 (ptxas, from the variant's build).
sweep_table() {
  echo "| variant | depth_kernel registers (sm_90) | terrain | N | WxH | ms/render (median) | G rays/s | time vs shipped |"
  echo "|---|---:|---|---:|---|---:|---:|---:|"
  local name regs
  while read -r name _; do
    regs=$(awk -F'|' '$2 ~ /depth_kernel/ && $3 ~ /sm_90/ { gsub(/ /, "", $4); print $4 }' \
      "$sweep_variants/$name/kernel-resources.md" 2>/dev/null)
    [ -f "$logs/sweep-$name.csv" ] || { echo "| $name | ${regs:--} | (failed: see sweep-$name.log) | | | | | |"; continue; }
    awk -F, -v name="$name" -v regs="${regs:--}" '
      FNR == 1 { next }                       # the header of each file
      FNR == NR { ms[$1 "," $3] = $6; next }  # the first file: the shipped values (read twice for itself)
      { key = $1 "," $3; ratio = (key in ms && ms[key] > 0) ? sprintf("%.2f", $6 / ms[key]) : "-"
        gsub(/"/, "", $1)
        printf "| %s | %s | %s | %s | %sx%s | %.3f | %.2f | %s |\n", name, regs, $1, $3, $4, $5, $6, $9, ratio }
    ' "$logs/sweep-shipped.csv" "$logs/sweep-$name.csv"
  done <"$logs/sweep-variants.txt"
}

# The CUDA tests that render, once more under compute-sanitizer's memcheck, where the tool exists
# and accepts the device: every out-of-bounds or misaligned access of the kernels is an error.
# Argument: the test_cuda_backend to run. Sets memcheck (a verdict) and status_memcheck.
memcheck="not run"
status_memcheck=0
run_memcheck() {
  local tests=$1 sanitizer rc
  sanitizer=$(command -v compute-sanitizer || true)
  [ -n "$sanitizer" ] || [ ! -x /usr/local/cuda/bin/compute-sanitizer ] || sanitizer=/usr/local/cuda/bin/compute-sanitizer
  if [ -z "$sanitizer" ]; then
    memcheck="not run (no compute-sanitizer)"
    return
  fi
  echo "gpu-check: memcheck of the rendering tests"
  (cd "$root" && timeout 300 "$sanitizer" --tool memcheck --error-exitcode 86 "$tests" "[parity],[pose],[intersect]") \
    </dev/null >"$logs/memcheck.log" 2>&1
  rc=$?
  case $rc in
    0) memcheck="passed (no error)" ;;
    86) memcheck="FAILED: memcheck reported errors"; status_memcheck=1 ;;
    124) memcheck="not finished in 300 s" ;;
    *) if grep -q 'ERROR SUMMARY: 0 errors' "$logs/memcheck.log"; then
         memcheck="no memory error, but the tests failed under it (exit $rc, see memcheck.log)"
       else
         memcheck="could not run here (exit $rc, see memcheck.log)"
       fi ;;
  esac
  echo "gpu-check: memcheck: $memcheck"
}

# wr-bench-memory on the GPU: the shared sensor's device memory against the per-camera designs,
# cudaMemGetInfo next to the library's accounting. Argument: the wr-bench-memory to run.
memory_verdict="not run"
status_memory=0
memory_s=0
run_memory_bench() {
  local bench=$1 t0=$SECONDS
  echo "gpu-check: wr-bench-memory --device cuda"
  if (cd "$root" && timeout 300 "$bench" --device cuda --obj assets/parkour_terrain.obj \
        --csv "$logs/memory-cuda.csv") </dev/null >"$logs/memory.log" 2>&1; then
    memory_verdict="passed"
    python3 "$root/benchmarks/memory/plot_memory.py" "$logs/memory-cuda.csv" "$logs/memory-cuda.png" >>"$logs/memory.log" 2>&1
  else
    memory_verdict="FAILED"
    status_memory=1
    echo "gpu-check: MEMORY BENCHMARK FAILED (log: $logs/memory.log)" >&2
  fi
  memory_s=$((SECONDS - t0))
}

prebuilt=""
if [ "${1:-}" = "--prebuilt" ]; then
  [ -n "${2:-}" ] || die "--prebuilt needs the folder made by scripts/gpu-bundle.sh, or its .tar.gz"
  bundle=$2
  if [ -f "$bundle" ]; then  # the compressed bundle: unpacked next to the build folder
    rm -rf "$root/build-gpu-unpacked"
    mkdir -p "$root/build-gpu-unpacked"
    tar xzf "$bundle" -C "$root/build-gpu-unpacked" || die "--prebuilt: cannot unpack $bundle"
    bundle=$(find "$root/build-gpu-unpacked" -mindepth 1 -maxdepth 1 -type d | head -n 1)
  fi
  prebuilt=$(cd "$bundle" && pwd) || die "--prebuilt: no folder $bundle"
  [ -x "$prebuilt/bin/test_cuda_backend" ] && [ -x "$prebuilt/bin/wr-bench-gpu" ] ||
    die "--prebuilt: $prebuilt/bin lacks test_cuda_backend or wr-bench-gpu (run scripts/gpu-bundle.sh)"
fi

# ---- a GPU, its driver, and nvcc -------------------------------------------------------------
command -v nvidia-smi >/dev/null 2>&1 ||
  die "nvidia-smi not found: this script needs a machine with an NVIDIA GPU and its driver (elsewhere use scripts/run-tests.sh, where GPU tests skip)"
gpu_csv=$(nvidia-smi --query-gpu=name,driver_version --format=csv 2>&1) ||
  die "nvidia-smi failed, no usable GPU: $gpu_csv"
gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 | sed 's/^ *//; s/ *$//')
driver_version=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -n 1 | tr -d ' ')
[ -n "$gpu_name" ] || die "nvidia-smi lists no GPU"
driver_cuda=$(nvidia-smi 2>/dev/null | grep -o 'CUDA Version: [0-9.]*' | head -n 1 | sed 's/CUDA Version: //')

if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH="/usr/local/cuda/bin:$PATH"
fi
if [ -n "$prebuilt" ]; then
  bundle_cuda=$(cat "$prebuilt/cuda-version.txt" 2>/dev/null || echo unknown)
  nvcc_version="CUDA $bundle_cuda, prebuilt elsewhere (scripts/gpu-bundle.sh)"
  # A driver older than the bundle's runtime fails every CUDA call: say so instead of reporting
  # failed tests.
  if [ "$bundle_cuda" != unknown ] && [ -n "$driver_cuda" ] &&
     [ "$(printf '%s\n' "$bundle_cuda" "$driver_cuda" | sort -V | head -n 1)" != "$bundle_cuda" ]; then
    die "the driver ($driver_version) supports CUDA $driver_cuda, the bundle was built with CUDA $bundle_cuda: run scripts/gpu-check.sh without --prebuilt, or make the bundle with an older toolkit"
  fi
else
  command -v nvcc >/dev/null 2>&1 || die "nvcc not found (install the CUDA Toolkit, or put its bin/ on PATH)"
  nvcc_version=$(nvcc --version | grep -o 'release [0-9.]*, V[0-9.]*' | head -n 1)
fi

echo "gpu-check: $gpu_name, driver $driver_version (CUDA $driver_cuda), nvcc $nvcc_version"

if [ -n "$prebuilt" ]; then
  # ---- prebuilt: run the bundle's two programs against its own libraries ----------------------
  build="$root/build-gpu-prebuilt"
  rm -rf "$build"
  mkdir -p "$build/gpu-check-logs"
  logs="$build/gpu-check-logs"
  cuda_arch="80;86;89;90 (bundle)"
  cp "$prebuilt/kernel-resources.md" "$logs/kernel-resources.md" 2>/dev/null ||
    echo "(the bundle has no kernel-resources.md)" >"$logs/kernel-resources.md"
  status_build=0
  build_s=0
  export LD_LIBRARY_PATH="$prebuilt/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export WR_REQUIRE_GPU=1
  t0=$SECONDS
  echo "gpu-check: running the CUDA backend's tests from $prebuilt"
  echo "(CPU tests: run by CI, not here)" >"$logs/ctest-cpu.log"
  status_tests=0
  # One process per test case, as ctest runs them in a build: a test may rely on being its
  # process's first CUDA work (the graph test captures a sensor's very first render). First the
  # CUDA backend's own tests, then the tests against independent truth on a CUDA context (the
  # bundle's backend-tests.txt: program and Catch2 test spec, as CTest registers them).
  : >"$logs/ctest-cuda.log"
  passed=0
  failed_names=""
  run_cases() {  # program, test spec, extra arguments...
    local bin=$1 filter=$2 names name spec
    shift 2
    names=$("$bin" "$filter" --list-test-names-only 2>>"$logs/ctest-cuda.log")
    while IFS= read -r name; do
      [ -n "$name" ] || continue
      spec=$(printf '%s' "$name" | sed 's/[],[]/\\&/g')  # ',' '[' ']' are Catch2 test-spec syntax
      echo "==== $(basename "$bin"): $name $*" >>"$logs/ctest-cuda.log"
      if (cd "$root" && timeout 300 "$bin" "$spec" "$@") </dev/null >>"$logs/ctest-cuda.log" 2>&1; then
        passed=$((passed + 1))
      else
        failed_names="$failed_names$(basename "$bin"): $name"$'\n'
      fi
    done <<<"$names"
  }
  run_cases "$prebuilt/bin/test_cuda_backend" "cuda:*"
  if [ -f "$prebuilt/backend-tests.txt" ]; then
    while IFS=$'\t' read -r program filter; do
      [ -n "$program" ] || continue
      if [ -x "$prebuilt/bin/$program" ]; then
        run_cases "$prebuilt/bin/$program" "$filter" --wr-backend cuda
      else
        failed_names="$failed_names$program: not in the bundle"$'\n'
      fi
    done <"$prebuilt/backend-tests.txt"
  fi
  failed=$(printf '%s' "$failed_names" | grep -c . || true)
  total=$((passed + failed))
  [ $total -gt 0 ] && [ $failed -eq 0 ] || status_tests=1
  {
    echo "$((total > 0 ? 100 * passed / total : 0))% tests passed, $failed tests failed out of $total (one process each)"
    [ -z "$failed_names" ] || printf 'failed:\n%s' "$failed_names"
  } >>"$logs/ctest-cuda.log"
  tests_s=$((SECONDS - t0))
  [ $status_tests -eq 0 ] || echo "gpu-check: TESTS FAILED (log: $logs/ctest-cuda.log)" >&2
  run_memcheck "$prebuilt/bin/test_cuda_backend"
  t0=$SECONDS
  echo "gpu-check: running wr-bench-gpu from $prebuilt"
  status_bench=0
  (cd "$root" && timeout 300 "$prebuilt/bin/wr-bench-gpu" --obj assets/parkour_terrain.obj \
    --csv "$build/bench-gpu.csv") >"$logs/bench.log" 2>&1 || status_bench=1
  if grep -q '^no CUDA device' "$logs/bench.log"; then status_bench=1; fi
  bench_s=$((SECONDS - t0))
  [ $status_bench -eq 0 ] || { echo "gpu-check: BENCHMARK FAILED:" >&2; tail -n 20 "$logs/bench.log" >&2; }
  if [ $status_bench -eq 0 ] && [ -f "$prebuilt/variants/variants.txt" ]; then
    run_sweep "$prebuilt/bin/wr-bench-gpu" "$prebuilt/variants" "$prebuilt/lib"
  fi
  if [ -x "$prebuilt/bin/wr-bench-memory" ]; then run_memory_bench "$prebuilt/bin/wr-bench-memory"; fi
else
# ---- dependencies (Debian packages); an offline machine that already has them is fine --------
if ! bash scripts/setup.sh; then
  echo "gpu-check: warning: scripts/setup.sh failed (offline?); configuring with what is installed" >&2
fi

# ---- configure a fresh build-gpu/ ------------------------------------------------------------
jobs=$(nproc 2>/dev/null || echo 4)
cmake_version=$(cmake --version | head -n 1 | awk '{print $3}')
if [ "$(printf '%s\n' 3.24 "$cmake_version" | sort -V | head -n 1)" = "3.24" ]; then
  cuda_arch=native  # CMake >= 3.24: nvcc -arch=native, this machine's GPU only
else
  cuda_arch=90      # Hopper (H100, H200)
fi
rm -rf "$build"
mkdir -p "$build/gpu-check-logs"
logs="$build/gpu-check-logs"

status_build=0
t0=$SECONDS
echo "gpu-check: configuring $build (CMAKE_CUDA_ARCHITECTURES=$cuda_arch)"
if cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DWR_ENABLE_CUDA=ON \
     -DCMAKE_CUDA_COMPILER="$(command -v nvcc)" -DCMAKE_CUDA_ARCHITECTURES="$cuda_arch" \
     -DWR_CUDA_RESOURCE_USAGE=ON >"$logs/configure.log" 2>&1; then
  echo "gpu-check: building with $jobs jobs"
  cmake --build "$build" -j "$jobs" >"$logs/build.log" 2>&1 || status_build=1
  bash "$root/tools/kernel-resources.sh" "$logs/build.log" >"$logs/kernel-resources.md"
else
  status_build=1
  cp "$logs/configure.log" "$logs/build.log"
fi
build_s=$((SECONDS - t0))
[ $status_build -eq 0 ] || { echo "gpu-check: BUILD FAILED, last lines:" >&2; tail -n 30 "$logs/build.log" >&2; }

# ---- tests -----------------------------------------------------------------------------------
# Every test but the CUDA backend's runs in parallel; then those run one at a time: one of them
# checks that free device memory (cudaMemGetInfo, device-wide) is unchanged across renders,
# which other processes allocating on the GPU at the same moment would disturb.
# WR_REQUIRE_GPU=1 turns "skipped: no usable CUDA device" into a failure.
status_tests=0
tests_s=0
if [ $status_build -eq 0 ]; then
  export WR_REQUIRE_GPU=1
  t0=$SECONDS
  echo "gpu-check: running the test suite"
  ctest --test-dir "$build" -E '^cuda:' -j "$jobs" --timeout 300 --output-on-failure >"$logs/ctest-cpu.log" 2>&1 ||
    status_tests=1
  # --no-tests=error: a build without the CUDA tests (CUDA silently off) must not pass.
  ctest --test-dir "$build" -R '^cuda:' --no-tests=error --timeout 300 --output-on-failure \
    >"$logs/ctest-cuda.log" 2>&1 || status_tests=1
  tests_s=$((SECONDS - t0))
  [ $status_tests -eq 0 ] || echo "gpu-check: TESTS FAILED (logs: $logs/ctest-*.log)" >&2
  run_memcheck "$build/tests/test_cuda_backend"
fi

# ---- benchmark -------------------------------------------------------------------------------
status_bench=0
bench_s=0
bench_bin="$build/benchmarks/wr-bench-gpu"
if [ $status_build -eq 0 ]; then
  t0=$SECONDS
  echo "gpu-check: running wr-bench-gpu"
  if [ -x "$bench_bin" ]; then
    timeout 300 "$bench_bin" --csv "$build/bench-gpu.csv" >"$logs/bench.log" 2>&1 || status_bench=1
    if grep -q '^no CUDA device' "$logs/bench.log"; then status_bench=1; fi
  else
    echo "wr-bench-gpu was not built ($bench_bin missing)" >"$logs/bench.log"
    status_bench=1
  fi
  bench_s=$((SECONDS - t0))
  [ $status_bench -eq 0 ] || { echo "gpu-check: BENCHMARK FAILED:" >&2; tail -n 20 "$logs/bench.log" >&2; }
  if [ $status_bench -eq 0 ]; then
    echo "gpu-check: building the tuning variants"
    if bash "$root/scripts/build-cuda-variants.sh" "$build" "$build/variants" >"$logs/variants.log" 2>&1; then
      run_sweep "$bench_bin" "$build/variants" ""
    else
      status_sweep=1
      echo "gpu-check: BUILDING THE VARIANTS FAILED (log: $logs/variants.log)" >&2
    fi
  fi
  if [ -x "$build/benchmarks/memory/wr-bench-memory" ]; then
    run_memory_bench "$build/benchmarks/memory/wr-bench-memory"
  else
    memory_verdict="not built (Eigen3, CLI11 or stb missing)"
  fi
fi
fi  # prebuilt or built here

# ---- results file ----------------------------------------------------------------------------
date_utc=$(date -u +%Y-%m-%d)
gpu_slug=$(printf '%s' "$gpu_name" | tr '[:upper:]' '[:lower:]' | sed 's/[^a-z0-9]\{1,\}/-/g; s/^-//; s/-$//')
mkdir -p "$root/benchmarks/results"
results="$root/benchmarks/results/gpu-$date_utc-$gpu_slug.md"
memory_results="$root/benchmarks/results/memory-$date_utc-cuda-$gpu_slug"
if [ "$memory_verdict" = passed ]; then
  cp "$logs/memory-cuda.csv" "$memory_results.csv"
  cp "$logs/memory-cuda.png" "$memory_results.png"
fi
if commit=$(git -C "$root" rev-parse HEAD 2>/dev/null); then
  [ -z "$(git -C "$root" status --porcelain --untracked-files=no 2>/dev/null)" ] ||
    commit="$commit (with uncommitted changes)"
else
  commit="unknown (not a git checkout)"
fi
verdict() { [ "$1" -eq 0 ] && echo "passed" || echo "FAILED"; }
step_verdict() { [ $status_build -eq 0 ] && verdict "$1" || echo "not run (build failed)"; }
summary() {  # the tail of a ctest log from its "N% tests passed" line on (a Catch2 log: its end)
  if [ ! -f "$1" ]; then echo "(not run)"
  elif grep -q 'tests passed\|tests failed' "$1"; then sed -n '/tests passed\|tests failed/,$p' "$1"
  else tail -n 40 "$1"; fi
}

{
  echo "# GPU check: $gpu_name, $date_utc"
  echo
  echo "Written by \`scripts/gpu-check.sh\`."
  echo
  echo "| | |"
  echo "|---|---|"
  echo "| GPU | $gpu_name |"
  echo "| driver | $driver_version (supports CUDA $driver_cuda) |"
  echo "| CUDA toolkit (nvcc) | $nvcc_version |"
  echo "| CMAKE_CUDA_ARCHITECTURES | $cuda_arch |"
  echo "| date (UTC) | $(date -u '+%Y-%m-%d %H:%M') |"
  echo "| commit | $commit |"
  echo "| host | $(nproc 2>/dev/null) cores, $(uname -sr) |"
  echo "| build | $(verdict $status_build) in ${build_s} s |"
  echo "| tests | $(step_verdict $status_tests) in ${tests_s} s |"
  echo "| memcheck (compute-sanitizer, rendering tests) | $memcheck |"
  echo "| benchmark | $(step_verdict $status_bench) in ${bench_s} s |"
  echo "| memory benchmark (wr-bench-memory --device cuda) | $memory_verdict in ${memory_s} s |"
  echo "| tuning sweep | $([ -f "$logs/sweep-variants.txt" ] && verdict $status_sweep || echo "not run") in ${sweep_s} s |"
  echo
  echo "\`nvidia-smi --query-gpu=name,driver_version --format=csv\`:"
  echo
  echo '```'
  echo "$gpu_csv"
  echo '```'
  echo
  if [ $status_build -ne 0 ]; then
    echo "## Build failed"
    echo
    echo '```'
    tail -n 60 "$logs/build.log"
    echo '```'
  else
    echo "## Tests (ctest)"
    echo
    echo "All tests but the CUDA backend's, in parallel:"
    echo
    echo '```'
    summary "$logs/ctest-cpu.log"
    echo '```'
    echo
    echo "The CUDA backend's tests (\`cuda:*\`), one at a time, with WR_REQUIRE_GPU=1 (a skip is a failure):"
    echo
    echo '```'
    summary "$logs/ctest-cuda.log"
    echo '```'
    echo
    if [ -f "$logs/memcheck.log" ]; then
      echo "## memcheck (compute-sanitizer --tool memcheck, the [parity], [pose] and [intersect] tests)"
      echo
      echo '```'
      grep -m 40 -E '^=========|ERROR SUMMARY|test cases' "$logs/memcheck.log" || tail -n 20 "$logs/memcheck.log"
      echo '```'
      echo
    fi
    echo "## Kernel resources (ptxas)"
    echo
    cat "$logs/kernel-resources.md"
    echo
    echo "## Benchmark (wr-bench-gpu)"
    echo
    sed 's/^#/###/' "$logs/bench.log"  # its headings, two levels down under this one
    if [ -f "$build/bench-gpu.csv" ]; then
      echo
      echo "CSV (\`wr-bench-gpu --csv\`):"
      echo
      echo '```csv'
      cat "$build/bench-gpu.csv"
      echo '```'
    fi
    if [ -f "$logs/memory.log" ]; then
      echo
      echo "## Memory (wr-bench-memory --device cuda; CSV and plot: $(basename "$memory_results").{csv,png})"
      echo
      sed 's/^#/###/' "$logs/memory.log"
    fi
    if [ -f "$logs/sweep-variants.txt" ]; then
      echo
      echo "## Tuning sweep (\`wr-bench-gpu --sweep\` under each libwr variant, one after another)"
      echo
      echo "Each variant changes one knob from the shipped values (scripts/build-cuda-variants.sh):"
      echo
      echo '```'
      cat "$logs/sweep-variants.txt"
      echo '```'
      echo
      sweep_table
    fi
  fi
} >"$results"

total_s=$((SECONDS - start_all))
echo "gpu-check: wrote $results (total ${total_s} s)"
[ $total_s -le 480 ] || echo "gpu-check: warning: took ${total_s} s, over the 8-minute budget" >&2
if [ $status_build -ne 0 ] || [ $status_tests -ne 0 ] || [ $status_bench -ne 0 ] || [ $status_sweep -ne 0 ] ||
   [ $status_memcheck -ne 0 ] || [ $status_memory -ne 0 ]; then
  echo "gpu-check: FAILED (build $(verdict $status_build), tests $(step_verdict $status_tests)," \
    "memcheck $memcheck, benchmark $(step_verdict $status_bench), sweep $(verdict $status_sweep)," \
    "memory $memory_verdict)" >&2
  exit 1
fi
echo "gpu-check: all passed"
