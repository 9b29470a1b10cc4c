// Template body of extend_diagonals (see ungapped.hpp).
#pragma once
#include <algorithm>
#include <cstdint>

namespace bloomseq {

template <class Keep>
void extend_diagonals(std::vector<DiagonalSeed>& seeds, const uint8_t* q, uint64_t q_len, const uint8_t* s,
                      uint64_t s_len, const UngappedScoring& scoring, Keep&& keep) {
  // Diagonal d = s - q (+ q_len to stay unsigned); BLAST meets the seeds of a diagonal in subject order.
  auto diag = [&](const DiagonalSeed& x) { return x.s_pos + q_len - x.q_pos; };
  std::sort(seeds.begin(), seeds.end(), [&](const DiagonalSeed& a, const DiagonalSeed& b) {
    const uint64_t da = diag(a), db = diag(b);
    return da != db ? da < db : a.s_pos < b.s_pos;
  });
  uint64_t cur_diag = ~uint64_t(0), last_end = 0;
  for (const DiagonalSeed& x : seeds) {
    const uint64_t d = diag(x);
    if (d != cur_diag) {
      cur_diag = d;
      last_end = 0;
    } else if (x.s_pos < last_end) {
      continue;  // inside the region the previous extension on this diagonal already explored
    }
    const UngappedExtension e = extend_ungapped(q, q_len, s, s_len, x.q_pos, x.s_pos, scoring);
    last_end = e.s_start + e.length;
    keep(e);
  }
}

}  // namespace bloomseq
