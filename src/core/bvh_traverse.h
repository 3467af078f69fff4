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
// On the GPU the stack is the kernel's local memory, 12 bytes an entry (768 bytes): a kernel's
// whole frame must stay within CUDA's default per-thread stack of 1024 bytes, or the driver grows
// every thread's local memory at the first launch, an allocation inside render
// (tests/kernels/test_cuda_kernel_stack.sh checks every kernel's frame).
constexpr int kTraversalStackSize = 64;

// What a traversal did, iteration by iteration, for tools that model its cost on a GPU
// (wr-warp-model replays a warp's 32 rays in lockstep): each iteration of the BVH's loop
// visits either one inner node (both children's boxes tested) or one leaf (its triangles
// tested). A grid's walk (grid_terrain.h) reports a node's own box test as inner_node, a cell as
// a leaf of its triangles, and its own two kinds of iteration: a node's children tested at once
// (grid_children, with the node's level) and a climb to the level above (grid_climb). The
// default probe does nothing and compiles away (the kernels' PTX is the same with or without
// this hook).
struct NoTraversalProbe {
  WR_HD void inner_node() const {}
  WR_HD void leaf(uint32_t /*triangles*/) const {}
  WR_HD void grid_children(uint32_t /*level*/) const {}
  WR_HD void grid_climb() const {}
};

struct TraceResult {
  float t;            // distance along the ray, in units of |dir|; tmax when nothing was hit
  uint32_t triangle;  // input triangle id; kInvalidIndex when nothing was hit
  bool overflowed;    // the fixed stack overflowed and the stackless walk finished the ray
  NodeLink leaf;      // the leaf block holding the hit triangle, where hit_surface.h finds its
                      // corners again (a BVH's hits; left as it was by a grid's cells)
};

// The traversal's stack of pushed children (trace_closest_hit). Each entry keeps the pushed child's
// link and the distance where the ray enters it, so a child whose entry lies beyond the closest
// hit found since it was pushed is dropped without loading anything.
// The GPU keeps this in local memory (it is indexed at run time): a caller that traces one ray
// through several structures one after the other passes them the same stack (terrain.h's
// TraceScratch), so that a kernel's frame holds one. Aligned so that a link moves as one 8-byte
// access there; the depth sp stays a variable of its own, which inside the struct would be loaded
// and stored in local memory at every push and pop.
template <int kStackSize>
struct TraversalStack {
  alignas(16) NodeLink stack[kStackSize];
  alignas(16) float entry[kStackSize];
};

namespace detail {

// The slab test of one node (intersect_ray_box), also handing back what the node points to.
// Each slab's entry plane is bmin or bmax by the sign of the ray's direction on that axis,
// chosen once per ray (NodeSlabs). How the planes are read is the variant's
// (traversal_variant.h, select_node_planes).

struct NodeSlabs {
  int near_x, near_y, near_z;  // 0 (bmin) or 4 (bmax): float offset of the entry plane in the node
};

WR_HD NodeSlabs make_node_slabs(const RayBox& rb) {
  return NodeSlabs{rb.neg[0] ? 4 : 0, rb.neg[1] ? 4 : 0, rb.neg[2] ? 4 : 0};
}

template <class Variant>
WR_HD bool intersect_node(const RayBox& rb, const NodeSlabs& s, const BvhNode* node, float tmin, float tmax,
                          float* t_entry, NodeLink* link) {
  float nx, fx, ny, fy, nz, fz;
  if constexpr (Variant::select_node_planes) {
    const BvhNode n = load_node(node);
    const bool hx = s.near_x != 0, hy = s.near_y != 0, hz = s.near_z != 0;  // entered through bmax
    nx = ((hx ? n.bmax[0] : n.bmin[0]) - rb.org.x) * rb.inv_dir.x;
    fx = ((hx ? n.bmin[0] : n.bmax[0]) - rb.org.x) * rb.inv_dir.x;
    ny = ((hy ? n.bmax[1] : n.bmin[1]) - rb.org.y) * rb.inv_dir.y;
    fy = ((hy ? n.bmin[1] : n.bmax[1]) - rb.org.y) * rb.inv_dir.y;
    nz = ((hz ? n.bmax[2] : n.bmin[2]) - rb.org.z) * rb.inv_dir.z;
    fz = ((hz ? n.bmin[2] : n.bmax[2]) - rb.org.z) * rb.inv_dir.z;
    *link = node_link(n);
  } else {
    // The node as 8 floats: bmin[0..2], first, bmax[0..2], count; bmax[i] is f[4 + i].
    const float* f = reinterpret_cast<const float*>(node);
    nx = (f[s.near_x] - rb.org.x) * rb.inv_dir.x, fx = (f[4 - s.near_x] - rb.org.x) * rb.inv_dir.x;
    ny = (f[1 + s.near_y] - rb.org.y) * rb.inv_dir.y, fy = (f[5 - s.near_y] - rb.org.y) * rb.inv_dir.y;
    nz = (f[2 + s.near_z] - rb.org.z) * rb.inv_dir.z, fz = (f[6 - s.near_z] - rb.org.z) * rb.inv_dir.z;
    *link = node_link(*node);
  }
  return slab_interval<Variant>(nx, fx, ny, fy, nz, fz, tmin, tmax, t_entry);
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
        best->leaf = leaf;
      }
    }
  }
}

// Pops the traversal stack (sp entries) down to the first node whose entry distance is not
// beyond the closest hit so far (as conservative as the box test), into *node; false when none is
// left, and the ray is done. The nested loops' inner loop pops with this; the pop at the end of
// trace_closest_hit's loop spells the same steps out, because GCC compiles the host's scalar
// render to more instructions (cachegrind) when that one goes through this function.
WR_HD bool pop_unculled(const NodeLink* stack, const float* stack_entry, int* sp, float best_t, NodeLink* node) {
  do {
    if (*sp == 0) return false;
    --*sp;
  } while (stack_entry[*sp] > best_t * kRobustFarScale);
  *node = stack[*sp];
  return true;
}

// Stackless walk from the root (fixed child order), keeping and improving *best.
template <class Variant, class Probe>
WR_HD void traverse_stackless(const BvhView& bvh, const RayBox& rb, const RayTriangle& rt, float tmin,
                              TraceResult* best, const Probe& probe) {
  uint32_t node = 0;
  for (;;) {
    const BvhNode& n = bvh.nodes[node];
    float entry;
    if (intersect_ray_box<Variant>(rb, n.bmin, n.bmax, tmin, best->t, &entry)) {
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

// One inner node `*node`: tests both children (read at once, they are adjacent, with their own
// links, so descending needs no further load) and descends into the nearer one hit, pushing the
// other if both are. Returns false when neither is hit: the next node must come off the stack.
// Where the stack would overflow, the stackless walk finishes the ray exactly in *best and the
// stack is emptied, so that the caller's pop ends the traversal.
template <class Variant, int kStackSize, class Probe>
WR_HD bool visit_inner_node(const BvhView& bvh, const RayBox& rb, const RayTriangle& rt, const NodeSlabs& slabs,
                            float tmin, TraceResult* best, TraversalStack<kStackSize>* s, int* sp, NodeLink* node,
                            const Probe& probe) {
  probe.inner_node();
  const BvhNode* pair = bvh.nodes + node->first;
  prefetch_below(bvh, pair[0]);
  prefetch_below(bvh, pair[1]);
  float e0, e1;
  NodeLink l0, l1;
  const bool h0 = intersect_node<Variant>(rb, slabs, pair, tmin, best->t, &e0, &l0);
  const bool h1 = intersect_node<Variant>(rb, slabs, pair + 1, tmin, best->t, &e1, &l1);
  if (h0 && h1) {
    if (*sp == kStackSize) {  // would overflow: finish exactly without a stack
      best->overflowed = true;
      traverse_stackless<Variant>(bvh, rb, rt, tmin, best, probe);
      *sp = 0;
      return false;
    }
    const bool first0 = e0 <= e1;
    s->stack[*sp] = first0 ? l1 : l0;
    s->entry[(*sp)++] = first0 ? e1 : e0;
    *node = first0 ? l0 : l1;
    return true;
  }
  if (h0 || h1) {
    *node = h0 ? l0 : l1;
    return true;
  }
  return false;
}

template <class Probe>
WR_HD void visit_leaf(const BvhView& bvh, NodeLink leaf, const RayTriangle& rt, float tmin, TraceResult* best,
                      const Probe& probe) {
  probe.leaf(leaf_triangle_count(leaf));
  intersect_leaf(bvh, leaf, rt, tmin, best);
}

}  // namespace detail

// Nearest hit of the ray org + t*dir with t in [tmin, tmax] (inclusive), using the stack `*s`
// (its contents on entry do not matter). dir need not be unit. Variant: the host's or the GPU's
// form (traversal_variant.h); kStackSize so tests can force the overflow path; `probe` sees every
// iteration (NoTraversalProbe above).
template <class Variant = HostTraversal, int kStackSize, class Probe = NoTraversalProbe>
WR_HD TraceResult trace_closest_hit(TraversalStack<kStackSize>* stack, const BvhView& bvh, Vec3 org, Vec3 dir,
                                    float tmin, float tmax, const Probe& probe = Probe()) {
  TraceResult best{tmax, kInvalidIndex, false, NodeLink{0, 0}};
  const RayBox rb = make_ray_box(org, dir);
  const RayTriangle rt = make_ray_triangle(org, dir);

  const BvhNode root = load_node(bvh.nodes);
  float entry;
  if (!intersect_ray_box<Variant>(rb, root.bmin, root.bmax, tmin, tmax, &entry)) return best;

  const detail::NodeSlabs slabs = detail::make_node_slabs(rb);
  TraversalStack<kStackSize>& s = *stack;
  int sp = 0;
  NodeLink node = node_link(root);

  // Inner nodes and leaves, each leaf followed by a pop; the loop's shape is the variant's
  // (traversal_variant.h, nested_loops). Each ray visits the same nodes in the same order either
  // way. Why the GPU nests the loops, and what the model of its warps says of it:
  // tools' wr-warp-model, results in benchmarks/results/cuda-warp-model-2026-11-30.md.
  for (;;) {
    if constexpr (Variant::nested_loops) {
      while (node.count == 0) {  // inner nodes until a leaf; one whose children are missed pops
        if (!detail::visit_inner_node<Variant>(bvh, rb, rt, slabs, tmin, &best, &s, &sp, &node, probe) &&
            !detail::pop_unculled(s.stack, s.entry, &sp, best.t, &node))
          return best;
      }
      detail::visit_leaf(bvh, node, rt, tmin, &best, probe);  // the leaf the inner loop stopped at
    } else if (node.count == 0) {                             // one inner node per iteration
      if (detail::visit_inner_node<Variant>(bvh, rb, rt, slabs, tmin, &best, &s, &sp, &node, probe)) continue;
    } else {
      detail::visit_leaf(bvh, node, rt, tmin, &best, probe);
    }
    do {
      if (sp == 0) return best;
      --sp;
    } while (s.entry[sp] > best.t * kRobustFarScale);  // as conservative as the box test
    node = s.stack[sp];
  }
}

// The same with a stack of its own.
template <class Variant = HostTraversal, int kStackSize = kTraversalStackSize, class Probe = NoTraversalProbe>
WR_HD TraceResult trace_closest_hit(const BvhView& bvh, Vec3 org, Vec3 dir, float tmin, float tmax,
                                    const Probe& probe = Probe()) {
  TraversalStack<kStackSize> stack;
  return trace_closest_hit<Variant>(&stack, bvh, org, dir, tmin, tmax, probe);
}

// A triangle's three corners, in the order the triangle test took them (ray_triangle.h).
struct TriangleCorners {
  Vec3 a, b, c;
};

// Triangle `id` of the leaf block `leaf` of a BVH (the leaf its trace recorded). False where the
// block does not hold it (a miss: leaf is then not the hit's).
WR_HD bool bvh_hit_corners(const BvhView& bvh, NodeLink leaf, uint32_t id, TriangleCorners* out) {
  if (leaf.count == 0) return false;
  const LeafBlock block = leaf_block(bvh, leaf);
  for (uint32_t i = 0; i < block.triangles; ++i) {
    if (load_readonly(block.ids + i) != id) continue;
    const uint32_t corners = load_readonly(block.corners + i);
    float v[3][3];
    for (int k = 0; k < 3; ++k) load_leaf_vertex(block, corner_index(corners, k), v[k]);
    *out = TriangleCorners{Vec3{v[0][0], v[0][1], v[0][2]}, Vec3{v[1][0], v[1][1], v[1][2]},
                           Vec3{v[2][0], v[2][1], v[2][2]}};
    return true;
  }
  return false;
}

}  // namespace wr
