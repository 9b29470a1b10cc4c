#include "bloomseq/blast/shard.hpp"

#include <cstdio>

#include "bloomseq/error.hpp"

namespace bloomseq {

std::vector<uint64_t> shard_boundaries(const std::vector<uint64_t>& lengths, uint32_t count) {
  if (count == 0) count = 1;
  uint64_t total = 0;
  for (uint64_t l : lengths) total += l;
  std::vector<uint64_t> b(size_t(count) + 1, lengths.size());
  b[0] = 0;
  // part_of is non-decreasing in r, so each part is a contiguous run; b[i] = first record of a part >= i.
  unsigned __int128 prefix = 0;
  uint32_t next = 1;  // the next boundary to set
  for (size_t r = 0; r < lengths.size(); ++r) {
    const uint64_t part =
        total > 0 ? uint64_t((2 * prefix + lengths[r]) * count / (2 * (unsigned __int128)total))
                  : uint64_t((unsigned __int128)r * count / lengths.size());
    const uint32_t p = uint32_t(part < count ? part : count - 1);
    while (next <= p) b[next++] = r;
    prefix += lengths[r];
  }
  return b;
}

void Fnv64::add(const void* data, size_t n) {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) {
    h_ ^= p[i];
    h_ *= 1099511628211ull;
  }
}

std::string hex_double(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%a", x);
  return buf;
}

}  // namespace bloomseq
