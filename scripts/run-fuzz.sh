#!/usr/bin/env bash
# Coverage-guided fuzzing (docs/reliability.md): builds the libFuzzer harnesses of tests/fuzz
# with clang-14 in build-fuzz/, the library instrumented with AddressSanitizer, UBSan and
# libFuzzer's coverage (CUDA off), and runs each harness for a bounded time from its seed corpus
# (tests/fuzz/corpus/<harness>/) and its past crashes (tests/fuzz/regressions/<harness>/).
# Fails on a crash, a broken contract (the harness aborts), a leak, an input that takes more than
# 10 s (a hang; WR_FUZZ_TIMEOUT) or a process past 2 GiB. What the fuzzer found is in build-fuzz/artifacts/; new
# inputs go to build-fuzz/corpus/, never into the source tree. Prints each stage's wall time.
# CI runs it as a regression run, 15 s a harness (.ci/run): each harness replays its seeds and past
# crashes, then fuzzes for the rest of its time; longer runs are for outside CI.
# WR_FUZZ_TIMEOUT (seconds, default 10) is the wall time an input may take before it counts as a
# hang: an hour's run at a low priority on a machine busy with builds may raise it, so that a
# starved process is not taken for a hang (a real one still shows, at that bound).
#   usage: scripts/run-fuzz.sh [seconds per harness (default 60)] [harness...]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/stage-times.sh
. scripts/cmake-generator.sh
seconds="${1:-60}"
[ $# -gt 0 ] && shift
harnesses=("$@")
[ ${#harnesses[@]} -eq 0 ] && harnesses=(fuzz_obj_loader fuzz_scene_create fuzz_heightfield fuzz_sensor_render fuzz_pipeline_render fuzz_instances fuzz_pattern_sensor fuzz_gather_poses)
bash scripts/setup.sh --no-python
jobs=$(nproc 2>/dev/null || echo 2)
choose_generator build-fuzz
cmake -S . -B build-fuzz "${generator[@]}" -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWR_ENABLE_CUDA=OFF -DWR_WERROR=ON -DWR_BUILD_TESTS=OFF \
  -DWR_BUILD_APPS=OFF -DWR_BUILD_BENCHMARKS=OFF -DWR_BUILD_FUZZERS=ON \
  -DWR_SANITIZE=fuzzer-no-link,address,undefined >/dev/null
stage "fuzz build (build-fuzz)" cmake --build build-fuzz -j "$jobs" --target "${harnesses[@]}"

# Each harness in turn; a failed one is reported and the others still run.
fuzz_all() {
  local failed=() h
  for h in "${harnesses[@]}"; do
    local work="build-fuzz/corpus/$h" artifacts="build-fuzz/artifacts/$h" log="build-fuzz/$h.log"
    mkdir -p "$work" "$artifacts"
    local inputs=("$work" "tests/fuzz/corpus/$h")
    [ -d "tests/fuzz/regressions/$h" ] && inputs+=("tests/fuzz/regressions/$h")
    echo "== $h: ${seconds} s (log: $log)"
    if ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
       "build-fuzz/tests/fuzz/$h" -max_total_time="$seconds" -timeout="${WR_FUZZ_TIMEOUT:-10}" -rss_limit_mb=2048 -max_len=4096 \
         -print_final_stats=1 -artifact_prefix="$artifacts/" "${inputs[@]}" >"$log" 2>&1; then
      grep -E "^(stat::number_of_executed_units|stat::new_units_added)|Done [0-9]+ runs" "$log" || true
    else
      echo "$h FAILED; the end of its log:"
      tail -n 60 "$log"
      failed+=("$h")
    fi
  done
  if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzzing found something in: ${failed[*]} (inputs in build-fuzz/artifacts/)" >&2
    return 1
  fi
}
stage "fuzzing (${#harnesses[@]} harnesses x ${seconds} s)" fuzz_all
echo "fuzzing: ${#harnesses[@]} harnesses, ${seconds} s each, nothing found"
