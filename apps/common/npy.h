// Writes NumPy .npy files (format 1.0) of 3-d arrays: the demos' depth and instance-id tensors.
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

/// Writes `bytes` ((n x h x w) elements of NumPy dtype `descr`, e.g. "<f4", little-endian host) as
/// a NumPy .npy file, format 1.0: magic, version, header length (uint16 LE), then the header dict
/// padded with spaces and a final '\n' so that the data starts at a multiple of 64 bytes.
inline void write_npy(const std::filesystem::path& path, const void* bytes, size_t size, const char* descr, uint32_t n,
                      uint32_t h, uint32_t w) {
  std::string dict = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (" + std::to_string(n) +
                     ", " + std::to_string(h) + ", " + std::to_string(w) + "), }";
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

inline void write_npy(const std::filesystem::path& path, const std::vector<float>& v, uint32_t n, uint32_t h,
                      uint32_t w) {
  write_npy(path, v.data(), v.size() * sizeof(float), "<f4", n, h, w);
}

}  // namespace wr_demo
