#!/usr/bin/env bash
# The CPU benchmark suite in one command: builds the benchmarks (CUDA off: the GPU's are run by
# scripts/gpu-check.sh) and runs them one after another, each writing its dated results as soon
# as it ends, into OUT (default benchmarks/results/):
#   wr-bench-cpu        Google Benchmark: BVH build, render, explicit rays
#                       -> cpu-<date>.md (Google Benchmark's JSON beside the build: <build>/results/)
#   wr-bench-pipeline   Google Benchmark: the RL depth pipeline's stages against the plain render
#                       -> pipeline-<date>.md (its JSON likewise)
#   wr-bench-vs-embree  against Embree 3, same scene, rays and threads
#                       -> cpu-vs-embree-<date>.md and .csv
#   wr-bench-instances-vs-embree
#                       Google Benchmark: moving geometry (12 instances per env) against
#                       Embree 3's instances, same scene, rays and threads
#                       -> instances-<date>.md (its JSON beside the build)
#   wr-bench-memory     memory per env of three designs
#                       -> memory-<date>-cpu.md, .csv and .png (benchmarks/memory/plot_memory.py)
# A --quick run (a few seconds per benchmark, to check that the suite works, not to measure)
# names its files *-quick.*. The full suite takes long on a small shared machine: run it when the
# machine is otherwise idle, and say in the results file what else ran.
#
#   usage: scripts/run-benchmarks.sh [--quick] [--out DIR] [--build DIR] [--no-build]
#                                    [--only cpu,pipeline,embree,instances,memory]
#     --build DIR   the build folder (default build-bench, configured here with CUDA off)
#     --no-build    use the programs already built in --build DIR (the CMake targets `bench` and
#                   `bench-memory` call this script so)
#
# Exit status: 0 when every benchmark ran and passed its own checks, 1 otherwise (the other
# benchmarks still run), 2 on a usage error.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
root=$(pwd)

quick=0
out="$root/benchmarks/results"
build="$root/build-bench"
do_build=1
only="cpu,pipeline,embree,instances,memory"
while [ $# -gt 0 ]; do
  case $1 in
    --quick) quick=1 ;;
    --out) out=${2:?--out needs a folder}; shift ;;
    --build) build=${2:?--build needs a folder}; shift ;;
    --no-build) do_build=0 ;;
    --only) only=${2:?--only needs a list}; shift ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "run-benchmarks: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
wants() { case ",$only," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)

date_tag=$(date +%Y-%m-%d)
[ $quick -eq 0 ] || date_tag="$date_tag-quick"
jobs=$(nproc 2>/dev/null || echo 2)

if [ $do_build -eq 1 ]; then
  bash scripts/setup.sh || echo "run-benchmarks: warning: scripts/setup.sh failed; building with what is installed" >&2
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DWR_ENABLE_CUDA=OFF -DWR_BUILD_TESTS=OFF \
    -DWR_BUILD_APPS=OFF -DWR_BUILD_TOOLS=OFF >/dev/null || exit 1
  targets=()
  wants cpu && targets+=(wr-bench-cpu)
  wants pipeline && targets+=(wr-bench-pipeline)
  wants embree && targets+=(wr-bench-vs-embree)
  wants instances && targets+=(wr-bench-instances-vs-embree)
  wants memory && targets+=(wr-bench-memory)
  cmake --build "$build" -j "$jobs" --target "${targets[@]}" || exit 1
fi

# The heading every results file starts with: what ran, where, on which commit.
python=python3
[ -x "$root/.venv/bin/python" ] && python="$root/.venv/bin/python"
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
[ -z "$(git status --porcelain --untracked-files=no 2>/dev/null)" ] || commit="$commit (with uncommitted changes)"
cpu_model=$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1)
header() {  # title, command
  echo "# $1, $(date -u '+%Y-%m-%d %H:%M') UTC"
  echo
  echo "Written by \`scripts/run-benchmarks.sh$([ $quick -eq 1 ] && echo ' --quick')\`$([ $quick -eq 1 ] && echo ' (a quick run: it checks that the suite works; its figures are not measurements)')."
  echo
  echo "- machine: ${cpu_model:-unknown CPU}, $jobs cores, $(free -g 2>/dev/null | awk '/^Mem:/ {print $2 " GiB RAM"}'), $(uname -sr)"
  echo "- commit: $commit"
  echo "- command: \`$2\`"
  echo
}

status=0
ran=""
# run_step NAME MD FENCE TITLE PROGRAM ARGS...: runs PROGRAM ARGS, its output (in a code block when
# FENCE is 1) under the heading into MD, written as it runs; records the verdict.
run_step() {
  local name=$1 md=$2 fence=$3 title=$4 bin=$5 rc
  shift 5
  if [ ! -x "$bin" ]; then
    echo "run-benchmarks: $bin not built: $name skipped (scripts/setup.sh installs what it needs)" >&2
    status=1; ran="$ran $name:not-built"; return 1
  fi
  echo "run-benchmarks: $(basename "$bin") $*"
  local shown="${*//$out\//}"  # paths as the reader's checkout has them
  shown="${shown//$root\//}"
  { header "$title" "$(basename "$bin") $shown"; [ "$fence" = 0 ] || echo '```'; } >"$md"
  "$bin" "$@" >>"$md" 2>&1
  rc=$?
  { [ "$fence" = 0 ] || echo '```'; echo; echo "exit status $rc"; } >>"$md"
  if [ $rc -eq 0 ]; then
    ran="$ran $name:passed"
  else
    echo "run-benchmarks: $name FAILED, exit status $rc (see $md)" >&2; status=1; ran="$ran $name:FAILED"
  fi
}

# Google Benchmark's JSON (every repetition, for tools) stays beside the build: the results
# folder keeps the readable tables, which hold the same figures.
json_dir="$build/results"
json_shown="${json_dir#"$root"/}"  # as the results file names it
mkdir -p "$json_dir"

if wants cpu; then
  args=(--benchmark_out="$json_dir/cpu-$date_tag.json" --benchmark_out_format=json)
  [ $quick -eq 0 ] || args+=(--benchmark_min_time=0.01)
  run_step cpu "$out/cpu-$date_tag.md" 1 "wr-bench-cpu (Google Benchmark; JSON: $json_shown/cpu-$date_tag.json)" \
    "$build/benchmarks/wr-bench-cpu" "${args[@]}"
fi

if wants pipeline; then
  args=(--benchmark_out="$json_dir/pipeline-$date_tag.json" --benchmark_out_format=json)
  if [ $quick -eq 0 ]; then
    args+=(--benchmark_repetitions=3 --benchmark_enable_random_interleaving=true --benchmark_report_aggregates_only=true)
  else
    args+=(--benchmark_min_time=0.01)
  fi
  run_step pipeline "$out/pipeline-$date_tag.md" 1 \
    "wr-bench-pipeline: the RL depth pipeline's stages against the plain render (JSON: $json_shown/pipeline-$date_tag.json)" \
    "$build/benchmarks/wr-bench-pipeline" "${args[@]}"
fi

if wants embree; then
  args=(--csv "$out/cpu-vs-embree-$date_tag.csv")
  [ $quick -eq 0 ] || args+=(--reps 1 --envs 8)
  run_step embree "$out/cpu-vs-embree-$date_tag.md" 0 "wr-bench-vs-embree (CSV: cpu-vs-embree-$date_tag.csv)" \
    "$build/benchmarks/peers/wr-bench-vs-embree" "${args[@]}"
fi

if wants instances; then
  args=(--benchmark_out="$json_dir/instances-$date_tag.json" --benchmark_out_format=json)
  if [ $quick -eq 0 ]; then
    args+=(--benchmark_repetitions=10 --benchmark_enable_random_interleaving=true --benchmark_report_aggregates_only=true)
  else
    args+=(--benchmark_min_time=0.01 --envs 8)
  fi
  run_step instances "$out/instances-$date_tag.md" 1 \
    "wr-bench-instances-vs-embree: moving geometry against Embree 3's instances (JSON: $json_shown/instances-$date_tag.json)" \
    "$build/benchmarks/peers/wr-bench-instances-vs-embree" "${args[@]}"
fi

if wants memory; then
  stem="$out/memory-$date_tag-cpu"
  args=(--device cpu --csv "$stem.csv")
  [ $quick -eq 0 ] || args+=(--quick --frames 1)
  run_step memory "$stem.md" 0 "wr-bench-memory, CPU backend (CSV and plot: $(basename "$stem").{csv,png})" \
    "$build/benchmarks/memory/wr-bench-memory" "${args[@]}"
  if [ -f "$stem.csv" ]; then
    "$python" benchmarks/memory/plot_memory.py "$stem.csv" "$stem.png" ||
      { echo "run-benchmarks: the memory plot FAILED (message above)" >&2; status=1; ran="$ran memory-plot:FAILED"; }
  fi
fi

echo "run-benchmarks: results in $out:$ran"
exit $status
