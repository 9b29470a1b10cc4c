// Device-side data layouts: packed windows and nibble tables derived from byte tables.
#include <catch2/catch.hpp>

#include <random>
#include <vector>

#include "bloomseq/cuda/host_side.hpp"
#include "bloomseq/cuda/packed_seq.hpp"
#include "fixtures.hpp"

using namespace bloomseq;
using namespace bloomseq::cuda;

TEST_CASE("packed windows equal the w-mers of the codes, N and the end invalidate", "[cuda][layout]") {
  std::mt19937_64 rng(1);
  const auto codes = fixtures::random_codes(rng, 997, 0.03);
  const PackedSeq s = pack_sequence(codes.data(), codes.size());
  for (int w : {1, 2, 11, 31, 32}) {
    for (uint64_t pos = 0; pos < codes.size() + 3; ++pos) {
      uint64_t fwd = 0, rc = 0, key = 0;
      const bool got = packed_window(s.packed.data(), s.invalid.data(), pos, w, fwd, rc);
      const bool want = pos < codes.size() && fixtures::oracle_key(codes.data(), codes.size(), pos, w, key);
      REQUIRE(got == want);
      if (got) {
        REQUIRE(canonical_wmer(fwd, rc) == key);
        REQUIRE(rc == revcomp_wmer(fwd, w));
      }
    }
  }
}

TEST_CASE("pack_into equals base-by-base packing at any offset, beside what a buffer already holds",
          "[cuda][layout]") {
  // The reference: code i at 2-bit slot at + i and its invalid bit cleared when the code is a base (0..3); codes
  // 4..15 leave both alone. Buffers start with other sequences' bits so that OR and AND, not stores, are checked.
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 300; ++trial) {
    const uint64_t n = rng() % 400, at = rng() % 200;
    std::vector<uint8_t> codes(n);
    for (auto& c : codes) c = uint8_t(rng() % 9 == 0 ? 4 + rng() % 12 : rng() % 4);
    const size_t pw = packed_words(at + n) + 1, iw = invalid_words(at + n) + 1;
    std::vector<uint64_t> packed(pw), invalid(iw);
    for (auto& x : packed) x = trial % 3 == 0 ? rng() : 0;
    for (auto& x : invalid) x = trial % 3 == 0 ? rng() : ~uint64_t(0);
    std::vector<uint64_t> want_packed = packed, want_invalid = invalid;
    for (uint64_t i = 0; i < n; ++i) {
      const uint64_t p = at + i;
      if (codes[i] > 3) continue;
      want_packed[p / 32] |= uint64_t(codes[i]) << (2 * (p % 32));
      want_invalid[p / 64] &= ~(uint64_t(1) << (p % 64));
    }
    pack_into(codes.data(), n, at, packed.data(), invalid.data());
    INFO("n " << n << " at " << at);
    REQUIRE(packed == want_packed);
    REQUIRE(invalid == want_invalid);
  }
}

TEST_CASE("nibble tables derived from byte tables hash like the bit loop", "[cuda][layout]") {
  std::mt19937_64 rng(2);
  for (int w : {1, 5, 11, 21, 32}) {
    const H3Family fam(12, w, rng());
    for (int k : {1, 6, 12}) {
      const auto tables = nibble_tables_from(fam.byte_view(), k, w);
      const H3NibbleView view{tables.data(), k, key_nibbles_for(w)};
      uint32_t h[kMaxHashes];
      for (int t = 0; t < 200; ++t) {
        const uint64_t key = rng() & wmer_mask(w);
        view.hash_all(key, h);
        for (int i = 0; i < k; ++i) REQUIRE(h[i] == fam.hash_bitloop(i, key));
      }
    }
  }
}
