// The grid kind of a grid-topology mesh (grid_mesh_builder.h).
#include "scene/grid_mesh_builder.h"

#include <algorithm>
#include <array>
#include <string>
#include <utility>
#include <vector>

#include "scene/grid_builder.h"
#include "scene/zero_area_triangle.h"

namespace wr {

GridMeshView GridMeshData::view() const {
  GridMeshView g{};
  static_cast<GridLevels&>(g) = *this;
  g.xs = xs.data();
  g.ys = ys.data();
  g.lines = lines.data();
  g.moved_xy = moved_xy.data();
  g.ranges = ranges.data();
  g.side_boxes = side_boxes.data();
  g.reach = reach.data();
  g.zero_area = zero_area.empty() ? nullptr : zero_area.data();
  g.lookup = lookup;
  g.cells_per_x = cells_per_x, g.cells_per_y = cells_per_y;
  return g;
}

void GridMeshData::corner_bounds(float lo[3], float hi[3]) const {
  const GridMeshView g = view();
  detail::grid_node_box(g, g.top, 0, 0, lo, hi);
}

namespace {

// The values of one line of vertices (a row's x, a column's y) that may be its grid value: the
// ones Misra and Gries's count with three counters keeps ("Finding repeated elements", 1982: every
// value on more than a quarter of the line) and the line's first, compared by their bits, then
// counted exactly.
struct LineVote {
  uint32_t value[4] = {};
  uint64_t count[4] = {};  // the counters while voting, exact counts after recount
  uint32_t first = 0;
  bool started = false;
  void add(uint32_t b) {
    if (!started) first = b, started = true;
    for (int k = 0; k < 3; ++k)
      if (count[k] && value[k] == b) {
        ++count[k];
        return;
      }
    for (int k = 0; k < 3; ++k)
      if (!count[k]) {
        value[k] = b, count[k] = 1;
        return;
      }
    for (int k = 0; k < 3; ++k) --count[k];
  }
  void start_recount() {  // the candidates (held ones and the first), each once, at count 0
    int n = 0;
    for (int k = 0; k < 3; ++k)
      if (count[k]) value[n++] = value[k];
    bool has_first = false;
    for (int k = 0; k < n; ++k) has_first |= value[k] == first;
    if (!has_first) value[n++] = first;
    for (int k = 0; k < 4; ++k) count[k] = 0;
    for (int k = n; k < 4; ++k) value[k] = value[0];  // repeats: counted, never better
  }
  void recount(uint32_t b) {
    for (int k = 0; k < 4; ++k) count[k] += value[k] == b;
  }
};

// One value per line, strictly increasing (a grid's rows' x, its columns' y): dynamic programming
// over the lines, each taking one of its candidates or none, scoring the vertices the values taken
// match, less a line's worth of vertices per usual spacing by which a step between them strays from
// the lines' usual spacing. (A legged_gym line whose vertices all moved to its neighbour's value,
// say, takes none rather than that value: it is given one between its neighbours' afterwards.)
// Where the values cannot increase (a line's neighbours one float apart), the marks still give back
// every vertex; only the lookup by them is lost.
std::vector<float> choose_line_values(const std::vector<LineVote>& lines, uint64_t line_length) {
  constexpr int kNone = 4;  // the line takes no candidate
  const size_t n = lines.size();
  // The usual spacing: the median step between the lines' most frequent values. Lines that do not
  // increase (a mesh laid out the other way) keep their most frequent values, for the fewest moved.
  std::vector<float> top(n);
  for (size_t l = 0; l < n; ++l) {
    int t = 0;
    for (int c = 1; c < 4; ++c) t = lines[l].count[c] > lines[l].count[t] ? c : t;
    top[l] = float_from_bits(lines[l].value[t]);
  }
  std::vector<double> steps;
  for (size_t l = 0; l + 1 < n; ++l) steps.push_back(double(top[l + 1]) - double(top[l]));
  std::nth_element(steps.begin(), steps.begin() + steps.size() / 2, steps.end());
  const double usual = steps[steps.size() / 2];
  if (!(usual > 0.0)) return top;
  struct State {
    double score = -1e300;  // matched less strayed up to here; -1e300: not reachable
    float last = 0.0f;      // the last value taken, on line `last_line` (`taken`: some line took one)
    size_t last_line = 0;
    bool taken = false;
    int from = -1;  // the previous line's state
  };
  const auto stray = [&](const State& q, float v, size_t l) {
    if (!q.taken) return 0.0;
    const double step = (double(v) - double(q.last)) / double(l - q.last_line);
    return double(line_length) * (step > usual ? step - usual : usual - step) / usual;
  };
  std::vector<std::array<State, 5>> dp(n);
  for (size_t l = 0; l < n; ++l) {
    for (int k = 0; k < 4; ++k) {
      const float v = float_from_bits(lines[l].value[k]);
      const double matched = double(lines[l].count[k]);
      State& s = dp[l][k];
      if (l == 0) s = State{matched, v, l, true, -1};
      for (int p = 0; l > 0 && p < 5; ++p) {
        const State& q = dp[l - 1][p];
        if (q.score <= -1e300 || (q.taken && !(q.last < v))) continue;
        const double score = q.score + matched - stray(q, v, l);
        if (score > s.score) s = State{score, v, l, true, p};
      }
    }
    State& none = dp[l][kNone];
    if (l == 0) none = State{0.0, 0.0f, 0, false, -1};
    for (int p = 0; l > 0 && p < 5; ++p) {
      const State& q = dp[l - 1][p];
      if (q.score > none.score) none = q, none.from = p;
    }
  }
  std::vector<int> pick(n);
  int k = kNone;
  for (int c = 0; c < 4; ++c)
    if (dp[n - 1][c].score > dp[n - 1][k].score) k = c;
  for (size_t l = n; l-- > 0;) pick[l] = k, k = dp[l][k].from;
  // The values taken, then the lines between them spread evenly (beyond the ends, at the mean step).
  std::vector<float> out(n);
  std::vector<size_t> taken;
  for (size_t l = 0; l < n; ++l)
    if (pick[l] != kNone) out[l] = float_from_bits(lines[l].value[pick[l]]), taken.push_back(l);
  const double step = taken.size() >= 2 ? (double(out[taken.back()]) - double(out[taken.front()])) /
                                              double(taken.back() - taken.front())
                                        : 1.0;
  for (size_t l = 0; l < n; ++l) {
    if (pick[l] != kNone) continue;
    const auto after = std::lower_bound(taken.begin(), taken.end(), l);
    const bool has_before = after != taken.begin(), has_after = after != taken.end();
    double v = double(l);
    if (has_before && has_after) {
      const size_t a = *(after - 1), b = *after;
      v = double(out[a]) + (double(out[b]) - double(out[a])) * double(l - a) / double(b - a);
    } else if (has_before) {
      v = double(out[*(after - 1)]) + step * double(l - *(after - 1));
    } else if (has_after) {
      v = double(out[*after]) - step * double(*after - l);
    }
    out[l] = float(v);
  }
  return out;
}

// GridMeshView's vertex arrays from the caller's (rows x cols x 3) vertices: each row's x and each
// column's y chosen from their values (choose_line_values), every vertex whose x or y differs from
// them in any bit (-0 from +0 too) marked and kept in the side table, so that grid_vertex gives back
// every vertex's three floats.
void split_vertices(const float* vertices, uint64_t rows, uint64_t cols, GridMeshData* g) {
  const auto at = [&](uint64_t r, uint64_t c, int axis) { return vertices[3 * (r * cols + c) + axis]; };
  std::vector<LineVote> row_votes(rows), col_votes(cols);  // rows' x, columns' y; row by row
  for (uint64_t r = 0; r < rows; ++r)
    for (uint64_t c = 0; c < cols; ++c) {
      row_votes[r].add(bits_from_float(at(r, c, 0)));
      col_votes[c].add(bits_from_float(at(r, c, 1)));
    }
  for (LineVote& v : row_votes) v.start_recount();
  for (LineVote& v : col_votes) v.start_recount();
  for (uint64_t r = 0; r < rows; ++r)
    for (uint64_t c = 0; c < cols; ++c) {
      row_votes[r].recount(bits_from_float(at(r, c, 0)));
      col_votes[c].recount(bits_from_float(at(r, c, 1)));
    }
  const std::vector<float> xs = choose_line_values(row_votes, cols), ys = choose_line_values(col_votes, rows);
  g->xs.assign(xs.begin(), xs.end());
  g->ys.assign(ys.begin(), ys.end());
  const uint64_t n = rows * cols;
  const auto moved = [&](uint64_t r, uint64_t c) {
    return bits_from_float(at(r, c, 0)) != bits_from_float(g->xs[r]) ||
           bits_from_float(at(r, c, 1)) != bits_from_float(g->ys[c]);
  };
  uint64_t count = 0;
  for (uint64_t r = 0; r < rows; ++r)
    for (uint64_t c = 0; c < cols; ++c) count += moved(r, c);
  // The lines' z, moved marks and counts (the lone cells' marks come after: mark_alone_cells).
  constexpr uint32_t kPer = detail::kGridLineVertices;
  g->lines.assign(16 * ((n + kPer - 1) / kPer), 0u);
  g->moved_xy.resize(2 * count);
  uint64_t m = 0;
  for (uint64_t r = 0; r < rows; ++r)
    for (uint64_t c = 0; c < cols; ++c) {
      const uint64_t k = r * cols + c, line = 16 * (k / kPer);
      if (k % kPer == 0) g->lines[line + 1] = static_cast<uint32_t>(m);
      g->lines[line + 2 + k % kPer] = bits_from_float(at(r, c, 2));
      if (!moved(r, c)) continue;
      g->lines[line] |= 1u << (k % kPer);
      g->moved_xy[2 * m] = at(r, c, 0);
      g->moved_xy[2 * m + 1] = at(r, c, 1);
      ++m;
    }
}

// GridMeshView::lines' lone cells, `lookup` and the guesses' scales, where xs and ys increase
// strictly: every cell with no moved vertex, but those that the extent of a cell with one meets
// inside. None (and no lookup) where they do not increase, or where the cells with moved vertices
// meet more than `budget` cells in all (vertices moved far: every cell takes the reach).
void mark_alone_cells(const GridMeshView& view, uint64_t budget, GridMeshData* g) {
  const uint32_t nx = g->cells_x, ny = g->cells_y;
  for (uint32_t r = 0; r < nx; ++r)
    if (!(g->xs[r] < g->xs[r + 1])) return;
  for (uint32_t c = 0; c < ny; ++c)
    if (!(g->ys[c] < g->ys[c + 1])) return;
  std::vector<bool> alone(uint64_t(nx) * ny);  // cell r ny + c
  std::vector<uint64_t> spoiled;               // the cells with moved vertices
  for (uint32_t r = 0; r < nx; ++r)
    for (uint32_t c = 0; c < ny; ++c) {
      uint32_t k;
      if (!detail::grid_cell_marks(view, r, c, &k))
        alone[uint64_t(r) * ny + c] = true;
      else
        spoiled.push_back(uint64_t(r) * ny + c);
    }
  // The cells whose box's inside a moved cell's extent meets.
  uint64_t work = 0;
  for (const uint64_t cell : spoiled) {
    const uint32_t r = uint32_t(cell / ny), c = uint32_t(cell % ny);
    float lo[3], hi[3];
    detail::grid_node_box(view, 0, r, c, lo, hi);
    const uint32_t r0 = uint32_t(std::upper_bound(g->xs.begin(), g->xs.end(), lo[0]) - g->xs.begin());
    const uint32_t r1 = uint32_t(std::lower_bound(g->xs.begin(), g->xs.end(), hi[0]) - g->xs.begin());
    const uint32_t c0 = uint32_t(std::upper_bound(g->ys.begin(), g->ys.end(), lo[1]) - g->ys.begin());
    const uint32_t c1 = uint32_t(std::lower_bound(g->ys.begin(), g->ys.end(), hi[1]) - g->ys.begin());
    // Rows r with xs[r + 1] > x min (r >= r0 - 1) and xs[r] < x max (r < r1), within the grid.
    const uint32_t ra = r0 > 0 ? r0 - 1 : 0, rb = r1 < nx ? r1 : nx;
    const uint32_t ca = c0 > 0 ? c0 - 1 : 0, cb = c1 < ny ? c1 : ny;
    for (uint32_t rr = ra; rr < rb; ++rr)
      for (uint32_t cc = ca; cc < cb; ++cc) {
        if (++work > budget) return;
        alone[uint64_t(rr) * ny + cc] = false;
      }
  }
  for (uint32_t r = 0; r < nx; ++r)
    for (uint32_t c = 0; c < ny; ++c)
      if (alone[uint64_t(r) * ny + c]) {
        const uint64_t k = uint64_t(r) * (ny + 1) + c;  // the cell's first vertex
        g->lines[16 * (k / detail::kGridLineVertices)] |=
            1u << (detail::kGridLineVertices + k % detail::kGridLineVertices);
      }
  g->lookup = true;
  g->cells_per_x = float(nx) / (g->xs.back() - g->xs.front());
  g->cells_per_y = float(ny) / (g->ys.back() - g->ys.front());
}

}  // namespace

bool build_grid_mesh_terrain(const float* vertices, uint64_t num_vertices, const uint32_t* indices,
                             uint64_t num_triangles, GridMeshData* out, MemoryLedger* ledger, std::string* why) {
  const auto refuse = [why](const std::string& reason) {
    if (why) *why = reason;
    return false;
  };
  // Triangle 0 is (v(0, 0), v(1, 1), v(0, 1)) = (0, cols + 1, 1): it names cols.
  if (num_triangles < 2) return refuse("a grid has at least 2 triangles");
  if (indices[0] != 0 || indices[2] != 1 || indices[1] < 3)
    return refuse("triangle 0 is not (0, cols + 1, 1), a grid's first triangle");
  const uint64_t cols = uint64_t(indices[1]) - 1;
  if (num_vertices % cols != 0)
    return refuse("num_vertices = " + std::to_string(num_vertices) + " is not a multiple of the " +
                  std::to_string(cols) + " columns triangle 0 names");
  const uint64_t rows = num_vertices / cols;
  if (rows < 2 || num_triangles != 2 * (rows - 1) * (cols - 1))
    return refuse("num_triangles = " + std::to_string(num_triangles) + " is not 2 (rows - 1)(cols - 1) of " +
                  std::to_string(rows) + " x " + std::to_string(cols) + " vertices");
  if (rows - 1 > (1u << (kMaxGridLevels - 1)) || cols - 1 > (1u << (kMaxGridLevels - 1)))
    return refuse("more than 2^23 cells lie along a side");
  // The traversal indexes vertices in 32 bits (core/grid_mesh_terrain.h), as uint32 indices name them.
  if (num_vertices > (uint64_t(1) << 32))
    return refuse("num_vertices = " + std::to_string(num_vertices) + " is more than 2^32");
  const auto v = [cols](uint64_t r, uint64_t c) { return static_cast<uint32_t>(r * cols + c); };
  GridMeshData g(ledger);
  g.zero_area.assign((num_triangles + 31) / 32, 0u);
  bool any_zero_area = false;
  for (uint64_t r = 0; r + 1 < rows; ++r)
    for (uint64_t c = 0; c + 1 < cols; ++c) {
      const uint32_t* t = indices + 6 * (r * (cols - 1) + c);
      if (t[0] != v(r, c) || t[1] != v(r + 1, c + 1) || t[2] != v(r, c + 1) || t[3] != v(r, c) || t[4] != v(r + 1, c) ||
          t[5] != v(r + 1, c + 1))
        return refuse("triangles " + std::to_string(2 * (r * (cols - 1) + c)) + " and " +
                      std::to_string(2 * (r * (cols - 1) + c) + 1) + " are not cell (" + std::to_string(r) + ", " +
                      std::to_string(c) + ")'s (v(r, c), v(r + 1, c + 1), v(r, c + 1)), (v(r, c), v(r + 1, c), " +
                      "v(r + 1, c + 1))");
      for (int k = 0; k < 2; ++k)
        if (triangle_has_zero_area(vertices + 3 * uint64_t(t[3 * k]), vertices + 3 * uint64_t(t[3 * k + 1]),
                                   vertices + 3 * uint64_t(t[3 * k + 2]))) {
          const uint64_t id = 2 * (r * (cols - 1) + c) + k;
          g.zero_area[id / 32] |= 1u << (id % 32);
          any_zero_area = true;
        }
    }
  if (!any_zero_area) {
    g.zero_area.clear();
    g.zero_area.shrink_to_fit();
  }

  uint64_t nodes = 0;
  if (!grid_levels(static_cast<uint32_t>(rows - 1), static_cast<uint32_t>(cols - 1), &g, &nodes)) return false;
  split_vertices(vertices, rows, cols, &g);
  // Reach: each cell row's x extent (its two vertex rows'), then the running max of the maxima
  // and the running min (from the end) of the minima; likewise for cell columns in y.
  g.reach.resize(2 * (uint64_t(g.cells_x) + g.cells_y));
  const auto fill_reach = [&](uint32_t n, uint64_t lines, uint64_t along, int axis, bool by_row, float* out) {
    std::vector<float> lo(lines), hi(lines);
    for (uint64_t l = 0; l < lines; ++l) {
      lo[l] = hi[l] = vertices[3 * (by_row ? l * cols : l) + axis];
      for (uint64_t k = 1; k < along; ++k) {
        const float x = vertices[3 * (by_row ? l * cols + k : k * cols + l) + axis];
        lo[l] = x < lo[l] ? x : lo[l];
        hi[l] = x > hi[l] ? x : hi[l];
      }
    }
    for (uint32_t c = 0; c < n; ++c) {
      const float h = hi[c] > hi[c + 1] ? hi[c] : hi[c + 1];
      out[c] = c > 0 && out[c - 1] > h ? out[c - 1] : h;
    }
    for (uint32_t c = n; c-- > 0;) {
      const float l = lo[c] < lo[c + 1] ? lo[c] : lo[c + 1];
      out[n + c] = c + 1 < n && out[n + c + 1] < l ? out[n + c + 1] : l;
    }
  };
  fill_reach(g.cells_x, rows, cols, 0, true, g.reach.data());
  fill_reach(g.cells_y, cols, rows, 1, false, g.reach.data() + 2 * uint64_t(g.cells_x));
  // Every node's box (6 floats a node, as GridLevels lays nodes out), kept while the levels above
  // are made from it; then each node's z range where its box is its lines', else its box on the side.
  std::vector<float> boxes(6 * nodes), side;
  g.ranges.resize(2 * nodes);
  const GridMeshView view = g.view();  // level 0's boxes, from the vertices
  for (uint32_t l = 1; l <= g.top; ++l) {
    const uint32_t w = grid_level_size(g.cells_x, l), h = grid_level_size(g.cells_y, l);
    const uint32_t cw = grid_level_size(g.cells_x, l - 1), ch = grid_level_size(g.cells_y, l - 1);
    for (uint32_t j = 0; j < h; ++j)
      for (uint32_t i = 0; i < w; ++i) {
        float lo[3] = {}, hi[3] = {};  // set by the first child: every node has one
        bool first = true;
        for (uint32_t cj = 2 * j; cj < 2 * j + 2 && cj < ch; ++cj)
          for (uint32_t ci = 2 * i; ci < 2 * i + 2 && ci < cw; ++ci) {
            float bmin[3], bmax[3];
            if (l == 1) {
              detail::grid_node_box(view, 0, ci, cj, bmin, bmax);
            } else {
              const float* b = &boxes[6 * g.node_index(l - 1, ci, cj)];
              for (int a = 0; a < 3; ++a) bmin[a] = b[a], bmax[a] = b[3 + a];
            }
            for (int a = 0; a < 3; ++a) {
              lo[a] = first || bmin[a] < lo[a] ? bmin[a] : lo[a];
              hi[a] = first || bmax[a] > hi[a] ? bmax[a] : hi[a];
            }
            first = false;
          }
        const uint64_t node = g.node_index(l, i, j);
        float* b = &boxes[6 * node];
        for (int a = 0; a < 3; ++a) b[a] = lo[a], b[3 + a] = hi[a];
        uint32_t x0, x1, y0, y1;
        detail::grid_node_lines(g, l, i, j, &x0, &x1, &y0, &y1);
        const float lines[4] = {g.xs[x0], g.ys[y0], g.xs[x1], g.ys[y1]}, box[4] = {lo[0], lo[1], hi[0], hi[1]};
        bool on_lines = true;  // compared by their bits: the box test then reads the very floats
        for (int a = 0; a < 4; ++a) on_lines = on_lines && bits_from_float(lines[a]) == bits_from_float(box[a]);
        if (on_lines) {
          g.ranges[2 * node] = lo[2], g.ranges[2 * node + 1] = hi[2];
        } else {
          g.ranges[2 * node] = quiet_nan_();
          g.ranges[2 * node + 1] = float_from_bits(uint32_t(side.size() / 6));
          side.insert(side.end(), b, b + 6);
        }
      }
  }
  g.side_boxes.assign(side.begin(), side.end());
  mark_alone_cells(g.view(), 16 * uint64_t(g.cells_x) * g.cells_y + 1024, &g);
  *out = std::move(g);
  return true;
}

}  // namespace wr
