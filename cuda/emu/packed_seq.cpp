#include "bloomseq/cuda/packed_seq.hpp"

namespace bloomseq::cuda {

void pack_into(const uint8_t* codes, uint64_t n, uint64_t at, uint64_t* packed, uint64_t* invalid) {
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t p = at + i;
    const uint8_t c = codes[i];
    if (c < 4) {
      packed[p >> 5] |= uint64_t(c) << (2 * (p & 31));
      invalid[p >> 6] &= ~(uint64_t(1) << (p & 63));
    }
  }
}

PackedSeq pack_sequence(const uint8_t* codes, uint64_t n) {
  PackedSeq s;
  s.n = n;
  s.packed.assign(packed_words(n), 0);
  s.invalid.assign(invalid_words(n), ~uint64_t(0));
  pack_into(codes, n, 0, s.packed.data(), s.invalid.data());
  return s;
}

}  // namespace bloomseq::cuda
