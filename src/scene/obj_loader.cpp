#include "scene/obj_loader.h"

#include <tiny_obj_loader.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <istream>
#include <memory>
#include <streambuf>
#include <string_view>
#include <vector>

#include "errors/status_error.h"
#include "scene/mesh_validation.h"
#include "scene/polygon_triangulation.h"

namespace wr {
namespace {

constexpr const char* kFunction = "wr_scene_load_obj";

// ---- messages ------------------------------------------------------------------------

// A file's bytes quoted in a message: control bytes (a NUL would cut wr_last_error short)
// become '?', and long runs are cut.
std::string quote_bytes(std::string_view s) {
  constexpr size_t kMaxChars = 60;
  std::string out = "'";
  for (size_t i = 0; i < s.size() && i < kMaxChars; ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    out += (c < 0x20 || c == 0x7f) ? '?' : static_cast<char>(c);
  }
  if (s.size() > kMaxChars) out += "...";
  return out + "'";
}

[[noreturn]] void fail_io(const std::string& path, const char* action, int err) {
  fail(WR_ERROR_IO, std::string(kFunction) + ": cannot " + action + " '" + path + "': " + std::strerror(err));
}

[[noreturn]] void fail_parse(const std::string& path, uint64_t line, const std::string& what) {
  fail(WR_ERROR_PARSE, std::string(kFunction) + ": " + path + ":" + std::to_string(line) + ": " + what);
}

// ---- reading -------------------------------------------------------------------------

std::string read_file(const std::string& path) {
  const std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) fail_io(path, "open", errno);
  std::string data;
  std::error_code ec;  // the size is a hint only: pipes and directories have none
  if (std::filesystem::is_regular_file(path, ec)) {
    const std::uintmax_t size = std::filesystem::file_size(path, ec);
    if (!ec) data.reserve(static_cast<size_t>(size));
  }
  char chunk[1 << 16];
  for (;;) {
    const size_t n = std::fread(chunk, 1, sizeof chunk, file.get());
    data.append(chunk, n);
    if (n < sizeof chunk) break;
  }
  // A directory opens fine on Linux; reading it is what fails (EISDIR).
  if (std::ferror(file.get())) fail_io(path, "read", errno);
  return data;
}

// Lets tinyobjloader read the bytes already in memory, without copying them again.
class ViewStreamBuf : public std::streambuf {
 public:
  ViewStreamBuf(const char* begin, const char* end) {
    setg(const_cast<char*>(begin), const_cast<char*>(begin), const_cast<char*>(end));  // read only
  }
};

// ---- lines and tokens ----------------------------------------------------------------

// Calls fn(line_number, line) for every line, split as tinyobjloader's safeGetline splits
// them: "\n", "\r\n" and a lone "\r" each end a line. Stops early when fn returns false.
template <class Fn>
void for_each_line(std::string_view text, Fn&& fn) {
  uint64_t line_number = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = pos;
    while (end < text.size() && text[end] != '\n' && text[end] != '\r') ++end;
    if (!fn(++line_number, text.substr(pos, end - pos))) return;
    pos = end;
    if (pos < text.size()) pos += (text[pos] == '\r' && pos + 1 < text.size() && text[pos + 1] == '\n') ? 2 : 1;
  }
}

// Splits a line on spaces and tabs, the only separators tinyobjloader knows.
class Tokens {
 public:
  explicit Tokens(std::string_view line) : line_(line) {}
  bool next(std::string_view* token) {
    while (pos_ < line_.size() && (line_[pos_] == ' ' || line_[pos_] == '\t')) ++pos_;
    if (pos_ == line_.size()) return false;
    const size_t begin = pos_;
    while (pos_ < line_.size() && line_[pos_] != ' ' && line_[pos_] != '\t') ++pos_;
    *token = line_.substr(begin, pos_ - begin);
    return true;
  }

 private:
  std::string_view line_;
  size_t pos_ = 0;
};

bool is_digit(char c) { return c >= '0' && c <= '9'; }

enum class NumberCheck { kOk, kNotNumber, kExponentRange };

// kOk when the whole token is a number in the grammar tinyobjloader's tryParseDouble reads
// completely: [+-] (digits [. digits] | . digits) [(e|E) [+-] digits]. Anything else
// ("nan", "inf", "0x1p3", "1.5abc", ".") it would silently read as 0 or as a prefix.
// Exponents beyond +-300 are refused too (no float needs one): tinyobjloader's arithmetic
// turns "0e999" into NaN and "1e99999999999" into 0, while within +-300 it agrees with a
// correctly rounded parse up to rounding.
NumberCheck check_number(std::string_view s) {
  size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  size_t digits = 0;
  for (; i < s.size() && is_digit(s[i]); ++i) ++digits;
  if (i < s.size() && s[i] == '.') {
    for (++i; i < s.size() && is_digit(s[i]); ++i) ++digits;
  }
  if (digits == 0) return NumberCheck::kNotNumber;
  int exponent = 0;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    size_t exponent_digits = 0;
    for (; i < s.size() && is_digit(s[i]); ++i, ++exponent_digits) {
      exponent = std::min(exponent * 10 + (s[i] - '0'), 100000);
    }
    if (exponent_digits == 0) return NumberCheck::kNotNumber;
  }
  if (i != s.size()) return NumberCheck::kNotNumber;
  return exponent > 300 ? NumberCheck::kExponentRange : NumberCheck::kOk;
}

// Parses [+-]digits (what atoi reads) into a magnitude-capped value; false on anything else.
bool parse_index(std::string_view s, int64_t* out) {
  size_t i = 0;
  const bool negative = !s.empty() && s[0] == '-';
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) ++i;
  if (i == s.size()) return false;
  int64_t value = 0;
  for (; i < s.size(); ++i) {
    if (!is_digit(s[i])) return false;
    value = std::min<int64_t>(value * 10 + (s[i] - '0'), int64_t(1) << 40);
  }
  *out = negative ? -value : value;
  return true;
}

// ---- the strict pre-pass -------------------------------------------------------------

// Why this pass exists: tinyobjloader does the real parsing, but it is lenient where a
// depth sensor cannot be. It reads "v abc 1 2" or "v nan 0 0" as 0 without a word, takes
// "1.5abc" as 1.5, and an out-of-range face index is only a warning carrying the file's
// LAST line number, after which the bad index is handed back as if valid. So before
// tinyobjloader runs, this pass checks exactly those things, line by line, to report
// "<path>:<line>": each `v` has >= 3 tokens, all numbers tinyobjloader reads in full; each
// `f` has >= 3 corners, and every corner of `f`, `l` and `p` is v, v/vt, v//vn or v/vt/vn
// with non-zero integers and a v in range of the vertices defined so far (1-based, a
// negative one counting back from the last); and the numbers of tinyobjloader's own `vw`
// statement (below). Everything else is left to tinyobjloader.
struct PrePass {
  uint64_t num_vertices = 0;
  std::vector<uint32_t> face_sizes;  // corners of each `f`, in file order
};

// Checks one corner reference; returns an error description, empty when fine.
std::string check_reference(std::string_view ref, uint64_t num_vertices) {
  std::string_view parts[3];
  size_t num_parts = 0;
  for (size_t begin = 0;;) {
    const size_t slash = ref.find('/', begin);
    if (num_parts == 3) return "corner " + quote_bytes(ref) + " has more than 3 parts";
    parts[num_parts++] = ref.substr(begin, slash == std::string_view::npos ? std::string_view::npos : slash - begin);
    if (slash == std::string_view::npos) break;
    begin = slash + 1;
  }
  int64_t index[3] = {0, 0, 0};
  for (size_t k = 0; k < num_parts; ++k) {
    if (k == 1 && num_parts == 3 && parts[1].empty()) continue;  // v//vn
    if (!parse_index(parts[k], &index[k]) || index[k] == 0 || (k > 0 && std::llabs(index[k]) > 2147483647)) {
      return "corner " + quote_bytes(ref) + " is not a vertex reference (v, v/vt, v//vn or v/vt/vn, non-zero integers)";
    }
  }
  const int64_t count = static_cast<int64_t>(num_vertices);
  if ((index[0] > 0 && index[0] > count) || (index[0] < 0 && -index[0] > count)) {
    return "vertex reference " + std::to_string(index[0]) + " is out of range: " + std::to_string(count) +
           " vertices defined so far";
  }
  return {};
}

PrePass check_lines(std::string_view text, const std::string& path) {
  PrePass result;
  for_each_line(text, [&](uint64_t line_number, std::string_view line) {
    Tokens tokens(line);
    std::string_view keyword, token;
    if (!tokens.next(&keyword)) return true;
    if (keyword == "v") {
      int count = 0;
      while (tokens.next(&token)) {
        const NumberCheck check = check_number(token);
        if (check == NumberCheck::kNotNumber) {
          fail_parse(path, line_number, "vertex coordinate " + quote_bytes(token) + " is not a finite decimal number");
        }
        if (check == NumberCheck::kExponentRange) {
          fail_parse(path, line_number, "vertex coordinate " + quote_bytes(token) + " has an exponent beyond +-300");
        }
        ++count;
      }
      if (count < 3) {
        fail_parse(path, line_number, "'v' needs 3 coordinates (x y z), found " + std::to_string(count));
      }
      // tinyobjloader counts vertices in an int.
      if (++result.num_vertices > 2147483647u) fail_parse(path, line_number, "more than 2147483647 vertices");
    } else if (keyword == "vw") {
      // tinyobjloader's skin-weight extension, "vw <vertex> <joint> <weight> ...", whose data we
      // ignore. tinyobjloader reads each joint id as a float and converts it to int unchecked,
      // which for a value past the int range (1e10, or 1e300 read as an infinite float) is
      // undefined behaviour (UBSan, in the OBJ fuzz harness), so every number is checked first:
      // integers for the vertex (int range) and the joints (below 2^24 in magnitude, exact as
      // floats; a negative joint is tinyobjloader's own error, with its line), decimal weights.
      int64_t id = 0;
      for (int k = 0; tokens.next(&token); ++k) {
        const bool is_id = k == 0 || k % 2 == 1;  // the vertex, then joint / weight pairs
        const int64_t limit = k == 0 ? 2147483647 : (1 << 24) - 1;
        if (is_id ? !(parse_index(token, &id) && std::llabs(id) <= limit) : check_number(token) != NumberCheck::kOk) {
          fail_parse(path, line_number,
                     std::string("'vw' ") +
                         (k == 0  ? "vertex "
                          : is_id ? "joint "
                                  : "weight ") +
                         quote_bytes(token) +
                         (is_id ? " is not an integer of magnitude at most " + std::to_string(limit)
                                : std::string(" is not a finite decimal number")));
        }
      }
    } else if (keyword == "f" || keyword == "l" || keyword == "p") {
      uint64_t count = 0;
      while (tokens.next(&token)) {
        const std::string error = check_reference(token, result.num_vertices);
        if (!error.empty()) fail_parse(path, line_number, error);
        ++count;
      }
      const uint64_t min_count = keyword == "f" ? 3 : 1;
      if (count < min_count) {
        fail_parse(path, line_number,
                   "'" + std::string(keyword) + "' needs at least " + std::to_string(min_count) +
                       (min_count == 1 ? " vertex" : " vertices") + ", found " + std::to_string(count));
      }
      if (keyword == "f") {
        if (count > 0xffffffffu) fail_parse(path, line_number, "face has too many corners");
        result.face_sizes.push_back(static_cast<uint32_t>(count));
      }
    }
    return true;
  });
  return result;
}

// Line of the (0-based) vertex-th `v` line: only looked up to report an error.
uint64_t line_of_vertex(std::string_view text, uint64_t vertex, std::string_view* line_text) {
  uint64_t seen = 0, found = 0;
  for_each_line(text, [&](uint64_t line_number, std::string_view line) {
    Tokens tokens(line);
    std::string_view keyword;
    if (tokens.next(&keyword) && keyword == "v" && seen++ == vertex) {
      found = line_number;
      *line_text = line;
      return false;
    }
    return true;
  });
  return found;
}

}  // namespace

Mesh load_obj(const std::string& path) {
  const std::string data = read_file(path);
  std::string_view text(data);
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // UTF-8 byte order mark

  const PrePass pre = check_lines(text, path);
  if (pre.face_sizes.empty()) fail(WR_ERROR_PARSE, std::string(kFunction) + ": " + path + ": no triangles");

  tinyobj::attrib_t attrib;
  std::vector<tinyobj::shape_t> shapes;
  std::vector<tinyobj::material_t> materials;
  std::string warn, err;
  ViewStreamBuf buffer(text.data(), text.data() + text.size());
  std::istream stream(&buffer);
  // No MaterialReader: `mtllib` lines are skipped, so a missing .mtl cannot fail the load.
  // triangulate = false: see Triangulator.
  if (!tinyobj::LoadObj(&attrib, &shapes, &materials, &warn, &err, &stream, /*readMatFn=*/nullptr,
                        /*triangulate=*/false)) {
    // Only statements the pre-pass leaves alone get here (e.g. tinyobjloader's own `vw`
    // extension); its message says "line N", which we move to the front.
    while (!err.empty() && (err.back() == '\n' || err.back() == '\r')) err.pop_back();
    const size_t at = err.rfind("line ");
    if (at != std::string::npos && at + 5 < err.size() && is_digit(err[at + 5])) {
      fail_parse(path, std::strtoull(err.c_str() + at + 5, nullptr, 10), "tinyobjloader: " + quote_bytes(err));
    }
    fail(WR_ERROR_PARSE, std::string(kFunction) + ": " + path + ": tinyobjloader: " + quote_bytes(err));
  }

  Mesh mesh;
  mesh.vertices.swap(attrib.vertices);  // (num_vertices x 3); tinyobj::real_t is float
  const uint64_t num_vertices = mesh.num_vertices();
  if (num_vertices != pre.num_vertices || mesh.vertices.size() % 3 != 0) {
    fail(WR_ERROR_INTERNAL, std::string(kFunction) + ": " + path + ": tinyobjloader read " +
                                std::to_string(num_vertices) + " vertices, the pre-pass counted " +
                                std::to_string(pre.num_vertices));
  }
  // A coordinate tinyobjloader could not hold in a float (1e39) comes back infinite.
  for (uint64_t i = 0; i < mesh.vertices.size(); ++i) {
    if (!std::isfinite(mesh.vertices[i])) {
      std::string_view line;
      const uint64_t line_number = line_of_vertex(text, i / 3, &line);
      fail_parse(
          path, line_number,
          "vertex " + std::to_string(i / 3) + " has a coordinate that is not finite as a float: " + quote_bytes(line));
    }
  }

  // Every shape indexes the one shared vertex array, so merging is concatenation. Faces
  // come back in file order; the pre-pass's corner counts (num_face_vertices is only a
  // byte) delimit them.
  uint64_t num_triangles = 0;
  for (uint32_t n : pre.face_sizes) num_triangles += n - 2;
  mesh.indices.reserve(num_triangles * 3);
  Triangulator triangulator(mesh.vertices);
  std::vector<uint32_t> corners;
  size_t face = 0;
  for (const tinyobj::shape_t& shape : shapes) {
    const std::vector<tinyobj::index_t>& ids = shape.mesh.indices;
    size_t offset = 0;
    for (unsigned char num_corners : shape.mesh.num_face_vertices) {
      const uint32_t n = face < pre.face_sizes.size() ? pre.face_sizes[face] : 0;
      if (n < 3 || static_cast<unsigned char>(n) != num_corners || offset + n > ids.size()) break;
      corners.resize(n);
      for (uint32_t k = 0; k < n; ++k) {
        const int id = ids[offset + k].vertex_index;
        if (id < 0 || static_cast<uint64_t>(id) >= num_vertices) {
          fail(WR_ERROR_INTERNAL, std::string(kFunction) + ": " + path + ": tinyobjloader returned vertex id " +
                                      std::to_string(id) + " of " + std::to_string(num_vertices) + " vertices");
        }
        corners[k] = static_cast<uint32_t>(id);
      }
      triangulator.add(corners, mesh.indices);
      offset += n;
      ++face;
    }
    if (offset != ids.size()) break;
  }
  if (face != pre.face_sizes.size() || mesh.num_triangles() != num_triangles) {
    fail(WR_ERROR_INTERNAL, std::string(kFunction) + ": " + path + ": tinyobjloader's faces (" + std::to_string(face) +
                                " matched) disagree with the pre-pass's " + std::to_string(pre.face_sizes.size()));
  }

  // Safety net: the checks wr_scene_create applies to arrays. The pre-pass should already
  // have caught everything, so a failure here would be a disagreement with tinyobjloader;
  // it still concerns the file's content, hence WR_ERROR_PARSE.
  const std::string context = std::string(kFunction) + ": " + path;
  try {
    validate_mesh_arrays(context.c_str(), mesh.vertices.data(), mesh.num_vertices(), mesh.indices.data(),
                         mesh.num_triangles());
  } catch (const StatusError& e) {
    fail(WR_ERROR_PARSE, e.what());
  }
  return mesh;
}

}  // namespace wr
