// Identity of host data the CUDA backend keeps on the device between calls (sub-query vectors, filter banks,
// hash tables): a hash of EVERY word plus address, size and shape. Sampling would miss data a caller rebuilt in
// place and leave it stale on the device; hashing costs one read of the data, much less than a wrong answer.
#pragma once
#include <cstddef>
#include <cstdint>

namespace bloomseq::cuda {

class Fingerprint {
 public:
  Fingerprint& add(uint64_t v) {
    h_ = (h_ ^ v) * 0x9E3779B97F4A7C15ULL;
    h_ ^= h_ >> 29;
    ++n_;
    return *this;
  }
  Fingerprint& add(const void* p) { return add(uint64_t(reinterpret_cast<uintptr_t>(p))); }
  Fingerprint& add_words(const uint32_t* w, size_t n) {
    add(uint64_t(n));
    // Four independent lanes keep the multiplies from serialising; pairs of words per lane.
    uint64_t lane[4] = {1, 2, 3, 4};
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
      for (int j = 0; j < 4; ++j)
        lane[j] = (lane[j] ^ (uint64_t(w[i + 2 * j]) | uint64_t(w[i + 2 * j + 1]) << 32)) * 0xFF51AFD7ED558CCDULL;
    for (; i < n; ++i) lane[0] = (lane[0] ^ w[i]) * 0xC4CEB9FE1A85EC53ULL;
    for (uint64_t x : lane) add(x ^ (x >> 33));
    return *this;
  }
  bool operator==(const Fingerprint& o) const { return h_ == o.h_ && n_ == o.n_; }
  bool operator!=(const Fingerprint& o) const { return !(*this == o); }

 private:
  uint64_t h_ = 0x243F6A8885A308D3ULL;
  uint64_t n_ = 0;
};

}  // namespace bloomseq::cuda
