#include "bloomseq/blast/params.hpp"

#include <cmath>

#include "bloomseq/bloom/bloom_vector.hpp"
#include "bloomseq/error.hpp"

namespace bloomseq {

Stage1aLayout parse_layout(const std::string& name) {
  if (name == "auto") return Stage1aLayout::automatic;
  if (name == "vector") return Stage1aLayout::vector;
  if (name == "bitsliced") return Stage1aLayout::bitsliced;
  if (name == "naive") return Stage1aLayout::naive;
  throw UsageError("unknown layout '" + name + "' (expected auto, vector, bitsliced or naive)");
}

const char* layout_name(Stage1aLayout layout) {
  switch (layout) {
    case Stage1aLayout::automatic: return "auto";
    case Stage1aLayout::vector: return "vector";
    case Stage1aLayout::bitsliced: return "bitsliced";
    case Stage1aLayout::naive: return "naive";
  }
  return "?";
}

Stage1aLayout resolve_layout(Stage1aLayout requested) {
  if (requested != Stage1aLayout::automatic) return requested;
  // Bit-sliced answers up to 256 vectors with k prefetched reads of one narrow row: measured faster than
  // vector-by-vector from a single vector up (docs/benchmarks.md), so the CPU always takes it.
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
  if (reward <= 0) bad("reward must be positive, got " + std::to_string(reward));
  if (penalty >= 0) bad("penalty must be negative, got " + std::to_string(penalty));
  if (!(xdrop_bits > 0) || !std::isfinite(xdrop_bits)) bad("X-drop must be a positive number of bits");
  if (!(evalue > 0) || !std::isfinite(evalue)) bad("E-value cutoff must be a positive number");
  if (probe_word < 0 || probe_word >= w)
    bad("probe word must be 0 (off) or 1..w-1, got " + std::to_string(probe_word) + " with w = " + std::to_string(w));
}

}  // namespace bloomseq
