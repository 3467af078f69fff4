#!/usr/bin/env bash
# The GPU check, for a machine with an NVIDIA GPU: a thin driver over CMake presets and CTest
# labels (CMakePresets.json, tests/CMakeLists.txt). Its steps, in order of value:
#   build      (without --prebuilt) configure preset `cuda` into build-gpu/ and build it
#   tests      the tests labelled cuda (ctest -L cuda, WR_REQUIRE_GPU=1: a skip is a failure)
#   benchmark  wr-bench-gpu (CUDA events; memory by the driver and by the library)
#   grid-kinds wr-bench-gpu --grid-kinds: the grid terrain kinds against the BVH
#   memory     wr-bench-memory --device cuda, its CSV and plot (benchmarks/memory/plot_memory.py)
#   sweep      wr-bench-gpu --sweep under each libwr of scripts/build-cuda-variants.sh
#   memcheck   the tests labelled memcheck under compute-sanitizer, through CTest's memcheck
#              support (scripts/gpu-memcheck.cmake, MEMORYCHECK_TYPE CudaSanitizer)
# and writes OUT/gpu-<date>-<gpu>.md SECTION BY SECTION, as each step ends, with the logs in
# OUT/gpu-<date>-<gpu>-logs/: a run cut off at any point leaves every finished step. A global
# deadline bounds the run: a step that cannot finish before it (each has an expected duration) is
# skipped with a note, and a step that starts gets a timeout of at most the time left.
#
#   usage: scripts/gpu-check.sh [--prebuilt BUNDLE] [--out DIR] [--deadline SECONDS]
#     --prebuilt BUNDLE  run the programs of a bundle made by scripts/gpu-bundle.sh on another
#                        machine (the folder or its .tar.gz): for a GPU machine without this
#                        project's Debian packages or a network; needs ctest, not nvcc
#     --out DIR          where the results file, the memory CSV and plot and the logs go
#                        (default benchmarks/results/)
#     --deadline S       seconds from the start within which every step must end (default 450)
#
# On a device tool that runs one command and brings back only what it wrote under $OUT, with the
# script's deadline shorter than the tool's limit (the copy back needs nothing: --out is there):
#   timeout 570 scripts/gpu-check.sh --prebuilt build-gpu-bundle.tar.gz --out $OUT/gpu-check --deadline 480
#
# Exit status: 0 when every step ran and passed; 1 when a step failed; 2 when this machine has no
# usable NVIDIA GPU, or the bundle cannot run here (glibc, driver), or the options are wrong;
# 3 when nothing failed but a step was skipped for the deadline. SIGTERM or SIGINT stops the
# running step and notes where the run stopped, with exit status 143 or 130.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
root=$(pwd)
start=$SECONDS

prebuilt_arg="" out="$root/benchmarks/results" deadline=450
usage() { sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
  case $1 in
    --prebuilt) prebuilt_arg=${2:-}; [ -n "$prebuilt_arg" ] || { echo "gpu-check: --prebuilt needs a bundle" >&2; exit 2; }; shift ;;
    --out) out=${2:-}; [ -n "$out" ] || { echo "gpu-check: --out needs a folder" >&2; exit 2; }; shift ;;
    --deadline) deadline=${2:-}; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "gpu-check: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
case $deadline in ''|*[!0-9]*) echo "gpu-check: --deadline needs whole seconds" >&2; exit 2 ;; esac
mkdir -p "$out" && out=$(cd "$out" && pwd) || { echo "gpu-check: cannot create $out" >&2; exit 2; }
jobs=$(nproc 2>/dev/null || echo 4)
python=python3
[ -x "$root/.venv/bin/python" ] && python="$root/.venv/bin/python"
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then export PATH="/usr/local/cuda/bin:$PATH"; fi

# ---- the GPU and its driver ----------------------------------------------------------------------
gpu_ok=1 gpu_why="" gpu_name="" driver_version="" driver_cuda="" gpu_csv="" gpu_arch=""
if ! command -v nvidia-smi >/dev/null 2>&1; then
  gpu_ok=0 gpu_why="nvidia-smi not found: no NVIDIA driver on this machine"
elif ! gpu_csv=$(nvidia-smi --query-gpu=name,driver_version --format=csv 2>&1); then
  gpu_ok=0 gpu_why="nvidia-smi failed: $gpu_csv"
else
  gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 | sed 's/^ *//; s/ *$//')
  driver_version=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -n 1 | tr -d ' ')
  driver_cuda=$(nvidia-smi 2>/dev/null | grep -o 'CUDA Version: [0-9.]*' | head -n 1 | sed 's/CUDA Version: //')
  # Compute capability as CMake names architectures (9.0 -> 90); empty where the driver does not say.
  gpu_arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d ' ')
  [[ "$gpu_arch" =~ ^[0-9]+\.[0-9]+$ ]] && gpu_arch=${gpu_arch/./} || gpu_arch=""
  [ -n "$gpu_name" ] || gpu_ok=0 gpu_why="nvidia-smi lists no GPU"
fi
no_gpu_note="not run: no usable GPU ($gpu_why)"

date_utc=$(date -u +%Y-%m-%d)
gpu_slug=$(printf '%s' "${gpu_name:-no gpu}" | tr '[:upper:]' '[:lower:]' | sed 's/[^a-z0-9]\{1,\}/-/g; s/^-//; s/-$//')
results="$out/gpu-$date_utc-$gpu_slug.md"
logs="$out/gpu-$date_utc-$gpu_slug-logs"
rm -rf "$logs"
mkdir -p "$logs"
: >"$results"
section() { cat >>"$results"; }  # appends one finished section (read from stdin) to the results
echo "gpu-check: writing $results (logs: $logs)"

# ---- the bundle, or a build here --------------------------------------------------------------
if commit=$(git -C "$root" rev-parse HEAD 2>/dev/null); then
  [ -z "$(git -C "$root" status --porcelain --untracked-files=no 2>/dev/null)" ] || commit="$commit (with uncommitted changes)"
else
  commit="unknown (not a git checkout)"
fi
host_glibc=$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{print $2}')
[ -n "$host_glibc" ] || host_glibc=$(ldd --version 2>/dev/null | head -n 1 | grep -o '[0-9]\+\.[0-9]\+$')
older() { [ "$1" != "$2" ] && [ "$(printf '%s\n' "$1" "$2" | sort -V | head -n 1)" = "$1" ]; }  # is $1 < $2

prebuilt="" bundle_line="built here from the checkout (preset cuda)" stop="" embree_note=""
bundle_info() { sed -n "s/^$1=//p" "$prebuilt/bundle.txt" 2>/dev/null | head -n 1; }
if [ -n "$prebuilt_arg" ]; then
  bundle=$prebuilt_arg
  if [ -f "$bundle" ]; then  # the compressed bundle: unpacked next to the build folders
    rm -rf "$root/build-gpu-unpacked" && mkdir -p "$root/build-gpu-unpacked"
    if tar xzf "$bundle" -C "$root/build-gpu-unpacked"; then
      bundle=$(find "$root/build-gpu-unpacked" -mindepth 1 -maxdepth 1 -type d | head -n 1)
    else
      stop="cannot unpack $bundle"
    fi
  fi
  ctest_version=$(ctest --version 2>/dev/null | head -n 1 | awk '{print $3}')
  if [ -z "$stop" ] && { [ -z "$ctest_version" ] || older "$ctest_version" 3.20; }; then
    stop="the bundle's tests run through ctest >= 3.20 (ctest --test-dir, file(REAL_PATH)); this machine has '${ctest_version:-no ctest}'"
  fi
  if [ -z "$stop" ]; then
    if prebuilt=$(cd "$bundle" 2>/dev/null && pwd) && [ -f "$prebuilt/CTestTestfile.cmake" ] && [ -x "$prebuilt/bin/wr-bench-gpu" ]; then
      glibc_floor=$(bundle_info glibc_floor)
      bundle_cuda=$(bundle_info cuda)
      bundle_archs=$(bundle_info cuda_architectures)
      bundle_line="$prebuilt: built from commit $(bundle_info commit)$([ "$(bundle_info dirty)" = yes ] && echo ' with uncommitted changes'), $(bundle_info built); CUDA ${bundle_cuda:-unknown}; for CUDA architectures ${bundle_archs:-unknown}; needs GLIBC ${glibc_floor:-unknown}"
      [ -z "$(bundle_info glibcxx_floor)" ] || bundle_line="$bundle_line and GLIBCXX $(bundle_info glibcxx_floor) (for $(bundle_info glibcxx_users))"
      if [ -z "$glibc_floor" ] || [ -z "$host_glibc" ]; then
        stop="cannot compare glibc: the bundle records '${glibc_floor}', this machine has '${host_glibc}'"
      elif older "$host_glibc" "$glibc_floor"; then
        stop="this machine's glibc is $host_glibc, the bundle needs $glibc_floor ($(bundle_info glibc_floor_file)): make the bundle on a machine with an older glibc, or run scripts/gpu-check.sh without --prebuilt"
      elif [ $gpu_ok -eq 1 ] && [ -n "$bundle_cuda" ] && [ -n "$driver_cuda" ] && older "$driver_cuda" "$bundle_cuda"; then
        stop="the driver ($driver_version) supports CUDA $driver_cuda, the bundle was built with CUDA $bundle_cuda: run scripts/gpu-check.sh without --prebuilt, or make the bundle with an older toolkit"
      elif [ -n "$gpu_arch" ] && [ -n "$bundle_archs" ] &&
        [ "$(tr ';' '\n' <<<"$bundle_archs" | sort -n | head -n 1)" -gt "$gpu_arch" ]; then
        # Each architecture CMake builds comes as machine code and as PTX, which the driver compiles
        # for any newer GPU: the lowest one decides.
        stop="the bundle was built for CUDA architectures $bundle_archs, this GPU ($gpu_name) is $gpu_arch: make the bundle with scripts/gpu-bundle.sh --arch $gpu_arch"
      fi
      # The programs link libstdc++ in, but the shared libraries they load that are written in
      # C++ (Embree and TBB) use this machine's libstdc++
      # (bundle.txt: glibcxx_floor). Where it is too old, test_reference_embree alone is left out
      # (it says nothing about the CUDA backend); anything else stops the run here.
      missing=$(for b in "$prebuilt"/bin/*; do
        LD_LIBRARY_PATH="$prebuilt/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ldd "$b" 2>&1 | grep 'not found' |
          sed "s|^[[:space:]]*|$(basename "$b"): |"
      done | sort -u)
      if [ -n "$missing" ] && [ -z "$stop" ]; then
        if ! grep -qv '^test_reference_embree: ' <<<"$missing"; then
          embree_note="test_reference_embree left out, it cannot load here: $(head -n 2 <<<"$missing" | tr '\n' ' ')"
        else
          stop="the bundle's programs cannot load here (this machine's libstdc++ is older than the bundle's libraries need, GLIBCXX $(bundle_info glibcxx_floor)): $(tr '\n' ' ' <<<"$missing")"
        fi
      fi
    else
      stop="$bundle is not a bundle of scripts/gpu-bundle.sh (it needs CTestTestfile.cmake and bin/wr-bench-gpu)"
    fi
  fi
  # The bundle's libwr before the system's; extended, never replaced: a container may put the
  # driver's libcuda on LD_LIBRARY_PATH (compute-sanitizer sees the same path).
  [ -z "$prebuilt" ] || export LD_LIBRARY_PATH="$prebuilt/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  toolkit="CUDA ${bundle_cuda:-unknown}, prebuilt elsewhere (scripts/gpu-bundle.sh)"
else
  toolkit=$(nvcc --version 2>/dev/null | grep -o 'release [0-9.]*, V[0-9.]*' | head -n 1)
  [ -n "$toolkit" ] || toolkit="nvcc not found"
fi

section <<EOF
# GPU check: ${gpu_name:-no usable GPU}, $date_utc

Written by \`scripts/gpu-check.sh${prebuilt_arg:+ --prebuilt $prebuilt_arg} --out $out --deadline $deadline\`,
section by section as each step ends; logs in $(basename "$logs")/.

| | |
|---|---|
| GPU | ${gpu_name:-none: $gpu_why} |
| driver | ${driver_version:-none} (supports CUDA ${driver_cuda:-none}) |
| CUDA toolkit | $toolkit |
| programs | $bundle_line |
| checkout | commit $commit |
| host | $(nproc 2>/dev/null) cores, $(uname -sr), glibc ${host_glibc:-unknown} |
| started (UTC) | $(date -u '+%Y-%m-%d %H:%M:%S'), deadline $deadline s |

EOF
[ -z "$gpu_csv" ] || printf '`nvidia-smi --query-gpu=name,driver_version --format=csv`:\n\n```\n%s\n```\n\n' "$gpu_csv" | section
if [ -n "$stop" ]; then
  printf '## Stopped before any step\n\n%s\n' "$stop" | section
  echo "gpu-check: $stop" >&2
  exit 2
fi
[ $gpu_ok -eq 1 ] || echo "gpu-check: $gpu_why: every GPU step is reported as not run" >&2

# ---- running steps ------------------------------------------------------------------------------
child="" current=""
on_signal() {  # signal name, exit status
  [ -z "$child" ] || kill -TERM "$child" 2>/dev/null
  printf '## Stopped\n\nStopped by SIG%s during the step "%s", %d s after the start; the sections above are complete.\n' \
    "$1" "${current:-between steps}" $((SECONDS - start)) | section
  echo "gpu-check: stopped by SIG$1 during ${current:-no step}" >&2
  exit "$2"
}
trap 'on_signal TERM 143' TERM
trap 'on_signal INT 130' INT

# timed SECONDS LOG COMMAND...: the command under `timeout` (its whole process group is signalled
# at the limit), output appended to LOG; returns its exit status (124: cut off at the limit).
# It runs in the background so that a signal to this script is handled at once.
timed() {
  local limit=$1 log=$2 rc
  shift 2
  timeout -k 10 "$limit" "$@" </dev/null >>"$log" 2>&1 &
  child=$!
  wait "$child"
  rc=$?
  child=""
  return $rc
}

failed=0 incomplete=0 summary=""
# step NAME EXPECTED_S LIMIT_S FUNCTION: runs FUNCTION LIMIT (LIMIT = min(LIMIT_S, time left)),
# which sets `verdict` ("passed", "FAILED: ...", "not run: ...") and writes its section's body to
# $body; then appends the section. Skipped with a note when less than EXPECTED_S is left.
body="$logs/.section.md"
step() {
  local name=$1 expect=$2 limit=$3 fn=$4 left t0
  left=$((deadline - (SECONDS - start)))
  : >"$body"
  if [ $gpu_ok -eq 0 ] && [ -z "$prebuilt" ]; then
    # Nothing to build for (CMAKE_CUDA_ARCHITECTURES=native needs the GPU) nor to run on.
    verdict=$no_gpu_note
  elif [ "$left" -lt "$expect" ]; then
    verdict="not run: it takes about $expect s and $left s were left before the deadline (--deadline $deadline)"
    incomplete=1
  else
    [ "$left" -ge "$limit" ] || limit=$left
    current=$name t0=$SECONDS
    echo "gpu-check: $name (at most $limit s)"
    verdict="FAILED: the step set no verdict"
    "$fn" "$limit"
    verdict="$verdict in $((SECONDS - t0)) s"
    current=""
  fi
  case $verdict in FAILED*) failed=1 ;; esac
  echo "gpu-check: $name: $verdict"
  summary="$summary| $name | $verdict |"$'\n'
  { printf '## %s\n\n**%s**\n\n' "$name" "$verdict"; cat "$body"; echo; } | section
}

# The tail of a ctest log from its "tests passed" line on, and the skip reasons the programs
# printed (CTest shows only that a test was skipped; its log has why).
ctest_summary() {  # ctest log, LastTest.log
  echo '```'
  if grep -q 'tests passed\|tests failed' "$1"; then sed -n '/tests passed\|tests failed/,$p' "$1"; else tail -n 30 "$1"; fi
  echo '```'
  if [ -f "$2" ] && grep -q '^skipped: ' "$2"; then
    printf '\nWhy tests were skipped (their output):\n\n```\n'
    grep '^skipped: ' "$2" | sort | uniq -c
    echo '```'
  fi
}

# ---- build (only without --prebuilt) ----
build="$root/build-gpu"
kernel_resources="$logs/kernel-resources.md"
step_build() {
  local limit=$1 t0=$SECONDS
  bash scripts/setup.sh >>"$logs/build.log" 2>&1 ||
    echo "gpu-check: warning: scripts/setup.sh failed (offline?); configuring with what is installed" >>"$logs/build.log"
  rm -rf "$build"
  if timed $((limit - (SECONDS - t0))) "$logs/build.log" cmake --preset cuda &&
     timed $((limit - (SECONDS - t0))) "$logs/build.log" cmake --build --preset cuda -j "$jobs"; then
    verdict="passed"
  else
    verdict="FAILED: see build.log"
    { echo '```'; tail -n 40 "$logs/build.log"; echo '```'; } >"$body"
  fi
  if [ -f "$build/kernels/cuda_kernels.ptxas.log" ]; then  # ptxas's report, kept by the build
    bash tools/kernel-resources.sh "$build/kernels/cuda_kernels.ptxas.log" >"$kernel_resources"
  else
    echo "(no ptxas report: the build did not compile the kernels)" >"$kernel_resources"
  fi
}

# ---- tests ----
step_tests() {
  local limit=$1 dir args=(-L cuda -j 4 --timeout 300 --no-tests=error --output-on-failure)
  if [ -n "$prebuilt" ]; then dir=$prebuilt; else dir=$build; fi
  [ -z "$embree_note" ] || args+=(-LE embree)
  if [ $gpu_ok -eq 1 ]; then
    WR_REQUIRE_GPU=1 WR_SOURCE_DIR=$root timed "$limit" "$logs/ctest.log" ctest --test-dir "$dir" "${args[@]}"
  else  # the tests run all the same (they skip, printing why): the bundle itself is checked
    WR_SOURCE_DIR=$root timed "$limit" "$logs/ctest.log" ctest --test-dir "$dir" "${args[@]}"
  fi
  local rc=$?
  cp "$dir/Testing/Temporary/LastTest.log" "$logs/ctest-last-test.log" 2>/dev/null
  if [ $gpu_ok -eq 0 ]; then verdict="$no_gpu_note; the tests ran, and skipped where they need one"
  elif [ $rc -eq 0 ]; then verdict="passed"
  elif [ $rc -eq 124 ]; then verdict="FAILED: cut off after $limit s"
  else verdict="FAILED: see ctest.log"; fi
  { echo "\`ctest -L cuda\` over $([ -n "$prebuilt" ] && echo "the bundle's CTestTestfile.cmake" || echo build-gpu/), with WR_REQUIRE_GPU=1 where a GPU is usable (a skip is then a failure)${embree_note:+; $embree_note}:"
    echo
    ctest_summary "$logs/ctest.log" "$logs/ctest-last-test.log"
  } >"$body"
}

# ---- benchmark ----
bench_bin() { if [ -n "$prebuilt" ]; then echo "$prebuilt/bin/wr-bench-gpu"; else echo "$build/benchmarks/wr-bench-gpu"; fi; }
step_bench() {
  local limit=$1 rc
  timed "$limit" "$logs/bench.log" "$(bench_bin)" --obj assets/parkour_terrain.obj --csv "$logs/bench-gpu.csv"
  rc=$?
  if grep -q '^no CUDA device' "$logs/bench.log"; then
    if [ $gpu_ok -eq 1 ]; then verdict="FAILED: wr-bench-gpu found no CUDA device ($(grep -m 1 '^no CUDA device' "$logs/bench.log"))"
    else verdict="$no_gpu_note; wr-bench-gpu exited $rc: $(grep -m 1 '^no CUDA device' "$logs/bench.log")"; fi
  elif [ $gpu_ok -eq 0 ]; then verdict="$no_gpu_note (wr-bench-gpu exited $rc)"
  elif [ $rc -eq 0 ]; then verdict="passed"
  elif [ $rc -eq 124 ]; then verdict="FAILED: cut off after $limit s"
  else verdict="FAILED: exit status $rc, see bench.log"; fi
  { sed 's/^#/###/' "$logs/bench.log"  # its headings, two levels down under this one
    if [ -f "$logs/bench-gpu.csv" ]; then printf '\nCSV (`wr-bench-gpu --csv`):\n\n```csv\n'; cat "$logs/bench-gpu.csv"; echo '```'; fi
  } >"$body"
}

# ---- the grid terrain kinds against the BVH (wr-bench-gpu --grid-kinds) ----
step_grid_kinds() {
  local limit=$1 rc
  timed "$limit" "$logs/grid-kinds.log" "$(bench_bin)" --grid-kinds
  rc=$?
  if grep -q '^no CUDA device' "$logs/grid-kinds.log"; then
    if [ $gpu_ok -eq 1 ]; then verdict="FAILED: wr-bench-gpu --grid-kinds found no CUDA device ($(grep -m 1 '^no CUDA device' "$logs/grid-kinds.log"))"
    else verdict="$no_gpu_note; wr-bench-gpu --grid-kinds exited $rc: $(grep -m 1 '^no CUDA device' "$logs/grid-kinds.log")"; fi
  elif [ $gpu_ok -eq 0 ]; then verdict="$no_gpu_note (wr-bench-gpu --grid-kinds exited $rc)"
  elif [ $rc -eq 0 ]; then verdict="passed"
  elif [ $rc -eq 124 ]; then verdict="FAILED: cut off after $limit s"
  else verdict="FAILED: exit status $rc, see grid-kinds.log"; fi
  sed 's/^#/###/' "$logs/grid-kinds.log" >"$body"
}

# ---- memory benchmark ----
memory_stem="$out/memory-$date_utc-cuda-$gpu_slug"
step_memory() {
  local limit=$1 rc bin
  if [ -n "$prebuilt" ]; then bin="$prebuilt/bin/wr-bench-memory"; else bin="$build/benchmarks/memory/wr-bench-memory"; fi
  if [ ! -x "$bin" ]; then verdict="FAILED: $bin was not built"; return; fi
  timed "$limit" "$logs/memory.log" "$bin" --device cuda --obj assets/parkour_terrain.obj --csv "$memory_stem.csv"
  rc=$?
  if [ $gpu_ok -eq 0 ]; then verdict="$no_gpu_note (wr-bench-memory --device cuda exited $rc)"
  elif [ $rc -eq 0 ]; then verdict="passed"
  elif [ $rc -eq 124 ]; then verdict="FAILED: cut off after $limit s"
  else verdict="FAILED: exit status $rc, see memory.log"; fi
  if [ -f "$memory_stem.csv" ]; then
    "$python" benchmarks/memory/plot_memory.py "$memory_stem.csv" "$memory_stem.png" >>"$logs/memory.log" 2>&1 ||
      echo "(the plot failed: see memory.log)" >>"$body"
  fi
  { [ ! -f "$memory_stem.csv" ] || printf 'CSV and plot: %s.{csv,png}\n\n' "$(basename "$memory_stem")"
    sed 's/^#/###/' "$logs/memory.log"
  } >>"$body"
}

# ---- tuning sweep ----
# Every libwr variant of scripts/build-cuda-variants.sh timed with `wr-bench-gpu --sweep`, one
# after another in this run, so that their ratios compare like with like: the variant's libwr
# goes in front of LD_LIBRARY_PATH (extended, not replaced).
variants_dir() { if [ -n "$prebuilt" ]; then echo "$prebuilt/variants"; else echo "$build/variants"; fi; }
step_sweep() {
  local limit=$1 variants name rc bad="" stop_at=$((SECONDS + $1))
  variants=$(variants_dir)
  if [ $gpu_ok -eq 0 ]; then verdict=$no_gpu_note; return; fi
  if [ -z "$prebuilt" ]; then
    timed "$limit" "$logs/variants.log" bash scripts/build-cuda-variants.sh "$build" "$variants" ||
      { verdict="FAILED: building the variants, see variants.log"; return; }
  fi
  if [ -n "$prebuilt" ] && [ "$(bundle_info variants)" = no ]; then
    verdict="not run: the bundle was built without variants (scripts/gpu-bundle.sh --variants adds them)"
    return
  fi
  [ -f "$variants/variants.txt" ] || { verdict="FAILED: no $variants/variants.txt"; return; }
  cp "$variants/variants.txt" "$logs/sweep-variants.txt"
  while read -r name _; do
    if [ $SECONDS -ge $stop_at ]; then bad="$bad $name(no time left)"; continue; fi
    LD_LIBRARY_PATH="$variants/$name${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
      timed $((stop_at - SECONDS)) "$logs/sweep-$name.log" "$(bench_bin)" --sweep --obj assets/parkour_terrain.obj \
      --csv "$logs/sweep-$name.csv"
    rc=$?
    [ $rc -eq 0 ] || bad="$bad $name(exit $rc)"
  done <"$variants/variants.txt"
  if [ -z "$bad" ]; then verdict="passed"; else verdict="FAILED:$bad (see sweep-*.log)"; fi
  { echo "Each variant changes one knob from the shipped values (scripts/build-cuda-variants.sh):"
    printf '\n```\n'; cat "$logs/sweep-variants.txt"; printf '```\n\n'
    sweep_table "$variants"
  } >"$body"
}

# The sweep as one Markdown table: each variant's ms and G rays/s per row of the targets, its
# time relative to the shipped values' in this same run (< 1: faster), and the plain depth
# kernel's (output_kernel<plain>) registers per thread on sm_90 (ptxas, from the variant's build).
sweep_table() {
  local variants=$1 name regs
  echo "| variant | output_kernel<plain> registers (sm_90) | terrain | N | WxH | ms/render (median) | G rays/s | time vs shipped |"
  echo "|---|---:|---|---:|---|---:|---:|---:|"
  while read -r name _; do
    regs=$(awk -F'|' '$2 ~ /output_kernel<plain>/ && $3 ~ /sm_90/ { gsub(/ /, "", $4); print $4 }' \
      "$variants/$name/kernel-resources.md" 2>/dev/null)
    [ -s "$logs/sweep-$name.csv" ] || { echo "| $name | ${regs:--} | (failed: see sweep-$name.log) | | | | | |"; continue; }
    awk -F, -v name="$name" -v regs="${regs:--}" '
      FNR == 1 { next }                       # the header of each file
      FNR == NR { ms[$1 "," $3] = $6; next }  # the first file: the shipped values (read twice for itself)
      { key = $1 "," $3; ratio = (key in ms && ms[key] > 0) ? sprintf("%.2f", $6 / ms[key]) : "-"
        gsub(/"/, "", $1)
        printf "| %s | %s | %s | %s | %sx%s | %.3f | %.2f | %s |\n", name, regs, $1, $3, $4, $5, $6, $9, ratio }
    ' "$logs/sweep-shipped.csv" "$logs/sweep-$name.csv" 2>/dev/null
  done <"$logs/sweep-variants.txt"
}

# ---- memcheck ----
# CTest's memcheck support (ctest -S scripts/gpu-memcheck.cmake: ctest_memcheck with
# MEMORYCHECK_TYPE CudaSanitizer, CMake >= 3.19, which every path here has: the bundle needs
# ctest >= 3.20, a build here CMake >= 3.24) over the tests labelled memcheck.
step_memcheck() {
  local limit=$1 sanitizer dir rc defects result
  if [ -n "$prebuilt" ]; then dir=$prebuilt; else dir=$build; fi
  sanitizer=$(command -v compute-sanitizer || true)
  [ -n "$sanitizer" ] || [ ! -x /usr/local/cuda/bin/compute-sanitizer ] || sanitizer=/usr/local/cuda/bin/compute-sanitizer
  if [ $gpu_ok -eq 0 ]; then verdict=$no_gpu_note; return; fi
  if [ -z "$sanitizer" ]; then verdict="not run: no compute-sanitizer on this machine"; return; fi
  rm -f "$dir"/Testing/Temporary/MemoryChecker.*.log
  WR_REQUIRE_GPU=1 WR_SOURCE_DIR=$root timed "$limit" "$logs/memcheck.log" ctest -S scripts/gpu-memcheck.cmake -V \
    -DBINARY_DIR="$dir" -DSANITIZER="$sanitizer"
  rc=$?
  cp "$dir"/Testing/Temporary/MemoryChecker.*.log "$logs/" 2>/dev/null
  # "gpu-memcheck: return value R, defects N" (scripts/gpu-memcheck.cmake)
  result=$(sed -n 's/^gpu-memcheck: return value \(-\{0,1\}[0-9]*\), defects \([0-9]*\)$/\1 \2/p' "$logs/memcheck.log" | tail -n 1)
  defects=${result#* } result=${result%% *}
  if [ $rc -eq 124 ]; then verdict="FAILED: cut off after $limit s"
  elif [ -z "$defects" ]; then verdict="FAILED: ctest -S scripts/gpu-memcheck.cmake ended without a result (exit $rc)"
  elif [ "$defects" != 0 ]; then verdict="FAILED: $defects memory errors"
  elif [ "$result" != 0 ] || [ $rc -ne 0 ]; then verdict="FAILED: no memory error, but the tests failed under compute-sanitizer"
  else verdict="passed (no error)"; fi
  { echo '```'
    grep -E '^=========|MemCheck|Defects|Memory checking results|^[A-Za-z_ ]+ - [0-9]+$|tests passed|tests failed|gpu-memcheck:' \
      "$logs/memcheck.log" | head -n 60
    echo '```'
    if ls "$logs"/MemoryChecker.*.log >/dev/null 2>&1; then
      printf '\ncompute-sanitizer'"'"'s reports (file and line: the bundle is built with -lineinfo):\n\n```\n'
      grep -h '^=========' "$logs"/MemoryChecker.*.log | head -n 80
      echo '```'
    fi
  } >>"$body"
}

[ -n "$prebuilt" ] || step build 60 400 step_build
if [ -n "$prebuilt" ]; then
  cp "$prebuilt/kernel-resources.md" "$kernel_resources" 2>/dev/null || echo "(the bundle has no kernel-resources.md)" >"$kernel_resources"
fi
case $failed in
  0) { printf '## Kernel resources (ptxas)\n\n'; cat "$kernel_resources" 2>/dev/null || echo '(none: nothing was built)'; echo; } | section
     step tests 30 240 step_tests
     step benchmark 40 240 step_bench
     step grid-kinds 60 180 step_grid_kinds
     step memory 40 240 step_memory
     step sweep 90 240 step_sweep
     step memcheck 90 300 step_memcheck ;;
esac

total=$((SECONDS - start))
{ printf '## Summary (%d s)\n\n| step | verdict |\n|---|---|\n%s' "$total" "$summary"; } | section
echo "gpu-check: wrote $results (total $total s)"
if [ $failed -ne 0 ]; then echo "gpu-check: FAILED" >&2; exit 1; fi
if [ $gpu_ok -eq 0 ]; then echo "gpu-check: nothing was checked: $gpu_why" >&2; exit 2; fi
if [ $incomplete -ne 0 ]; then echo "gpu-check: incomplete: a step was skipped for the deadline" >&2; exit 3; fi
echo "gpu-check: all passed"
