#include "scene/leaf_block_writer.h"

#include <algorithm>

namespace wr {

uint32_t number_leaf_corners(const uint32_t* indices, const uint32_t* prims, uint32_t count, CornerTable* table,
                             uint32_t* corner_words) {
  if (++table->current == 0) {  // the stamps wrapped: start over
    std::fill(table->stamp, table->stamp + CornerTable::kSlots, 0u);
    table->current = 1;
  }
  const uint32_t current = table->current;
  uint32_t num_corners = 0;
  for (uint32_t j = 0; j < count; ++j) {
    const uint32_t prim = prims[j];
    uint32_t word = 0;
    for (int k = 0; k < 3; ++k) {
      const uint32_t v = indices[3ull * prim + k];
      uint32_t slot = (v * 2654435761u) >> 24;  // Knuth's multiplicative hash, top 8 bits
      while (table->stamp[slot] == current && table->key[slot] != v) slot = (slot + 1) & 255u;
      // Found or new, without a branch (which one is as good as random here).
      const bool fresh = table->stamp[slot] != current;
      const uint32_t local = fresh ? num_corners : table->local[slot];
      table->stamp[slot] = current;
      table->key[slot] = v;
      table->local[slot] = static_cast<uint8_t>(local);
      num_corners += fresh;
      word |= local << (8 * k);
    }
    corner_words[j] = word;
  }
  return num_corners;
}

// Each corner is written by every triangle that uses it, the same floats each time: cheaper
// than keeping a list of them from number_leaf_corners().
void write_leaf_block(const float* vertices, const uint32_t* indices, const uint32_t* prims, uint32_t count,
                      const uint32_t* corner_words, uint32_t corners, uint32_t* block) {
  uint32_t* words = block + 3ull * corners;
  for (uint32_t j = 0; j < count; ++j) {
    const uint32_t prim = prims[j], word = corner_words[j];
    for (int k = 0; k < 3; ++k) {
      const float* v = vertices + 3ull * indices[3ull * prim + k];
      uint32_t* out = block + 3 * corner_index(word, k);
      out[0] = bits_from_float(v[0]), out[1] = bits_from_float(v[1]), out[2] = bits_from_float(v[2]);
    }
    words[j] = word;
    words[count + j] = prim;
  }
}

}  // namespace wr
