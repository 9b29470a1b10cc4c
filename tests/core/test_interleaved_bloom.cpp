// The interleaved Bloom filter against separate Bloom vectors (the oracle: same m, same hashes, same inserts)
// and against exact sets; the size grouping against its stated bounds.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "bloomseq/bloom/bloom_vector.hpp"
#include "bloomseq/bloom/interleaved_bloom.hpp"
#include "bloomseq/error.hpp"
#include "bloomseq/hash/h3.hpp"

using namespace bloomseq;

TEST_CASE("interleaved bins equal separate Bloom vectors bit for bit, and queries answer every bin", "[bloom][ibf]") {
  std::mt19937_64 rng(7);
  const int w = 15;
  const uint64_t key_mask = (uint64_t(1) << (2 * w)) - 1;
  // Bin counts around the word boundaries; odd m (fast-range reduction, partial last word).
  for (uint32_t bins : {1u, 3u, 63u, 64u, 65u, 130u}) {
    for (const uint64_t m : {uint64_t(4099), uint64_t(1) << 14}) {
      const int k = int(1 + rng() % 6);
      INFO("bins=" << bins << " m=" << m << " k=" << k);
      const H3Family fam(k, w, rng());
      const H3ByteView h3 = fam.byte_view();
      InterleavedBloom ibf(bins, m);
      std::vector<BloomVector> separate(bins, BloomVector(m));
      std::vector<std::set<uint64_t>> exact(bins);
      uint32_t h[kMaxHashes];
      for (int i = 0; i < 300 * int(std::min(bins, 8u)); ++i) {
        const uint64_t key = rng() & key_mask;
        const uint32_t bin = uint32_t(rng() % bins);
        h3.hash_all(key, h);
        ibf.insert(bin, h, k);
        separate[bin].insert(h, k);
        exact[bin].insert(key);
      }
      const std::vector<uint64_t> counts = ibf.bin_popcounts();
      REQUIRE(counts.size() == bins);
      for (uint32_t b = 0; b < bins; ++b) {
        CHECK(ibf.bin_vector(b).words() == separate[b].words());
        CHECK(ibf.bin_popcount(b) == separate[b].popcount());
        CHECK(counts[b] == separate[b].popcount());
      }
      // Queries: inserted keys (no false negatives) and random keys (false positives exactly where the
      // separate vector has them).
      const ConstInterleavedBloomView query_view = std::as_const(ibf).view();
      std::vector<uint64_t> out(ibf.words_per_row());
      uint64_t mismatches = 0, false_negatives = 0, answered = 0;
      std::vector<uint64_t> probes;
      for (uint32_t b = 0; b < bins; ++b)
        for (uint64_t key : exact[b]) probes.push_back(key);
      for (int i = 0; i < 2000; ++i) probes.push_back(rng() & key_mask);
      for (uint64_t key : probes) {
        h3.hash_all(key, h);
        const bool any = query_view.query(h, k, out.data());
        bool any_expected = false;
        for (uint32_t b = 0; b < bins; ++b) {
          const bool got = (out[b >> 6] >> (b & 63)) & 1u;
          const bool want = separate[b].contains(h, k);
          any_expected |= want;
          mismatches += got != want;
          mismatches += query_view.contains(b, h, k) != want;
          // In stages, as the classifier's scans test it: rows [0, cut) then [cut, k).
          const int cut = int(key % uint64_t(k + 1));
          mismatches += (query_view.contains_rows(b, h, 0, cut) && query_view.contains_rows(b, h, cut, k)) != want;
          false_negatives += exact[b].count(key) && !got;
          ++answered;
        }
        // query() in stages (the classifier's quick pass): rows [0, cut) then [cut, k), the second stage only
        // while a bin is left.
        {
          const int cut = int((key >> 7) % uint64_t(k + 1));
          std::vector<uint64_t> staged(ibf.words_per_row(), ~uint64_t(0));
          bool left = query_view.query_rows(h, 0, cut, staged.data());
          if (cut == 0) left = true;  // no row read yet: every bin is still a candidate
          if (left) left = query_view.query_rows(h, cut, k, staged.data());
          mismatches += staged != out;
          mismatches += left != any;
        }
        // Bits past the last bin stay clear.
        for (uint32_t b = bins; b < 64 * ibf.words_per_row(); ++b) mismatches += (out[b >> 6] >> (b & 63)) & 1u;
        CHECK(any == any_expected);
      }
      CHECK(answered == probes.size() * bins);
      CHECK(mismatches == 0);
      CHECK(false_negatives == 0);
    }
  }
}

TEST_CASE("set_bin copies a separately built vector into its bin", "[bloom][ibf]") {
  std::mt19937_64 rng(11);
  const H3Family fam(4, 12, 99);
  const H3ByteView h3 = fam.byte_view();
  InterleavedBloom ibf(70, 5000);
  BloomVector v(5000);
  uint32_t h[kMaxHashes];
  for (int i = 0; i < 400; ++i) {
    h3.hash_all(rng() & ((1u << 24) - 1), h);
    v.insert(h, 4);
  }
  ibf.set_bin(66, v);
  CHECK(ibf.bin_vector(66).words() == v.words());
  for (uint32_t b : {0u, 65u, 67u, 69u}) CHECK(ibf.bin_popcount(b) == 0);
  CHECK_THROWS_AS(ibf.set_bin(70, v), UsageError);
  CHECK_THROWS_AS(ibf.set_bin(0, BloomVector(5001)), UsageError);
  CHECK_THROWS_AS(InterleavedBloom(0, 100), UsageError);
  CHECK_THROWS_AS(InterleavedBloom(4, 0), UsageError);
}

TEST_CASE("size groups keep every bin, bound the waste and the group size", "[bloom][ibf]") {
  std::mt19937_64 rng(3);
  for (int rep = 0; rep < 50; ++rep) {
    const size_t n = 1 + rng() % 300;
    std::vector<uint64_t> need(n);
    for (auto& x : need) x = 1000 + rng() % 40000000;  // 0.5-5 Mbase genomes need ~8-80 Mbit
    const double ratio = 1.0 + double(rng() % 300) / 100.0;
    const uint32_t max_bins = uint32_t(1 + rng() % 100);
    INFO("n=" << n << " ratio=" << ratio << " max_bins=" << max_bins);
    const std::vector<BinGroup> groups = group_bins_by_size(need, ratio, max_bins);
    std::vector<int> seen(n, 0);
    uint64_t prev_max = 0;
    for (const BinGroup& g : groups) {
      REQUIRE(!g.members.empty());
      CHECK(g.members.size() <= max_bins);
      uint64_t lo = UINT64_MAX, hi = 0;
      for (uint32_t i : g.members) {
        ++seen[i];
        lo = std::min(lo, need[i]);
        hi = std::max(hi, need[i]);
      }
      CHECK(g.m_bits == hi);
      CHECK(double(hi) <= ratio * double(lo));
      CHECK(lo >= prev_max);  // ascending
      prev_max = hi;
    }
    CHECK(std::all_of(seen.begin(), seen.end(), [](int s) { return s == 1; }));
  }
  // Sizes within the ratio share one group; a factor of 10 apart do not.
  CHECK(group_bins_by_size({100, 150, 199}, 2.0).size() == 1);
  CHECK(group_bins_by_size({100, 1000}, 2.0).size() == 2);
  CHECK(group_bins_by_size({}, 2.0).empty());
}

TEST_CASE("set_bins transposes 64 vectors at once like set_bin one by one; query_words like query", "[bloom][ibf]") {
  std::mt19937_64 rng(77);
  for (uint64_t m : {uint64_t(1), uint64_t(63), uint64_t(64), uint64_t(1000), uint64_t(4099)}) {
    const uint32_t bins = 150;  // columns of 64, 64 and 22 bins
    std::vector<BloomVector> vs;
    for (uint32_t b = 0; b < bins; ++b) {
      BloomVector v(m);
      for (uint64_t r = 0; r < m; ++r)
        if (rng() % 3 == 0) set_bit(v.words().data(), r);
      vs.push_back(std::move(v));
    }
    InterleavedBloom one(bins, m), many(bins, m);
    for (uint32_t b = 0; b < bins; ++b) one.set_bin(b, vs[b]);
    for (uint32_t first = 0; first < bins; first += 64) {
      const BloomVector* ptrs[64] = {};
      const uint32_t count = std::min<uint32_t>(64, bins - first);
      for (uint32_t t = 0; t < count; ++t) ptrs[t] = (t % 17 == 5) ? nullptr : &vs[first + t];
      many.set_bins(first, ptrs, count);
    }
    for (uint32_t b = 0; b < bins; ++b) {
      INFO("m " << m << " bin " << b);
      if (b % 64 % 17 == 5) REQUIRE(many.bin_popcount(b) == 0);
      else REQUIRE(many.bin_vector(b).words() == vs[b].words());
    }
    // query_words over some words with a mask equals query() restricted to them.
    const ConstInterleavedBloomView v = one.view();
    const uint32_t words[2] = {0, 2};
    const uint64_t mask[2] = {~uint64_t(0), 0x3FFFFFULL};
    for (int t = 0; t < 200; ++t) {
      uint32_t h[4];
      for (uint32_t& x : h) x = uint32_t(rng());
      uint64_t full[3], part[2];
      v.query(h, 4, full);
      const bool any = v.query_words(h, 4, words, 2, mask, part);
      REQUIRE(part[0] == (full[0] & mask[0]));
      REQUIRE(part[1] == (full[2] & mask[1]));
      REQUIRE(any == ((part[0] | part[1]) != 0));
    }
  }
}

TEST_CASE("group_bins_min_memory: fewest row bits (plus a price per group), by a plain quadratic search",
          "[bloom][ibf]") {
  std::mt19937_64 rng(5);
  for (uint64_t group_cost : {uint64_t(0), uint64_t(30000), uint64_t(10000000)}) {
    for (uint32_t max_bins : {4096u, 100u, 7u}) {
      for (int trial = 0; trial < 20; ++trial) {
        const size_t n = 1 + rng() % 300;
        std::vector<uint64_t> need(n);
        for (uint64_t& x : need) x = 1 + (rng() % 4 == 0 ? rng() % 100000 : rng() % 1000);
        const std::vector<BinGroup> groups = group_bins_min_memory(need, max_bins, group_cost);
        // Every bin once, runs in ascending size, each group sized for its largest member.
        std::vector<int> seen(n, 0);
        uint64_t cost = 0, last = 0;
        for (const BinGroup& g : groups) {
          REQUIRE(!g.members.empty());
          REQUIRE(g.members.size() <= max_bins);
          uint64_t largest = 0;
          for (uint32_t i : g.members) {
            ++seen[i];
            REQUIRE(need[i] >= last);
            last = need[i];
            largest = std::max(largest, need[i]);
          }
          REQUIRE(g.m_bits == largest);
          cost += largest * 64 * ((g.members.size() + 63) / 64) + group_cost;
        }
        for (int s : seen) REQUIRE(s == 1);
        // Oracle: every split point of the sorted sizes.
        std::vector<uint64_t> sorted = need;
        std::sort(sorted.begin(), sorted.end());
        std::vector<uint64_t> best(n + 1, UINT64_MAX);
        best[0] = 0;
        for (size_t j = 1; j <= n; ++j)
          for (size_t i = (j > max_bins ? j - max_bins : 0); i < j; ++i)
            best[j] = std::min(best[j], best[i] + sorted[j - 1] * 64 * ((j - i + 63) / 64) + group_cost);
        REQUIRE(cost == best[n]);
      }
    }
  }
  // Nearly equal sizes: memory alone splits them into groups of 64, a price per group keeps them together.
  std::vector<uint64_t> even(1024);
  for (size_t i = 0; i < even.size(); ++i) even[i] = 7909810 + i % 16;
  CHECK(group_bins_min_memory(even, 4096).size() == 16);
  CHECK(group_bins_min_memory(even, 4096, 7909810ull * 1024 / 32).size() == 1);
}
