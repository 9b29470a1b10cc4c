#include "bloomseq/cuda/packed_seq.hpp"

#include <cstring>

namespace bloomseq::cuda {

namespace {
constexpr uint64_t kBytes(uint8_t b) { return 0x0101010101010101ULL * b; }

// Eight codes (one byte each) as 16 bits of 2-bit bases, code i at bits 2i; codes above 3 (invalid) give 0 bits
// there and set bit i of `bad`. SWAR: the host packs every database base for the device, ~5x faster than one base
// at a time with its branch.
inline uint32_t pack8(const uint8_t* codes, uint32_t& bad) {
  uint64_t x;
  std::memcpy(&x, codes, 8);
  const uint64_t high = x & kBytes(0xFC);                                  // nonzero byte: an invalid code
  const uint64_t flag = (((high & kBytes(0x7F)) + kBytes(0x7F)) | high) & kBytes(0x80);  // 0x80 per such byte
  bad = uint32_t((flag >> 7) * 0x0102040810204080ULL >> 56);             // one bit per byte
  return uint32_t(pack_code_bytes(x & kBytes(0x03) & ~((flag >> 7) * 0xFF)));
}
}  // namespace

void pack_into(const uint8_t* codes, uint64_t n, uint64_t at, uint64_t* packed, uint64_t* invalid) {
  auto one = [&](uint64_t i) {
    const uint64_t p = at + i;
    const uint8_t c = codes[i];
    if (c < 4) {
      packed[p >> 5] |= uint64_t(c) << (2 * (p & 31));
      invalid[p >> 6] &= ~(uint64_t(1) << (p & 63));
    }
  };
  uint64_t i = 0;
  for (; i < n && ((at + i) & 63) != 0; ++i) one(i);  // up to a whole invalid word
  for (; i + 64 <= n; i += 64) {
    const uint64_t p = at + i;
    uint64_t words[2] = {0, 0}, bad = 0;
    for (int e = 0; e < 8; ++e) {
      uint32_t b;
      words[e >> 2] |= uint64_t(pack8(codes + i + 8 * e, b)) << (16 * (e & 3));
      bad |= uint64_t(b) << (8 * e);
    }
    packed[p >> 5] |= words[0];
    packed[(p >> 5) + 1] |= words[1];
    invalid[p >> 6] &= bad;
  }
  for (; i < n; ++i) one(i);
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
