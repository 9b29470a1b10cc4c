#include "bloomseq/blast/query_chunks.hpp"

#include <algorithm>

namespace bloomseq {

std::vector<std::pair<uint64_t, uint64_t>> blastn_query_chunks(uint64_t total, uint64_t chunk_size,
                                                               uint64_t overlap) {
  const uint64_t n = chunk_size > overlap ? total / (chunk_size - overlap) : 0;
  if (n <= 1) return {{0, total}};
  uint64_t size = (total + (n - 1) * overlap) / n;
  if (n < size - overlap) ++size;  // rounded up when that keeps the number of chunks
  std::vector<std::pair<uint64_t, uint64_t>> chunks;
  uint64_t start = 0;
  for (uint64_t c = 0; c < n; ++c) {
    uint64_t end = start + size;
    if (end >= total || c + 1 == n) end = total;
    chunks.emplace_back(start, end);
    start += size - overlap;
    if (start > total || end == total) break;
  }
  return chunks;
}

namespace {

// Sets bits [from, to] (inclusive) of `bits`.
void set_bits(std::vector<uint64_t>& bits, uint64_t from, uint64_t to) {
  for (uint64_t i = from; i <= to;) {
    if (i % 64 == 0 && i + 63 <= to) {
      bits[i / 64] = ~uint64_t(0);
      i += 64;
    } else {
      bits[i / 64] |= uint64_t(1) << (i % 64);
      ++i;
    }
  }
}

// ORs into `allowed` the w-mer starts that lie in bases [from, last] and touch none of `masks` (increasing).
void allow_unmasked(std::vector<uint64_t>& allowed, uint64_t from, uint64_t last, const MaskIntervals& masks,
                    uint64_t w) {
  if (last + 1 < from + w) return;
  const uint64_t final_start = last + 1 - w;
  uint64_t next = from;  // the first start not yet decided
  for (const auto& m : masks) {
    // Starts in [m.first - w + 1, m.second] touch the mask.
    const uint64_t blocked_from = m.first + 1 >= w ? m.first + 1 - w : 0;
    if (blocked_from > next) set_bits(allowed, next, std::min(blocked_from - 1, final_start));
    next = std::max(next, m.second + 1);
    if (next > final_start) return;
  }
  set_bits(allowed, next, final_start);
}

}  // namespace

std::vector<uint64_t> seeds_allowed_in_chunks(uint64_t length, const MaskIntervals& masks, int w,
                                              const std::vector<std::pair<uint64_t, uint64_t>>& chunks) {
  std::vector<uint64_t> bits((length + 63) / 64, 0);
  const uint64_t W = uint64_t(w);
  if (length < W) return bits;
  if (chunks.size() <= 1) {  // not split: the masks as they are
    allow_unmasked(bits, 0, length - 1, masks, W);
    return bits;
  }
  for (const auto& chunk : chunks) {
    const uint64_t from = chunk.first, to = std::min(length, chunk.second);
    if (from >= length) continue;
    MaskIntervals cut;
    for (const auto& m : masks) {
      const uint64_t lo = std::max(m.first, from);
      if (to == 0 || lo > std::min(m.second, to - 1)) continue;
      cut.emplace_back(lo, std::min(m.second + 1, to));
    }
    allow_unmasked(bits, from, std::min(to, length - 1), cut, W);
  }
  return bits;
}

}  // namespace bloomseq
