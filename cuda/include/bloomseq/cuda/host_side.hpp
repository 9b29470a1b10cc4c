// Host-side steps shared by the CUDA backend and its emulation: preparing kernel inputs and turning kernel
// outputs into the backend contract (sorted Stage1aHit, ClassifyHits).
#pragma once
#include <cstdint>
#include <vector>

#include "bloomseq/backend/classify.hpp"
#include "bloomseq/backend/stage1a.hpp"
#include "bloomseq/cuda/kernels/classify_kernel.hpp"
#include "bloomseq/hash/h3.hpp"

namespace bloomseq::cuda {

// Bases of the chunk the kernel must see: the n_starts windows plus their w-1 tails, within n.
uint64_t chunk_bases(const DbChunk& chunk);

// Appends count kernel hits (chunk-relative positions) as stream coordinates, sorted by (db_pos, subquery).
void collect_stage1a_hits(const uint32_t* pos, const uint32_t* sub, uint64_t count, uint64_t first_pos,
                          std::vector<Stage1aHit>& hits);

// The filters of a bank as one word array plus descriptors (what the classify kernel reads from global memory).
// Interleaved groups: their rows (as pairs of 32-bit words) and bin-to-filter maps go into the same word array.
struct FlatFilters {
  std::vector<uint32_t> words;
  std::vector<FilterDesc> desc;
  std::vector<GroupDesc> groups;
  int k_max = 0;
};
FlatFilters flatten_filters(const FilterBank& bank);

// Nibble-sliced tables (H3NibbleView layout) of the first k functions of a byte-sliced family, for keys of
// 2w bits: what the kernels stage into shared memory (16x smaller than the byte tables).
std::vector<uint32_t> nibble_tables_from(const H3ByteView& bytes, int k, int w);
inline int key_nibbles_for(int w) { return (2 * w + 3) / 4; }

// Validates a bank (family present, every filter's k within the family) and throws UsageError otherwise.
void check_bank(const FilterBank& bank);

}  // namespace bloomseq::cuda
