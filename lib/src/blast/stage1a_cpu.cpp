#include "bloomseq/blast/stage1a_cpu.hpp"

#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "bloomseq/bloom/bloom_view.hpp"
#include "bloomseq/encode/dna.hpp"
#include "bloomseq/encode/sequence.hpp"

namespace bloomseq {
namespace {

// The valid w-mers that start in the chunk's first n_starts bases at a stream coordinate that is a multiple of
// `stride`: their stream positions and canonical keys.
void chunk_wmers(const DbChunk& c, uint64_t stride, std::vector<uint64_t>& pos, std::vector<uint64_t>& keys) {
  pos.clear();
  keys.clear();
  const uint64_t end = std::min<uint64_t>(c.n, c.n_starts + uint64_t(c.w) - 1);
  if (stride <= 1) {
    for_each_wmer(c.codes, end, c.w, [&](size_t i, uint64_t fwd, uint64_t rc) {
      pos.push_back(c.first_pos + i);
      keys.push_back(canonical_wmer(fwd, rc));
    });
    return;
  }
  uint64_t next = (c.first_pos + stride - 1) / stride * stride - c.first_pos;  // first wanted start (chunk offset)
  for_each_wmer(c.codes, end, c.w, [&](size_t i, uint64_t fwd, uint64_t rc) {
    if (i < next) return;
    while (next < i) next += stride;
    if (i != next) return;
    pos.push_back(c.first_pos + i);
    keys.push_back(canonical_wmer(fwd, rc));
    next += stride;
  });
}

// w-mers handled per block by the vector layout: the first-probe slots of a block (128 KiB) stay in L2 while every
// vector streams past them once.
constexpr size_t kVectorBlock = 32768;

}  // namespace

uint64_t stage1a_vector_layout(const SubqueryVectors& vec, const DbChunk& chunk, std::vector<Stage1aHit>& hits,
                               uint64_t stride) {
  std::vector<uint64_t> pos, keys;
  chunk_wmers(chunk, stride, pos, keys);
  const int k = vec.k;
  // Scratch sized to the chunk when it is shorter than a block: small chunks then cost no megabyte-sized
  // allocation and page faults per call.
  const size_t block = std::max<size_t>(1, std::min(kVectorBlock, keys.size()));
  std::vector<uint32_t> slots(block * size_t(k));  // slots[j * block + i]: bit probed by hash j for w-mer i
  // A block's hits come vector by vector; a stable counting sort on the w-mer index puts them in (db_pos,
  // subquery) order in O(hits + B) (std::sort cost more than the probing when the FPR is high).
  std::vector<uint32_t> hit_wmer, hit_vector, start(block + 1);
  uint32_t h[kMaxHashes];
  for (size_t b0 = 0; b0 < keys.size(); b0 += block) {
    const size_t B = std::min(block, keys.size() - b0);
    for (size_t i = 0; i < B; ++i) {
      vec.hash.hash_all(keys[b0 + i], h);
      for (int j = 0; j < k; ++j) slots[size_t(j) * block + i] = uint32_t(bloom_slot(h[j], vec.m_bits));
    }
    hit_wmer.clear();
    hit_vector.clear();
    for (uint32_t v = 0; v < vec.count; ++v) {
      const uint32_t* words = vec.words + size_t(v) * vec.words_per_vector;
      for (size_t i = 0; i < B; ++i) {
        if (!test_bit(words, slots[i])) continue;  // ~1 - fill of all tests end here
        int j = 1;
        while (j < k && test_bit(words, slots[size_t(j) * block + i])) ++j;
        if (j == k) {
          hit_wmer.push_back(uint32_t(i));
          hit_vector.push_back(v);
        }
      }
    }
    std::fill(start.begin(), start.begin() + B + 1, 0u);
    for (uint32_t i : hit_wmer) ++start[i + 1];
    for (size_t i = 0; i < B; ++i) start[i + 1] += start[i];
    const size_t base = hits.size();
    hits.resize(base + hit_wmer.size());
    for (size_t x = 0; x < hit_wmer.size(); ++x)
      hits[base + start[hit_wmer[x]]++] = {pos[b0 + hit_wmer[x]], hit_vector[x]};
  }
  return keys.size();
}

ExactScanTables make_exact_scan_tables(const SubqueryVectors& vec, int p) {
  ExactScanTables t;
  t.p = p;
  t.count = vec.count;
  t.words_per_table = std::max<uint64_t>(1, (uint64_t(1) << (2 * p)) / 64);
  t.bits.assign(t.words_per_table * vec.count, 0);
  const uint64_t mask = wmer_mask(p);
  for (uint32_t v = 0; v < vec.count; ++v) {
    const uint32_t* words = vec.words + size_t(v) * vec.words_per_vector;
    uint64_t* table = t.bits.data() + size_t(v) * t.words_per_table;
    for (uint64_t i = 0; i < vec.words_per_vector; ++i)
      for (uint32_t bits = words[i]; bits; bits &= bits - 1) {
        const uint64_t c = i * 32 + uint64_t(__builtin_ctz(bits));  // canonical key, first base highest
        // Packed first base lowest, c is its groups reversed and rc(c) its complement.
        const uint64_t reversed = revcomp_wmer(~c & mask, p), complemented = ~c & mask;
        table[reversed >> 6] |= uint64_t(1) << (reversed & 63);
        table[complemented >> 6] |= uint64_t(1) << (complemented & 63);
      }
  }
  return t;
}

uint64_t stage1a_exact(const SubqueryVectors& vec, const DbChunk& c, std::vector<Stage1aHit>& hits,
                       uint64_t stride) {
  return stage1a_exact(make_exact_scan_tables(vec, c.w), c, hits, stride);
}

namespace {

// The AVX-512 path of one table's scan (VBMI for the byte permutation): 16 words per step, each word's 8 packed
// bytes placed in a 64-bit lane by a permutation of a 64-byte load (one per 8 words), shifted to its first base and
// masked; their 16 table words gathered at once. The scan is bound by the table reads (128 KB at p = 10, in L2):
// 0.65 ns per word against 1.2 ns one word at a time on the benchmark machine (docs/benchmarks.md, "short query").
bool have_avx512_vbmi() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vbmi");
}
bool g_exact_avx512 = have_avx512_vbmi();

// The largest stride the permutation covers: each half of a step (8 words) loads its own 64 bytes; its words start
// within 7 s + 3 bases of the load and each needs 8 bytes from its first one.
constexpr uint64_t kMaxVectorStride = 31;

// GCC 12 takes the undefined pass-through lanes inside the AVX-512 intrinsics for uninitialized variables.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
// Tests the words t, t + s, ... below `end` in blocks of 64 and appends the hits; returns where it stopped (fewer
// than 64 words before `end`). `bytes` must be readable 64 bytes past byte end / 4.
__attribute__((target("avx512f,avx512bw,avx512vbmi"))) uint64_t scan_one_table_avx512(
    const uint8_t* bytes, uint64_t t, uint64_t end, uint64_t s, uint64_t key_mask, const uint64_t* table,
    uint64_t first_pos, std::vector<Stage1aHit>& hits) {
  // t advances by 16 s per step and the second half of a step starts 8 s = 4 (2 s) bases later, so the phase t % 4,
  // and with it one permutation and one set of shifts, serves every half.
  alignas(64) uint8_t perm_bytes[64];
  alignas(64) uint64_t shift_bits[8];
  for (int j = 0; j < 8; ++j) {
    const uint64_t at = (t & 3) + uint64_t(j) * s;  // base offset from byte t / 4
    for (int b = 0; b < 8; ++b) perm_bytes[8 * j + b] = uint8_t((at >> 2) + uint64_t(b));
    shift_bits[j] = 2 * (at & 3);
  }
  const __m512i perm = _mm512_load_si512(perm_bytes), shift = _mm512_load_si512(shift_bits);
  const uint64_t half_bytes = 2 * s;
  const __m512i mask = _mm512_set1_epi64(int64_t(key_mask));
  const __m512i low5 = _mm512_set1_epi32(31), one = _mm512_set1_epi32(1);
  const auto* words = reinterpret_cast<const int*>(table);  // 32-bit table words: key k at bit k % 32 of word k / 32
  while (t + 63 * s < end) {
    const uint64_t first = t;
    uint64_t found = 0;
    for (unsigned j = 0; j < 64; j += 16, t += 16 * s) {
      const uint8_t* at = bytes + (t >> 2);
      const __m512i raw0 = _mm512_loadu_si512(at), raw1 = _mm512_loadu_si512(at + half_bytes);
      const __m512i k0 = _mm512_and_si512(_mm512_srlv_epi64(_mm512_permutexvar_epi8(perm, raw0), shift), mask);
      const __m512i k1 = _mm512_and_si512(_mm512_srlv_epi64(_mm512_permutexvar_epi8(perm, raw1), shift), mask);
      const __m512i keys =
          _mm512_inserti64x4(_mm512_castsi256_si512(_mm512_cvtepi64_epi32(k0)), _mm512_cvtepi64_epi32(k1), 1);
      const __m512i got = _mm512_i32gather_epi32(_mm512_srli_epi32(keys, 5), words, 4);
      found |= uint64_t(_mm512_test_epi32_mask(_mm512_srlv_epi32(got, _mm512_and_si512(keys, low5)), one)) << j;
    }
    for (; found; found &= found - 1)
      hits.push_back({first_pos + first + s * uint64_t(__builtin_ctzll(found)), 0});
  }
  return t;
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

}  // namespace

const char* exact_scan_isa() { return g_exact_avx512 ? "avx512" : "scalar"; }

bool force_exact_scan_isa(const char* isa) {
  const std::string want = isa ? isa : "";
  if (want.empty() || want == "avx512") {
    if (want == "avx512" && !have_avx512_vbmi()) return false;
    g_exact_avx512 = have_avx512_vbmi();
    return true;
  }
  if (want != "scalar") return false;
  g_exact_avx512 = false;
  return true;
}

uint64_t stage1a_exact(const ExactScanTables& tables, const DbChunk& c, std::vector<Stage1aHit>& hits,
                       uint64_t stride) {
  // The chunk's bases packed 2 bits each (the batch's own from a .2bit database, else the codes packed here, a few
  // instructions per 8 bases), then each tested word is one 8-byte load of the packed bases, a shift and a mask:
  // the words at a stride do not depend on each other, so their loads and bit reads overlap. Words with an invalid
  // base are never formed: the scan runs between invalid codes. Reading the key from byte codes instead (two loads,
  // a validity test and two packing steps per word) took 2.8x as long per tested word (docs/benchmarks.md, "short
  // query").
  const int p = tables.p;  // 3..16 (BlastParams::exact_filter): (t % 4) + p bases fit in one 8-byte load
  const uint64_t s = std::max<uint64_t>(stride, 1);
  const uint64_t last = std::min<uint64_t>(c.n_starts, c.n >= uint64_t(p) ? c.n - uint64_t(p) + 1 : 0);
  if (last == 0) return 0;
  const uint64_t span = last + uint64_t(p) - 1;  // the bases the tested words cover
  // Positions u below are in the packed words' numbering: codes[t] is base u = at + t.
  thread_local std::vector<uint64_t> own, invalid;
  thread_local std::vector<CodeRun> bad;  // the invalid runs in [at, at + span), then the end
  bad.clear();
  const uint64_t* words;
  uint64_t at = 0;
  if (c.packed) {
    words = c.packed;
    at = c.packed_at;
    const CodeRun* r = std::lower_bound(c.invalid_runs, c.invalid_runs + c.n_invalid_runs, at,
                                        [](const CodeRun& x, uint64_t u) { return x.end <= u; });
    for (; r < c.invalid_runs + c.n_invalid_runs && r->begin < at + span; ++r) bad.push_back(*r);
  } else {
    pack_codes(c.codes, span, own, invalid);
    own.resize(own.size() + 8, 0);  // the vector path's 64-byte loads
    words = own.data();
    for (const uint64_t u : invalid) bad.push_back({u, u + 1});
  }
  bad.push_back({at + span, at + span});
  // Base u's 2 bits lie at bit 2 (u % 4) of byte u / 4 (little-endian words).
  const auto* bytes = reinterpret_cast<const uint8_t*>(words);
  const uint64_t key_mask = wmer_mask(p);
  const uint32_t V = tables.count;
  const uint64_t* bits = tables.bits.data();
  const uint64_t per_table = tables.words_per_table;
  const uint64_t pos0 = c.first_pos - at;  // the stream coordinate of base u is pos0 + u
  auto key_at = [&](uint64_t u) {
    uint64_t x;
    std::memcpy(&x, bytes + (u >> 2), 8);
    return (x >> (2 * (u & 3))) & key_mask;
  };
  uint64_t tested = 0, run = at;
  for (const CodeRun& r : bad) {
    // Words wholly inside the valid run [run, r.begin) start in [run, r.begin - p]; the tested ones are on the
    // stride's grid.
    const uint64_t end = std::min<uint64_t>(at + last, r.begin >= run + uint64_t(p) ? r.begin - uint64_t(p) + 1 : run);
    uint64_t u = run + (s - (pos0 + run) % s) % s;
    run = std::max(run, r.end);
    if (u >= end) continue;
    tested += (end - u + s - 1) / s;
    if (V == 1) {
      // One sub-query (the usual short query): 64 words' answers gathered in a mask, the hits appended after, so
      // nothing in the loop waits on the hit vector.
      if (g_exact_avx512 && p <= 16 && s <= kMaxVectorStride)
        u = scan_one_table_avx512(bytes, u, end, s, key_mask, bits, pos0, hits);
      while (u < end) {
        const uint64_t first = u;
        const unsigned count = unsigned(std::min<uint64_t>(64, (end - u + s - 1) / s));
        uint64_t found = 0;
        for (unsigned j = 0; j < count; ++j, u += s) {
          const uint64_t key = key_at(u);
          found |= ((bits[key >> 6] >> (key & 63)) & 1) << j;
        }
        for (; found; found &= found - 1) hits.push_back({pos0 + first + s * uint64_t(__builtin_ctzll(found)), 0});
      }
      continue;
    }
    for (; u < end; u += s) {
      const uint64_t key = key_at(u);
      for (uint32_t v = 0; v < V; ++v)
        if ((bits[size_t(v) * per_table + (key >> 6)] >> (key & 63)) & 1) hits.push_back({pos0 + u, v});
    }
  }
  return tested;
}

uint64_t stage1a_paper_vector(const SubqueryVectors& vec, const DbChunk& chunk, std::vector<Stage1aHit>& hits,
                       uint64_t stride) {
  std::vector<uint64_t> pos, keys;
  chunk_wmers(chunk, stride, pos, keys);
  const size_t first_hit = hits.size();
  for (uint32_t v = 0; v < vec.count; ++v) {
    const uint32_t* words = vec.words + size_t(v) * vec.words_per_vector;
    for (size_t i = 0; i < keys.size(); ++i) {
      int j = 0;
      while (j < vec.k && test_bit(words, bloom_slot(vec.hash.hash(j, keys[i]), vec.m_bits))) ++j;
      if (j == vec.k) hits.push_back({pos[i], v});
    }
  }
  std::sort(hits.begin() + first_hit, hits.end());
  return keys.size();
}

// ---- bit-sliced layout ----------------------------------------------------------------------------------------
namespace {


enum class Isa { scalar, avx2, avx512 };

Isa best_isa() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return Isa::avx512;
  if (__builtin_cpu_supports("avx2")) return Isa::avx2;
  return Isa::scalar;
}
Isa g_isa = best_isa();

// Emits the set bits of `acc` (8 words = 512 columns starting at column 64 * word0) as hits, ascending.
inline void emit_block(const uint64_t* acc, uint64_t word0, uint64_t pos, uint32_t count,
                       std::vector<Stage1aHit>& hits) {
  for (int w = 0; w < 8; ++w) {
    uint64_t bits = acc[w];
    while (bits) {
      const uint32_t col = uint32_t((word0 + uint64_t(w)) * 64 + uint64_t(__builtin_ctzll(bits)));
      bits &= bits - 1;
      if (col < count) hits.push_back({pos, col});
    }
  }
}

// How far ahead (in w-mers) the row reads are prefetched.
constexpr size_t kPrefetchAhead = 8;

// Row pointers of w-mer i into the first 512-column block: rows[i * k + j]. With k known at compile time the k
// table columns are XORed in registers (this loop costs as much as the kernel when there are few sub-queries).
template <int K>
void row_pointers_k(const BitslicedMatrix& M, const std::vector<uint64_t>& keys, const uint64_t** out) {
  const int key_bytes = M.hash.key_bytes;
  const uint32_t* tables = M.hash.tables;
  for (size_t i = 0; i < keys.size(); ++i) {
    uint32_t h[K] = {};
    const uint64_t key = keys[i];
    for (int b = 0; b < key_bytes; ++b) {
      const uint32_t* row = tables + (size_t(b) * 256 + ((key >> (8 * b)) & 0xFF)) * size_t(K);
      for (int j = 0; j < K; ++j) h[j] ^= row[j];
    }
    for (int j = 0; j < K; ++j) out[i * K + size_t(j)] = M.rows + bloom_slot(h[j], M.m_bits) * 8;
  }
}

void row_pointers(const BitslicedMatrix& M, const std::vector<uint64_t>& keys, std::vector<const uint64_t*>& rows) {
  rows.resize(keys.size() * size_t(M.k));
  switch (M.k) {
    case 1: return row_pointers_k<1>(M, keys, rows.data());
    case 2: return row_pointers_k<2>(M, keys, rows.data());
    case 3: return row_pointers_k<3>(M, keys, rows.data());
    case 4: return row_pointers_k<4>(M, keys, rows.data());
    case 5: return row_pointers_k<5>(M, keys, rows.data());
    case 6: return row_pointers_k<6>(M, keys, rows.data());
    case 7: return row_pointers_k<7>(M, keys, rows.data());
    case 8: return row_pointers_k<8>(M, keys, rows.data());
    default: break;
  }
  uint32_t h[kMaxHashes];
  for (size_t i = 0; i < keys.size(); ++i) {
    M.hash.hash_all(keys[i], h);
    for (int j = 0; j < M.k; ++j) rows[i * size_t(M.k) + size_t(j)] = M.rows + bloom_slot(h[j], M.m_bits) * 8;
  }
}

// Prefetch the two rows every block reads (the rest are read only when the first two agree somewhere).
inline void prefetch_rows(const BitslicedMatrix& M, const uint64_t* const* r) {
  const int n = M.k < 2 ? 1 : 2;
  const uint64_t block_words = M.m_bits * 8;
  for (int j = 0; j < n; ++j)
    for (uint64_t blk = 0; blk < M.full_blocks; ++blk) __builtin_prefetch(r[j] + blk * block_words, 0, 0);
}

// The narrow block's columns of one w-mer, whose rows `r` point into the first full block: emit(column) for each
// hit, ascending.
template <class Emit>
inline void narrow_block_hits(const BitslicedMatrix& M, const uint64_t* const* r, Emit&& emit) {
  const uint64_t W = M.tail_words, col0 = M.full_blocks * 512;
  const uint64_t* t = M.tail();
  size_t off[kMaxHashes];
  for (int j = 0; j < M.k; ++j) off[j] = size_t(r[j] - M.rows) / 8 * W;
  for (uint64_t b = 0; b < W; ++b) {
    uint64_t acc = t[off[0] + b];
    for (int j = 1; j < M.k; ++j) acc &= t[off[j] + b];  // no early exit: the rows are prefetched
    for (; acc; acc &= acc - 1) {
      const uint64_t col = col0 + b * 64 + uint64_t(__builtin_ctzll(acc));
      if (col < M.count) emit(uint32_t(col));
    }
  }
}

void bitsliced_scalar(const BitslicedMatrix& M, const std::vector<uint64_t>& pos,
                      const std::vector<const uint64_t*>& rows, std::vector<Stage1aHit>& hits) {
  const int k = M.k;
  const uint64_t block_words = M.m_bits * 8;
  alignas(64) uint64_t acc[8];
  for (size_t i = 0; i < pos.size(); ++i) {
    if (i + kPrefetchAhead < pos.size()) prefetch_rows(M, &rows[(i + kPrefetchAhead) * size_t(k)]);
    const uint64_t* const* r = &rows[i * size_t(k)];
    for (uint64_t blk = 0; blk < M.full_blocks; ++blk) {
      const uint64_t b = blk * block_words;
      uint64_t any = 0;
      for (int w = 0; w < 8; ++w) any |= acc[w] = r[0][b + w] & r[k > 1 ? 1 : 0][b + w];
      for (int j = 2; j < k && any; ++j) {
        any = 0;
        for (int w = 0; w < 8; ++w) any |= acc[w] &= r[j][b + w];
      }
      if (any) emit_block(acc, blk * 8, pos[i], M.count, hits);
    }
    if (M.tail_words) narrow_block_hits(M, r, [&](uint32_t col) { hits.push_back({pos[i], col}); });
  }
}

// Rows of 1, 2 or 4 words (at most 256 vectors). The row pointers of w-mer i + kPrefetchAhead are computed (and all
// its k rows prefetched) while w-mer i is answered, from a small ring instead of a pointer array for the whole
// chunk. All k, not two: over a few hundred columns the first two rows agree somewhere for most w-mers (86% at
// n_sub = 4000, m = 256 Kbit, k = 6), and rows 3..k then missed one after the other (stage 1a 1.7x slower).
template <int K, uint64_t W>
void bitsliced_narrow(const BitslicedMatrix& M, const std::vector<uint64_t>& pos, const std::vector<uint64_t>& keys,
                      std::vector<Stage1aHit>& hits) {
  const int k = K > 0 ? K : M.k;
  const size_t n = keys.size();
  constexpr size_t kRing = kPrefetchAhead + 1;
  const uint64_t* ring[kRing][kMaxHashes];
  auto load = [&](size_t i) {
    uint32_t h[kMaxHashes] = {};
    if (K > 0) {  // k known at compile time: the k table columns are XORed in registers
      for (int b = 0; b < M.hash.key_bytes; ++b) {
        const uint32_t* row = M.hash.tables + (size_t(b) * 256 + ((keys[i] >> (8 * b)) & 0xFF)) * size_t(K);
        for (int j = 0; j < K; ++j) h[j] ^= row[j];
      }
    } else {
      M.hash.hash_all(keys[i], h);
    }
    const uint64_t** r = ring[i % kRing];
    for (int j = 0; j < k; ++j) r[j] = M.tail() + bloom_slot(h[j], M.m_bits) * W;
    for (int j = 0; j < k; ++j) __builtin_prefetch(r[j], 0, 0);
  };
  for (size_t i = 0; i < std::min(n, kPrefetchAhead); ++i) load(i);
  for (size_t i = 0; i < n; ++i) {
    if (i + kPrefetchAhead < n) load(i + kPrefetchAhead);
    const uint64_t* const* r = ring[i % kRing];
    for (uint64_t b = 0; b < W; ++b) {
      uint64_t acc = r[0][b];
      for (int j = 1; j < k; ++j) acc &= r[j][b];  // no early exit: the rows are prefetched, a branch per row mispredicts
      for (; acc; acc &= acc - 1) {
        const uint32_t col = uint32_t(b * 64 + uint64_t(__builtin_ctzll(acc)));
        if (col < M.count) hits.push_back({pos[i], col});
      }
    }
  }
}

template <uint64_t W>
void bitsliced_narrow_k(const BitslicedMatrix& M, const std::vector<uint64_t>& pos, const std::vector<uint64_t>& keys,
                        std::vector<Stage1aHit>& hits) {
  switch (M.k) {
    case 1: return bitsliced_narrow<1, W>(M, pos, keys, hits);
    case 2: return bitsliced_narrow<2, W>(M, pos, keys, hits);
    case 3: return bitsliced_narrow<3, W>(M, pos, keys, hits);
    case 4: return bitsliced_narrow<4, W>(M, pos, keys, hits);
    case 5: return bitsliced_narrow<5, W>(M, pos, keys, hits);
    case 6: return bitsliced_narrow<6, W>(M, pos, keys, hits);
    case 7: return bitsliced_narrow<7, W>(M, pos, keys, hits);
    case 8: return bitsliced_narrow<8, W>(M, pos, keys, hits);
    default: return bitsliced_narrow<0, W>(M, pos, keys, hits);
  }
}

// Two steps per w-mer, a few w-mers apart, so that the row reads of later w-mers are in flight while earlier ones
// are answered: step A ANDs the first two rows (prefetched kRowsAhead w-mers earlier) and, when the result is
// non-zero (~24% of blocks at the default fill), prefetches the other k - 2 rows; step B, kFinishBehind w-mers
// later, ANDs all k rows and emits the hits. Without the split, the reads of rows 3..k waited one after the other.
constexpr size_t kFinishBehind = 8;
constexpr size_t kRowsAhead = 8;

// Shared tail of the column-tiled kernels: the narrow block's hits (few bytes per row; all k rows prefetched ahead,
// as in bitsliced_narrow), then `found` ((w-mer index << 32) | column, block by block) put back in (position,
// column) order by a counting sort on the w-mer index and appended to `hits`.
inline void finish_column_tiled(const BitslicedMatrix& M, const std::vector<uint64_t>& pos,
                                const std::vector<const uint64_t*>& rows, std::vector<uint64_t>& found,
                                std::vector<uint32_t>& start, std::vector<Stage1aHit>& hits) {
  const int k = M.k;
  const size_t n = pos.size();
  if (M.tail_words) {
    const uint64_t W = M.tail_words;
    const uint64_t* tail = M.tail();
    for (size_t i = 0; i < n; ++i) {
      if (i + kRowsAhead < n) {
        const uint64_t* const* r = &rows[(i + kRowsAhead) * size_t(k)];
        for (int j = 0; j < k; ++j) __builtin_prefetch(tail + size_t(r[j] - M.rows) / 8 * W, 0, 0);
      }
      narrow_block_hits(M, &rows[i * size_t(k)], [&](uint32_t col) { found.push_back((uint64_t(i) << 32) | col); });
    }
  }
  start.assign(n + 1, 0);
  for (uint64_t f : found) ++start[(f >> 32) + 1];
  for (size_t i = 0; i < n; ++i) start[i + 1] += start[i];
  const size_t base = hits.size();
  hits.resize(base + found.size());
  for (uint64_t f : found) {
    const size_t i = size_t(f >> 32);
    hits[base + start[i]++] = Stage1aHit{pos[i], uint32_t(f)};
  }
}

// Column-tiled: one 512-column block (one 64-byte line of each row) at a time for all the chunk's w-mers, the two
// steps above per w-mer. Measured 15-20% faster than walking all blocks of a w-mer's rows before the next w-mer
// (fewer lines in flight per w-mer, which the prefetches can keep ahead of). Hits come out block by block and are
// put back in (position, column) order by a counting sort on the position.
__attribute__((target("avx2"))) void bitsliced_avx2(const BitslicedMatrix& M, const std::vector<uint64_t>& pos,
                                                          const std::vector<const uint64_t*>& rows,
                                                          std::vector<Stage1aHit>& hits) {
  const int k = M.k;
  const size_t n = pos.size();
  const uint64_t blocks = M.full_blocks;
  alignas(64) uint64_t acc[8];
  thread_local std::vector<uint64_t> found;  // (w-mer index << 32) | column, block by block
  thread_local std::vector<uint32_t> start;
  found.clear();
  bool pending[kFinishBehind + 1] = {};
  for (uint64_t blk = 0; blk < blocks; ++blk) {
    const uint64_t b = blk * M.m_bits * 8;  // this block's offset from block 0
    for (size_t i = 0; i < n + kFinishBehind; ++i) {
      if (i + kRowsAhead < n) {
        const uint64_t* const* r = &rows[(i + kRowsAhead) * size_t(k)];
        __builtin_prefetch(r[0] + b, 0, 0);
        __builtin_prefetch(r[k > 1 ? 1 : 0] + b, 0, 0);
      }
      if (i < n) {  // step A
        const uint64_t* const* r = &rows[i * size_t(k)];
        const uint64_t* r1 = r[k > 1 ? 1 : 0];
        const __m256i lo = _mm256_and_si256(_mm256_loadu_si256((const __m256i*)(r[0] + b)), _mm256_loadu_si256((const __m256i*)(r1 + b)));
        const __m256i hi = _mm256_and_si256(_mm256_loadu_si256((const __m256i*)(r[0] + b + 4)), _mm256_loadu_si256((const __m256i*)(r1 + b + 4)));
        const __m256i x = _mm256_or_si256(lo, hi);
        const bool nz = !_mm256_testz_si256(x, x);
        if (nz)
          for (int j = 2; j < k; ++j) __builtin_prefetch(r[j] + b, 0, 0);
        pending[i % (kFinishBehind + 1)] = nz;
      }
      if (i >= kFinishBehind) {  // step B
        const size_t t = i - kFinishBehind;
        if (!pending[t % (kFinishBehind + 1)]) continue;
        const uint64_t* const* r = &rows[t * size_t(k)];
        const uint64_t* r1 = r[k > 1 ? 1 : 0];
        __m256i lo = _mm256_and_si256(_mm256_loadu_si256((const __m256i*)(r[0] + b)), _mm256_loadu_si256((const __m256i*)(r1 + b)));
        __m256i hi = _mm256_and_si256(_mm256_loadu_si256((const __m256i*)(r[0] + b + 4)), _mm256_loadu_si256((const __m256i*)(r1 + b + 4)));
        for (int j = 2; j < k; ++j) {
          lo = _mm256_and_si256(lo, _mm256_loadu_si256((const __m256i*)(r[j] + b)));
          hi = _mm256_and_si256(hi, _mm256_loadu_si256((const __m256i*)(r[j] + b + 4)));
        }
        if (_mm256_testz_si256(_mm256_or_si256(lo, hi), _mm256_or_si256(lo, hi))) continue;
        _mm256_store_si256((__m256i*)acc, lo);
        _mm256_store_si256((__m256i*)(acc + 4), hi);
        for (int w = 0; w < 8; ++w)
          for (uint64_t bits = acc[w]; bits; bits &= bits - 1) {
            const uint64_t col = (blk * 8 + uint64_t(w)) * 64 + uint64_t(__builtin_ctzll(bits));
            if (col < M.count) found.push_back((uint64_t(t) << 32) | col);
          }
      }
    }
  }
  finish_column_tiled(M, pos, rows, found, start, hits);
}

// The same column-tiled two-step scheme with one 64-byte AND per row read.
__attribute__((target("avx512f"))) void bitsliced_avx512(const BitslicedMatrix& M, const std::vector<uint64_t>& pos,
                                                        const std::vector<const uint64_t*>& rows,
                                                        std::vector<Stage1aHit>& hits) {
  const int k = M.k;
  const size_t n = pos.size();
  alignas(64) uint64_t acc[8];
  thread_local std::vector<uint64_t> found;  // (w-mer index << 32) | column, block by block
  thread_local std::vector<uint32_t> start;
  found.clear();
  bool pending[kFinishBehind + 1] = {};
  for (uint64_t blk = 0; blk < M.full_blocks; ++blk) {
    const uint64_t b = blk * M.m_bits * 8;  // this block's offset from block 0
    for (size_t i = 0; i < n + kFinishBehind; ++i) {
      if (i + kRowsAhead < n) {
        const uint64_t* const* r = &rows[(i + kRowsAhead) * size_t(k)];
        __builtin_prefetch(r[0] + b, 0, 0);
        __builtin_prefetch(r[k > 1 ? 1 : 0] + b, 0, 0);
      }
      if (i < n) {  // step A
        const uint64_t* const* r = &rows[i * size_t(k)];
        const __m512i a = _mm512_and_si512(_mm512_loadu_si512(r[0] + b), _mm512_loadu_si512(r[k > 1 ? 1 : 0] + b));
        const bool nz = _mm512_test_epi64_mask(a, a) != 0;
        if (nz)
          for (int j = 2; j < k; ++j) __builtin_prefetch(r[j] + b, 0, 0);
        pending[i % (kFinishBehind + 1)] = nz;
      }
      if (i >= kFinishBehind) {  // step B
        const size_t t = i - kFinishBehind;
        if (!pending[t % (kFinishBehind + 1)]) continue;
        const uint64_t* const* r = &rows[t * size_t(k)];
        __m512i a = _mm512_and_si512(_mm512_loadu_si512(r[0] + b), _mm512_loadu_si512(r[k > 1 ? 1 : 0] + b));
        for (int j = 2; j < k; ++j) a = _mm512_and_si512(a, _mm512_loadu_si512(r[j] + b));
        if (_mm512_test_epi64_mask(a, a) == 0) continue;
        _mm512_store_si512(acc, a);
        for (int w = 0; w < 8; ++w)
          for (uint64_t bits = acc[w]; bits; bits &= bits - 1) {
            const uint64_t col = (blk * 8 + uint64_t(w)) * 64 + uint64_t(__builtin_ctzll(bits));
            if (col < M.count) found.push_back((uint64_t(t) << 32) | col);
          }
      }
    }
  }
  finish_column_tiled(M, pos, rows, found, start, hits);
}

}  // namespace

uint64_t stage1a_bitsliced(const BitslicedMatrix& M, const DbChunk& chunk, std::vector<Stage1aHit>& hits,
                           uint64_t stride) {
  std::vector<uint64_t> pos, keys;
  chunk_wmers(chunk, stride, pos, keys);
  std::vector<const uint64_t*> rows;
  if (M.full_blocks == 0) {  // one narrow block (at most 256 sub-queries)
    switch (M.tail_words) {
      case 1: bitsliced_narrow_k<1>(M, pos, keys, hits); return keys.size();
      case 2: bitsliced_narrow_k<2>(M, pos, keys, hits); return keys.size();
      case 4: bitsliced_narrow_k<4>(M, pos, keys, hits); return keys.size();
      default: return keys.size();  // no sub-queries
    }
  }
  row_pointers(M, keys, rows);
  switch (g_isa) {
    case Isa::avx512: bitsliced_avx512(M, pos, rows, hits); break;
    case Isa::avx2: bitsliced_avx2(M, pos, rows, hits); break;
    case Isa::scalar: bitsliced_scalar(M, pos, rows, hits); break;
  }
  return keys.size();
}

const char* bitsliced_isa() {
  return g_isa == Isa::avx512 ? "avx512" : g_isa == Isa::avx2 ? "avx2" : "scalar";
}

bool force_bitsliced_isa(const char* isa) {
  const Isa best = best_isa();
  const std::string s = isa ? isa : "";
  Isa want = best;
  if (s == "avx512") want = Isa::avx512;
  else if (s == "avx2") want = Isa::avx2;
  else if (s == "scalar") want = Isa::scalar;
  else if (!s.empty()) return false;
  if (int(want) > int(best)) return false;
  g_isa = want;
  return true;
}

}  // namespace bloomseq
