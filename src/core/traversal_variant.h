// The two forms of the one traversal: as the host compiles it and as the GPU runs it. Each is a
// type whose flags the shared code (ray_box.h, bvh_traverse.h, the per-pixel pipeline) reads with
// `if constexpr`, so both forms are instantiated from one written copy, in any binary: the CPU
// backend uses HostTraversal, the CUDA kernels GpuTraversal, and the tests instantiate both in one
// program (TEMPLATE_TEST_CASE), the emulated kernel launch the GPU's. The forms visit the same
// nodes in the same order and give the same bits; each flag says where and why they differ.
#pragma once

namespace wr {

template <bool kNestedLoops, bool kSelectNodePlanes, bool kMinMaxSlab, bool kVectorChildren = false,
          bool kRayWalk = false>
struct TraversalVariant {
  // The loop's shape (bvh_traverse.h, trace_closest_hit). false: one loop that takes one inner
  // node or one leaf per iteration. true: nested loops, "while-while" (Aila and Laine,
  // "Understanding the Efficiency of Ray Traversal on GPUs", HPG 2009): inner nodes until the ray
  // reaches a leaf, then that leaf, so that a warp's lanes descend together and test their leaves
  // together instead of the whole warp paying for a leaf whenever one lane reaches one. On the
  // host the nested loops cost the scalar path instructions and mispredicted branches
  // (benchmarks/results/cpu-design-decisions-2026-11-30.md).
  static constexpr bool nested_loops = kNestedLoops;
  // How a node's slab planes are read (bvh_traverse.h, intersect_node). false: at float offsets
  // into the node chosen once per ray (bmin and bmax sit 4 floats apart), the fastest form on the
  // host (selecting per node was slower there: cpu-design-decisions-2026-11-30.md). true: the node as two 16-byte loads
  // (load_node) and the planes picked from registers by selects: on a GPU a register array indexed at a run-time offset
  // would be moved to local memory.
  static constexpr bool select_node_planes = kSelectNodePlanes;
  // How the slab interval's maximum and minimum are taken (ray_box.h, slab_interval). false: a
  // compare and a select each (x86's maxss/minss are exactly that). true: fmax_/fmin_, one FMNMX
  // instruction each on a GPU, where the compare-and-select takes two.
  static constexpr bool minmax_slab = kMinMaxSlab;
  // How the grid terrain tests a node's four children (grid_terrain.h, grid_children_hit). true:
  // as the four lanes of one SIMD register (GCC / Clang vector extension, host only), the
  // operations of the scalar form lane by lane. false: one child after the other.
  static constexpr bool vector_children = kVectorChildren;
  // How a height field's pyramid is walked (grid_terrain.h, grid_trace). true: along the ray, one
  // node at a time (grid_ray_walk), the children test's walk (grid_walk_cells) taking only the rays
  // it hands back; on the host it visits fewer nodes in less time
  // (benchmarks/results/grid-ray-walk-*). false: the children test's walk for every ray: the GPU's
  // kernels keep it until the ray walk is measured on a GPU.
  static constexpr bool ray_walk = kRayWalk;
};

using HostTraversal = TraversalVariant<false, false, false, true, true>;
using GpuTraversal = TraversalVariant<true, true, true>;

}  // namespace wr
