#include "bloomseq/cuda/host_side.hpp"

#include <algorithm>
#include <string>

#include "bloomseq/error.hpp"

namespace bloomseq::cuda {

uint64_t chunk_bases(const DbChunk& chunk) {
  return std::min(chunk.n, chunk.n_starts + (chunk.w > 0 ? uint64_t(chunk.w) - 1 : 0));
}

void collect_stage1a_hits(const uint32_t* pos, const uint32_t* sub, uint64_t count, uint64_t first_pos,
                          std::vector<Stage1aHit>& hits) {
  const size_t at = hits.size();
  hits.reserve(at + count);
  for (uint64_t i = 0; i < count; ++i) hits.push_back({first_pos + pos[i], sub[i]});
  std::sort(hits.begin() + std::ptrdiff_t(at), hits.end());
}

FlatFilters flatten_filters(const FilterBank& bank) {
  FlatFilters flat;
  for (uint32_t f = 0; f < bank.count; ++f) {
    const ClassifyFilter& filter = bank.filters[f];
    FilterDesc d{};
    d.word_offset = flat.words.size();
    if (filter.group >= 0) {  // its group answers it
      d.layout = kInterleavedBin;
      flat.desc.push_back(d);
      continue;
    }
    d.m_bits = filter.bits.m_bits;
    d.k = uint32_t(filter.k);
    d.layout = uint32_t(filter.layout);
    flat.desc.push_back(d);
    flat.words.insert(flat.words.end(), filter.bits.words, filter.bits.words + bloom_words(filter.bits.m_bits));
    flat.k_max = std::max(flat.k_max, layout_hashes(filter.layout, filter.k));
  }
  for (uint32_t g = 0; g < bank.group_count; ++g) {
    const ClassifyGroup& grp = bank.groups[g];
    GroupDesc d{};
    if (flat.words.size() % 2) flat.words.push_back(0);  // rows are 64-bit words
    d.row_offset = flat.words.size();
    d.m_bits = grp.rows.m_bits;
    d.k = uint32_t(grp.k);
    d.bins = grp.rows.bins;
    d.words_per_row = grp.rows.words_per_row;
    const uint64_t row_words = grp.rows.m_bits * grp.rows.words_per_row;
    const uint32_t* halves = reinterpret_cast<const uint32_t*>(grp.rows.rows);  // little-endian: low half first
    flat.words.insert(flat.words.end(), halves, halves + 2 * row_words);
    d.bin_filter_offset = flat.words.size();
    flat.words.resize(flat.words.size() + grp.rows.bins, kNoFilter);
    flat.groups.push_back(d);
    flat.k_max = std::max(flat.k_max, grp.k);
  }
  for (uint32_t f = 0; f < bank.count; ++f)
    if (bank.filters[f].group >= 0)
      flat.words[flat.groups[size_t(bank.filters[f].group)].bin_filter_offset + bank.filters[f].bin] = f;
  flat.words.push_back(0);  // never empty
  return flat;
}

std::vector<uint32_t> nibble_tables_from(const H3ByteView& bytes, int k, int w) {
  const int nibbles = key_nibbles_for(w);
  if (k < 1 || k > bytes.k) throw UsageError("hash tables: k = " + std::to_string(k) + " exceeds the family");
  if (nibbles > 2 * bytes.key_bytes) throw UsageError("hash tables: word size exceeds the family's key");
  std::vector<uint32_t> out(size_t(nibbles) * 16 * size_t(k));
  auto byte_entry = [&](int b, int v, int i) { return bytes.tables[(size_t(b) * 256 + size_t(v)) * size_t(bytes.k) + size_t(i)]; };
  for (int n = 0; n < nibbles; ++n)
    for (int v = 0; v < 16; ++v)
      for (int i = 0; i < k; ++i) {
        const int b = n / 2;
        // Byte entries XOR the rows of the set bits (plus the affine constant in byte 0): the low nibble is the
        // entry of v, the high nibble that of v << 4 without the entry of 0 (which holds the constant).
        const uint32_t h = n % 2 == 0 ? byte_entry(b, v, i) : byte_entry(b, v << 4, i) ^ byte_entry(b, 0, i);
        out[(size_t(n) * 16 + size_t(v)) * size_t(k) + size_t(i)] = h;
      }
  return out;
}

void check_bank(const FilterBank& bank) {
  if (!bank.family) throw UsageError("classify: filter bank without a hash family");
  auto check_k = [&](const std::string& what, int k) {
    if (k < 1 || k > bank.family->k())
      throw UsageError("classify: " + what + " uses k = " + std::to_string(k) + " but the hash family has " +
                       std::to_string(bank.family->k()) + " functions");
  };
  for (uint32_t g = 0; g < bank.group_count; ++g) {
    const ClassifyGroup& grp = bank.groups[g];
    check_k("interleaved group " + std::to_string(g), grp.k);
    if (grp.rows.m_bits == 0 || grp.rows.bins == 0 || grp.rows.words_per_row != interleaved_row_words(grp.rows.bins))
      throw UsageError("classify: interleaved group " + std::to_string(g) + " has no bits or an inconsistent row size");
  }
  for (uint32_t f = 0; f < bank.count; ++f) {
    const ClassifyFilter& flt = bank.filters[f];
    if (flt.group >= 0) {
      if (uint32_t(flt.group) >= bank.group_count || flt.bin >= bank.groups[flt.group].rows.bins)
        throw UsageError("classify: filter " + std::to_string(f) + " is not a bin of one of the bank's groups");
      continue;
    }
    check_k("filter " + std::to_string(f), flt.k < 1 ? flt.k : layout_hashes(flt.layout, flt.k));
    if (flt.bits.m_bits == 0) throw UsageError("classify: filter " + std::to_string(f) + " has no bits");
  }
}

}  // namespace bloomseq::cuda
