#include "bloomseq/blast/subquery_vectors.hpp"

#include <algorithm>

#include "bloomseq/bloom/bloom_view.hpp"
#include "bloomseq/encode/dna.hpp"

namespace bloomseq {

SubqueryFilters::SubqueryFilters(const std::vector<std::vector<uint8_t>>& queries, const BlastParams& params,
                                 bool with_vectors, bool with_bitsliced)
    : family_(params.k, params.w, params.seed), m_bits_(params.m_bits) {
  params.validate();
  std::vector<uint64_t> lengths;
  for (const auto& q : queries) lengths.push_back(q.size());
  subqueries_ = split_subqueries(lengths, params.n_sub, params.w);
  const uint32_t V = uint32_t(subqueries_.size());
  words_per_vector_ = bloom_words(m_bits_);
  if (with_vectors) words_.assign(size_t(V) * words_per_vector_, 0);
  inserted_.assign(V, 0);
  if (with_bitsliced) {
    words_per_row_ = (uint64_t(V) + 511) / 512 * 8;
    matrix_.assign(size_t(m_bits_) * words_per_row_, 0);
  }
  const H3ByteView h = family_.byte_view();
  std::vector<uint64_t> keys;
  uint32_t hashes[kMaxHashes];
  for (uint32_t v = 0; v < V; ++v) {
    const SubQuery& s = subqueries_[v];
    keys.clear();
    for_each_wmer(queries[s.query_id].data() + s.offset, s.length, params.w,
                  [&](size_t, uint64_t fwd, uint64_t rc) { keys.push_back(canonical_wmer(fwd, rc)); });
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    inserted_[v] = keys.size();
    BloomView view{with_vectors ? words_.data() + size_t(v) * words_per_vector_ : nullptr, m_bits_};
    for (uint64_t key : keys) {
      h.hash_all(key, hashes);
      if (with_vectors) view.insert(hashes, params.k);
      if (with_bitsliced)
        for (int i = 0; i < params.k; ++i) {
          const uint64_t row = bloom_slot(hashes[i], m_bits_);
          matrix_[size_t(row) * words_per_row_ + v / 64] |= uint64_t(1) << (v % 64);
        }
    }
  }
}

SubqueryVectors SubqueryFilters::vectors() const {
  SubqueryVectors out;
  out.words = words_.data();
  out.count = count();
  out.m_bits = m_bits_;
  out.words_per_vector = words_per_vector_;
  out.k = family_.k();
  out.hash = family_.byte_view();
  return out;
}

BitslicedMatrix SubqueryFilters::bitsliced() const {
  BitslicedMatrix out;
  out.rows = matrix_.data();
  out.count = count();
  out.m_bits = m_bits_;
  out.words_per_row = words_per_row_;
  out.k = family_.k();
  out.hash = family_.byte_view();
  return out;
}

}  // namespace bloomseq
