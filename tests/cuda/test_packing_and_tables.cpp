// Device-side data layouts: packed windows and nibble tables derived from byte tables.
#include <catch2/catch.hpp>

#include <random>

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
