// Exact division of 32-bit numbers by a divisor fixed at run time, with one 64x64->128-bit multiply instead of a
// hardware divide (20-40 cycles on x86-64) in hot loops. Lemire, Kaser & Kurz (2019), "Faster remainder by direct
// computation": with c = ceil(2^64 / d), n / d = (c * n) >> 64 for every n, d < 2^32, d >= 2.
#pragma once
#include <cstdint>

namespace bloomseq {

class FastDivide32 {
 public:
  FastDivide32() = default;
  explicit FastDivide32(uint32_t d) : d_(d), c_(d > 1 ? ~uint64_t(0) / d + 1 : 0) {}
  uint32_t divisor() const { return d_; }
  uint32_t divide(uint32_t n) const {
    if (c_ == 0) return n;  // d == 1 (c would be 2^64); d == 0 is never used
    return uint32_t((static_cast<unsigned __int128>(c_) * n) >> 64);
  }

 private:
  uint32_t d_ = 1;
  uint64_t c_ = 0;
};

}  // namespace bloomseq
