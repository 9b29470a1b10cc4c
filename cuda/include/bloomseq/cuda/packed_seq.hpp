// Device-side sequence layout: 2-bit packed bases (32 per uint64_t, base i at bits 2*(i%32), as in
// encode/dna.hpp) plus a parallel invalid-base mask (64 bases per uint64_t, bit i%64 set for N and for every
// position at or after the end). One w-mer is then read with two word loads for the bases and two for the mask,
// and consecutive threads read consecutive w-mers from the same words (coalesced; a warp touches 1-2 words).
// A quarter of the bytes of one code per base cross PCIe.
#pragma once
#include <cstdint>
#include <vector>

#include "bloomseq/encode/dna.hpp"
#include "bloomseq/hd.hpp"

namespace bloomseq::cuda {

// Words needed for n bases, with the padding that lets any window read word i+1.
BLOOMSEQ_HD uint64_t packed_words(uint64_t n) { return n / 32 + 2; }
BLOOMSEQ_HD uint64_t invalid_words(uint64_t n) { return n / 64 + 2; }

// The w-mer starting at `pos`: false if it contains an invalid base or runs past the end; otherwise its forward
// and reverse-complement keys (first base most significant, as WmerRoller produces them).
BLOOMSEQ_HD bool packed_window(const uint64_t* packed, const uint64_t* invalid, uint64_t pos, int w, uint64_t& fwd,
                               uint64_t& rc) {
  const uint64_t mi = pos >> 6;
  const unsigned mo = unsigned(pos & 63);
  uint64_t inv = invalid[mi] >> mo;
  if (mo) inv |= invalid[mi + 1] << (64 - mo);
  if (inv & ((uint64_t(1) << w) - 1)) return false;  // w <= 32
  const uint64_t pi = pos >> 5;
  const unsigned po = unsigned(2 * (pos & 31));
  uint64_t raw = packed[pi] >> po;  // base pos in the lowest two bits
  if (po) raw |= packed[pi + 1] << (64 - po);
  // Read with the first base least significant, the complemented groups are exactly the reverse complement.
  rc = ~raw & wmer_mask(w);
  fwd = revcomp_wmer(rc, w);
  return true;
}

// Host: appends n codes (kInvalidBase for N) to a packed stream that already holds `at` bases. The vectors must
// be sized with packed_words / invalid_words for the final length; the invalid mask must start all ones
// (so that unused tail positions are invalid) — see PackedSeqBuilder.
void pack_into(const uint8_t* codes, uint64_t n, uint64_t at, uint64_t* packed, uint64_t* invalid);

// Host: a whole packed sequence.
struct PackedSeq {
  uint64_t n = 0;
  std::vector<uint64_t> packed;
  std::vector<uint64_t> invalid;
};
PackedSeq pack_sequence(const uint8_t* codes, uint64_t n);

}  // namespace bloomseq::cuda
