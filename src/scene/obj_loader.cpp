// The OBJ reader (obj_loader.h): lines split into tokens, numbers checked against a strict
// grammar and converted correctly rounded, faces triangulated as they come (polygon_triangulation.h).
#include "scene/obj_loader.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string_view>
#include <vector>

#include "errors/status_error.h"
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

// ---- lines and tokens ----------------------------------------------------------------

// Calls fn(line_number, line) for every line: "\n", "\r\n" and a lone "\r" each end a line. Stops early when fn returns
// false.
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

// Splits a line on spaces and tabs.
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

// kOk when the whole token is a decimal number: [+-] (digits [. digits] | . digits)
// [(e|E) [+-] digits]. Anything else ("nan", "inf", "0x1p3", "1.5abc", ".") is refused, where
// lenient readers take 0 or a prefix. Exponents beyond +-300 are refused too: no float
// needs one, and "0e999" or "1e99999999999" are more likely damage than data.
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

// ---- statements ----------------------------------------------------------------------

// The float nearest to a token check_number accepted (correctly rounded: std::from_chars,
// which no locale changes). A value below the float range is a signed zero; false for one
// beyond it.
bool parse_float(std::string_view s, float* out) {
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);  // from_chars takes no '+'
  const char* end = s.data() + s.size();
  const std::from_chars_result r = std::from_chars(s.data(), end, *out);
  if (r.ec == std::errc() && r.ptr == end) return std::isfinite(*out);
  if (r.ec != std::errc::result_out_of_range) return false;
  double d = 0.0;  // too large or too small for a float: which one
  const std::from_chars_result rd = std::from_chars(s.data(), end, d);
  if (rd.ec != std::errc() || !(std::fabs(d) < 1.0)) return false;
  *out = std::signbit(d) ? -0.0f : 0.0f;
  return true;
}

// A corner of `f`, `l` or `p` (v, v/vt, v//vn or v/vt/vn) as a 0-based vertex id; an error
// description, empty when fine. References count from 1; a negative one counts back from the
// last of the num_vertices vertices defined so far (the OBJ format).
std::string parse_reference(std::string_view ref, uint64_t num_vertices, uint32_t* vertex) {
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
  *vertex = static_cast<uint32_t>(index[0] > 0 ? index[0] - 1 : count + index[0]);
  return {};
}

}  // namespace

Mesh load_obj(const std::string& path) {
  const std::string data = read_file(path);
  std::string_view text(data);
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // UTF-8 byte order mark

  Mesh mesh;
  Triangulator triangulator(mesh.vertices);
  std::vector<uint32_t> corners;
  for_each_line(text, [&](uint64_t line_number, std::string_view line) {
    Tokens tokens(line);
    std::string_view keyword, token;
    if (!tokens.next(&keyword)) return true;
    if (keyword == "v") {  // x y z, then an optional w or colour, checked as numbers too
      float xyz[3];
      int count = 0;
      while (tokens.next(&token)) {
        const NumberCheck check = check_number(token);
        if (check == NumberCheck::kNotNumber) {
          fail_parse(path, line_number, "vertex coordinate " + quote_bytes(token) + " is not a finite decimal number");
        }
        if (check == NumberCheck::kExponentRange) {
          fail_parse(path, line_number, "vertex coordinate " + quote_bytes(token) + " has an exponent beyond +-300");
        }
        if (count < 3 && !parse_float(token, &xyz[count])) {
          fail_parse(path, line_number,
                     "vertex " + std::to_string(mesh.num_vertices()) +
                         " has a coordinate that is not finite as a float: " + quote_bytes(line));
        }
        ++count;
      }
      if (count < 3) {
        fail_parse(path, line_number, "'v' needs 3 coordinates (x y z), found " + std::to_string(count));
      }
      if (mesh.num_vertices() == 0xffffffffu) fail_parse(path, line_number, "more than 4294967295 vertices");
      mesh.vertices.insert(mesh.vertices.end(), xyz, xyz + 3);
    } else if (keyword == "f" || keyword == "l" || keyword == "p") {
      // Lines and points are not triangles, but their references are checked all the same.
      corners.clear();
      while (tokens.next(&token)) {
        uint32_t vertex = 0;
        const std::string error = parse_reference(token, mesh.num_vertices(), &vertex);
        if (!error.empty()) fail_parse(path, line_number, error);
        corners.push_back(vertex);
      }
      const size_t min_count = keyword == "f" ? 3 : 1;
      if (corners.size() < min_count) {
        fail_parse(path, line_number,
                   "'" + std::string(keyword) + "' needs at least " + std::to_string(min_count) +
                       (min_count == 1 ? " vertex" : " vertices") + ", found " + std::to_string(corners.size()));
      }
      if (keyword == "f") {
        if ((mesh.indices.size() / 3 + corners.size()) > 0xffffffffu)
          fail_parse(path, line_number, "more than 4294967295 triangles");
        triangulator.add(corners, mesh.indices);
      }
    }
    return true;  // anything else (vt, vn, o, g, s, usemtl, mtllib, ...) says nothing about the shape
  });
  if (mesh.indices.empty()) fail(WR_ERROR_PARSE, std::string(kFunction) + ": " + path + ": no triangles");
  return mesh;
}

}  // namespace wr
