// Random inputs and brute-force oracles for the CUDA-emulation tests. The oracles use only the definitions:
// w-mers built base by base, reverse complement base by base, H3 by its bit loop, the Bloom bit by its index.
#pragma once
#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "bloomseq/backend/classify.hpp"
#include "bloomseq/backend/stage1a.hpp"
#include "bloomseq/bloom/bloom_vector.hpp"
#include "bloomseq/encode/dna.hpp"
#include "bloomseq/hash/h3.hpp"

namespace fixtures {

using namespace bloomseq;

// Random codes with N runs (probability n_rate per base of starting a run of 1..5 N).
inline std::vector<uint8_t> random_codes(std::mt19937_64& rng, size_t n, double n_rate = 0.01) {
  std::vector<uint8_t> c(n);
  std::uniform_real_distribution<double> u(0, 1);
  for (size_t i = 0; i < n; ++i) {
    if (u(rng) < n_rate) {
      const size_t run = 1 + rng() % 5;
      for (size_t j = 0; j < run && i < n; ++j, ++i) c[i] = kInvalidBase;
      if (i >= n) break;
    }
    c[i] = uint8_t(rng() & 3);
  }
  return c;
}

// The w-mer at pos by the definition; false if it has an invalid base or runs past n.
inline bool oracle_key(const uint8_t* codes, uint64_t n, uint64_t pos, int w, uint64_t& key) {
  if (pos + uint64_t(w) > n) return false;
  uint64_t fwd = 0, rc = 0;
  for (int j = 0; j < w; ++j) {
    const uint8_t c = codes[pos + uint64_t(j)];
    if (c >= 4) return false;
    fwd = (fwd << 2) | c;
  }
  for (int j = w - 1; j >= 0; --j) rc = (rc << 2) | uint64_t(3 - codes[pos + uint64_t(j)]);
  key = std::min(fwd, rc);
  return true;
}

inline bool oracle_contains(const H3Family& family, const uint32_t* words, uint64_t m_bits, int k, uint64_t key) {
  for (int i = 0; i < k; ++i)
    if (!test_bit(words, bloom_slot(family.hash_bitloop(i, key), m_bits))) return false;
  return true;
}

inline void insert_all(const H3Family& family, uint32_t* words, uint64_t m_bits, int k, const uint8_t* codes,
                       uint64_t n) {
  uint32_t h[kMaxHashes];
  const H3ByteView view = family.byte_view();
  for_each_wmer(codes, n, family.w(), [&](size_t, uint64_t fwd, uint64_t rc) {
    view.hash_all(canonical_wmer(fwd, rc), h);
    BloomView{words, m_bits}.insert(h, k);
  });
}

// Sub-query vectors built from consecutive pieces of a random query.
struct VectorSet {
  H3Family family;
  std::vector<uint8_t> query;
  std::vector<uint32_t> words;
  SubqueryVectors view;
};

inline VectorSet make_vectors(std::mt19937_64& rng, uint32_t count, uint64_t m_bits, int k, int w, uint64_t n_sub,
                              int family_k = 0) {
  VectorSet s;
  s.family = H3Family(family_k ? family_k : k, w, rng());
  s.query = random_codes(rng, count * n_sub + size_t(w));
  const uint64_t wpv = bloom_words(m_bits);
  s.words.assign(wpv * count, 0);
  for (uint32_t v = 0; v < count; ++v)
    insert_all(s.family, s.words.data() + v * wpv, m_bits, k, s.query.data() + v * n_sub, n_sub + uint64_t(w) - 1);
  s.view.words = s.words.data();
  s.view.count = count;
  s.view.m_bits = m_bits;
  s.view.words_per_vector = wpv;
  s.view.k = k;
  s.view.hash = s.family.byte_view();
  return s;
}

// A database made of random sequence and copies of query pieces (true hits on both strands).
inline std::vector<uint8_t> make_db(std::mt19937_64& rng, const std::vector<uint8_t>& query, size_t n) {
  std::vector<uint8_t> db = random_codes(rng, n);
  for (size_t at = 0; at + 200 < n; at += 150 + rng() % 300) {
    const size_t from = rng() % (query.size() - 60);
    const size_t len = 20 + rng() % 40;
    const bool rc = rng() & 1;
    for (size_t j = 0; j < len; ++j)
      db[at + j] = rc ? complement_code(query[from + len - 1 - j]) : query[from + j];
  }
  return db;
}

inline std::vector<Stage1aHit> oracle_stage1a(const VectorSet& s, const DbChunk& c) {
  std::vector<Stage1aHit> hits;
  for (uint64_t pos = 0; pos < c.n_starts; ++pos) {
    if (c.stride > 1 && (c.first_pos + pos) % c.stride != 0) continue;
    uint64_t key;
    if (!oracle_key(c.codes, c.n, pos, c.w, key)) continue;
    for (uint32_t v = 0; v < s.view.count; ++v)
      if (oracle_contains(s.family, s.words.data() + v * s.view.words_per_vector, s.view.m_bits, s.view.k, key))
        hits.push_back({c.first_pos + pos, v});
  }
  return hits;
}

}  // namespace fixtures
