#include "bloomseq/blast/subquery_vectors.hpp"

#include <emmintrin.h>
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "bloomseq/blast/pipeline.hpp"
#include "bloomseq/bloom/bloom_view.hpp"
#include "bloomseq/encode/dna.hpp"
#include "bloomseq/error.hpp"

namespace bloomseq {

SubqueryFilters::SubqueryFilters(const std::vector<std::vector<uint8_t>>& queries, const BlastParams& params,
                                 bool with_vectors, bool with_bitsliced, bool by_position)
    : family_(params.exact_filter ? H3Family::injective(params.w) : H3Family(params.k, params.w, params.seed)),
      m_bits_(params.m_bits) {
  params.validate();
  const int w = params.w;
  w_ = w;
  for (const auto& q : queries) lengths_.push_back(q.size());
  const std::vector<uint64_t>& lengths = lengths_;
  subqueries_ = split_subqueries(lengths, params.n_sub, w);
  const uint32_t V = uint32_t(subqueries_.size());
  stride_ = FastDivide32(uint32_t(params.n_sub - uint64_t(w) + 1));
  // A packed record's w-mer starts are fewer than the stride: subquery_of divides them to 0.
  first_subquery_.assign(queries.size(), 0);
  for (uint32_t v = V; v-- > 0;)
    for (uint32_t r = subqueries_[v].query_id; r < subqueries_[v].query_id + subqueries_[v].records; ++r)
      first_subquery_[r] = v;

  uint64_t starts = 0;
  for (uint64_t n : lengths) starts += n >= uint64_t(w) ? n - uint64_t(w) + 1 : 0;
  if (starts >= UINT32_MAX) throw DataError("query too large: " + std::to_string(starts) + " w-mers (limit 2^32 - 1)");
  // Stage-1b index. When all 4^w keys fit in 2^22 slots and the query has between 1/16 and 1/2 as many w-mers
  // (so most keys it holds occur once), it is direct-mapped (build_direct_index): one look-up reads one slot, which
  // holds the occurrence itself when the key occurs once. Otherwise a counting sort by the top bits of the
  // canonical key (build_grouped_index); with more w-mers most keys occur several times, and the grouped index,
  // half the slot size, measured faster (E. coli as query, w = 11).
  // 4^w keys; only compared when 2 * w <= 22 (and a shift by 2 * w is undefined for w = 32).
  const uint64_t keys = 2 * w <= 22 ? uint64_t(1) << (2 * w) : 0;
  int index_threads = 1;
  auto build_index = [&] {
    if (by_position && w < 32) {
      build_position_words(queries, w);  // inserted_ is counted when first asked for
    } else if (keys && keys <= 16 * starts && starts <= keys / 2 && queries.size() < (size_t(1) << 31))
      build_direct_index(queries, w, starts, index_threads);
    else
      build_grouped_index(queries, w, starts, index_threads);
    // inserted_ is counted when first asked for (only --stats and the model ask): a pass over the whole index.
  };
  words_per_vector_ = bloom_words(m_bits_);
  auto build_filters = [&] {
    if (with_vectors) build_vectors(queries, params);
    if (with_bitsliced) build_bitsliced(queries, params);
  };
  // Exact filters (one bit per key, no hashing) take a fraction of the index's time: the index is then built
  // first on every thread, as it is when there are no filters (a genome as query, two threads: the build 0.21 ->
  // 0.19 s, medians of 4 runs; the threads share the random writes but each reads every w-mer).
  if (params.threads <= 1 || !(with_vectors || with_bitsliced) || (params.exact_filter && !with_bitsliced)) {
    index_threads = params.threads;
    build_index();
    build_filters();
    return;
  }
  // The index is one thread's work (a counting sort) and reads the query as the filters do, writing apart from
  // them: it is built on a thread of its own beside the filters (E. coli as query, two threads: the build took
  // 0.39 s of a 1.5-s search one after the other).
  RunBeside index(build_index);
  build_filters();
  index.join();
}

uint64_t SubqueryFilters::starts_of(uint32_t v) const {
  uint64_t n = 0;
  for_each_piece(subqueries_[v], [&](uint32_t r) { return record_length(r); }, [&](uint32_t, uint64_t, uint64_t len) {
    n += len >= uint64_t(w_) ? len - uint64_t(w_) + 1 : 0;
  });
  return n;
}

// The Bloom vectors: every w-mer of each sub-query inserted (inserting a repeated w-mer again changes nothing).
void SubqueryFilters::build_vectors(const std::vector<std::vector<uint8_t>>& queries, const BlastParams& params) {
  const int w = params.w;
  const int k = params.k;
  const uint32_t V = uint32_t(subqueries_.size());
  const H3ByteView h = family_.byte_view();
  words_ = HugeBuffer<uint32_t>(size_t(V) * words_per_vector_);
  // An exact filter's injective hash maps each key to its own bit, the key itself (bloom_slot of key << (32 - 2w)
  // with m = 4^w): set it without hashing (a genome as query: 0.1 s of byte-table look-ups).
  const bool key_is_bit = family_.is_injective() && k == 1 && 2 * w < 64 && m_bits_ == uint64_t(1) << (2 * w);
  parallel_for(V, params.threads, [&](size_t v) {
    const SubQuery& sq = subqueries_[v];
    if (key_is_bit) {
      uint32_t* words = words_.data() + v * words_per_vector_;
      for_each_piece(sq, [&](uint32_t r) { return queries[r].size(); }, [&](uint32_t r, uint64_t off, uint64_t len) {
        for_each_wmer(queries[r].data() + off, len, w,
                      [&](size_t, uint64_t fwd, uint64_t rc) { set_bit(words, canonical_wmer(fwd, rc)); });
      });
      return;
    }
    BloomView view{words_.data() + v * words_per_vector_, m_bits_};
    uint32_t hashes[kMaxHashes];
    for_each_piece(sq, [&](uint32_t r) { return queries[r].size(); }, [&](uint32_t r, uint64_t off, uint64_t len) {
      for_each_wmer(queries[r].data() + off, len, w, [&](size_t, uint64_t fwd, uint64_t rc) {
        h.hash_all(canonical_wmer(fwd, rc), hashes);
        view.insert(hashes, k);
      });
    });
  });
}

// One function: build_blocks below is one thread's share of the column blocks, with its buffers.
void SubqueryFilters::build_bitsliced(const std::vector<std::vector<uint8_t>>& queries, const BlastParams& params) {
  const int w = params.w;
  const int k = params.k;
  const uint32_t V = uint32_t(subqueries_.size());
  const H3ByteView h = family_.byte_view();
  // Transpose into the matrix one column block at a time; the blocks are stored one after the other (each block's
  // rows contiguous), so a block is written as one sequential stream and stage 1a, which scans one block at a time,
  // touches only that block's pages (16 MB at m = 256 Kbit) rather than pages shared by all blocks. The bits of a
  // block are first bucketed by row band so that each band's writes stay in L2 instead of missing all over it.
  // Up to 256 columns a block is narrow, 1, 2 or 4 words per row: the whole matrix of a query of a few sub-queries
  // (a few MB) then stays in cache, and the last, partly filled block of a longer query costs what its columns
  // need rather than a full 64-byte line per row.
  const uint64_t rem = V % 512;
  const uint64_t narrow = V <= 256 ? V : (rem != 0 && rem <= 256) ? rem : 0;
  full_blocks_ = (V - narrow) / 512 + ((V - narrow) % 512 != 0);
  tail_words_ = narrow == 0 ? 0 : narrow <= 64 ? 1 : narrow <= 128 ? 2 : 4;
  words_per_row_ = full_blocks_ * 8 + tail_words_;
  // Ordinary 4 KiB pages: stage 1a reads one block (16 MB) at a time, and a fresh 2 MiB huge page costs ~4x the
  // first-touch time of the same bytes in small pages on this kind of VM (huge_buffer.hpp).
  matrix_ = HugeBuffer<uint64_t>(size_t(m_bits_) * words_per_row_, false);
  const uint64_t kBandRows = 4096;  // 4096 rows x 64 bytes = 256 KiB
  const size_t bands = size_t((m_bits_ + kBandRows - 1) / kBandRows);
  const size_t blocks = size_t(full_blocks_ + (tail_words_ ? 1 : 0));
  // A cell is (row << 9) | column within the block: 32 bits when m <= 2^23 (half the traffic of the bucketing).
  // Each band of a block is assembled in a small tile (256 KiB, in L2) and then written out whole, with streaming
  // stores where the rows are whole lines: the matrix lines are written once, never read first (ORing the bits
  // straight into the fresh matrix would cost a cache miss per line, about 30% of the build).
  const uint64_t tile_words = full_blocks_ ? 8 : tail_words_;  // the widest block's row
  auto build_blocks = [&](size_t t, size_t T, auto cell_type) {
    using Cell = decltype(cell_type);
    std::unique_ptr<Cell[]> cells;  // reused across this thread's blocks, never zero-filled
    size_t capacity = 0;
    std::vector<uint64_t> count(bands + 1), lo(bands);
    std::unique_ptr<uint64_t[]> tile(new uint64_t[size_t(kBandRows * tile_words)]);
    // The block's cells, by band.
    // With k known at compile time (K > 0) the k table columns are XORed in registers (about 3x faster than a loop over k).
    auto for_each_cell_k = [&](auto k_const, uint32_t v0, uint32_t v1, auto&& f) {
      constexpr int K = decltype(k_const)::value;
      const int kk = K > 0 ? K : k;
      uint32_t hashes[kMaxHashes];
      for (uint32_t v = v0; v < v1; ++v) {
        const SubQuery& sq = subqueries_[v];
        const Cell col = Cell(v - v0);
        for_each_piece(sq, [&](uint32_t rec) { return queries[rec].size(); },
                       [&](uint32_t rec, uint64_t off, uint64_t len) {
        for_each_wmer(queries[rec].data() + off, len, w, [&](size_t, uint64_t fwd, uint64_t rc) {
          const uint64_t key = canonical_wmer(fwd, rc);
          if (K > 0) {
            uint32_t x[K > 0 ? K : 1] = {};
            for (int b = 0; b < h.key_bytes; ++b) {
              const uint32_t* tab = h.tables + (size_t(b) * 256 + ((key >> (8 * b)) & 0xFF)) * size_t(K);
              for (int j = 0; j < K; ++j) x[j] ^= tab[j];
            }
            for (int j = 0; j < K; ++j) hashes[j] = x[j];
          } else {
            h.hash_all(key, hashes);
          }
          for (int j = 0; j < kk; ++j) {
            const Cell row = Cell(bloom_slot(hashes[j], m_bits_));
            f(size_t(row / kBandRows), Cell((row << 9) | col));
          }
        });
        });
      }
    };
    auto for_each_cell = [&](uint32_t v0, uint32_t v1, auto&& f) {
      switch (k) {
        case 4: return for_each_cell_k(std::integral_constant<int, 4>(), v0, v1, f);
        case 6: return for_each_cell_k(std::integral_constant<int, 6>(), v0, v1, f);
        case 8: return for_each_cell_k(std::integral_constant<int, 8>(), v0, v1, f);
        default: return for_each_cell_k(std::integral_constant<int, 0>(), v0, v1, f);
      }
    };
    for (size_t b = t; b < blocks; b += T) {
      const uint32_t v0 = uint32_t(b * 512), v1 = std::min<uint32_t>(V, uint32_t(b * 512 + 512));
      uint64_t n = 0;
      for (uint32_t v = v0; v < v1; ++v) n += starts_of(v);
      // One hashing pass: band i's cells go to [i * room, (i + 1) * room), room = its expected share plus 8
      // standard deviations (the hash values are uniform, so random w-mers never fill it). A block whose w-mers
      // crowd one band past that (long repeats) is bucketed again with an exact count first.
      const double mean = double(n) * double(k) / double(bands);
      const size_t room = size_t(mean + 8.0 * std::sqrt(mean) + 64.0);
      const size_t need = std::max(size_t(n) * size_t(k), room * bands);
      if (need > capacity) {
        capacity = need;
        cells.reset(new Cell[capacity]);
      }
      bool overflow = false;
      for (size_t i = 0; i < bands; ++i) count[i] = lo[i] = i * room;
      for_each_cell(v0, v1, [&](size_t band, Cell c) {
        if (count[band] < lo[band] + room) cells[count[band]++] = c;
        else overflow = true;
      });
      if (overflow) {
        std::fill(count.begin(), count.end(), 0);
        for_each_cell(v0, v1, [&](size_t band, Cell) { ++count[band + 1]; });
        for (size_t i = 0; i < bands; ++i) count[i + 1] += count[i];
        for (size_t i = 0; i < bands; ++i) lo[i] = count[i];
        for_each_cell(v0, v1, [&](size_t band, Cell c) { cells[count[band]++] = c; });
      }
      // Band i's cells are now [lo[i], count[i]).
      const uint64_t bw = b < full_blocks_ ? 8 : tail_words_;  // words of a row in this block
      uint64_t* base = matrix_.data() + b * m_bits_ * 8;
      for (size_t band = 0; band < bands; ++band) {
        const uint64_t r0 = uint64_t(band) * kBandRows, r1 = std::min<uint64_t>(m_bits_, r0 + kBandRows);
        std::fill(tile.get(), tile.get() + size_t((r1 - r0) * bw), uint64_t(0));
        for (size_t at = lo[band]; at < count[band]; ++at) {
          const uint64_t row = uint64_t(cells[at] >> 9) - r0, col = uint64_t(cells[at] & 511);
          tile[row * bw + col / 64] |= uint64_t(1) << (col % 64);
        }
        // The band's rows are contiguous in the block: one sequential copy, with streaming stores for the full
        // blocks (their lines are written once and not read until stage 1a).
        const size_t words = size_t((r1 - r0) * bw);
        if (bw == 8) {
          const __m128i* src = reinterpret_cast<const __m128i*>(tile.get());
          __m128i* dst = reinterpret_cast<__m128i*>(base + r0 * 8);
          for (size_t x = 0; x < words / 2; ++x) _mm_stream_si128(dst + x, _mm_loadu_si128(src + x));
        } else {
          std::copy(tile.get(), tile.get() + words, base + r0 * bw);
        }
      }
    }
    _mm_sfence();  // the streaming stores are visible before the matrix is read
  };
  const size_t T = std::min<size_t>(size_t(params.threads), blocks);
  parallel_for(T, int(T), [&](size_t t) {
    if (m_bits_ <= (uint64_t(1) << 23)) build_blocks(t, T, uint32_t());
    else build_blocks(t, T, uint64_t());
  });
}

namespace {

// Where T threads split a range of canonical keys (or of their top bits) to get about 1/T of the w-mers each:
// thread t takes [cut[t], cut[t + 1]). A canonical key is the smaller of a w-mer's two strands' keys, so for DNA
// without strand bias a fraction 1 - (1 - x)^2 of them lies below x of the key range (3/4 in the first half: an
// even split left one thread alone for the last ~50 ms of E. coli's index on two threads); thread t starts at
// 1 - sqrt(1 - t / T) of the range.
std::vector<uint64_t> canonical_key_cuts(uint64_t range, size_t T) {
  std::vector<uint64_t> cut(T + 1, range);
  for (size_t t = 0; t < T; ++t)
    cut[t] = std::min<uint64_t>(range, uint64_t(double(range) * (1.0 - std::sqrt(1.0 - double(t) / double(T)))));
  return cut;
}

// An occurrence on its way to the index: its key, and where it goes once reserved.
struct PendingOccurrence {
  uint64_t key;
  SubqueryFilters::Occurrence occ;
  uint32_t at;
};

// The placing pass of the index's counting sort: every query w-mer whose canonical key mine(key) accepts, in query
// order. touch(key) prefetches its counter when the w-mer is read, reserve(p) takes its destination (and prefetches
// it) kAhead / 2 w-mers later, and place(p) writes it kAhead / 2 w-mers after that.
template <class Mine, class Touch, class Reserve, class Place>
void place_occurrences(const std::vector<std::vector<uint8_t>>& queries, int w, Mine mine, Touch touch,
                       Reserve reserve, Place place) {
  constexpr size_t kAhead = 16, kHalf = kAhead / 2;
  PendingOccurrence ring[kAhead];
  size_t n_seen = 0;
  for (uint32_t r = 0; r < uint32_t(queries.size()); ++r)
    for_each_wmer(queries[r].data(), queries[r].size(), w, [&](size_t i, uint64_t fwd, uint64_t rc) {
      const uint64_t key = canonical_wmer(fwd, rc);
      if (!mine(key)) return;
      touch(key);
      if (n_seen >= kHalf) reserve(ring[(n_seen - kHalf) % kAhead]);
      PendingOccurrence& slot = ring[n_seen % kAhead];
      if (n_seen >= kAhead) place(slot);
      slot = PendingOccurrence{
          key, SubqueryFilters::Occurrence{r, uint32_t(i) | (fwd <= rc ? SubqueryFilters::kFwdIsKey : 0u)}, 0};
      ++n_seen;
    });
  for (size_t j = n_seen > kAhead ? n_seen - kAhead : 0; j < n_seen; ++j) {
    PendingOccurrence& p = ring[j % kAhead];
    if (j + kHalf >= n_seen) reserve(p);  // not reserved yet
    place(p);
  }
}

}  // namespace

void SubqueryFilters::build_grouped_index(const std::vector<std::vector<uint8_t>>& queries, int w, uint64_t starts,
                                          int threads) {
  // A counting sort of every valid query w-mer by the top bits of its canonical key. When all 2w bits fit in 2^22
  // slots and there are about as many w-mers, the slot is the key (no keys stored); otherwise the keys are stored
  // and a slot holds ~8 of them (the table then stays cached while it is built, and a look-up still reads one or
  // two lines of keys).
  int bits = 8;
  while (bits < 22 && (uint64_t(1) << bits) < 2 * starts) ++bits;
  if (bits < 2 * w) {
    bits = 8;
    while (bits < 20 && (uint64_t(8) << bits) < starts) ++bits;
  }
  bits = std::min(bits, 2 * w);
  group_shift_ = 2 * w - bits;
  const bool keep_keys = group_shift_ > 0;
  group_start_ = HugeBuffer<uint32_t>((size_t(1) << bits) + 1);
  uint32_t* start = group_start_.data();
  const size_t groups = size_t(1) << bits;
  // On several threads each takes a range of groups: it reads every query w-mer (a roll of the key, ~1 ns) and
  // counts and places only its own, so the random counter and entry writes (tens of ns each, most of the build)
  // are shared, no two threads write the same counter or entry, and each group's entries still come in query
  // order. Not worth it below a million w-mers.
  const size_t T = starts < (uint64_t(1) << 20) ? 1 : size_t(std::clamp(threads, 1, 64));
  const std::vector<uint64_t> cut = canonical_key_cuts(groups, T);
  auto range_of = [&](size_t t) { return std::pair<uint64_t, uint64_t>(cut[t], cut[t + 1]); };
  // The counters are random in up to 16 MB: each w-mer's counter is prefetched kAhead w-mers before it is used
  // (a small ring holds the w-mers in between). Counts go to start[g + 1], so that after the prefix sum start[g]
  // is the first slot of group g.
  constexpr size_t kAhead = 16;
  parallel_for(T, int(T), [&](size_t t) {
    const std::pair<uint64_t, uint64_t> range = range_of(t);
    const uint64_t g_lo = range.first, g_hi = range.second;
    uint64_t ring[kAhead];
    size_t n_seen = 0;
    for (const auto& q : queries)
      for_each_wmer(q.data(), q.size(), w, [&](size_t, uint64_t fwd, uint64_t rc) {
        const uint64_t g = canonical_wmer(fwd, rc) >> group_shift_;
        if (g < g_lo || g >= g_hi) return;
        __builtin_prefetch(start + g + 1, 1);
        if (n_seen >= kAhead) ++start[ring[n_seen % kAhead] + 1];
        ring[n_seen % kAhead] = g;
        ++n_seen;
      });
    for (size_t j = n_seen > kAhead ? n_seen - kAhead : 0; j < n_seen; ++j) ++start[ring[j % kAhead] + 1];
  });
  for (size_t g = 0; g < groups; ++g) start[g + 1] += start[g];
  const uint32_t total = start[groups];
  occ_ = HugeBuffer<Occurrence>(total);
  if (keep_keys) occ_keys_ = HugeBuffer<uint64_t>(total);
  // Placement uses start[g] itself as group g's fill counter (it ends at the start of group g + 1; shifted back
  // below). The counter of each w-mer is prefetched kAhead w-mers ahead and its destination kAhead / 2 ahead.
  parallel_for(T, int(T), [&](size_t t) {
    const std::pair<uint64_t, uint64_t> range = range_of(t);
    const uint64_t g_lo = range.first, g_hi = range.second;
    place_occurrences(
        queries, w,
        [&](uint64_t key) {
          const uint64_t g = key >> group_shift_;
          return g >= g_lo && g < g_hi;
        },
        [&](uint64_t key) { __builtin_prefetch(start + (key >> group_shift_), 1); },
        [&](PendingOccurrence& p) {
          p.at = start[p.key >> group_shift_]++;
          __builtin_prefetch(occ_.data() + p.at, 1);
          if (keep_keys) __builtin_prefetch(occ_keys_.data() + p.at, 1);
        },
        [&](const PendingOccurrence& p) {
          occ_[p.at] = p.occ;
          if (keep_keys) occ_keys_[p.at] = p.key;
        });
  });
  std::memmove(start + 1, start, groups * sizeof(uint32_t));
  start[0] = 0;
  // Within a group: by key (the counting sort already left each key's occurrences in record and position order).
  // Groups hold a few keys: a stable insertion sort in place; long groups (repeats) by index-stable std::sort.
  if (!keep_keys) return;
  parallel_for(T, int(T), [&](size_t t) {
    const std::pair<uint64_t, uint64_t> range = range_of(t);
    const uint64_t g_lo = range.first, g_hi = range.second;
    std::vector<std::pair<uint64_t, uint32_t>> tmp;  // (key, index): distinct, so std::sort keeps index order
    std::vector<Occurrence> occ_tmp;
    uint64_t* keys = occ_keys_.data();
    Occurrence* occ = occ_.data();
    for (size_t g = g_lo; g < g_hi; ++g) {
      const uint32_t lo = start[g], hi = start[g + 1];
      if (hi - lo <= 32) {
        for (uint32_t i = lo + 1; i < hi; ++i) {
          const uint64_t key = keys[i];
          if (keys[i - 1] <= key) continue;
          const Occurrence o = occ[i];
          uint32_t j = i;
          for (; j > lo && keys[j - 1] > key; --j) {
            keys[j] = keys[j - 1];
            occ[j] = occ[j - 1];
          }
          keys[j] = key;
          occ[j] = o;
        }
        continue;
      }
      bool sorted = true;
      for (uint32_t i = lo + 1; i < hi && sorted; ++i) sorted = keys[i - 1] <= keys[i];
      if (sorted) continue;
      tmp.clear();
      for (uint32_t i = lo; i < hi; ++i) tmp.push_back({keys[i], i});
      std::sort(tmp.begin(), tmp.end());
      occ_tmp.assign(occ + lo, occ + hi);
      for (uint32_t i = lo; i < hi; ++i) {
        keys[i] = tmp[i - lo].first;
        occ[i] = occ_tmp[tmp[i - lo].second - lo];
      }
    }
  });
}

void SubqueryFilters::build_direct_index(const std::vector<std::vector<uint8_t>>& queries, int w, uint64_t starts,
                                         int threads) {
  // One slot per key (4^w <= 2^22 slots, 32 MB at w = 11). A key occurring once has its occurrence in the slot
  // itself (most looked-up keys of a query up to a few Mbases: one cache miss per look-up); the slot of any other
  // key holds kIndirect | count and the end of its occurrences in occ_ (the start of the key's range before they are
  // placed, used as the fill counter). Each pass prefetches the slot of a w-mer kAhead w-mers before it is used.
  // On several threads each takes a range of keys, as in build_grouped_index: it reads every w-mer and counts and
  // places its own, so the slots' first writes and random updates are shared (S. suis as query, two threads: the
  // index was one thread's 0.17 s) and each key's occurrences still come in query order.
  constexpr size_t kAhead = 16;
  const size_t slots = size_t(1) << (2 * w);
  direct_ = HugeBuffer<Occurrence>(slots, false);  // zeroed: no occurrences counted yet
  Occurrence* d = direct_.data();
  const size_t T = starts < (uint64_t(1) << 20) ? 1 : size_t(std::clamp(threads, 1, 64));
  const std::vector<uint64_t> cut = canonical_key_cuts(slots, T);
  parallel_for(T, int(T), [&](size_t t) {
    const uint64_t lo = cut[t], hi = cut[t + 1];
    uint64_t ring[kAhead];
    size_t n_seen = 0;
    for (const auto& q : queries)
      for_each_wmer(q.data(), q.size(), w, [&](size_t, uint64_t fwd, uint64_t rc) {
        const uint64_t key = canonical_wmer(fwd, rc);
        if (key < lo || key >= hi) return;
        __builtin_prefetch(d + key, 1);
        if (n_seen >= kAhead) ++d[ring[n_seen % kAhead]].query;
        ring[n_seen % kAhead] = key;
        ++n_seen;
      });
    for (size_t j = n_seen > kAhead ? n_seen - kAhead : 0; j < n_seen; ++j) ++d[ring[j % kAhead]].query;
  });
  // Each range's indirect occurrences, then their place in occ_: after the ranges before it.
  std::vector<uint32_t> base(T + 1, 0);
  parallel_for(T, int(T), [&](size_t t) {
    uint32_t n = 0;
    for (size_t g = cut[t]; g < cut[t + 1]; ++g)
      if (d[g].query != 1) n += d[g].query;
    base[t + 1] = n;
  });
  for (size_t t = 0; t < T; ++t) base[t + 1] += base[t];
  parallel_for(T, int(T), [&](size_t t) {
    uint32_t total = base[t];
    for (size_t g = cut[t]; g < cut[t + 1]; ++g) {
      const uint32_t c = d[g].query;
      if (c == 1) continue;  // stays direct: the occurrence replaces the count below
      d[g] = Occurrence{kIndirect | c, total};
      total += c;
    }
  });
  occ_ = HugeBuffer<Occurrence>(base[T]);
  parallel_for(T, int(T), [&](size_t t) {
    const uint64_t lo = cut[t], hi = cut[t + 1];
    // at: in occ_, or UINT32_MAX for an occurrence that goes into the slot itself.
    place_occurrences(
        queries, w, [&](uint64_t key) { return key >= lo && key < hi; },
        [&](uint64_t key) { __builtin_prefetch(d + key, 1); },
        [&](PendingOccurrence& p) {
          Occurrence& slot = d[p.key];
          p.at = UINT32_MAX;
          if (slot.query & kIndirect) {
            p.at = slot.pos++;
            __builtin_prefetch(occ_.data() + p.at, 1);
          }
        },
        [&](const PendingOccurrence& p) {
          if (p.at == UINT32_MAX) d[p.key] = p.occ;
          else occ_[p.at] = p.occ;
        });
  });
}

void SubqueryFilters::build_position_words(const std::vector<std::vector<uint8_t>>& queries, int w) {
  by_position_ = true;
  w_ = w;
  word_start_.assign(queries.size(), 0);
  uint64_t n = 0;
  for (size_t r = 0; r < queries.size(); ++r) {
    word_start_[r] = n;
    n += queries[r].size() >= uint64_t(w) ? queries[r].size() - uint64_t(w) + 1 : 0;
  }
  words_at_ = HugeBuffer<uint64_t>(n, false);  // written once, in order
  uint64_t* out = words_at_.data();
  for (const auto& q : queries) {
    WmerRoller roller(w);
    for (size_t i = 0; i < q.size(); ++i) {
      const bool valid = roller.push(q[i]);
      if (i + 1 >= size_t(w)) *out++ = valid ? roller.fwd : kNoWord;
    }
  }
}

namespace {
// The first i in [from, n) with at[i] == a or at[i] == b, else n. A sub-query is scanned per probe hit, ~1,000
// words: four at a time where AVX2 is there (a search against a similar genome has tens of thousands of hits).
uint64_t find_either(const uint64_t* at, uint64_t from, uint64_t n, uint64_t a, uint64_t b) {
  for (uint64_t i = from; i < n; ++i)
    if (at[i] == a || at[i] == b) return i;
  return n;
}
__attribute__((target("avx2"))) uint64_t find_either_avx2(const uint64_t* at, uint64_t from, uint64_t n, uint64_t a,
                                                          uint64_t b) {
  const __m256i va = _mm256_set1_epi64x(int64_t(a)), vb = _mm256_set1_epi64x(int64_t(b));
  uint64_t i = from;
  for (; i + 4 <= n; i += 4) {
    const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(at + i));
    const __m256i eq = _mm256_or_si256(_mm256_cmpeq_epi64(x, va), _mm256_cmpeq_epi64(x, vb));
    const int m = _mm256_movemask_pd(_mm256_castsi256_pd(eq));
    if (m != 0) return i + uint64_t(__builtin_ctz(unsigned(m)));
  }
  return find_either(at, i, n, a, b);
}
}  // namespace

void SubqueryFilters::subquery_occurrences(uint32_t v, uint64_t key, std::vector<Occurrence>& out) const {
  out.clear();
  const uint64_t rc = revcomp_wmer(key, w_);
  // The plus-strand w-mer is the key (kFwdIsKey) or its reverse complement (then the key is the minus strand's).
  static const bool avx2 = __builtin_cpu_supports("avx2");
  auto find = avx2 ? find_either_avx2 : find_either;
  for_each_piece(subqueries_[v], [&](uint32_t r) { return record_length(r); },
                 [&](uint32_t r, uint64_t off, uint64_t len) {
                   if (len < uint64_t(w_)) return;
                   const uint64_t* at = words_at_.data() + word_start_[r] + off;
                   const uint64_t n = len - uint64_t(w_) + 1;
                   for (uint64_t i = find(at, 0, n, key, rc); i < n; i = find(at, i + 1, n, key, rc))
                     out.push_back(Occurrence{r, uint32_t(off + i) | (at[i] == key ? kFwdIsKey : 0u)});
                 });
}

void SubqueryFilters::count_distinct_by_position() const {
  // Distinct canonical keys per sub-query in a small open-addressing set (sorting each sub-query's keys took ~35 ns
  // a w-mer); an entry belongs to the current sub-query when its stamp says so, so the set is never cleared.
  inserted_.assign(subqueries_.size(), 0);
  std::vector<uint64_t> keys;
  std::vector<uint32_t> stamps;
  int bits = 4;
  for (uint32_t v = 0; v < uint32_t(subqueries_.size()); ++v) {
    const uint64_t n = starts_of(v);
    if (n == 0) continue;
    while ((uint64_t(1) << bits) < 2 * n) ++bits;
    if (keys.size() < (size_t(1) << bits)) {
      keys.assign(size_t(1) << bits, 0);
      stamps.assign(size_t(1) << bits, 0);
    }
    const uint64_t mask = (uint64_t(1) << bits) - 1;
    uint64_t distinct = 0;
    for_each_piece(subqueries_[v], [&](uint32_t r) { return record_length(r); },
                   [&](uint32_t r, uint64_t off, uint64_t len) {
      if (len < uint64_t(w_)) return;
      const uint64_t* at = words_at_.data() + word_start_[r] + off;
      for (uint64_t i = 0; i + uint64_t(w_) <= len; ++i) {
        if (at[i] == kNoWord) continue;
        const uint64_t key = canonical_wmer(at[i], revcomp_wmer(at[i], w_));
        for (uint64_t h = (key * 0x9E3779B97F4A7C15ull) >> (64 - bits);; h = (h + 1) & mask) {
          if (stamps[h] != v + 1) {
            stamps[h] = v + 1;
            keys[h] = key;
            ++distinct;
            break;
          }
          if (keys[h] == key) break;
        }
      }
    });
    inserted_[v] = distinct;
  }
}

void SubqueryFilters::count_distinct() const {
  // Distinct keys per sub-query (the n of the FPR formula): each key's occurrences come in sub-query order.
  inserted_.assign(subqueries_.size(), 0);
  if (!direct_.empty()) {
    for (size_t g = 0; g < direct_.size(); ++g) {
      const Occurrence *o, *end;
      occurrences(g, o, end);
      uint32_t last_v = UINT32_MAX;
      for (; o < end; ++o) {
        const uint32_t v = subquery_of(o->query, o->pos & ~kFwdIsKey);
        if (v != last_v) ++inserted_[v];
        last_v = v;
      }
    }
    return;
  }
  const bool keep_keys = group_shift_ > 0;
  const size_t groups = group_start_.size() - 1;
  const uint32_t* start = group_start_.data();
  for (size_t g = 0; g < groups; ++g) {
    uint64_t last_key = 0;
    uint32_t last_v = UINT32_MAX;
    for (uint32_t i = start[g]; i < start[g + 1]; ++i) {
      const uint64_t key = keep_keys ? occ_keys_[i] : 0;
      const uint32_t v = subquery_of(occ_[i].query, occ_[i].pos & ~kFwdIsKey);
      if (i == start[g] || key != last_key || v != last_v) ++inserted_[v];
      last_key = key;
      last_v = v;
    }
  }
}

void SubqueryFilters::occurrences(uint64_t key, const Occurrence*& begin, const Occurrence*& end) const {
  if (!direct_.empty()) {
    const Occurrence* slot = direct_.data() + key;
    if (!(slot->query & kIndirect)) {
      begin = slot;
      end = slot + 1;
      return;
    }
    end = occ_.data() + slot->pos;
    begin = end - (slot->query & ~kIndirect);
    return;
  }
  const uint32_t* g = group_start_.data() + (key >> group_shift_);
  group_occurrences(g[0], g[1], key, begin, end);
}

void SubqueryFilters::group_occurrences(size_t lo, size_t hi, uint64_t key, const Occurrence*& begin,
                                        const Occurrence*& end) const {
  if (!occ_keys_.empty()) {
    // A group holds a few keys, one or two cache lines: a linear scan (a binary search mispredicts on every
    // step); only repetitive queries make long groups.
    const uint64_t* keys = occ_keys_.data();
    const uint64_t* first = keys + lo;
    const uint64_t* last = keys + hi;
    if (hi - lo <= 32) {
      while (first < last && *first < key) ++first;
    } else {
      first = std::lower_bound(first, last, key);
    }
    const uint64_t* stop = first;
    while (stop < last && *stop == key) ++stop;
    lo = size_t(first - keys);
    hi = size_t(stop - keys);
  }
  begin = occ_.data() + lo;
  end = occ_.data() + hi;
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
  out.full_blocks = full_blocks_;
  out.tail_words = tail_words_;
  out.k = family_.k();
  out.hash = family_.byte_view();
  return out;
}

}  // namespace bloomseq
