#!/usr/bin/env bash
# Instructions, memory reads and cache misses per ray, ours against Embree 3 on the same rays:
# wr-bench-vs-embree run under callgrind (valgrind) with its cache simulator, one profile part
# cut at every render (--dump-before on wr_sensor_render and on the Embree side's render), and
# each part divided by the render's rays. For where a machine cannot count its own hardware
# events (a KVM guest without performance counters): callgrind counts what the program executes,
# on a simulated cache.
#
#   usage: scripts/callgrind-vs-embree.sh [--build DIR] [--out FILE] [--envs N] [--sizes WxH,...]
#                                         [--obj FILE]
#     --build DIR   where wr-bench-vs-embree is built (default build-dev; configure it with
#                   -DWR_BUILD_BENCHMARKS=ON)
#     --out FILE    also write the table to FILE (default: standard output only)
#     --envs N      envs per render (default 16: valgrind runs the program some 50x slower)
#     --sizes, --obj  passed to wr-bench-vs-embree (default: 106x60, the bundled terrain)
#
# Valgrind has no AVX-512: under it the library takes its AVX2 path and Embree its AVX2 kernels
# (8-wide BVH, 16-ray packets in two halves), so the counts compare the two engines at one
# instruction set, not the AVX-512 packets that the timed benchmark reports. The simulated caches
# are one core's: D1 and I1 32 KiB 8-way, and the last level a 1 MiB 8-way L2 (not the shared L3).
# Each render is counted on the first timed repetition (after every engine's warm-up render, with
# the other engines' renders between, as in the timed benchmark). Needs valgrind
# (scripts/setup.sh installs it); takes minutes (both engines' BVH builds run under it too).
#
# Exit status: 0 when the table was made, 1 when the benchmark or valgrind failed, 2 on a usage
# error.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
root=$(pwd)

build="$root/build-dev"
out=""
envs=16
sizes="106x60"
obj="$root/assets/parkour_terrain.obj"
while [ $# -gt 0 ]; do
  case $1 in
    --build | --out | --envs | --sizes | --obj)
      [ $# -ge 2 ] || { echo "callgrind-vs-embree: $1 needs a value" >&2; exit 2; }
      case $1 in
        --build) build=$2 ;;
        --out) out=$2 ;;
        --envs) envs=$2 ;;
        --sizes) sizes=$2 ;;
        --obj) obj=$2 ;;
      esac
      shift 2 ;;
    *) echo "callgrind-vs-embree: unknown argument '$1' (see the usage at the top of $0)" >&2; exit 2 ;;
  esac
done
case $envs in '' | *[!0-9]*) echo "callgrind-vs-embree: --envs '$envs' is not a number" >&2; exit 2 ;; esac
bench="$build/benchmarks/peers/wr-bench-vs-embree"
[ -x "$bench" ] || { echo "callgrind-vs-embree: no $bench (build with -DWR_BUILD_BENCHMARKS=ON)" >&2; exit 2; }
command -v valgrind > /dev/null || { echo "callgrind-vs-embree: valgrind is missing (scripts/setup.sh)" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The Embree side's render by its whole name: a pattern ending in * would also cut at its
# per-tile lambdas (their names begin with the function's).
embree_render='wr_bench::embree_render(wr_bench::Pool&, RTCSceneTy* const*, bool, wr_bench::EmbreeMode, wr_bench::Camera const&, float const*, unsigned int, float*, unsigned int*)'
echo "callgrind-vs-embree: running $bench under callgrind ($envs envs, $sizes; minutes)" >&2
# --reps 2: the first timed round's parts each end at the next render (the second round's), so
# none of them holds the report or the next size's set-up.
valgrind --tool=callgrind --cache-sim=yes --I1=32768,8,64 --D1=32768,8,64 --LL=1048576,8,64 \
  --dump-before=wr_sensor_render --dump-before="$embree_render" --callgrind-out-file="$work/cg.out" \
  "$bench" --threads 1 --reps 2 --envs "$envs" --sizes "$sizes" --obj "$obj" > "$work/bench.md" \
  2> "$work/valgrind.log" || {
  echo "callgrind-vs-embree: the benchmark failed under valgrind; its output:" >&2
  tail -20 "$work/bench.md" "$work/valgrind.log" >&2
  exit 1
}

# The render rows in the benchmark's own order (its contenders, size by size), and each part's
# summary line (Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw). Part 1 is everything before the first
# render; then, per size, C warm-up renders, C of the first timed round and C of the second.
grep -E '^\| [0-9]+x[0-9]+ \| (warp-raycaster|Embree) \|' "$work/bench.md" > "$work/rows"
for f in "$work"/cg.out.*; do
  k=${f##*.}
  echo "$k $(grep -m1 '^summary:' "$f" | cut -d' ' -f2-)"
done | sort -n > "$work/parts"
# Every render cuts one part, the last render's is the unnumbered file: 3 renders per row (warm-up
# and two timed), so as many numbered parts as that. Fewer means a trigger no longer fires (the
# Embree render's signature changed) and the parts would not line up with the rows.
rows=$(wc -l < "$work/rows")
parts=$(wc -l < "$work/parts")
[ "$rows" -gt 0 ] && [ "$parts" -eq $((3 * rows)) ] || {
  echo "callgrind-vs-embree: $parts profile parts for $rows render rows (want $((3 * rows))): is \$embree_render still wr_bench::embree_render's whole signature?" >&2
  exit 1
}
table=$(awk -v envs="$envs" -v sizes="$sizes" -v cpu="$(grep -m1 '^- CPU:' "$work/bench.md" | sed 's/^- CPU: //')" '
  FNR == NR { part[$1] = $0; next }
  { rows[++n] = $0 }
  END {
    num_sizes = split(sizes, s, ",")
    per_size = n / num_sizes
    printf "Per ray, under callgrind (AVX2 kernels), %d envs, 1 thread, first timed repetition; CPU: %s\n\n", envs, cpu
    printf "| WxH | engine | mode | BVH | instructions | data reads | D1 misses | LL (1 MiB L2) misses |\n"
    printf "|---|---|---|---|---:|---:|---:|---:|\n"
    for (i = 1; i <= n; ++i) {
      split(rows[i], col, "|")
      size_index = int((i - 1) / per_size)
      c = (i - 1) % per_size
      split(col[2], wh, "x")
      rays = envs * (wh[1] + 0) * (wh[2] + 0)
      k = 2 + size_index * 3 * per_size + per_size + c
      if (!(k in part)) { printf "missing profile part %d\n", k > "/dev/stderr"; exit 1 }
      split(part[k], e, " ")  # e[1] = k, then Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw
      printf "|%s|%s|%s|%s| %.0f | %.0f | %.3f | %.3f |\n", col[2], col[3], col[4], col[5], e[2] / rays,
             e[3] / rays, (e[6] + e[7]) / rays, (e[9] + e[10]) / rays
    }
  }' "$work/parts" "$work/rows") || exit 1
echo "$table"
[ -z "$out" ] || echo "$table" > "$out"
