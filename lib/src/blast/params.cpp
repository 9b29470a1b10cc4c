#include "bloomseq/blast/params.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "bloomseq/bloom/bloom_vector.hpp"
#include "bloomseq/error.hpp"
#include "bloomseq/model/equations.hpp"
#include "bloomseq/model/profiles.hpp"

namespace bloomseq {

Stage1aLayout parse_layout(const std::string& name) {
  if (name == "auto") return Stage1aLayout::automatic;
  if (name == "vector") return Stage1aLayout::vector;
  if (name == "bitsliced" || name == "bit-sliced") return Stage1aLayout::bitsliced;
  if (name == "paper-vector" || name == "paper") return Stage1aLayout::paper_vector;
  throw UsageError("unknown layout '" + name + "' (expected auto, vector, bitsliced or paper-vector)");
}

const char* layout_name(Stage1aLayout layout) {
  switch (layout) {
    case Stage1aLayout::automatic: return "auto";
    case Stage1aLayout::vector: return "vector";
    case Stage1aLayout::bitsliced: return "bitsliced";
    case Stage1aLayout::paper_vector: return "paper-vector";
  }
  return "?";
}

Stage1aLayout resolve_layout(Stage1aLayout requested, const LayoutShape& shape) {
  if (requested != Stage1aLayout::automatic) return requested;
  static const std::vector<model::CacheLevel> caches = model::detect_cpu_profile().caches;
  uint64_t l2 = 0, llc = 0;
  for (const auto& c : caches) {
    if (c.level == 2) l2 = c.size_bytes;
    if (c.level > 0) llc = std::max<uint64_t>(llc, c.size_bytes);
  }
  // The bit-sliced matrix: 64-bit words per row for up to 256 columns (narrow block), 64-byte lines per 512 beyond.
  const uint64_t V = std::max<uint64_t>(1, model::subquery_count(shape.query_bases, shape.n_sub, shape.w));
  const uint64_t narrow = V % 512 != 0 && V % 512 <= 256 ? V % 512 : 0;
  const uint64_t row_bytes = (V - narrow + 511) / 512 * 64 + (narrow == 0 ? 0 : narrow <= 64 ? 8 : narrow <= 128 ? 16 : 32);
  const double matrix = double(row_bytes) * double(shape.m_bits);
  const double vectors = double(V) * double(shape.m_bits) / 8.0;
  // Measured (docs/benchmarks.md, "layout crossover"): while the matrix stays in the last-level cache, k row reads
  // answer every sub-query at once and the bit-sliced layout is faster from one vector up; once it spills to DRAM
  // while the vectors still fit in L2, a miss per row costs more than probing the few vectors one by one.
  if (llc > 0 && l2 > 0 && matrix > double(llc) && vectors <= double(l2)) return Stage1aLayout::vector;
  return Stage1aLayout::bitsliced;
}

int default_probe_word(int w) { return w >= 20 ? 16 : 0; }

uint64_t default_cpu_sub_query(int probe_word) { return probe_word > 0 ? 2000 : 8000; }

void BlastParams::validate() const {
  auto bad = [](const std::string& s) { throw UsageError(s); };
  if (w < 1 || w > 32) bad("word size must be 1..32, got " + std::to_string(w));
  if (n_sub < uint64_t(w))
    bad("sub-query length (" + std::to_string(n_sub) + ") must be at least the word size (" + std::to_string(w) + ")");
  if (n_sub > (uint64_t(1) << 31)) bad("sub-query length too large: " + std::to_string(n_sub));
  if (k < 1 || k > kMaxHashes) bad("number of hash functions must be 1.." + std::to_string(kMaxHashes) + ", got " + std::to_string(k));
  if (m_bits < 64 || m_bits > kMaxBloomBits) bad("Bloom vector bits must be 64..2^32, got " + std::to_string(m_bits));
  if (threads < 1 || threads > 1024) bad("threads must be 1..1024, got " + std::to_string(threads));
  if (chunk_bases < 1024) bad("chunk size must be at least 1024 bases, got " + std::to_string(chunk_bases));
  if (batch_bases < 1) bad("batch size must be at least 1 base, got 0");
  if (reward <= 0) bad("reward must be positive, got " + std::to_string(reward));
  if (penalty >= 0) bad("penalty must be negative, got " + std::to_string(penalty));
  if (!(xdrop_bits >= 0) || !std::isfinite(xdrop_bits))
    bad("X-drop must be a positive number of bits (or 0: the ungapped cut-off)");
  if (!(evalue > 0) || !std::isfinite(evalue)) bad("E-value cutoff must be a positive number");
  if (probe_word < 0 || probe_word >= w)
    bad("probe word must be 0 (off) or 1..w-1, got " + std::to_string(probe_word) + " with w = " + std::to_string(w));
  if (exact_filter) {
    const int fw = filter_word();
    if (fw < 3 || fw > 16) bad("an exact filter needs a word of 3..16 bases (4^word >= 64 bits), got " + std::to_string(fw));
    if (k != 1 || m_bits != (uint64_t(1) << (2 * fw)))
      bad("an exact filter of " + std::to_string(fw) + "-mers needs k = 1 and m = 4^" + std::to_string(fw) + " bits");
  }
}

}  // namespace bloomseq
