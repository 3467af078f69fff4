#!/usr/bin/env bash
# Turns ptxas's resource report (kernels/cuda_kernels.ptxas.log of a build with
# WR_CUDA_RESOURCE_USAGE on, or any log of nvcc -Xptxas=-v) into a Markdown table: per kernel and
# architecture, the registers per thread, the stack frame (the traversal stack lives there, in
# local memory) and any spills. Used by the test build's cuda_kernel_stack_frames,
# scripts/gpu-check.sh and scripts/gpu-bundle.sh; needs no GPU.
# A render's kernels are templates over its feature set (src/core/render_features.h): each
# instantiation is a row, named as output_kernel<plain>, output_kernel<pipeline,instances,shared>
# (RenderFeatures<pipeline, instances>; shared: its blocks prepare their env's instances in
# shared memory), output_kernel<plain,grid> (the terrain kind, where it is not the BVH),
# output_kernel<pipeline,pattern> (a pattern sensor's ray source, core/pattern_rays.h);
# intersect_kernel<bvh>, <grid>, <grid_mesh> (templated on the kind alone).
#
#   usage: tools/kernel-resources.sh LOG
set -euo pipefail
[ $# -eq 1 ] && [ -f "$1" ] || { echo "usage: tools/kernel-resources.sh LOG" >&2; exit 2; }
awk '
  # ptxas info    : Compiling entry function '\''_ZN...16intersect_kernel...'\'' for '\''sm_90'\''
  /Compiling entry function/ {
    # The mangled name holds <length><name>E (a function) or <length><name>I (a template), e.g.
    # 16intersect_kernelE; the E or I tells it from "15_cuda_kernels_cu_<hash>", the anonymous
    # namespace before it (whose hash may end in digits: the length is read back from the name).
    kernel = "?"
    if (match($0, /[0-9]+[a-z_]+_kernel[EI]/)) {
      found = substr($0, RSTART, RLENGTH - 1)
      kernel = found; sub(/^[0-9]+/, "", kernel)
      templated = substr($0, RSTART + RLENGTH - 1, 1) == "I"
      if (templated) {
        rest = substr($0, RSTART + RLENGTH)
        flags = ""
        if (match(rest, /RenderFeaturesILb[01]ELb[01]E/)) {
          f = substr(rest, RSTART, RLENGTH)
          flags = (substr(f, 18, 1) == "1" ? "pipeline" : "plain") (substr(f, 22, 1) == "1" ? ",instances" : "")
          after = substr(rest, RSTART + RLENGTH)
          if (match(after, /^[^L]*EELb1E/)) flags = flags ",shared"
        }
        # The terrain kind (src/core/terrain.h): named where it is not the BVH, and alone for a
        # kernel templated on the kind only (intersect_kernel<grid>).
        kind = match(rest, /GridMeshTerrain/) ? "grid_mesh" : match(rest, /GridTerrain/) ? "grid" : match(rest, /BvhTerrain/) ? "bvh" : ""
        if (flags == "") flags = kind
        else if (kind != "" && kind != "bvh") flags = flags "," kind
        if (flags != "" && match(rest, /PatternRays/)) flags = flags ",pattern"
        kernel = kernel "<" flags ">"
      }
    }
    arch = $0; sub(/.* for ./, "", arch); sub(/.$/, "", arch)
  }
  #     <S> bytes stack frame, <T> bytes spill stores, <L> bytes spill loads
  /bytes stack frame/ { stack = $1; spill_st = $5; spill_ld = $9 }
  # ptxas info    : Used <R> registers, used <B> barriers, <S> bytes cumulative stack size
  /Used [0-9]+ registers/ {
    regs = $0; sub(/.*Used /, "", regs); sub(/ registers.*/, "", regs)
    if (kernel != "") rows[++n] = "| " kernel " | " arch " | " regs " | " stack " | " spill_st " | " spill_ld " |"
    kernel = ""
  }
  END {
    if (n == 0) { print "(no ptxas resource report in the log)"; exit 0 }
    print "| kernel | arch | registers/thread | stack frame (bytes) | spill stores (bytes) | spill loads (bytes) |"
    print "|---|---|---|---|---|---|"
    for (i = 1; i <= n; ++i) print rows[i]
  }' "$1"
