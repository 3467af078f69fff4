// Writes NumPy .npy files (format 1.0): the demos' depth and instance-id tensors, wr-terrain's
// height fields.
// Header only; throws std::runtime_error when the file cannot be written.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace wr_demo {

/// Writes `bytes` (elements of NumPy dtype `descr`, e.g. "<f4", little-endian host, C order, of
/// shape `shape`) as a NumPy .npy file, format 1.0: magic, version, header length (uint16 LE),
/// then the header dict padded with spaces and a final '\n' so that the data starts at a
/// multiple of 64 bytes.
inline void write_npy(const std::filesystem::path& path, const void* bytes, size_t size, const char* descr,
                      const std::vector<uint64_t>& shape) {
  std::string dims;  // as NumPy writes a tuple: "(64, 60, 106)", "(5,)"
  for (size_t k = 0; k < shape.size(); ++k) dims += (k ? ", " : "") + std::to_string(shape[k]);
  if (shape.size() == 1) dims += ",";
  std::string dict = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (" + dims + "), }";
  const size_t preamble = 10;  // 6 magic + 2 version + 2 header length
  dict.append(63 - (preamble + dict.size()) % 64, ' ');
  dict.push_back('\n');
  const uint16_t len = uint16_t(dict.size());
  std::ofstream out(path, std::ios::binary);
  const char head[10] = {'\x93', 'N', 'U', 'M', 'P', 'Y', 1, 0, char(len & 0xFF), char(len >> 8)};
  out.write(head, sizeof head);
  out.write(dict.data(), std::streamsize(dict.size()));
  out.write(static_cast<const char*>(bytes), std::streamsize(size));
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

/// (n x h x w) elements.
inline void write_npy(const std::filesystem::path& path, const void* bytes, size_t size, const char* descr, uint32_t n,
                      uint32_t h, uint32_t w) {
  write_npy(path, bytes, size, descr, std::vector<uint64_t>{n, h, w});
}

inline void write_npy(const std::filesystem::path& path, const std::vector<float>& v, uint32_t n, uint32_t h,
                      uint32_t w) {
  write_npy(path, v.data(), v.size() * sizeof(float), "<f4", n, h, w);
}

}  // namespace wr_demo
