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
constexpr int kTraversalStackSize = 64;

struct TraceResult {
  float t;            // distance along the ray, in units of |dir|; tmax when nothing was hit
  uint32_t triangle;  // input triangle id; kInvalidIndex when nothing was hit
  bool overflowed;    // the fixed stack overflowed and the stackless walk finished the ray
};

namespace detail {

// intersect_ray_box on a node, with each slab's entry and exit plane read at an offset chosen
// once per ray (bmin and bmax sit 4 floats apart in BvhNode) instead of selected per node.
struct NodeSlabs {
  int near_x, near_y, near_z;  // 0 (bmin) or 4 (bmax): float index into the node
};

WR_HD NodeSlabs make_node_slabs(const RayBox& rb) {
  return NodeSlabs{rb.neg[0] ? 4 : 0, rb.neg[1] ? 4 : 0, rb.neg[2] ? 4 : 0};
}

WR_HD bool intersect_node(const RayBox& rb, const NodeSlabs& s, const BvhNode& node, float tmin, float tmax,
                          float* t_entry) {
  // The node as 8 floats: bmin[0..2], first, bmax[0..2], count; bmax[i] is f[4 + i].
  const float* f = reinterpret_cast<const float*>(&node);
  const float nx = (f[s.near_x] - rb.org.x) * rb.inv_dir.x, fx = (f[4 - s.near_x] - rb.org.x) * rb.inv_dir.x;
  const float ny = (f[1 + s.near_y] - rb.org.y) * rb.inv_dir.y, fy = (f[5 - s.near_y] - rb.org.y) * rb.inv_dir.y;
  const float nz = (f[2 + s.near_z] - rb.org.z) * rb.inv_dir.z, fz = (f[6 - s.near_z] - rb.org.z) * rb.inv_dir.z;
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

WR_HD void intersect_leaf(const BvhView& bvh, const BvhNode& leaf, const RayTriangle& rt, float tmin,
                          TraceResult* best) {
  const LeafBlock block = leaf_block(bvh, leaf);
  for (uint32_t i = 0; i < block.triangles; ++i) {
    const uint32_t corners = block.corners[i];
    float a[3], b[3], c[3];
    load_leaf_vertex(block, corner_index(corners, 0), a);
    load_leaf_vertex(block, corner_index(corners, 1), b);
    load_leaf_vertex(block, corner_index(corners, 2), c);
    float t;
    if (intersect_ray_triangle(rt, a, b, c, tmin, best->t, &t)) {
      const uint32_t id = block.ids[i];
      if (t < best->t || id < best->triangle) {
        best->t = t;
        best->triangle = id;
      }
    }
  }
}

// Stackless walk from the root (fixed child order), keeping and improving *best.
WR_HD void traverse_stackless(const BvhView& bvh, const RayBox& rb, const RayTriangle& rt, float tmin,
                              TraceResult* best) {
  uint32_t node = 0;
  for (;;) {
    const BvhNode& n = bvh.nodes[node];
    float entry;
    if (intersect_ray_box(rb, n.bmin, n.bmax, tmin, best->t, &entry)) {
      if (n.count == 0) {
        node = n.first;  // descend to the left child
        continue;
      }
      intersect_leaf(bvh, n, rt, tmin, best);
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
// unit. kStackSize is a template parameter so tests can force the overflow path.
template <int kStackSize = kTraversalStackSize>
WR_HD TraceResult trace_closest_hit(const BvhView& bvh, Vec3 org, Vec3 dir, float tmin, float tmax) {
  TraceResult best{tmax, kInvalidIndex, false};
  const RayBox rb = make_ray_box(org, dir);
  const RayTriangle rt = make_ray_triangle(org, dir);
  const detail::NodeSlabs slabs = detail::make_node_slabs(rb);

  float entry;
  if (!intersect_ray_box(rb, bvh.nodes[0].bmin, bvh.nodes[0].bmax, tmin, tmax, &entry)) return best;

  // Each entry keeps the distance where the ray enters the node, so a node whose entry
  // lies beyond the closest hit found since it was pushed is dropped without loading it.
  uint32_t stack[kStackSize];
  float stack_entry[kStackSize];
  int sp = 0;
  uint32_t node = 0;
  for (;;) {
    const BvhNode& n = bvh.nodes[node];
    if (n.count == 0) {
      const uint32_t c0 = n.first, c1 = n.first + 1;
      detail::prefetch_below(bvh, bvh.nodes[c0]);
      detail::prefetch_below(bvh, bvh.nodes[c1]);
      float e0, e1;
      const bool h0 = detail::intersect_node(rb, slabs, bvh.nodes[c0], tmin, best.t, &e0);
      const bool h1 = detail::intersect_node(rb, slabs, bvh.nodes[c1], tmin, best.t, &e1);
      if (h0 && h1) {
        if (sp == kStackSize) {  // would overflow: finish exactly without a stack
          best.overflowed = true;
          detail::traverse_stackless(bvh, rb, rt, tmin, &best);
          return best;
        }
        const bool first0 = e0 <= e1;
        stack[sp] = first0 ? c1 : c0;
        stack_entry[sp++] = first0 ? e1 : e0;
        node = first0 ? c0 : c1;
        continue;
      }
      if (h0 || h1) {
        node = h0 ? c0 : c1;
        continue;
      }
    } else {
      detail::intersect_leaf(bvh, n, rt, tmin, &best);
    }
    do {
      if (sp == 0) return best;
      --sp;
    } while (stack_entry[sp] > best.t * kRobustFarScale);  // as conservative as the box test
    node = stack[sp];
  }
}

}  // namespace wr
