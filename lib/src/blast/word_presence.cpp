#include "bloomseq/blast/word_presence.hpp"

#include "bloomseq/encode/dna.hpp"

namespace bloomseq {
namespace {
uint64_t byte_mask(int bytes) { return bytes >= 8 ? ~uint64_t(0) : bytes <= 0 ? 0 : (uint64_t(1) << (8 * bytes)) - 1; }
}  // namespace

WordPresence::WordPresence(const std::vector<std::vector<uint8_t>>& queries, int w) {
  if (w < 1 || w > kMaxWord) return;
  w_ = w;
  lo_mask_ = byte_mask(w);
  hi_mask_ = byte_mask(w - 8);
  bits_.assign(std::max<uint64_t>(1, (uint64_t(1) << (2 * w)) / 64), 0);
  const uint64_t mask = wmer_mask(w);
  for (const std::vector<uint8_t>& q : queries)
    for_each_wmer(q.data(), q.size(), w, [&](size_t, uint64_t fwd, uint64_t rc) {
      // fwd and rc are packed first base highest; reversed, each is packed first base lowest.
      for (uint64_t x : {fwd, rc}) {
        const uint64_t key = revcomp_wmer(~x & mask, w);
        bits_[key >> 6] |= uint64_t(1) << (key & 63);
      }
    });
}

}  // namespace bloomseq
