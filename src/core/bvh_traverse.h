// Closest-hit BVH traversal: the one copy, compiled by the CPU backend and by nvcc.
//
// Main path: depth-first with a fixed stack, testing both children of an inner node and
// descending into the nearer one first (its far sibling is pushed). If the stack would
// overflow, the ray is finished by a stackless walk over parent pointers (fixed
// left-then-right order, in the spirit of Hapala et al., "Efficient Stack-less BVH
// Traversal for Ray Tracing", SCCG 2011), restarted from the root with the closest hit
// found so far. The result is exact either way; the overflow is reported to the caller.
//
// Ties: among hits at the same distance the lowest input triangle id wins, so the result
// does not depend on traversal order (stack or stackless, CPU or GPU, any thread count).
#pragma once

#include "bvh_layout.h"
#include "ray_box.h"
#include "ray_triangle.h"

namespace wr {

// Default stack depth. The SAH builder's trees are far shallower on real meshes; only
// pathological inputs get near it, and those are still traced exactly (see above).
// On the GPU the stack is the kernel's local memory, 12 bytes an entry (768 bytes): it must stay
// within CUDA's default per-thread stack of 1024 bytes, or the driver grows every thread's local
// memory at the first launch, an allocation inside render (scripts/gpu-check.sh reports the frame).
constexpr int kTraversalStackSize = 64;

// What a traversal did, iteration by iteration, for tools that model its cost on a GPU
// (benchmarks/warp_model.cpp replays a warp's 32 rays in lockstep): each iteration of the loop
// visits either one inner node (both children's boxes tested) or one leaf (its triangles
// tested). The default probe does nothing and compiles away (the kernel's PTX is the same with
// or without this hook).
struct NoTraversalProbe {
  WR_HD_MEMBER void inner_node() const {}
  WR_HD_MEMBER void leaf(uint32_t /*triangles*/) const {}
};

struct TraceResult {
  float t;            // distance along the ray, in units of |dir|; tmax when nothing was hit
  uint32_t triangle;  // input triangle id; kInvalidIndex when nothing was hit
  bool overflowed;    // the fixed stack overflowed and the stackless walk finished the ray
};

// The GPU compiles this traversal differently from the host where that is faster there
// (WR_GPU_TRAVERSAL, platform.h): how a node's planes are read (intersect_node below), the shape
// of the loop (trace_closest_hit), and the slab interval's min and max (ray_box.h). A CUDA build
// may define WR_WHILE_WHILE_TRAVERSAL=0 to give the kernel the host's one loop (WR_CUDA_TUNING:
// the tuning sweep times both shapes).
#if WR_GPU_TRAVERSAL
#define WR_SELECT_NODE_PLANES 1
#ifndef WR_WHILE_WHILE_TRAVERSAL
#define WR_WHILE_WHILE_TRAVERSAL 1
#endif
#else
#define WR_SELECT_NODE_PLANES 0
#undef WR_WHILE_WHILE_TRAVERSAL
#define WR_WHILE_WHILE_TRAVERSAL 0
#endif

namespace detail {

// The slab test of one node (intersect_ray_box), also handing back what the node points to.
// Each slab's entry plane is bmin or bmax by the sign of the ray's direction on that axis,
// chosen once per ray (NodeSlabs).
//
// Host: the planes are read at float offsets into the node (bmin and bmax sit 4 floats apart)
// chosen once per ray; selecting them per node instead made the scalar path 25% slower here.
// GPU: the node is read as two 16-byte loads (load_node) and the planes picked from registers
// with selects; a register array indexed at a run-time offset would be moved to local memory.

struct NodeSlabs {
  int near_x, near_y, near_z;  // 0 (bmin) or 4 (bmax): float offset of the entry plane in the node
};

WR_HD NodeSlabs make_node_slabs(const RayBox& rb) {
  return NodeSlabs{rb.neg[0] ? 4 : 0, rb.neg[1] ? 4 : 0, rb.neg[2] ? 4 : 0};
}

WR_HD bool intersect_node(const RayBox& rb, const NodeSlabs& s, const BvhNode* node, float tmin, float tmax,
                          float* t_entry, NodeLink* link) {
#if WR_SELECT_NODE_PLANES
  const BvhNode n = load_node(node);
  const bool hx = s.near_x != 0, hy = s.near_y != 0, hz = s.near_z != 0;  // entered through bmax
  const float nx = ((hx ? n.bmax[0] : n.bmin[0]) - rb.org.x) * rb.inv_dir.x;
  const float fx = ((hx ? n.bmin[0] : n.bmax[0]) - rb.org.x) * rb.inv_dir.x;
  const float ny = ((hy ? n.bmax[1] : n.bmin[1]) - rb.org.y) * rb.inv_dir.y;
  const float fy = ((hy ? n.bmin[1] : n.bmax[1]) - rb.org.y) * rb.inv_dir.y;
  const float nz = ((hz ? n.bmax[2] : n.bmin[2]) - rb.org.z) * rb.inv_dir.z;
  const float fz = ((hz ? n.bmin[2] : n.bmax[2]) - rb.org.z) * rb.inv_dir.z;
  *link = node_link(n);
#else
  // The node as 8 floats: bmin[0..2], first, bmax[0..2], count; bmax[i] is f[4 + i].
  const float* f = reinterpret_cast<const float*>(node);
  const float nx = (f[s.near_x] - rb.org.x) * rb.inv_dir.x, fx = (f[4 - s.near_x] - rb.org.x) * rb.inv_dir.x;
  const float ny = (f[1 + s.near_y] - rb.org.y) * rb.inv_dir.y, fy = (f[5 - s.near_y] - rb.org.y) * rb.inv_dir.y;
  const float nz = (f[2 + s.near_z] - rb.org.z) * rb.inv_dir.z, fz = (f[6 - s.near_z] - rb.org.z) * rb.inv_dir.z;
  *link = node_link(*node);
#endif
  return slab_interval(nx, fx, ny, fy, nz, fz, tmin, tmax, t_entry);
}

// Host only: starts loading what a node points to (its children pair, which shares one
// cache line, or the start of its leaf block) while the node's own box is still being
// tested, so the next level's memory latency overlaps this level's work. A no-op on the GPU.
WR_HD void prefetch_below(const BvhView& bvh, const BvhNode& n) {
#if !defined(__CUDA_ARCH__) && defined(__GNUC__)
  if (n.count == 0)
    __builtin_prefetch(bvh.nodes + n.first);
  else
    __builtin_prefetch(bvh.leaf_words + n.first);
#else
  (void)bvh;
  (void)n;
#endif
}

WR_HD void intersect_leaf(const BvhView& bvh, NodeLink leaf, const RayTriangle& rt, float tmin, TraceResult* best) {
  const LeafBlock block = leaf_block(bvh, leaf);
  for (uint32_t i = 0; i < block.triangles; ++i) {
    const uint32_t corners = load_readonly(block.corners + i);
    const LeafVertex a = leaf_vertex(block, corner_index(corners, 0));
    const LeafVertex b = leaf_vertex(block, corner_index(corners, 1));
    const LeafVertex c = leaf_vertex(block, corner_index(corners, 2));
    float t;
    if (intersect_ray_triangle(rt, a, b, c, tmin, best->t, &t)) {
      const uint32_t id = load_readonly(block.ids + i);
      if (t < best->t || id < best->triangle) {
        best->t = t;
        best->triangle = id;
      }
    }
  }
}

// Pops the traversal stack (sp entries) down to the first node whose entry distance is not
// beyond the closest hit so far (as conservative as the box test), into *node; false when none is
// left, and the ray is done. The GPU's inner loop pops with this; the pop at the end of
// trace_closest_hit's loop spells the same steps out, because GCC compiles the host's scalar
// render 7% longer (in instructions, cachegrind) when that one goes through this function.
WR_HD bool pop_unculled(const NodeLink* stack, const float* stack_entry, int* sp, float best_t, NodeLink* node) {
  do {
    if (*sp == 0) return false;
    --*sp;
  } while (stack_entry[*sp] > best_t * kRobustFarScale);
  *node = stack[*sp];
  return true;
}

// Stackless walk from the root (fixed child order), keeping and improving *best.
template <class Probe>
WR_HD void traverse_stackless(const BvhView& bvh, const RayBox& rb, const RayTriangle& rt, float tmin,
                              TraceResult* best, const Probe& probe) {
  uint32_t node = 0;
  for (;;) {
    const BvhNode& n = bvh.nodes[node];
    float entry;
    if (intersect_ray_box(rb, n.bmin, n.bmax, tmin, best->t, &entry)) {
      if (n.count == 0) {
        probe.inner_node();
        node = n.first;  // descend to the left child
        continue;
      }
      probe.leaf(leaf_triangle_count(n));
      intersect_leaf(bvh, node_link(n), rt, tmin, best);
    }
    // Advance: to the right sibling if we are a left child, else climb and retry.
    for (;;) {
      if (node == 0) return;
      const uint32_t parent = bvh.parents[node];
      const uint32_t left = bvh.nodes[parent].first;
      if (node == left) {
        node = left + 1;
        break;
      }
      node = parent;
    }
  }
}

}  // namespace detail

// Nearest hit of the ray org + t*dir with t in [tmin, tmax] (inclusive). dir need not be
// unit. kStackSize is a template parameter so tests can force the overflow path; `probe` sees
// every iteration (NoTraversalProbe above).
template <int kStackSize = kTraversalStackSize, class Probe = NoTraversalProbe>
WR_HD TraceResult trace_closest_hit(const BvhView& bvh, Vec3 org, Vec3 dir, float tmin, float tmax,
                                    const Probe& probe = Probe()) {
  TraceResult best{tmax, kInvalidIndex, false};
  const RayBox rb = make_ray_box(org, dir);
  const RayTriangle rt = make_ray_triangle(org, dir);

  const BvhNode root = load_node(bvh.nodes);
  float entry;
  if (!intersect_ray_box(rb, root.bmin, root.bmax, tmin, tmax, &entry)) return best;

  // `node` is what the node being visited points to; its children are read (both at once,
  // they are adjacent) together with their own links, so descending needs no further load.
  // Each stack entry keeps the pushed child's link and the distance where the ray enters it,
  // so a child whose entry lies beyond the closest hit found since it was pushed is dropped
  // without loading anything.
  const detail::NodeSlabs slabs = detail::make_node_slabs(rb);
  NodeLink stack[kStackSize];
  float stack_entry[kStackSize];
  int sp = 0;
  NodeLink node = node_link(root);

  // The loop: inner nodes and leaves, each leaf followed by a pop. On the host one loop takes
  // either kind of node per iteration. The GPU nests two loops (Aila and Laine, "Understanding
  // the Efficiency of Ray Traversal on GPUs", HPG 2009: "while-while"): inner nodes until the
  // ray reaches a leaf, then that leaf. Each ray visits the same nodes in the same order either
  // way; on a GPU the lanes of a warp then descend together and test their leaves together,
  // instead of the whole warp paying for a leaf whenever any one lane reaches one: 64% SIMT
  // efficiency instead of 45% on the GPU benchmark's 1M-triangle terrain in the lockstep model
  // of benchmarks/warp_model.cpp (results: cuda-warp-model-2026-11-30.md). On the host the
  // nested loops cost the scalar path 7% more instructions and 25% more mispredicted branches.
  for (;;) {
#if WR_WHILE_WHILE_TRAVERSAL
    while (node.count == 0) {  // GPU: inner nodes until a leaf
#else
    if (node.count == 0) {  // host: one inner node per iteration
#endif
      probe.inner_node();
      const BvhNode* pair = bvh.nodes + node.first;
      detail::prefetch_below(bvh, pair[0]);
      detail::prefetch_below(bvh, pair[1]);
      float e0, e1;
      NodeLink l0, l1;
      const bool h0 = detail::intersect_node(rb, slabs, pair, tmin, best.t, &e0, &l0);
      const bool h1 = detail::intersect_node(rb, slabs, pair + 1, tmin, best.t, &e1, &l1);
      if (h0 && h1) {
        if (sp == kStackSize) {  // would overflow: finish exactly without a stack
          best.overflowed = true;
          detail::traverse_stackless(bvh, rb, rt, tmin, &best, probe);
          return best;
        }
        const bool first0 = e0 <= e1;
        stack[sp] = first0 ? l1 : l0;
        stack_entry[sp++] = first0 ? e1 : e0;
        node = first0 ? l0 : l1;
        continue;
      }
      if (h0 || h1) {
        node = h0 ? l0 : l1;
        continue;
      }
#if WR_WHILE_WHILE_TRAVERSAL
      // Neither child is hit: the next node comes off the stack, still in the inner loop.
      if (!detail::pop_unculled(stack, stack_entry, &sp, best.t, &node)) return best;
    }
    {  // the leaf the inner loop stopped at
#else
    } else {
#endif
      probe.leaf(leaf_triangle_count(node));
      detail::intersect_leaf(bvh, node, rt, tmin, &best);
    }
    do {
      if (sp == 0) return best;
      --sp;
    } while (stack_entry[sp] > best.t * kRobustFarScale);  // as conservative as the box test
    node = stack[sp];
  }
}

}  // namespace wr
