#include "bloomseq/blast/gapped_extension.hpp"

#include "bloomseq/blast/greedy_gapped.hpp"
#include "bloomseq/blast/in_order_speculation.hpp"
#include "bloomseq/blast/kept_alignments.hpp"

#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <tuple>

namespace bloomseq {
namespace {

using Box = AlignmentBox;
using KeptBoxes = KeptAlignments;

// The orders of Blast_HSPListPurgeHSPsWithCommonEndpoints (s_QueryOffsetCompareHSPs, s_QueryEndCompareHSPs): by
// start, and of those sharing it the higher score first, then the one ending later; by end, and of those sharing
// it the higher score first, then the one starting later (the shorter: on a tie the longer one is cut).
bool start_order(const Box& a, const Box& b) {
  return std::make_tuple(a.q_start, a.s_start, -a.score, -a.q_end, -a.s_end) <
         std::make_tuple(b.q_start, b.s_start, -b.score, -b.q_end, -b.s_end);
}
bool end_order(const Box& a, const Box& b) {
  return std::make_tuple(a.q_end, a.s_end, -a.score, -a.q_start, -a.s_start) <
         std::make_tuple(b.q_end, b.s_end, -b.score, -b.q_start, -b.s_start);
}
bool same_start(const Box& a, const Box& b) { return a.q_start == b.q_start && a.s_start == b.s_start; }
bool same_end(const Box& a, const Box& b) { return a.q_end == b.q_end && a.s_end == b.s_end; }

// Of alignments sharing a start (then an end) keep the best (Blast_HSPListPurgeHSPsWithCommonEndpoints).
// Every sort here is stable: blastn sorts with the C library's qsort, a merge sort in glibc up to 2.36 (Debian 12's),
// so of alignments equal in every key (the same box found from several triggers, each with its own start point) it
// keeps the first found; its final alignment can take another path among equal-scoring ones (contig 16 of the 454
// contigs against E. coli 536: 157 against 158 gap openings when the last of three was kept).
template <class T, class GetBox>
void purge_common_endpoints(std::vector<T>& v, GetBox box) {
  std::stable_sort(v.begin(), v.end(), [&](const T& x, const T& y) { return start_order(box(x), box(y)); });
  v.erase(std::unique(v.begin(), v.end(), [&](const T& x, const T& y) { return same_start(box(x), box(y)); }),
          v.end());
  std::stable_sort(v.begin(), v.end(), [&](const T& x, const T& y) { return end_order(box(x), box(y)); });
  v.erase(std::unique(v.begin(), v.end(), [&](const T& x, const T& y) { return same_end(box(x), box(y)); }),
          v.end());
}

// BLAST's HSP order (ScoreCompareHSPs): score down, subject start up, subject end down, query start up, query end
// down.
bool score_order(const Box& a, const Box& b) {
  return std::make_tuple(-a.score, a.s_start, -a.s_end, a.q_start, -a.q_end) <
         std::make_tuple(-b.score, b.s_start, -b.s_end, b.q_start, -b.q_end);
}

// BlastGetStartForGappedAlignmentNucl: keep the preliminary start point when it lies in a run of more than 10
// identities (counted both ways from it); otherwise move it to the middle of the longest run of identities on
// the HSP's diagonal at the start point (or to 7 bases into a run longer than 15).
// Identity as blastn's traceback sees it (subject with its ambiguity codes): equal codes, N against N included.
inline bool same_base(uint8_t a, uint8_t b) { return a == b; }

void choose_start(const uint8_t* q, const uint8_t* s, int64_t s_len, Box& h) {
  int run_limit = 10;
  {
    int score = -1;
    int64_t qi = h.q_gapped, si = h.s_gapped;
    while (qi < h.q_end && si < s_len && same_base(q[qi], s[si])) {
      ++qi, ++si;
      if (++score > run_limit) return;
    }
    qi = h.q_gapped, si = h.s_gapped;
    while (qi >= 0 && si >= 0 && same_base(q[qi], s[si])) {
      --qi, --si;
      if (++score > run_limit) return;
    }
  }
  run_limit = int(run_limit * 1.5);
  const int64_t offset = std::min(h.s_gapped - h.s_start, h.q_gapped - h.q_start);
  const int64_t q_start = h.q_gapped - offset, s_start = h.s_gapped - offset;
  const int64_t len = std::min(h.s_end - s_start, h.q_end - q_start);
  int64_t max_score = 0, max_offset = q_start, score = 0, index = q_start;
  bool match = false, prev_match = false;
  for (; index < q_start + len; ++index) {
    match = same_base(q[index], s[index - q_start + s_start]);
    if (match != prev_match) {
      prev_match = match;
      if (match) {
        score = 1;
      } else if (score > max_score) {
        max_score = score;
        max_offset = index - score / 2;
      }
    } else if (match) {
      if (++score > run_limit) {
        h.q_gapped = index - run_limit / 2;
        h.s_gapped = h.q_gapped + s_start - q_start;
        return;
      }
    }
  }
  if (match && score > max_score) {
    max_score = score;
    max_offset = index - score / 2;
  }
  if (max_score > 0) {
    h.q_gapped = max_offset;
    h.s_gapped = max_offset + s_start - q_start;
  }
}

struct Final {
  Box box;
  GappedHsp hsp;
  std::vector<GapOp> ops;  // the alignment's columns, first to last
};

// Columns, identities, mismatches and gap openings of an alignment from its operations.
GappedHsp describe(const uint8_t* q, const uint8_t* s, const Box& b, const std::vector<GapOp>& ops) {
  GappedHsp r;
  int64_t qi = b.q_start, si = b.s_start;
  GapOp prev = GapOp::substitution;
  for (const GapOp op : ops) {
    if (op == GapOp::substitution) {
      if (same_base(q[qi], s[si])) ++r.identities;
      else ++r.mismatches;
      ++qi, ++si;
    } else {
      if (op != prev) ++r.gap_opens;
      (op == GapOp::gap_in_a ? si : qi) += 1;
    }
    prev = op;
  }
  r.align_length = ops.size();
  r.q_start = uint64_t(b.q_start), r.q_end = uint64_t(b.q_end);
  r.s_start = uint64_t(b.s_start), r.s_end = uint64_t(b.s_end);
  r.score = b.score;
  return r;
}

// The final alignment of one preliminary one (Blast_TracebackFromHSPList's work on one HSP): from a start point
// inside a run of identities, both ways with traceback; leading or trailing gaps dropped.
// `q_iupac`, `s_iupac`: the query's or the subject's letters (true codes) may hold IUPAC codes other than N.
Final trace_final(const uint8_t* q, int64_t QL, const uint8_t* s, int64_t SL, Box h, const GappedExtensionParams& p,
                  AlignmentJoins* joins, bool q_iupac, bool s_iupac) {
  choose_start(q, s, SL, h);
  const int64_t qs = h.q_gapped, ss = h.s_gapped;
  // Rows are query letters here (ALIGN_EX); the left part includes the start point.
  const XdropAlignment left = xdrop_gapped_align(LetterRun{q + qs, -1, qs + 1, q_iupac}, LetterRun{s + ss, -1, ss + 1, s_iupac},
                                                 p.scoring, p.xdrop_final, true, joins);
  const XdropAlignment right = xdrop_gapped_align(LetterRun{q + qs + 1, 1, QL - qs - 1, q_iupac},
                                                  LetterRun{s + ss + 1, 1, SL - ss - 1, s_iupac}, p.scoring,
                                                  p.xdrop_final, true, joins);
  Final f;
  Box& b = f.box;
  b.q_start = qs - left.a_end + 1;
  b.s_start = ss - left.b_end + 1;
  b.q_end = qs + right.a_end + 1;
  b.s_end = ss + right.b_end + 1;
  b.score = left.score + right.score;
  std::vector<GapOp> ops(left.ops.rbegin(), left.ops.rend());
  ops.insert(ops.end(), right.ops.begin(), right.ops.end());
  // A leading or trailing gap cannot belong to a best alignment; BLAST drops any and credits its cost back.
  const int gap_cost_open = p.scoring.gap_open, gap_cost_extend = p.scoring.gap_extend;
  size_t first = 0, last = ops.size();
  auto trim = [&](size_t& at, int dir) {
    while (first < last && ops[dir > 0 ? at : at - 1] != GapOp::substitution) {
      const GapOp kind = ops[dir > 0 ? at : at - 1];
      int64_t n = 0;
      while (first < last && ops[dir > 0 ? at : at - 1] == kind) {
        dir > 0 ? ++at : --at;
        ++n;
      }
      b.score += gap_cost_open + n * gap_cost_extend;
      const bool subject_gap = kind == GapOp::gap_in_a;  // a subject letter against a gap
      if (dir > 0) (subject_gap ? b.s_start : b.q_start) += n;
      else (subject_gap ? b.s_end : b.q_end) -= n;
    }
  };
  trim(first, 1);
  trim(last, -1);
  f.ops.assign(ops.begin() + std::ptrdiff_t(first), ops.begin() + std::ptrdiff_t(last));
  f.hsp = describe(q, s, b, f.ops);
  return f;
}

// Megablast's final alignment (Blast_TracebackFromHSPList with eGreedyTbck): from the start point chosen as for
// blastn, greedily both ways with traceback and the final X-drop. Its score is the greedy one (ambiguity codes
// mismatch) until the rescoring that follows.
Final trace_final_greedy(const uint8_t* q, int64_t QL, const uint8_t* s, int64_t SL, Box h,
                         const GappedExtensionParams& p) {
  choose_start(q, s, SL, h);
  GreedyAlignment a = greedy_gapped_align(q, QL, s, SL, h.q_gapped, h.s_gapped, p.scoring.reward, p.scoring.penalty,
                                          p.scoring.gap_open, p.scoring.gap_extend, p.xdrop_final, true);
  Final f;
  f.box = Box{a.q_start, a.q_end, a.s_start, a.s_end, a.score};
  f.ops = std::move(a.ops);
  // f.hsp is left empty: every greedy alignment is rescored (trim_common_endpoints), which describes those kept.
  return f;
}

// Cuts an alignment where it first reaches query position q_cut and subject position s_cut (a gap run is taken
// whole), keeping the part after that point (keep_tail) or before it (s_CutOffGapEditScript). An alignment that
// never reaches both is left as it is.
void cut_alignment(Final& f, int64_t q_cut, int64_t s_cut, bool keep_tail) {
  Box& b = f.box;
  int64_t qi = b.q_start, si = b.s_start;
  size_t k = 0;
  bool found = false;
  while (k < f.ops.size()) {
    const GapOp op = f.ops[k];
    if (op == GapOp::substitution) {
      ++qi, ++si, ++k;
    } else {
      for (; k < f.ops.size() && f.ops[k] == op; ++k) (op == GapOp::gap_in_a ? si : qi) += 1;
    }
    if (qi >= q_cut && si >= s_cut) {
      found = true;
      break;
    }
  }
  if (!found) return;
  if (keep_tail) {
    f.ops.erase(f.ops.begin(), f.ops.begin() + std::ptrdiff_t(k));
    b.q_start = qi, b.s_start = si;
  } else {
    f.ops.resize(k);
    b.q_end = qi, b.s_end = si;
  }
}

// Blast_HSPReevaluateWithAmbiguitiesGapped, on the remainder of a cut alignment: its best-scoring stretch
// (restarting wherever the running score falls below zero, unless the best so far already reaches the cut-off),
// then lengthened both ways by identical unambiguous bases. False when its score stays below `cutoff`.
// `factor`: scores are counted `factor` times over and divided at the end, as BLAST counts linear gaps of odd
// rewards (megablast: gap columns cost (reward - 2 x penalty) x factor / 2 each); the cut-off is compared unscaled
// inside the loop, as in BLAST.
bool reevaluate(Final& f, const uint8_t* q, int64_t QL, const uint8_t* s, int64_t SL, const GappedScoring& g,
                int64_t cutoff, int factor = 1) {
  Box& b = f.box;
  const std::vector<GapOp>& ops = f.ops;
  int64_t sum = 0, score = 0;
  int64_t qi = b.q_start, si = b.s_start;
  int64_t cur_q = qi, cur_s = si, best_q = qi, best_s = si, best_q_end = qi, best_s_end = si;
  size_t k = 0, cur_k = 0, best_k = 0, best_k_end = 0;
  while (k < ops.size()) {
    const GapOp op = ops[k];
    if (op == GapOp::substitution) {
      sum += factor * g.pair(q[qi], s[si]);
      ++qi, ++si, ++k;
    } else {
      int64_t n = 0;
      for (; k < ops.size() && ops[k] == op; ++k, ++n) (op == GapOp::gap_in_a ? si : qi) += 1;
      sum -= g.gap_open + n * g.gap_extend;
    }
    if (sum < 0) {
      sum = 0;
      cur_q = qi, cur_s = si, cur_k = k;
      if (score < cutoff) {
        score = 0;
        best_q = best_q_end = qi, best_s = best_s_end = si;
        best_k = best_k_end = k;
      }
    } else if (sum > score) {
      score = sum;
      best_q = cur_q, best_s = cur_s, best_k = cur_k;
      best_q_end = qi, best_s_end = si, best_k_end = k;
    }
  }
  score /= factor;
  if (best_k_end > best_k) {
    int64_t left = 0, right = 0;
    while (best_q - left > 0 && best_s - left > 0 && q[best_q - left - 1] < 4 &&
           same_base(q[best_q - left - 1], s[best_s - left - 1]))
      ++left;
    while (best_q_end + right < QL && best_s_end + right < SL && q[best_q_end + right] < 4 &&
           same_base(q[best_q_end + right], s[best_s_end + right]))
      ++right;
    best_q -= left, best_s -= left, best_q_end += right, best_s_end += right;
    score += (left + right) * g.reward;
    std::vector<GapOp> kept(size_t(left), GapOp::substitution);
    kept.insert(kept.end(), ops.begin() + std::ptrdiff_t(best_k), ops.begin() + std::ptrdiff_t(best_k_end));
    kept.insert(kept.end(), size_t(right), GapOp::substitution);
    f.ops.swap(kept);
  } else {
    f.ops.clear();
  }
  if (score < cutoff) return false;
  b = Box{best_q, best_q_end, best_s, best_s_end, score};
  f.hsp = describe(q, s, b, f.ops);
  return true;
}

// Blast_HSPTest's identity criterion (-perc_identity).
bool identity_ok(const GappedHsp& h, double percent_identity) {
  return !(double(h.identities) * 100.0 < double(h.align_length) * percent_identity);
}

// Blast_HSPListPurgeHSPsWithCommonEndpoints without purging, as blastn's traceback runs it: of alignments sharing a
// start, the best stays and each other one reaching further in the query is cut to begin where the best ends;
// then, of those left, alike for a common end (cut to end where the best begins). The others sharing an endpoint
// are dropped. The cut ones are rescored (reevaluate) and kept if they still reach the cut-off.
void trim_common_endpoints(std::vector<Final>& finals, const uint8_t* q, int64_t QL, const uint8_t* s, int64_t SL,
                           const GappedExtensionParams& p) {
  std::vector<Final> kept, cut_at_start, cut_at_end;
  std::stable_sort(finals.begin(), finals.end(),
                   [](const Final& x, const Final& y) { return start_order(x.box, y.box); });
  for (size_t i = 0, j; i < finals.size(); i = j) {
    for (j = i + 1; j < finals.size() && same_start(finals[i].box, finals[j].box); ++j) {
      if (finals[j].box.q_end <= finals[i].box.q_end) continue;
      cut_alignment(finals[j], finals[i].box.q_end, finals[i].box.s_end, true);
      cut_at_start.push_back(std::move(finals[j]));
    }
    kept.push_back(std::move(finals[i]));
  }
  std::stable_sort(kept.begin(), kept.end(), [](const Final& x, const Final& y) { return end_order(x.box, y.box); });
  finals.clear();
  for (size_t i = 0, j; i < kept.size(); i = j) {
    for (j = i + 1; j < kept.size() && same_end(kept[i].box, kept[j].box); ++j) {
      if (kept[j].box.q_start >= kept[i].box.q_start) continue;
      cut_alignment(kept[j], kept[i].box.q_start, kept[i].box.s_start, false);
      cut_at_end.push_back(std::move(kept[j]));
    }
    finals.push_back(std::move(kept[i]));
  }
  // blastn moves each alignment it cuts to the end of the list's live part, in front of those cut before it, so
  // the cut ones follow the kept ones in reverse order, those cut at the end first. The order decides which of two
  // cut alignments equal in every key the later purge keeps: the first (3/-4, S. suis against E. coli 536: two
  // preliminary alignments traced to the same box by paths of equal score, cut where a better one ends).
  std::vector<Final> cut(std::make_move_iterator(cut_at_end.rbegin()), std::make_move_iterator(cut_at_end.rend()));
  cut.insert(cut.end(), std::make_move_iterator(cut_at_start.rbegin()), std::make_move_iterator(cut_at_start.rend()));
  if (!p.greedy) {
    for (Final& f : cut)
      if (reevaluate(f, q, QL, s, SL, p.scoring, p.cutoff) && identity_ok(f.hsp, p.percent_identity))
        finals.push_back(std::move(f));
    return;
  }
  // Megablast rescores every alignment: the greedy score does not see ambiguity codes.
  for (Final& f : cut) finals.push_back(std::move(f));
  // Linear gaps (0/0) cost (reward - 2 x penalty) / 2 a column, counted twice over for an odd reward.
  GappedScoring g = p.scoring;
  int factor = 1;
  if (g.gap_open == 0 && g.gap_extend == 0) {
    factor = g.reward % 2 == 1 ? 2 : 1;
    g.gap_extend = (g.reward - 2 * g.penalty) * factor / 2;
  }
  std::vector<Final> rescored;
  for (Final& f : finals)
    if (reevaluate(f, q, QL, s, SL, g, p.cutoff, factor) && identity_ok(f.hsp, p.percent_identity))
      rescored.push_back(std::move(f));
  finals.swap(rescored);
}

}  // namespace

std::vector<GappedHsp> extend_gapped(const uint8_t* q, uint64_t q_len, const uint8_t* s, uint64_t s_len,
                                     std::vector<GapTrigger> triggers, const GappedExtensionParams& p, int threads,
                                     GappedExtensionStats* stats, const uint8_t* s_true, bool s_true_iupac,
                                     bool q_iupac, SpeculationCrew* crew) {
  const int64_t QL = int64_t(q_len), SL = int64_t(s_len);
  if (!s_true) s_true = s;
  if (crew) threads = crew->threads();
  // Candidates claimed past the oldest undecided one: enough to keep every thread busy behind a long alignment. The
  // 1-Mbase self alignment of an E. coli slice against its genome holds the oldest slot while the other threads work
  // through the repeats behind it: 16 per thread left them waiting (stage 3 on two threads 1.55x one thread), 1,024
  // per thread 1.75x. A preliminary self-match takes 0.05-0.2 s, ~15,000-60,000 other preliminary extensions.
  const size_t lookahead = 16384 * size_t(std::max(threads, 1));
  // Candidates near a long alignment's diagonals are left to their turn while it is computed (see
  // run_in_order_speculatively), so the larger lookahead does not compute them in vain: in a self-comparison the
  // triggers of tandem repeats a few dozen diagonals off the self-match are covered by its preliminary alignment, or
  // join its final one (S. suis against itself on two threads: a preliminary and a final alignment of 2.1 Mrows each
  // were computed beside the self-match's, 0.2 and 0.3 s in vain).
  constexpr int64_t kNeighbourDiagonals = 128;
  auto near = [](int64_t d1, int64_t d2) { return std::abs(d1 - d2) <= kNeighbourDiagonals; };
  // Preliminary pass, best ungapped HSP first (score_compare_match).
  std::stable_sort(triggers.begin(), triggers.end(), [](const GapTrigger& a, const GapTrigger& b) {
    return std::make_tuple(-a.score, a.s_start, -int64_t(a.length), a.q_start) <
           std::make_tuple(-b.score, b.s_start, -int64_t(b.length), b.q_start);
  });
  auto ungapped_box = [&](size_t i) {
    const GapTrigger& t = triggers[i];
    return Box{int64_t(t.q_start), int64_t(t.q_start + t.length), int64_t(t.s_start), int64_t(t.s_start + t.length),
               t.score};
  };
  const int64_t separation = p.greedy ? kMegablastMinDiagSeparation : kMinDiagSeparation;
  std::vector<Box> extended(triggers.size());
  std::vector<Box> prelim;
  KeptBoxes prelim_index(separation);
  const SpeculationStats prelim_stats = run_in_order_speculatively(
      triggers.size(), threads, lookahead, [&](size_t i) { return prelim_index.contains(ungapped_box(i)); },
      [&](size_t i) {
        const GapTrigger& t = triggers[i];
        // The triggers go best first, so each one's letters lie anywhere in both sequences: the next one's are
        // fetched while this one is aligned (its first rows waited on them, a tenth of a preliminary extension).
        if (i + 1 < triggers.size()) {
          const GapTrigger& n = triggers[i + 1];
          for (const int64_t d : {-64, 0, 64}) {
            __builtin_prefetch(q + std::clamp<int64_t>(int64_t(n.q_seed) + d, 0, QL - 1));
            __builtin_prefetch(s + std::clamp<int64_t>(int64_t(n.s_seed) + d, 0, SL - 1));
          }
        }
        if (p.greedy) {
          // BLAST_GetGappedScore with eGreedyScoreOnly: from the middle of the ungapped HSP, on the subject's
          // blastn bases.
          const GreedyAlignment a =
              greedy_gapped_align(q, QL, s, SL, int64_t(t.q_start + t.length / 2), int64_t(t.s_start + t.length / 2),
                                  p.scoring.reward, p.scoring.penalty, p.scoring.gap_open, p.scoring.gap_extend,
                                  p.xdrop_gap, false);
          extended[i] = Box{a.q_start, a.q_end, a.s_start, a.s_end, a.score, a.q_seed, a.s_seed};
          return;
        }
        int64_t q_off = int64_t(t.q_seed), s_off = int64_t(t.s_seed);
        if (int64_t(t.s_start + t.length) >= s_off + 8) q_off += 3, s_off += 3;
        const int x = int(std::min<int64_t>(p.xdrop_gap, t.score));
        const int64_t adjust = 4 - s_off % 4;
        int64_t q_mid = q_off + adjust, s_mid = s_off + adjust;
        if (q_mid > QL || s_mid > SL) q_mid -= 4, s_mid -= 4;
        // Rows are subject letters, columns query letters, as in blastn's packed-subject alignment.
        const XdropAlignment left = xdrop_gapped_align(LetterRun{s + s_mid - 1, -1, s_mid},
                                                       LetterRun{q + q_mid - 1, -1, q_mid, q_iupac}, p.scoring, x, false);
        Box g{q_mid - left.b_end, q_mid, s_mid - left.a_end, s_mid, left.score, q_off, s_off};
        if (q_mid < QL && s_mid < SL) {
          const XdropAlignment right = xdrop_gapped_align(LetterRun{s + s_mid, 1, SL - s_mid},
                                                          LetterRun{q + q_mid, 1, QL - q_mid, q_iupac}, p.scoring, x, false);
          g.q_end = q_mid + right.b_end;
          g.s_end = s_mid + right.a_end;
          g.score += right.score;
        }
        extended[i] = g;
      },
      [&](size_t i) {
        if (extended[i].score < p.cutoff) return;
        prelim.push_back(extended[i]);
        prelim_index.add(extended[i]);
      },
      [&](size_t i, size_t j) {
        return near(int64_t(triggers[i].s_seed) - int64_t(triggers[i].q_seed),
                    int64_t(triggers[j].s_seed) - int64_t(triggers[j].q_seed));
      },
      crew);
  std::vector<Box>().swap(extended);
  purge_common_endpoints(prelim, [](const Box& b) -> const Box& { return b; });
  // Between its passes blastn computes the preliminary alignments' E-values and drops those above the cut-off
  // (Blast_HSPListReapByEvalue). With the 2/-n tables an odd score counts as the even one below it, so an alignment
  // scoring exactly an odd cut-off is dropped here, after it took its part in the preliminary pass: traced, its
  // alignment could run into a neighbour's and end where that one ends (the K. pneumoniae chromosome against
  // E. coli 536: 6 lines that blastn does not print).
  if (p.round_down)
    prelim.erase(std::remove_if(prelim.begin(), prelim.end(),
                                [&](const Box& b) { return (b.score & ~int64_t(1)) < p.cutoff; }),
                 prelim.end());
  std::stable_sort(prelim.begin(), prelim.end(), score_order);
  if (stats)
    for (const Box& b : prelim) stats->best_preliminary_score = std::max(stats->best_preliminary_score, b.score);

  // Final pass with traceback.
  std::vector<Final> traced(prelim.size());
  std::vector<Final> finals;
  KeptBoxes done(separation);
  // A repeat's final alignment that bridges onto a self-match follows it to its end: it takes the self-match's
  // end and path from where their windows agree (AlignmentJoins) instead of tracing them again.
  AlignmentJoins joins;
  const SpeculationStats final_stats = run_in_order_speculatively(
      prelim.size(), threads, lookahead, [&](size_t i) { return done.contains(prelim[i]); },
      [&](size_t i) {
        traced[i] = p.greedy ? trace_final_greedy(q, QL, s_true, SL, prelim[i], p)
                             : trace_final(q, QL, s_true, SL, prelim[i], p, &joins, q_iupac, s_true_iupac);
      },
      [&](size_t i) {
        // Blast_HSPTest after the traceback (megablast's greedy ones are tested once rescored, below).
        if (!p.greedy && !identity_ok(traced[i].hsp, p.percent_identity)) return;
        done.add(traced[i].box);
        finals.push_back(traced[i]);
      },
      [&](size_t i, size_t j) {
        const Box &a = prelim[i], &b = prelim[j];
        const int64_t a0 = a.s_start - a.q_start, a1 = a.s_end - a.q_end;
        const int64_t b0 = b.s_start - b.q_start, b1 = b.s_end - b.q_end;
        return near(a0, b0) || near(a0, b1) || near(a1, b0) || near(a1, b1);
      },
      crew);
  if (stats) {
    stats->final_joined += joins.joined();
    stats->preliminary += prelim_stats.computed;
    stats->preliminary_wasted += prelim_stats.wasted;
    stats->final += final_stats.computed;
    stats->final_wasted += final_stats.wasted;
    stats->postponed += prelim_stats.postponed + final_stats.postponed;
  }
  // Blast_TracebackFromHSPList: common endpoints cut (and the rest rescored), then any still shared dropped.
  trim_common_endpoints(finals, q, QL, s_true, SL, p);
  purge_common_endpoints(finals, [](const Final& f) -> const Box& { return f.box; });
  std::stable_sort(finals.begin(), finals.end(),
                   [](const Final& a, const Final& b) { return score_order(a.box, b.box); });
  std::vector<GappedHsp> out;
  KeptBoxes kept(separation);
  for (const Final& f : finals) {
    if (kept.contains(f.box)) continue;
    kept.add(f.box);
    out.push_back(f.hsp);
    if (p.keep_ops) out.back().ops = f.ops;
  }
  return out;
}

}  // namespace bloomseq
