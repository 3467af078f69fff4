// Packet traversal for the CPU backend: the rays of a 4x4 (AVX-512) or 4x2 (AVX2) pixel block
// (in a tile one row high, a row of 16 or 8), one per SIMD lane, walk the BVH together (Wald,
// Slusallek, Benthin, Wagner, "Interactive Rendering with Coherent Ray Tracing", Eurographics
// 2001). The rays of a depth camera share their origin, so every per-node and per-triangle
// quantity that depends only on the origin (box planes minus origin, vertices minus origin) is
// computed once for the packet; only the products with the per-ray direction terms are done per
// lane.
//
// Exactness: each lane computes exactly what the scalar path (src/core) computes for its ray,
// operation for operation and in the same order (the watertight triangle test of
// ray_triangle.h, the robust box test of ray_box.h), nodes are only skipped for a lane
// where the scalar rule skips them (box missed, or entered beyond the closest hit), and a lane
// takes hits only in the leaves whose box it entered along with every ancestor's. The
// closest hit is the lowest (t, triangle id) over every triangle the test accepts, so the
// depth equals the scalar path's bit for bit (tests/cpu/test_cpu_packet.cpp checks it).
//
// A packet whose rays do not share the signs of their direction components and the axis
// permutation of the triangle test (tiles across which the dominant axis or a sign changes)
// takes the mixed variant, which selects those per lane (kUniform = false).
//
// Included only by the per-instruction-set translation units (packet_tile_*.cpp), built with
// WR_ISA_TAG (core/platform.h); everything defined here has internal linkage.
#pragma once

#include <string.h>

#include "core/pixel_pipeline.h"
#include "cpu/packet_tile.h"
#include "cpu/simd_lanes.h"

namespace wr {
namespace {

// A packet: 4 pixels wide, kLanes / 4 high (4x4 with AVX-512, 4x2 with AVX2); in a tile one row
// high (a pattern sensor's one-row template, cpu_render.h), a row of kLanes pixels.
constexpr uint32_t kPacketW = 4;

// The width of the tile's packets: kPacketW, or kLanes in a tile one row high.
inline uint32_t packet_width(const PacketTile& tile) { return tile.v1 - tile.v0 == 1 ? kLanes : kPacketW; }

struct Packet {
  LaneF inv_x, inv_y, inv_z;  // 1 / direction (ray_box.h)
  LaneF sx, sy, sz;           // shear constants of the triangle test (ray_triangle.h)
  LaneF tmin;
  LaneF best_t;               // closest hit so far, tmax before any
  LaneU best_id;              // its input triangle id, kInvalidIndex before any
  LaneI kx, ky, kz;           // per-lane axis permutation (mixed packets only)
  LaneI neg_x, neg_y, neg_z;  // per-lane RayBox::neg as masks (mixed packets only)
  LaneBits active;            // lanes that hold a pixel of the tile
  LaneF dir_x, dir_y, dir_z;  // each lane's direction (setup_packet: make_pixel_ray's, bit for bit)
  float org[3];               // shared origin, world axes
  // Uniform packets: the shared axis permutation and the near-plane offsets of ray_box.h.
  int ukx, uky, ukz;
  int near_x, near_y, near_z;
};

// slab_interval() of ray_box.h, lane by lane, on a box's slab distances: the lanes of `lanes` that
// enter it within [tmin, best_t], each one's entry in *entry.
__attribute__((always_inline)) inline LaneBits packet_slabs_hit(const Packet& p, const LaneF& nx, const LaneF& fx,
                                                                const LaneF& ny, const LaneF& fy, const LaneF& nz,
                                                                const LaneF& fz, LaneBits lanes, LaneF* entry) {
  LaneF tfar;
  slab_near_far(nx, fx, ny, fy, nz, fz, p.tmin, p.best_t, entry, &tfar);
  return le_bits(*entry, tfar * kRobustFarScale) & lanes;
}

// The box [bmin, bmax] against the lanes `lanes`: intersect_ray_box() lane by lane. Returns the lanes
// that enter it within [tmin, best_t] and, in *entry, each lane's entry distance. For a box that is
// not a BVH node's (an instance's world box, a grid mesh's node): its planes are read where they lie.
template <bool kUniform>
__attribute__((always_inline)) inline LaneBits packet_hits_bounds(const Packet& p, const float bmin[3],
                                                                  const float bmax[3], LaneBits lanes, LaneF* entry) {
  LaneF nx, fx, ny, fy, nz, fz;
  if (kUniform) {
    // Every lane enters each slab through the same plane, picked by the packet's signs.
    const bool neg_x = p.near_x != 0, neg_y = p.near_y != 0, neg_z = p.near_z != 0;
    nx = ((neg_x ? bmax[0] : bmin[0]) - p.org[0]) * p.inv_x, fx = ((neg_x ? bmin[0] : bmax[0]) - p.org[0]) * p.inv_x;
    ny = ((neg_y ? bmax[1] : bmin[1]) - p.org[1]) * p.inv_y, fy = ((neg_y ? bmin[1] : bmax[1]) - p.org[1]) * p.inv_y;
    nz = ((neg_z ? bmax[2] : bmin[2]) - p.org[2]) * p.inv_z, fz = ((neg_z ? bmin[2] : bmax[2]) - p.org[2]) * p.inv_z;
  } else {
    // Signs differ across lanes: each lane picks its entry plane by its own sign, as
    // intersect_ray_box() does (a min/max of the two would mishandle a 0 * inf = NaN slab).
    const LaneF x0 = (bmin[0] - p.org[0]) * p.inv_x, x1 = (bmax[0] - p.org[0]) * p.inv_x;
    const LaneF y0 = (bmin[1] - p.org[1]) * p.inv_y, y1 = (bmax[1] - p.org[1]) * p.inv_y;
    const LaneF z0 = (bmin[2] - p.org[2]) * p.inv_z, z1 = (bmax[2] - p.org[2]) * p.inv_z;
    nx = p.neg_x ? x1 : x0, fx = p.neg_x ? x0 : x1;
    ny = p.neg_y ? y1 : y0, fy = p.neg_y ? y0 : y1;
    nz = p.neg_z ? z1 : z0, fz = p.neg_z ? z0 : z1;
  }
  return packet_slabs_hit(p, nx, fx, ny, fy, nz, fz, lanes, entry);
}

// One node's box against the lanes `lanes` (those that entered its parent): packet_hits_bounds, a
// uniform packet's near planes read at their offsets in the node (the scalar path's NodeSlabs).
template <bool kUniform>
__attribute__((always_inline)) inline LaneBits packet_hits_box(const Packet& p, const BvhNode& node, LaneBits lanes,
                                                               LaneF* entry) {
  if (!kUniform) return packet_hits_bounds<false>(p, node.bmin, node.bmax, lanes, entry);
  const float* f = reinterpret_cast<const float*>(&node);
  const LaneF nx = (f[p.near_x] - p.org[0]) * p.inv_x, fx = (f[4 - p.near_x] - p.org[0]) * p.inv_x;
  const LaneF ny = (f[1 + p.near_y] - p.org[1]) * p.inv_y, fy = (f[5 - p.near_y] - p.org[1]) * p.inv_y;
  const LaneF nz = (f[2 + p.near_z] - p.org[2]) * p.inv_z, fz = (f[6 - p.near_z] - p.org[2]) * p.inv_z;
  return packet_slabs_hit(p, nx, fx, ny, fy, nz, fz, lanes, entry);
}

// The corners c (num x 3 floats, world axes) taken relative to the shared origin and sheared for
// each lane (shear_corner of ray_triangle.h): X, Y and Z (sz * (corner[kz] - oz)), per lane.
template <bool kUniform>
__attribute__((always_inline)) inline void packet_shear_corner(const Packet& p, const float c[3], LaneF* X, LaneF* Y,
                                                               LaneF* Z) {
  if (kUniform) {
    shear_corner(c[p.ukx] - p.org[p.ukx], c[p.uky] - p.org[p.uky], c[p.ukz] - p.org[p.ukz], p.sx, p.sy, p.sz, X, Y, Z);
  } else {
    const float d[3] = {c[0] - p.org[0], c[1] - p.org[1], c[2] - p.org[2]};
    const auto pick = [&d](const LaneI& axis) {
      return axis == 0 ? splat(d[0]) : (axis == 1 ? splat(d[1]) : splat(d[2]));
    };
    shear_corner(pick(p.kx), pick(p.ky), pick(p.kz), p.sx, p.sy, p.sz, X, Y, Z);
  }
}

// The watertight test (ray_triangle.h) of the triangle whose corners, sheared, are A, B, C (x, y
// and z per lane), input id `id`, for the lanes `lanes`, through its steps over lanes; a lane takes
// the hit where it is in [tmin, best_t], and closer, or as close with a lower id (intersect_leaf()).
__attribute__((always_inline)) inline void packet_test_triangle(const LaneF& Ax, const LaneF& Ay, const LaneF& Az,
                                                                const LaneF& Bx, const LaneF& By, const LaneF& Bz,
                                                                const LaneF& Cx, const LaneF& Cy, const LaneF& Cz,
                                                                uint32_t id, LaneBits lanes, Packet* p) {
  const LaneF zero = splat(0.0f);
  LaneF U, V, W;
  edge_functions(Ax, Ay, Bx, By, Cx, Cy, &U, &V, &W);
  LaneBits on_edge = (eq_bits(U, zero) | eq_bits(V, zero) | eq_bits(W, zero)) & lanes;
  while (on_edge) {  // decided in double, lane by lane, as the scalar test does
    const int l = __builtin_ctz(on_edge);
    on_edge &= on_edge - 1;
    float u, v, w;
    edge_functions_exact(Ax[l], Ay[l], Bx[l], By[l], Cx[l], Cy[l], &u, &v, &w);
    U[l] = u, V[l] = v, W[l] = w;
  }
  const LaneBits outside = (lt_bits(U, zero) | lt_bits(V, zero) | lt_bits(W, zero)) &
                           (lt_bits(zero, U) | lt_bits(zero, V) | lt_bits(zero, W));
  const LaneF det = U + V + W;
  LaneBits hit = ~outside & ne_bits(det, zero) & lanes;
  // No branch on `hit` from here: whether any lane is inside is as good as random, and a
  // mispredicted branch costs more than the division (cpu-design-decisions-2026-11-30.md).
  const LaneF t = hit_numerator(U, V, W, Az, Bz, Cz) / det;
  const LaneU ids = LaneU{} + id;
  hit &= le_bits(p->tmin, t) & le_bits(t, p->best_t) & lt_bits(t, splat(__builtin_inff())) &
         (lt_bits(t, p->best_t) | bits_of(ids < p->best_id));
  p->best_t = blend(hit, t, p->best_t);
  p->best_id = blend(hit, ids, p->best_id);
}

// intersect_leaf() of bvh_traverse.h for the lanes `lanes`, through the steps of the watertight
// test (ray_triangle.h) over lanes. The block's corners are shared by its triangles, so each
// corner is taken relative to the shared origin and sheared once per leaf, not once per triangle
// that uses it: the same operations on the same operands, so the same bits.
// `lanes` are those whose scalar traversal reaches this leaf: the others' hits are not taken,
// even where the test accepts one. (It can: for a ray starting within rounding of a triangle's
// plane, just behind it, the test's t can come out small and positive, while the box test, exact
// there, puts the leaf behind the ray and the scalar path never tests that triangle.)
template <bool kUniform>
__attribute__((always_inline)) inline void packet_intersect_leaf(const BvhView& bvh, const BvhNode& leaf,
                                                                 LaneBits lanes, Packet* p) {
  const LeafBlock block = leaf_block(bvh, leaf);
  const uint32_t num_vertices = leaf_vertex_count(leaf);
  LaneF X[3 * kMaxLeafTriangles], Y[3 * kMaxLeafTriangles];  // sheared corner, per lane
  LaneF Z[3 * kMaxLeafTriangles];                            // sz * (corner[kz] - oz), per lane
  for (uint32_t v = 0; v < num_vertices; ++v) {
    float c[3];
    load_leaf_vertex(block, v, c);
    packet_shear_corner<kUniform>(*p, c, &X[v], &Y[v], &Z[v]);
  }
  for (uint32_t i = 0; i < block.triangles; ++i) {
    const uint32_t corners = block.corners[i];
    const uint32_t a = corner_index(corners, 0), b = corner_index(corners, 1), c = corner_index(corners, 2);
    packet_test_triangle(X[a], Y[a], Z[a], X[b], Y[b], Z[b], X[c], Y[c], Z[c], block.ids[i], lanes, p);
  }
}

// prefetch_below() of bvh_traverse.h, with all of a leaf: a packet reads the whole block
// (corners, corner words, and the ids, which the branch-free test above loads for every
// triangle), so one prefetch per 64 bytes of it: faster than the scalar path's first line only,
// and than leaving out the ids (benchmarks/results/cpu-design-decisions-2026-11-30.md).
__attribute__((always_inline)) inline void prefetch_below_packet(const BvhView& bvh, const BvhNode& n) {
  if (n.count == 0) {
    __builtin_prefetch(bvh.nodes + n.first);
    return;
  }
  const char* begin = reinterpret_cast<const char*>(bvh.leaf_words + n.first);
  const char* end = begin + 4 * leaf_block_words(n);
  for (const char* q = begin; q < end; q += 64) __builtin_prefetch(q);
}

// Closest hits of the packet's lanes (left in p->best_t / p->best_id). Near-first with a
// fixed stack, as trace_closest_hit(): a node is visited when any active lane enters it, the
// nearer child first, and carries the lanes that entered it and its ancestors (those whose
// scalar traversal visits it). Returns false when the stack would overflow (where the scalar
// path overflows); the caller then traces the packet's rays with the scalar path.
template <bool kUniform>
bool trace_packet(const BvhView& bvh, Packet* p) {
  LaneF entry;
  LaneBits lanes = packet_hits_box<kUniform>(*p, bvh.nodes[0], p->active, &entry);  // those at `node`
  if (!lanes) return true;
  uint32_t stack[kTraversalStackSize];
  LaneF stack_entry[kTraversalStackSize];  // each lane's entry; NaN where the lane did not enter
  LaneBits stack_lanes[kTraversalStackSize];
  const LaneF not_entered = splat(__builtin_nanf(""));
  int sp = 0;
  uint32_t node = 0;
  LaneF far_hit = p->best_t * kRobustFarScale;  // changes only in leaves
  for (;;) {
    const BvhNode& n = bvh.nodes[node];
    if (n.count == 0) {
      const uint32_t c0 = n.first, c1 = n.first + 1;
      prefetch_below_packet(bvh, bvh.nodes[c0]);
      prefetch_below_packet(bvh, bvh.nodes[c1]);
      LaneF e0, e1;
      const LaneBits h0 = packet_hits_box<kUniform>(*p, bvh.nodes[c0], lanes, &e0);
      const LaneBits h1 = packet_hits_box<kUniform>(*p, bvh.nodes[c1], lanes, &e1);
      if (h0 && h1) {
        if (sp == kTraversalStackSize) return false;
        // Nearer child first by the entries of one lane (the lanes agree almost always, and
        // the order only matters for speed); the pushed child keeps every lane's entry.
        const int l = __builtin_ctz(h0 & h1 ? h0 & h1 : h0);
        const bool first0 = (le_bits(e0, e1) >> l) & 1u;  // e0[l] <= e1[l], without a trip through memory
        stack[sp] = first0 ? c1 : c0;
        stack_lanes[sp] = first0 ? h1 : h0;
        stack_entry[sp++] = first0 ? blend(h1, e1, not_entered) : blend(h0, e0, not_entered);
        node = first0 ? c0 : c1;
        lanes = first0 ? h0 : h1;
        continue;
      }
      if (h0 | h1) {
        node = h0 ? c0 : c1;
        lanes = h0 ? h0 : h1;
        continue;
      }
    } else {
      packet_intersect_leaf<kUniform>(bvh, n, lanes, p);
      far_hit = p->best_t * kRobustFarScale;
    }
    // Drop, lane by lane, popped nodes entered beyond the closest hit (the scalar path's rule,
    // trace_closest_hit()); a node no lane is left for is dropped whole.
    do {
      if (sp == 0) return true;
      --sp;
      lanes = stack_lanes[sp] & le_bits(stack_entry[sp], far_hit);
    } while (!lanes);
    node = stack[sp];
  }
}

// |x| as fabs_() computes it (platform.h), lane by lane.
inline LaneF lane_abs(const LaneF& x) { return x < splat(0.0f) ? -x : x; }

// Component `axis` (0, 1, 2) of (x, y, z), per lane: component() of vec3.h.
inline LaneF lane_component(const LaneF& x, const LaneF& y, const LaneF& z, const LaneI& axis) {
  return axis == 0 ? x : (axis == 1 ? y : z);
}

// Sets up the packet of pixels [u0, u0 + w) x [v0, v0 + kLanes / w) of the tile (clipped to it), w its
// packet_width, lane l pixel (u0 + l % w, v0 + l / w):
// make_pixel_ray() (camera.h), make_ray_box() (ray_box.h) and make_ray_triangle()
// (ray_triangle.h) evaluated lane by lane with the same operations. Returns whether every
// active lane shares the direction signs and the axis permutation (a uniform packet).
bool init_packet_directions(Packet* p, const LaneF& dx, const LaneF& dy, const LaneF& dz);
bool setup_packet(const PacketTile& tile, uint32_t u0, uint32_t v0, Packet* p) {
  alignas(64) float dir[4][kLanes];  // template direction x, y, z and depth_scale
  p->active = 0;
  const TemplateRay* rays = &tile_ray(tile, u0, v0);  // the packet's first pixel
  const uint32_t w = packet_width(tile);
  for (int l = 0; l < kLanes; ++l) {
    const uint32_t du = l % w, dv = l / w;
    const bool in = u0 + du < tile.u1 && v0 + dv < tile.v1;
    p->active |= (in ? 1u : 0u) << l;
    // Idle lanes repeat the packet's first pixel: finite values, and out of every mask.
    const TemplateRay& ray = rays[in ? dv * tile.rays_stride + du : 0];
    dir[0][l] = ray.dir[0], dir[1][l] = ray.dir[1], dir[2][l] = ray.dir[2], dir[3][l] = ray.depth_scale;
  }
  LaneF tx, ty, tz, scale;
  memcpy(&tx, dir[0], sizeof(LaneF));
  memcpy(&ty, dir[1], sizeof(LaneF));
  memcpy(&tz, dir[2], sizeof(LaneF));
  memcpy(&scale, dir[3], sizeof(LaneF));
  const float* r = tile.camera.rot;
  const LaneF dx = r[0] * tx + r[1] * ty + r[2] * tz;
  const LaneF dy = r[3] * tx + r[4] * ty + r[5] * tz;
  const LaneF dz = r[6] * tx + r[7] * ty + r[8] * tz;
  p->tmin = tile.params->near_clip / scale;
  p->best_t = tile.params->far_clip / scale;
  p->best_id = LaneU{} + kInvalidIndex;
  p->org[0] = tile.camera.pos.x, p->org[1] = tile.camera.pos.y, p->org[2] = tile.camera.pos.z;
  p->dir_x = dx, p->dir_y = dy, p->dir_z = dz;
  return init_packet_directions(p, dx, dy, dz);
}

// The per-lane constants of the box and triangle tests for the lanes' directions (dx, dy, dz),
// the packet's active lanes, origin, tmin and tmax being set already. Returns whether every
// active lane shares the direction signs and the axis permutation (a uniform packet).
bool init_packet_directions(Packet* p, const LaneF& dx, const LaneF& dy, const LaneF& dz) {
  const LaneF zero = splat(0.0f), one = splat(1.0f);
  p->inv_x = one / (dx + 0.0f), p->inv_y = one / (dy + 0.0f), p->inv_z = one / (dz + 0.0f);
  p->neg_x = p->inv_x < zero, p->neg_y = p->inv_y < zero, p->neg_z = p->inv_z < zero;

  const LaneF ax = lane_abs(dx), ay = lane_abs(dy), az = lane_abs(dz);
  const LaneI two = splat_i(2);
  p->kz = ax > ay ? (ax > az ? splat_i(0) : two) : (ay > az ? splat_i(1) : two);
  LaneI kx = p->kz + 1 == 3 ? splat_i(0) : p->kz + 1;
  LaneI ky = kx + 1 == 3 ? splat_i(0) : kx + 1;
  const LaneF d_kz = lane_component(dx, dy, dz, p->kz);
  const LaneI flip = d_kz < zero;  // keep the winding: swap kx and ky
  p->kx = flip ? ky : kx;
  p->ky = flip ? kx : ky;
  p->sx = lane_component(dx, dy, dz, p->kx) / d_kz;
  p->sy = lane_component(dx, dy, dz, p->ky) / d_kz;
  p->sz = one / d_kz;

  // Uniform when every active lane has the first active lane's permutation and signs.
  const LaneI key = p->kz * 3 + p->kx + ((p->neg_x & 9) | (p->neg_y & 18) | (p->neg_z & 36));
  const int first = __builtin_ctz(p->active);
  const bool uniform = (bits_of(key != splat_i(key[first])) & p->active) == 0;
  p->ukx = p->kx[first], p->uky = p->ky[first], p->ukz = p->kz[first];
  p->near_x = p->neg_x[first] ? 4 : 0, p->near_y = p->neg_y[first] ? 4 : 0, p->near_z = p->neg_z[first] ? 4 : 0;
  return uniform;
}

// The pixels of the lanes `lanes` of the packet at (u0, v0) one by one through the whole per-pixel
// pipeline (render_pixel) over the terrain `terrain` of the kind Terrain: for a packet whose
// traversal would overflow its stack, where the scalar path overflows too and finishes each ray
// exactly, or one the packet path does not take. Kept out of line: inlined, it made the packets'
// common path longer.
template <class Terrain>
__attribute__((noinline)) uint64_t render_packet_pixels(const PacketTile& tile, const typename Terrain::View& terrain,
                                                        LaneBits lanes, uint32_t u0, uint32_t v0) {
  uint64_t overflows = 0;
  const uint32_t w = packet_width(tile);
  for (; lanes; lanes &= lanes - 1) {
    const int l = __builtin_ctz(lanes);
    const uint32_t u = u0 + l % w, v = v0 + l / w;
    bool overflowed;
    uint32_t instance;
    tile_depth(tile, u, v) = render_pixel<HostTraversal, Terrain>(terrain, tile.instances, tile_ray(tile, u, v),
                                                                  tile.camera, *tile.params, &overflowed, &instance);
    set_tile_id(tile, u, v, instance);
    overflows += overflowed;
  }
  return overflows;
}

// The packet's lanes (after the terrain: best, per lane) through the env's instances, in id
// order. Each instance's world box is tested against every lane at once (the packet's box test);
// the lanes that enter it are turned into the instance's frame (their origin, shared, stays
// shared) and traced together through its prototype's BVH as a packet of their own, each from a
// fresh best at tmax = its best so far: exactly the scalar path's trace_instance (core/instances.h),
// lane by lane, and merged as it merges (an earlier level keeps a tie). A lane alone, or a packet
// that would overflow the stack, takes trace_instance itself. The box test only skips work (it
// keeps a superset of the lanes whose scalar trace could hit), so every lane gets the scalar
// path's hit bit for bit. best, instance: (kLanes) per lane.
// `seen` (count of them, ascending), or null: every instance.
template <bool kUniform>
uint64_t packet_trace_instances(const PacketTile& tile, const Packet& p, const uint32_t* seen, uint32_t count,
                                TraceResult* best, uint32_t* instance) {
  const auto dir = [&p](int l) { return Vec3{p.dir_x[l], p.dir_y[l], p.dir_z[l]}; };
  const EnvInstances& e = *tile.instances;
  const uint32_t n = seen ? count : num_instances(e.view);
  uint64_t overflows = 0;
  for (uint32_t k = 0; k < n; ++k) {
    const uint32_t i = seen ? seen[k] : k;
    PreparedInstance made;
    if (!e.prepared) made = prepare_instance(e, i);
    const PreparedInstance& inst = e.prepared ? e.prepared[i] : made;
    if (inst.prototype == kInvalidIndex) continue;
    LaneF entry;
    LaneBits lanes = packet_hits_bounds<kUniform>(p, inst.bmin, inst.bmax, p.active, &entry);
    if (!lanes) continue;
    const Vec3 org = tile.camera.pos;
    if (lanes & (lanes - 1)) {  // two lanes or more: a packet in the instance's frame
      Packet q;
      const Vec3 o = rotate_inverse(inst.pose.rot, org - inst.pose.pos);  // each lane's, bit for bit
      q.org[0] = o.x, q.org[1] = o.y, q.org[2] = o.z;
      q.active = lanes;
      q.tmin = p.tmin;
      q.best_id = LaneU{} + kInvalidIndex;
      const int first = __builtin_ctz(lanes);
      alignas(64) float d[3][kLanes], tmax[kLanes];
      for (int l = 0; l < kLanes; ++l) {
        const int k = lanes >> l & 1u ? l : first;  // idle lanes repeat an active one: finite values
        const Vec3 dl = rotate_inverse(inst.pose.rot, dir(k));
        d[0][l] = dl.x, d[1][l] = dl.y, d[2][l] = dl.z, tmax[l] = best[k].t;
      }
      LaneF dx, dy, dz;
      memcpy(&dx, d[0], sizeof(LaneF));
      memcpy(&dy, d[1], sizeof(LaneF));
      memcpy(&dz, d[2], sizeof(LaneF));
      memcpy(&q.best_t, tmax, sizeof(LaneF));
      const BvhView& proto = e.view.prototypes[inst.prototype];
      const bool done =
          init_packet_directions(&q, dx, dy, dz) ? trace_packet<true>(proto, &q) : trace_packet<false>(proto, &q);
      if (done) {
        for (LaneBits m = lanes; m; m &= m - 1) {
          const int l = __builtin_ctz(m);
          if (q.best_id[l] != kInvalidIndex && (q.best_t[l] < best[l].t || best[l].triangle == kInvalidIndex)) {
            best[l].t = q.best_t[l];
            best[l].triangle = q.best_id[l];
            instance[l] = i;
          }
        }
        continue;
      }
    }
    for (; lanes; lanes &= lanes - 1) {  // one lane, or the scalar path where the packet would overflow
      const int l = __builtin_ctz(lanes);
      TraversalStack<kTraversalStackSize> stack;
      overflows += trace_instance<HostTraversal>(&stack, e, inst, i, org, dir(l), p.tmin[l], &best[l], &instance[l]);
    }
  }
  return overflows;
}

// Finishes the packet at (u0, v0) of the tile (setup_packet's pixels), whose
// packet p has been traced through the terrain (p.best_t, p.best_id): through the env's
// instances (packet_trace_instances), then each lane's hit handed to the pipeline's value stage
// (pixel_value), which everything after the trace goes through on every path.
// `seen`, `count`: the instances the tile's rays may hit (tile_instances), or null: every one.
uint64_t finish_packet(const PacketTile& tile, const Packet& p, bool uniform, uint32_t u0, uint32_t v0,
                       const uint32_t* seen, uint32_t count) {
  const TemplateRay* rays = &tile_ray(tile, u0, v0);
  float* image = &tile_depth(tile, u0, v0);
  TraceResult best[kLanes];
  uint32_t instance[kLanes];
  uint64_t overflows = 0;
  for (int l = 0; l < kLanes; ++l)
    best[l] = TraceResult{p.best_t[l], p.best_id[l], false, NodeLink{0, 0}}, instance[l] = kInvalidIndex;
  if (tile.instances)
    overflows = uniform ? packet_trace_instances<true>(tile, p, seen, count, best, instance)
                        : packet_trace_instances<false>(tile, p, seen, count, best, instance);
  const uint32_t w = packet_width(tile);
  for (int l = 0; l < kLanes; ++l) {
    if (!(p.active >> l & 1u)) continue;
    const uint32_t du = l % w, dv = l / w;
    if (tile.instances) set_tile_id(tile, u0 + du, v0 + dv, instance[l]);
    image[dv * tile.image_stride + du] =
        pixel_value(best[l].t, best[l].triangle, rays[dv * tile.rays_stride + du], *tile.params);
  }
  return overflows;
}

// Renders the packet at (u0, v0) of the tile (setup_packet's pixels): the
// packet's rays traced together through the terrain's BVH, then finish_packet.
uint64_t render_packet(const PacketTile& tile, uint32_t u0, uint32_t v0, const uint32_t* seen, uint32_t count) {
  Packet p;
  const bool uniform = setup_packet(tile, u0, v0, &p);
  const bool done = uniform ? trace_packet<true>(tile.bvh, &p) : trace_packet<false>(tile.bvh, &p);
  if (!done) return render_packet_pixels<BvhTerrain>(tile, tile.bvh, p.active, u0, v0);
  return finish_packet(tile, p, uniform, u0, v0, seen, count);
}

// At most this many instances are sorted per tile (tile_instances); a scene with more has each
// packet test all of them.
constexpr uint32_t kMaxTileInstances = 256;

// The instances (ids ascending, into seen) that a ray of the tile may hit: those not wholly outside
// one of the four planes through the camera's origin and two neighbouring corner pixels' rays.
// Every pixel's ray lies within them (a pinhole's ray directions are linear in the pixel, wr.h),
// up to the rounding of the template and the rotation, far below the margin kept here. Only
// skips work: the packets test each instance left against their own lanes.
uint32_t tile_instances(const PacketTile& tile, uint32_t* seen) {
  const EnvInstances& e = *tile.instances;
  const uint32_t n = num_instances(e.view);
  const uint32_t us[4] = {tile.u0, tile.u1 - 1, tile.u1 - 1, tile.u0},
                 vs[4] = {tile.v0, tile.v0, tile.v1 - 1, tile.v1 - 1};
  Vec3 corner[4], sum{0.0f, 0.0f, 0.0f};
  for (int k = 0; k < 4; ++k) {
    const TemplateRay& r = tile_ray(tile, us[k], vs[k]);
    corner[k] = rotate(tile.camera.rot, Vec3{r.dir[0], r.dir[1], r.dir[2]});
    sum = sum + corner[k];
  }
  Vec3 normal[4];  // inward: towards the tile's rays (a tile one pixel wide or high has zero ones)
  for (int k = 0; k < 4; ++k) {
    normal[k] = cross(corner[k], corner[(k + 1) & 3]);
    if (dot(normal[k], sum) < 0.0f) normal[k] = Vec3{-normal[k].x, -normal[k].y, -normal[k].z};
  }
  uint32_t count = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const PreparedInstance& p = e.prepared[i];
    if (p.prototype == kInvalidIndex) continue;
    const Vec3 c{0.5f * (p.bmin[0] + p.bmax[0]) - tile.camera.pos.x, 0.5f * (p.bmin[1] + p.bmax[1]) - tile.camera.pos.y,
                 0.5f * (p.bmin[2] + p.bmax[2]) - tile.camera.pos.z};
    const Vec3 h{0.5f * (p.bmax[0] - p.bmin[0]), 0.5f * (p.bmax[1] - p.bmin[1]), 0.5f * (p.bmax[2] - p.bmin[2])};
    const float size = fabs_(c.x) + fabs_(c.y) + fabs_(c.z) + h.x + h.y + h.z;
    bool outside = false;
    for (int k = 0; k < 4 && !outside; ++k) {
      const Vec3& m = normal[k];
      const float farthest = dot(m, c) + fabs_(m.x) * h.x + fabs_(m.y) * h.y + fabs_(m.z) * h.z;
      const float scale = fabs_(m.x) + fabs_(m.y) + fabs_(m.z);
      outside = farthest < -scale * size * 0x1p-12f;
    }
    if (!outside) seen[count++] = i;
  }
  return count;
}

// The instances the tile's packets test (tile_instances into seen, *count of them), or null where
// they test every one (no sorting for this tile: not a pinhole's, or too many instances).
const uint32_t* sort_tile_instances(const PacketTile& tile, uint32_t* seen, uint32_t* count) {
  *count = 0;
  const bool sorted = tile.pinhole && tile.instances && tile.instances->prepared &&
                      num_instances(tile.instances->view) <= kMaxTileInstances;
  if (!sorted) return nullptr;
  *count = tile_instances(tile, seen);
  return seen;
}

// The tile over a BVH terrain, packet by packet.
uint64_t render_tile_packets(const PacketTile& tile) {
  uint32_t seen[kMaxTileInstances];
  uint32_t count;
  const uint32_t* instances = sort_tile_instances(tile, seen, &count);
  uint64_t overflows = 0;
  const uint32_t w = packet_width(tile);
  for (uint32_t v = tile.v0; v < tile.v1; v += kLanes / w)
    for (uint32_t u = tile.u0; u < tile.u1; u += w) overflows += render_packet(tile, u, v, instances, count);
  return overflows;
}

}  // namespace
}  // namespace wr
