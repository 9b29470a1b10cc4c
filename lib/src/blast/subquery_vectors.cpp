#include "bloomseq/blast/subquery_vectors.hpp"

#include <algorithm>

#include "bloomseq/blast/pipeline.hpp"
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
  const int k = params.k;
  words_per_vector_ = bloom_words(m_bits_);
  if (with_vectors) words_ = HugeBuffer<uint32_t>(size_t(V) * words_per_vector_);
  inserted_.assign(V, 0);
  const H3ByteView h = family_.byte_view();

  // Every sub-query's w-mers sorted by (canonical key, position): the verification lists of stage 1b, and (unique)
  // the keys inserted into the vector and the matrix column.
  key_begin_.assign(size_t(V) + 1, 0);
  key_count_.assign(V, 0);
  key_range_.assign(2 * size_t(V), 0);
  for (uint32_t v = 0; v < V; ++v) key_begin_[v + 1] = key_begin_[v] + subqueries_[v].length - uint64_t(params.w) + 1;
  // The top 8 bits of a 2w-bit key pick its bucket (all of them when 2w < 8; lists are at most n_sub long, so
  // uint32 offsets suffice).
  bucket_shift_ = std::max(0, 2 * params.w - 8);
  bucket_start_.assign(size_t(V) * (kKeyBuckets + 1), 0);
  keys_ = HugeBuffer<uint64_t>(key_begin_[V]);
  key_pos_ = HugeBuffer<uint32_t>(key_begin_[V]);
  const size_t per_unit = 64;  // vectors per work unit
  parallel_for((V + per_unit - 1) / per_unit, params.threads, [&](size_t unit) {
    struct Item {
      uint64_t key;
      uint32_t pos;
      uint8_t fwd;
      bool operator<(const Item& o) const { return key != o.key ? key < o.key : pos < o.pos; }
    };
    std::vector<Item> items;
    uint32_t hashes[kMaxHashes];
    for (uint32_t v = uint32_t(unit * per_unit); v < std::min<uint64_t>(V, (unit + 1) * per_unit); ++v) {
      const SubQuery& s = subqueries_[v];
      items.clear();
      for_each_wmer(queries[s.query_id].data() + s.offset, s.length, params.w, [&](size_t i, uint64_t fwd, uint64_t rc) {
        items.push_back({canonical_wmer(fwd, rc), uint32_t(s.offset + i), uint8_t(fwd <= rc)});
      });
      std::sort(items.begin(), items.end());
      key_count_[v] = items.size();
      if (!items.empty()) {
        key_range_[2 * size_t(v)] = items.front().key;
        key_range_[2 * size_t(v) + 1] = items.back().key;
      }
      BloomView view{with_vectors ? words_.data() + size_t(v) * words_per_vector_ : nullptr, m_bits_};
      uint64_t distinct = 0;
      for (size_t i = 0; i < items.size(); ++i) {
        const size_t at = size_t(key_begin_[v]) + i;
        keys_[at] = items[i].key;
        key_pos_[at] = items[i].pos | (items[i].fwd ? kFwdIsKey : 0u);
        if (i > 0 && items[i].key == items[i - 1].key) continue;
        ++distinct;
        if (with_vectors) {
          h.hash_all(items[i].key, hashes);
          view.insert(hashes, k);
        }
      }
      inserted_[v] = distinct;
      uint32_t* start = bucket_start_.data() + size_t(v) * (kKeyBuckets + 1);
      size_t at = 0;
      for (uint32_t b = 0; b <= kKeyBuckets; ++b) {
        while (at < items.size() && (items[at].key >> bucket_shift_) < b) ++at;
        start[b] = uint32_t(at);
      }
    }
  });
  if (!with_bitsliced) return;

  // Transpose into the matrix one column block (512 vectors, one cache line per row) at a time. The bits of a
  // block are first bucketed by row band so that each band's writes stay in L2 instead of missing all over it.
  words_per_row_ = (uint64_t(V) + 511) / 512 * 8;
  matrix_ = HugeBuffer<uint64_t>(size_t(m_bits_) * words_per_row_);
  const uint64_t kBandRows = 4096;  // 4096 rows x 64 bytes = 256 KiB
  const size_t bands = size_t((m_bits_ + kBandRows - 1) / kBandRows);
  const size_t blocks = size_t(words_per_row_ / 8);
  parallel_for(blocks, params.threads, [&](size_t b) {
    const uint32_t v0 = uint32_t(b * 512), v1 = std::min<uint32_t>(V, uint32_t(b * 512 + 512));
    thread_local std::vector<uint32_t> slots;
    thread_local std::vector<uint64_t> cells;
    slots.clear();
    std::vector<uint64_t> count(bands + 1, 0);
    uint32_t hashes[kMaxHashes];
    for (uint32_t v = v0; v < v1; ++v) {
      const WmerList l = wmers(v);
      for (size_t i = 0; i < l.n; ++i) {
        if (i > 0 && l.keys[i] == l.keys[i - 1]) continue;
        h.hash_all(l.keys[i], hashes);
        for (int j = 0; j < k; ++j) {
          const uint32_t row = uint32_t(bloom_slot(hashes[j], m_bits_));
          slots.push_back(row);
          slots.push_back(v - v0);
          ++count[row / kBandRows + 1];
        }
      }
    }
    for (size_t i = 0; i < bands; ++i) count[i + 1] += count[i];
    cells.resize(count[bands]);  // (row << 9) | column within the block
    for (size_t i = 0; i < slots.size(); i += 2) cells[count[slots[i] / kBandRows]++] = (uint64_t(slots[i]) << 9) | slots[i + 1];
    uint64_t* base = matrix_.data() + b * 8;
    for (uint64_t c : cells) {
      const uint64_t row = c >> 9, col = c & 511;
      base[row * words_per_row_ + col / 64] |= uint64_t(1) << (col % 64);
    }
  });
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
