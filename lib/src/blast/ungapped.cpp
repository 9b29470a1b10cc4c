#include "bloomseq/blast/ungapped.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <cmath>

#include "bloomseq/blast/karlin.hpp"
#include "bloomseq/encode/dna.hpp"

namespace bloomseq {

UngappedExtension extend_ungapped(const uint8_t* q, uint64_t q_len, const uint8_t* s, uint64_t s_len, uint64_t q_pos,
                                  uint64_t s_pos, const UngappedScoring& sc) {
  auto score = [&](uint8_t a, uint8_t b) { return sc.pair(a, b); };
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

  // Right: from the seed start. While the score so far is below X, the right extension also stops where the
  // running sum would take the score below zero (s_NuclUngappedExtendExact's X_current): invisible at the default
  // w 11 with 1/-2 and 2/-3, whose seed alone reaches X, but not with larger X (5/-4: X = 73, a seed scores 55).
  uint64_t best_right = q_pos;  // one past the last query base of the HSP
  sum = 0;
  int64_t x_current = X;
  const uint64_t right_len = std::min(q_len - q_pos, s_len - s_pos);
  for (uint64_t i = 0; i < right_len; ++i) {
    sum += score(q[q_pos + i], s[s_pos + i]);
    if (sum > 0) {
      best_right = q_pos + i + 1;
      total += sum;
      x_current = -total > X ? -total : X;
      sum = 0;
    } else if (sum < x_current) {
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

int64_t approximate_ungapped_score(const uint8_t* q, uint64_t q_len, const uint8_t* s, uint64_t s_len, uint64_t q_pos,
                                   uint64_t s_pos, const UngappedScoring& sc) {
  // Four bases at once when none is ambiguous (the common case): the mismatches are the non-zero bytes of the
  // XOR of the two 4-byte words (codes 0..3, so the two low bits of each byte say it all). Two groups come from
  // one 8-byte load where both lie inside the sequences; each group's score is then applied in blastn's order.
  const int64_t all_match = 4 * int64_t(sc.reward), mismatch_cost = int64_t(sc.reward) - int64_t(sc.penalty);
  // A group with a code above 3: blastn packs the query's four codes into one byte as (q0 << 6) | (q1 << 4) |
  // (q2 << 2) | q3 whatever their values, XORs it with the subject's packed byte and scores each 2-bit field
  // (zero = match). An ambiguous subject base is scored as the nucleotide matrix scores it.
  auto slow_group = [&](uint64_t qa, uint64_t sa) {
    const uint8_t* qq = q + qa;
    const uint8_t* ss = s + sa;
    if (ss[0] > 3 || ss[1] > 3 || ss[2] > 3 || ss[3] > 3) {
      int64_t g = 0;
      for (int j = 0; j < 4; ++j) g += sc.pair(qq[j] < ConcatenatedQuery::kN ? code_of_blastna(qq[j]) : kInvalidBase, ss[j]);
      return g;
    }
    const unsigned qb = ((unsigned(qq[0]) << 6) | (unsigned(qq[1]) << 4) | (unsigned(qq[2]) << 2) | qq[3]) & 0xFFu;
    const unsigned sb = (unsigned(ss[0]) << 6) | (unsigned(ss[1]) << 4) | (unsigned(ss[2]) << 2) | ss[3];
    const unsigned x = qb ^ sb;
    int64_t g = 0;
    for (int j = 0; j < 4; ++j) g += ((x >> (2 * j)) & 3u) ? sc.penalty : sc.reward;
    return g;
  };
  auto group = [&](uint64_t qa, uint64_t sa) {
    uint32_t qw, sw;
    std::memcpy(&qw, q + qa, 4);
    std::memcpy(&sw, s + sa, 4);
    if (((qw | sw) & 0xFCFCFCFCu) == 0) {
      const uint32_t x = qw ^ sw;
      const uint32_t differs = (x | (x >> 1)) & 0x01010101u;  // one bit per mismatching byte
      return all_match - int64_t((differs * 0x01010101u) >> 24) * mismatch_cost;
    }
    return slow_group(qa, sa);
  };
  // The groups at [qa, qa + 4) (g_lo) and [qa + 4, qa + 8) (g_hi).
  auto group_pair = [&](uint64_t qa, uint64_t sa, int64_t& g_lo, int64_t& g_hi) {
    uint64_t qw, sw;
    std::memcpy(&qw, q + qa, 8);
    std::memcpy(&sw, s + sa, 8);
    if (((qw | sw) & 0xFCFCFCFCFCFCFCFCull) == 0) {
      const uint64_t x = qw ^ sw;
      const uint64_t differs = (x | (x >> 1)) & 0x0101010101010101ull;
      g_lo = all_match - int64_t((uint32_t(differs) * 0x01010101u) >> 24) * mismatch_cost;
      g_hi = all_match - int64_t((uint32_t(differs >> 32) * 0x01010101u) >> 24) * mismatch_cost;
      return;
    }
    g_lo = slow_group(qa, sa);
    g_hi = slow_group(qa + 4, sa + 4);
  };
  const int64_t X = -int64_t(sc.xdrop);
  int64_t score = 0, sum = 0;
  auto step = [&](int64_t g) {  // true when the X-drop stops this direction
    sum += g;
    if (sum > 0) {
      score += sum;
      sum = 0;
    }
    return sum < X;
  };
  const uint64_t adj = (4 - s_pos % 4) % 4;
  const uint64_t q_ext = q_pos + adj, s_ext = s_pos + adj;
  const uint64_t left = std::min(q_ext, s_ext) / 4;
  {
    uint64_t i = 1;
    int64_t g_lo, g_hi;
    for (; i + 1 <= left; i += 2) {  // groups i (the high half of the load) and i + 1
      group_pair(q_ext - 4 * (i + 1), s_ext - 4 * (i + 1), g_lo, g_hi);
      if (step(g_hi) || step(g_lo)) break;
    }
    if (i == left && !(sum < X)) step(group(q_ext - 4 * i, s_ext - 4 * i));
  }
  sum = 0;
  const uint64_t right = (q_ext <= q_len && s_ext <= s_len) ? std::min(q_len - q_ext, s_len - s_ext) / 4 : 0;
  {
    uint64_t i = 0;
    int64_t g_lo, g_hi;
    for (; i + 2 <= right; i += 2) {  // groups i (the low half of the load) and i + 1
      group_pair(q_ext + 4 * i, s_ext + 4 * i, g_lo, g_hi);
      if (step(g_lo) || step(g_hi)) break;
    }
    if (i + 1 == right && !(sum < X)) step(group(q_ext + 4 * i, s_ext + 4 * i));
  }
  return score;
}

ExtensionCutoffs extension_cutoffs(const KarlinParams& kp, uint64_t query_length, double search_space,
                                   uint64_t mean_subject_length, double evalue) {
  ExtensionCutoffs c;
  c.hit = score_for_evalue(kp, search_space, evalue);
  const double subj = double(mean_subject_length);
  const double word_space = std::min(subj, 2.0 * double(query_length)) * subj;
  c.word = std::min(score_for_evalue(kp, word_space, 0.05), c.hit);
  c.reduced = int64_t(0.8 * double(c.word));
  return c;
}

void ConcatenatedQuery::add(const std::vector<uint8_t>& plus, const std::vector<uint8_t>& minus, bool with_plus,
                            bool with_minus) {
  for (const std::vector<uint8_t>* strand : {&plus, &minus}) {
    offset.push_back(codes.size());
    if (!(strand == &plus ? with_plus : with_minus)) continue;
    const size_t at = codes.size();
    reserve_populated(codes, at + strand->size() + 1);
    codes.resize(at + strand->size() + 1);
    static const std::array<uint8_t, 256> kBlastna = [] {  // one look-up per code instead of a branch or two
      std::array<uint8_t, 256> t{};
      for (unsigned c = 0; c < 256; ++c) t[c] = blastna_of_code(uint8_t(c));
      return t;
    }();
    std::transform(strand->begin(), strand->end(), codes.begin() + std::ptrdiff_t(at),
                   [](uint8_t c) { return kBlastna[c]; });
    codes.back() = kSentinel;
  }
}

int ambiguous_score(int reward, int penalty) {
  const double v = (3.0 * penalty + reward) / 4.0;
  return int(v < 0 ? -std::floor(-v + 0.5) : std::floor(v + 0.5));
}

uint64_t DiagonalTable::slots_for(uint64_t query_length) {
  uint64_t n = 64;
  while (n <= query_length) n *= 2;
  return n;
}

DiagonalTable::DiagonalTable(uint64_t query_length) {
  const uint64_t n = slots_for(query_length);
  // Ordinary pages: stage 2 visits the table region by region (256 KB at a time), so huge pages save few TLB
  // misses, while only the pages of the regions that get seeds are ever touched (a fresh huge page costs ~4x the
  // first-touch time of the same bytes in 4 KiB pages here: huge_buffer.hpp).
  last_end_ = HugeBuffer<uint32_t>(n, false);
  mask_ = n - 1;
}

void DiagonalTable::touch(uint64_t first, uint64_t count) {
  const uint64_t end = std::min(first + count, mask_ + 1);
  if (end <= first || populate_pages(last_end_.data() + first, (end - first) * sizeof(uint32_t))) return;
  volatile uint32_t* p = last_end_.data();
  for (uint64_t i = first; i < end; i += 1024) p[i] = p[i];  // one write per 4 KiB page
}

bool DiagonalTable::reserve_range(uint64_t first, uint64_t last_end) {
  if (first < base_ || last_end < first || last_end - first > UINT32_MAX) return false;
  if (last_end - base_ > UINT32_MAX) rebase(first);
  return true;
}

void DiagonalTable::rebase(uint64_t new_base) {
  // An end at or before new_base can no longer stop any seed: it becomes 0.
  for (uint64_t i = 0; i <= mask_; ++i) {
    const uint64_t end = base_ + last_end_[i];
    last_end_[i] = end > new_base ? uint32_t(end - new_base) : 0;
  }
  base_ = new_base;
}

bool reevaluate_ungapped(const uint8_t* q, const uint8_t* s, const UngappedScoring& sc, int64_t cutoff,
                         UngappedExtension& ext) {
  const uint8_t* qs = q + ext.q_start;
  const uint8_t* ss = s + ext.s_start;
  int64_t sum = 0, score = 0;
  uint64_t best_start = 0, best_end = 0, cur_start = 0;
  for (uint64_t i = 0; i < ext.length; ++i) {
    sum += sc.pair(qs[i], ss[i]);
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
