#include "bloomseq/blast/ungapped.hpp"

#include <algorithm>

namespace bloomseq {

UngappedExtension extend_ungapped(const uint8_t* q, uint64_t q_len, const uint8_t* s, uint64_t s_len, uint64_t q_pos,
                                  uint64_t s_pos, const UngappedScoring& sc) {
  auto score = [&](uint8_t a, uint8_t b) { return (a == b && a < 4) ? sc.reward : sc.penalty; };
  const int64_t X = -int64_t(sc.xdrop);
  int64_t total = 0, sum = 0;

  // Left: from the base before the seed start towards the sequence starts.
  uint64_t best_left = q_pos;  // first query base of the HSP
  const uint64_t left_len = std::min(q_pos, s_pos);
  for (uint64_t i = 1; i <= left_len; ++i) {
    sum += score(q[q_pos - i], s[s_pos - i]);
    if (sum > 0) {
      best_left = q_pos - i;
      total += sum;
      sum = 0;
    } else if (sum < X) {
      break;
    }
  }

  // Right: from the seed start.
  uint64_t best_right = q_pos;  // one past the last query base of the HSP
  sum = 0;
  const uint64_t right_len = std::min(q_len - q_pos, s_len - s_pos);
  for (uint64_t i = 0; i < right_len; ++i) {
    sum += score(q[q_pos + i], s[s_pos + i]);
    if (sum > 0) {
      best_right = q_pos + i + 1;
      total += sum;
      sum = 0;
    } else if (sum < X) {
      break;
    }
  }

  UngappedExtension e;
  e.q_start = best_left;
  e.s_start = s_pos - (q_pos - best_left);
  e.length = best_right - best_left;
  e.score = total;
  return e;
}

DiagonalTable::DiagonalTable(uint64_t query_length) {
  uint64_t n = 64;
  while (n <= query_length) n *= 2;
  last_end_.assign(n, 0);
  mask_ = n - 1;
}

bool reevaluate_ungapped(const uint8_t* q, const uint8_t* s, const UngappedScoring& sc, int64_t cutoff,
                         UngappedExtension& ext) {
  const uint8_t* qs = q + ext.q_start;
  const uint8_t* ss = s + ext.s_start;
  int64_t sum = 0, score = 0;
  uint64_t best_start = 0, best_end = 0, cur_start = 0;
  for (uint64_t i = 0; i < ext.length; ++i) {
    sum += (qs[i] == ss[i] && qs[i] < 4) ? sc.reward : sc.penalty;
    if (sum < 0) {
      sum = 0;
      cur_start = i + 1;
      if (score < cutoff) {
        best_start = best_end = i + 1;
        score = 0;
      }
    } else if (sum > score) {
      score = sum;
      best_end = i + 1;
      best_start = cur_start;
    }
  }
  ext.score = score;
  if (score < cutoff) return false;
  ext.q_start += best_start;
  ext.s_start += best_start;
  ext.length = best_end - best_start;
  return true;
}

}  // namespace bloomseq
