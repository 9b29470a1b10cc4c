#include "bloomseq/blast/greedy_gapped.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>
#include <numeric>

namespace bloomseq {
namespace {

constexpr int64_t kInvalid = -2;  // below any offset, and kInvalid + 1 too (the recurrence adds one)

// BLAST's edit operations: ins = a query letter against a gap, del = a subject letter against a gap.
enum class Edit : uint8_t { sub, ins, del };

struct EditScript {
  std::vector<Edit> op;
  std::vector<int64_t> num;
  int64_t size() const { return int64_t(op.size()); }
};

// Furthest-reaching subject offsets per distance and diagonal (diagonal k: query offset = subject offset + k).
// With traceback every distance's row is kept; score-only needs the previous row only.
class DiagonalRows {
 public:
  explicit DiagonalRows(bool keep_all) : keep_all_(keep_all) {}
  // Row d for diagonals [lo, hi], with room for the sentinels the next distance writes around them.
  void open(int64_t d, int64_t lo, int64_t hi) {
    lo -= 3, hi += 3;
    if (keep_all_) {
      starts_.push_back(int64_t(pool_.size()) - lo);
      lows_.push_back(lo);
      highs_.push_back(hi);
      pool_.resize(pool_.size() + size_t(hi - lo + 1), kInvalid);
    } else {
      Row& r = two_[d & 1];
      r.lo = lo;
      r.v.assign(size_t(hi - lo + 1), kInvalid);
    }
  }
  // Row d as a view indexed by diagonal; valid until the next open().
  struct View {
    int64_t* base;
    int64_t lo, hi;
    int64_t& operator[](int64_t k) const {
      assert(k >= lo && k <= hi);
      return base[k - lo];
    }
  };
  View row(int64_t d) {
    if (keep_all_) {
      const size_t i = size_t(d);
      return View{pool_.data() + (starts_[i] + lows_[i]), lows_[i], highs_[i]};
    }
    Row& r = two_[d & 1];
    return View{r.v.data(), r.lo, r.lo + int64_t(r.v.size()) - 1};
  }
  int64_t& at(int64_t d, int64_t k) {
    if (keep_all_) {
      assert(k >= lows_[size_t(d)] && k <= highs_[size_t(d)]);
      return pool_[size_t(starts_[size_t(d)] + k)];
    }
    Row& r = two_[d & 1];
    assert(k >= r.lo && k - r.lo < int64_t(r.v.size()));
    return r.v[size_t(k - r.lo)];
  }

 private:
  struct Row {
    int64_t lo = 0;
    std::vector<int64_t> v;
  };
  bool keep_all_;
  std::vector<int64_t> pool_, starts_, lows_, highs_;
  Row two_[2];
};

// GapPrelimEditBlockAdd: runs of one operation merge.
void add_edit(EditScript& e, Edit op, int64_t n) {
  if (n == 0) return;
  if (!e.op.empty() && e.op.back() == op) {
    e.num.back() += n;
  } else {
    e.op.push_back(op);
    e.num.push_back(n);
  }
}

// The best score up to the next distance: that distance's own score when it beats the best so far (or equals it,
// with `ties_win`), else the best so far. True when the new distance is the best.
bool record_best(std::vector<int64_t>& best, int64_t score, bool ties_win) {
  const int64_t so_far = best.back();
  const bool better = ties_win ? score >= so_far : score > so_far;
  best.push_back(better ? score : so_far);
  return better;
}

struct OneWay {
  GreedyHalf half;
  int64_t score = 0;  // affine only: the extension's score (doubled for an odd reward)
  EditScript block;  // traceback: from the far end back to the start point (BLAST's preliminary edit block)
};

// Runs of matches read outwards from the start point (s_FindFirstMismatch): `a` is the query side (only its
// letters below 4 can match), `b` the subject side; `reverse` reads both leftwards from their ends.
struct MatchRuns {
  const uint8_t* a;
  int64_t a_len;
  const uint8_t* b;
  int64_t b_len;
  bool reverse;
  uint8_t A(int64_t i) const { return reverse ? a[a_len - 1 - i] : a[i]; }
  uint8_t B(int64_t j) const { return reverse ? b[b_len - 1 - j] : b[j]; }
  // Matches from (i, j) on.
  int64_t first_mismatch(int64_t i, int64_t j) const {
    const int64_t from = i;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    // Eight letters per step (most of the time goes here: runs of matches between differences). A byte differs
    // where the letters differ or the query letter is not a base.
    constexpr uint64_t kNotBase = 0xFCFCFCFCFCFCFCFCull;
    while (i + 8 <= a_len && j + 8 <= b_len) {
      uint64_t x, y;
      std::memcpy(&x, reverse ? a + (a_len - i - 8) : a + i, 8);
      std::memcpy(&y, reverse ? b + (b_len - j - 8) : b + j, 8);
      const uint64_t diff = (x ^ y) | (x & kNotBase);
      if (diff != 0) return i - from + (reverse ? __builtin_clzll(diff) : __builtin_ctzll(diff)) / 8;
      i += 8, j += 8;
    }
#endif
    while (i < a_len && j < b_len) {
      const uint8_t x = A(i);
      if (x >= 4 || x != B(j)) break;
      ++i, ++j;
    }
    return i - from;
  }
};

// BLAST_GreedyAlign. `a` is the query side (only its letters below 4 can match), `b` the subject side.
OneWay greedy_one_way(const uint8_t* a, int64_t a_len, const uint8_t* b, int64_t b_len, bool reverse, int64_t X,
                      int64_t match_cost, int64_t mismatch_cost, bool traceback) {
  const MatchRuns runs{a, a_len, b, b_len, reverse};
  auto first_mismatch = [&](int64_t i, int64_t j) { return runs.first_mismatch(i, j); };
  OneWay r;
  GreedyHalf& h = r.half;
  const int64_t xdrop_offset = (X + match_cost / 2) / (match_cost + mismatch_cost) + 1;
  int64_t index = first_mismatch(0, 0);
  h.a_len = h.b_len = index;
  h.seed_len = index;
  int64_t longest = index;
  if (index == a_len || index == b_len) {
    if (traceback) add_edit(r.block, Edit::sub, index);
    return r;
  }
  // best[d + xdrop_offset]: the best score of distance d; the distances before 0 score 0.
  std::vector<int64_t> best(size_t(xdrop_offset), 0);
  auto best_of = [&](int64_t d) { return best[size_t(d + xdrop_offset)]; };
  DiagonalRows rows(traceback);
  rows.open(0, 0, 0);
  rows.at(0, 0) = index;
  best.push_back(index * match_cost);
  int64_t lower = -1, upper = 1;
  bool end_a = false, end_b = false;
  rows.open(1, lower, upper);
  int64_t best_dist = 0, best_diag = 0;
  for (int64_t d = 1;; ++d) {
    const DiagonalRows::View prev = rows.row(d - 1), cur = rows.row(d);
    prev[lower - 1] = kInvalid;
    prev[lower] = kInvalid;
    prev[upper] = kInvalid;
    prev[upper + 1] = kInvalid;
    int64_t xdrop_score = best_of(d - xdrop_offset) + (match_cost + mismatch_cost) * d - X;
    xdrop_score = int64_t(std::ceil(double(xdrop_score) / double(match_cost / 2)));
    int64_t curr_extent = 0, curr_b = 0, curr_diag = 0;
    const int64_t from = lower, to = upper;
    for (int64_t k = from; k <= to; ++k) {
      int64_t j = std::max(prev[k + 1], prev[k]) + 1;
      j = std::max(j, prev[k - 1]);
      int64_t i = j + k;
      if (j < 0 || i + j < xdrop_score) {
        if (k == lower) ++lower;
        else cur[k] = kInvalid;
        continue;
      }
      upper = k;
      const int64_t run = first_mismatch(i, j);
      if (run > longest) {
        h.seed_a = i, h.seed_b = j, h.seed_len = longest = run;
      }
      i += run, j += run;
      cur[k] = j;
      if (i + j > curr_extent) {
        curr_extent = i + j;
        curr_b = j;
        curr_diag = k;
      }
      if (j == b_len) {
        lower = k + 1;
        end_b = true;
      }
      if (i == a_len) {
        upper = k - 1;
        end_a = true;
      }
    }
    // BLAST_GreedyAlign lets a later distance win a tie.
    if (record_best(best, curr_extent * (match_cost / 2) - d * (match_cost + mismatch_cost), true)) {
      best_dist = d;
      best_diag = curr_diag;
      h.b_len = curr_b;
      h.a_len = curr_b + best_diag;
    }
    if (lower > upper) break;
    if (!end_b) --lower;
    if (!end_a) ++upper;
    rows.open(d + 1, lower, upper);
  }
  h.distance = best_dist;
  if (!traceback) return r;
  int64_t j = h.b_len, diag = best_diag;
  for (int64_t d = best_dist; d > 0; --d) {
    // The operation that reached this point: the predecessor with the largest subject offset.
    const int64_t lo = rows.at(d - 1, diag - 1), mid = rows.at(d - 1, diag), hi = rows.at(d - 1, diag + 1);
    int64_t next_diag, next_j;
    if (lo > std::max(mid, hi)) next_diag = diag - 1, next_j = lo;
    else if (mid > hi) next_diag = diag, next_j = mid;
    else next_diag = diag + 1, next_j = hi;
    if (next_diag == diag) {
      if (j - next_j > 0) add_edit(r.block, Edit::sub, j - next_j);
    } else if (next_diag < diag) {
      if (j - next_j > 0) add_edit(r.block, Edit::sub, j - next_j);
      add_edit(r.block, Edit::ins, 1);
    } else {
      if (j - next_j - 1 > 0) add_edit(r.block, Edit::sub, j - next_j - 1);
      add_edit(r.block, Edit::del, 1);
    }
    diag = next_diag;
    j = next_j;
  }
  add_edit(r.block, Edit::sub, rows.at(0, 0));
  return r;
}

// BLAST_AffineGreedyAlign: the greedy extension with affine gaps. Distances are costs: a mismatch op_cost =
// match + mismatch, a gap opened gap_open + gap_extend and extended gap_extend (gap_extend raised by match/2, all
// three divided by their gcd), so a cell of distance d is reached from distances d - op_cost, d - gap_open_extend
// and d - gap_extend; each keeps the furthest subject offset ending in a match, an insertion or a deletion. The
// extension ends when max(op_cost, gap_open_extend) consecutive distances have no diagonal left.
OneWay affine_one_way(const MatchRuns& runs, int64_t X, int64_t match, int64_t mismatch, int64_t in_gap_open,
                      int64_t in_gap_extend, bool traceback) {
  OneWay r;
  GreedyHalf& h = r.half;
  const int64_t match_half = match / 2;
  int64_t op_cost = match + mismatch, gap_open = in_gap_open, gap_extend = in_gap_extend + match_half;
  // BLAST_Gdb3
  const int64_t common = gap_open == 0 ? std::gcd(op_cost, gap_extend) : std::gcd(op_cost, std::gcd(gap_open, gap_extend));
  if (common > 1) op_cost /= common, gap_open /= common, gap_extend /= common;
  const int64_t gap_open_extend = gap_open + gap_extend;
  const int64_t max_penalty = std::max(op_cost, gap_open_extend);
  const int64_t xdrop_offset = (X + match_half) / common + 1;
  int64_t index = runs.first_mismatch(0, 0);
  h.a_len = h.b_len = index;
  h.seed_len = index;
  int64_t longest = index;
  if (index == runs.a_len || index == runs.b_len) {
    if (traceback) add_edit(r.block, Edit::sub, index);
    r.score = index * match;
    return r;
  }
  struct Offsets {
    int64_t ins = kInvalid, match = kInvalid, del = kInvalid;
  };
  struct Row {
    int64_t lo = 0;
    std::vector<Offsets> v;
  };
  // Rows by distance: all of them with traceback, the last max_penalty + 1 otherwise (a ring).
  std::vector<Row> rows(traceback ? 1 : size_t(max_penalty + 1));
  auto row = [&](int64_t d) -> Row& { return rows[traceback ? size_t(d) : size_t(d % (max_penalty + 1))]; };
  auto open = [&](int64_t d, int64_t lo, int64_t hi) {
    if (traceback && int64_t(rows.size()) <= d) rows.resize(size_t(d + 1));
    Row& w = row(d);
    w.lo = lo;
    w.v.assign(size_t(std::max<int64_t>(hi - lo + 1, 0)), Offsets{});
  };
  auto cell = [&](int64_t d, int64_t k) -> Offsets& {
    Row& w = row(d);
    assert(k >= w.lo && k - w.lo < int64_t(w.v.size()));
    return w.v[size_t(k - w.lo)];
  };
  // Diagonal bounds per distance, the max_penalty distances before 0 empty.
  constexpr int64_t kNoDiagonal = 100000000;
  std::vector<int64_t> lower_b(size_t(max_penalty), kNoDiagonal), upper_b(size_t(max_penalty), -kNoDiagonal);
  auto lower_of = [&](int64_t d) { return lower_b[size_t(d + max_penalty)]; };
  auto upper_of = [&](int64_t d) { return upper_b[size_t(d + max_penalty)]; };
  auto valid = [&](int64_t d, int64_t k) { return k >= lower_of(d) && k <= upper_of(d); };
  std::vector<int64_t> best(size_t(xdrop_offset), 0);
  auto best_of = [&](int64_t d) { return best[size_t(d + xdrop_offset)]; };
  open(0, 0, 0);
  cell(0, 0) = Offsets{kInvalid, index, kInvalid};
  best.push_back(index * match);
  lower_b.push_back(0);
  upper_b.push_back(0);
  int64_t curr_lower = -1, curr_upper = 1, end_a_diag = 0, end_b_diag = 0, nonempty = 1;
  int64_t best_dist = 0, best_diag = 0;
  for (int64_t d = 1;; ) {
    int64_t xdrop_score = best_of(d - xdrop_offset) + common * d - X;
    xdrop_score = int64_t(std::ceil(double(xdrop_score) / double(match_half)));
    if (xdrop_score < 0) xdrop_score = 0;
    int64_t curr_extent = 0, curr_b = 0, curr_diag = 0;
    const int64_t from = curr_lower, to = curr_upper;
    open(d, from, to);
    for (int64_t k = from; k <= to; ++k) {
      Offsets& c = cell(d, k);
      // A gap in the query (a subject letter against a gap): opened from a match or extended, on diagonal k + 1.
      int64_t j = kInvalid;
      if (valid(d - gap_open_extend, k + 1)) j = cell(d - gap_open_extend, k + 1).match;
      if (valid(d - gap_extend, k + 1) && j < cell(d - gap_extend, k + 1).del) j = cell(d - gap_extend, k + 1).del;
      c.del = j == kInvalid ? kInvalid : j + 1;
      // A gap in the subject, from diagonal k - 1 (the subject offset stays).
      j = kInvalid;
      if (valid(d - gap_open_extend, k - 1)) j = cell(d - gap_open_extend, k - 1).match;
      if (valid(d - gap_extend, k - 1) && j < cell(d - gap_extend, k - 1).ins) j = cell(d - gap_extend, k - 1).ins;
      c.ins = j;
      j = std::max(c.ins, c.del);
      if (valid(d - op_cost, k)) j = std::max(j, cell(d - op_cost, k).match + 1);
      int64_t i = j + k;
      if (j < 0 || i + j < xdrop_score) {
        if (k == curr_lower) ++curr_lower;
        else c.match = kInvalid;
        continue;
      }
      curr_upper = k;
      const int64_t run = runs.first_mismatch(i, j);
      if (run > longest) {
        h.seed_a = i, h.seed_b = j, h.seed_len = longest = run;
      }
      i += run, j += run;
      c.match = j;
      if (i + j > curr_extent) {
        curr_extent = i + j;
        curr_b = j;
        curr_diag = k;
      }
      if (i == runs.a_len) {
        curr_upper = k;
        end_a_diag = k - 1;
      }
      if (j == runs.b_len) {
        curr_lower = k;
        end_b_diag = k + 1;
      }
    }
    if (record_best(best, curr_extent * match_half - d * common, false)) {  // ties: the earlier distance stays
      best_dist = d;
      best_diag = curr_diag;
      h.b_len = curr_b;
      h.a_len = curr_b + best_diag;
    }
    if (curr_lower <= curr_upper) {
      ++nonempty;
      lower_b.push_back(curr_lower);
      upper_b.push_back(curr_upper);
    } else {
      lower_b.push_back(kNoDiagonal);
      upper_b.push_back(-kNoDiagonal);
    }
    if (lower_of(d - max_penalty) <= upper_of(d - max_penalty)) --nonempty;
    if (nonempty == 0) break;
    ++d;
    curr_lower = std::min(lower_of(d - gap_open_extend), lower_of(d - gap_extend)) - 1;
    curr_lower = std::min(curr_lower, lower_of(d - op_cost));
    if (end_b_diag > 0) curr_lower = std::max(curr_lower, end_b_diag);
    curr_upper = std::max(upper_of(d - gap_open_extend), upper_of(d - gap_extend)) + 1;
    curr_upper = std::max(curr_upper, upper_of(d - op_cost));
    if (end_a_diag > 0) curr_upper = std::min(curr_upper, end_a_diag);
  }
  h.distance = best_dist;
  r.score = best_of(best_dist);
  if (!traceback) return r;
  int64_t d = best_dist, j = h.b_len, diag = best_diag;
  Edit state = Edit::sub;
  while (d > 0) {
    if (state == Edit::sub) {
      // s_GetNextAffineTbackFromMatch: a mismatch from d - op_cost when that reaches at least as far as a gap here.
      const Offsets& c = cell(d, diag);
      int64_t next_j;
      if (valid(d - op_cost, diag) && cell(d - op_cost, diag).match >= std::max(c.ins, c.del)) {
        next_j = cell(d - op_cost, diag).match;
        d -= op_cost;
      } else if (c.ins > c.del) {
        next_j = c.ins;
        state = Edit::ins;
      } else {
        next_j = c.del;
        state = Edit::del;
      }
      add_edit(r.block, Edit::sub, j - next_j);
      j = next_j;
    } else {
      // s_GetNextAffineTbackFromIndel: the gap was opened from a match, or extended.
      add_edit(r.block, state, 1);
      const int64_t next_diag = state == Edit::ins ? diag - 1 : diag + 1;
      int64_t next_j = kInvalid;
      if (valid(d - gap_extend, next_diag))
        next_j = state == Edit::ins ? cell(d - gap_extend, next_diag).ins : cell(d - gap_extend, next_diag).del;
      const Edit was = state;
      if (valid(d - gap_open_extend, next_diag) && next_j < cell(d - gap_open_extend, next_diag).match) {
        d -= gap_open_extend;
        state = Edit::sub;
      } else {
        d -= gap_extend;
      }
      if (was == Edit::ins) {
        --diag;
      } else {
        ++diag;
        --j;
      }
    }
  }
  add_edit(r.block, Edit::sub, cell(0, 0).match);
  return r;
}

GapOp column_of(Edit e) {
  return e == Edit::sub ? GapOp::substitution : e == Edit::ins ? GapOp::gap_in_b : GapOp::gap_in_a;
}

// One side of s_UpdateEditScript: the substitution run at `pos` grows by n letters on the side `step` points to
// (-1 before it, +1 after it), the operations there giving up as many letters of each sequence, and the gap left
// between them goes next to the run. False when the operations on that side run out first (BLAST then leaves the
// rest of the update undone).
bool absorb_into_run(EditScript& e, int64_t pos, int64_t n, int64_t step) {
  int64_t op = pos, qd = n, sd = n;
  do {
    op += step;
    if (op < 0 || op >= e.size()) return false;
    switch (e.op[size_t(op)]) {
      case Edit::sub: qd -= e.num[size_t(op)], sd -= e.num[size_t(op)]; break;
      case Edit::ins: qd -= e.num[size_t(op)]; break;
      case Edit::del: sd -= e.num[size_t(op)]; break;
    }
  } while (qd > 0 || sd > 0);
  e.num[size_t(op)] = -std::max(qd, sd);
  e.op[size_t(op)] = Edit::sub;
  for (int64_t k = op - step; step < 0 ? k < pos - 1 : k > pos + 1; k -= step) e.num[size_t(k)] = 0;
  e.num[size_t(pos)] += n;
  qd -= sd;
  e.op[size_t(pos + step)] = qd > 0 ? Edit::del : Edit::ins;
  e.num[size_t(pos + step)] = qd > 0 ? qd : -qd;
  return true;
}

// s_UpdateEditScript: the substitution run at `pos` grows by bf letters before it and af after it.
void update_edit_script(EditScript& e, int64_t pos, int64_t bf, int64_t af) {
  if (bf > 0 && !absorb_into_run(e, pos, bf, -1)) return;
  if (af > 0) absorb_into_run(e, pos, af, 1);
}

// s_RebuildEditScript: empty operations dropped, runs of one kind merged, and a gap in one sequence next to a gap
// in the other turned into substitutions for the shorter of the two.
void rebuild_edit_script(EditScript& e) {
  int64_t j = -1;
  for (int64_t i = 0; i < e.size(); ++i) {
    const size_t I = size_t(i);
    if (e.num[I] == 0) continue;
    if (j >= 0 && e.op[I] == e.op[size_t(j)]) {
      e.num[size_t(j)] += e.num[I];
    } else if (j == -1 || e.op[I] == Edit::sub || e.op[size_t(j)] == Edit::sub) {
      ++j;
      e.op[size_t(j)] = e.op[I];
      e.num[size_t(j)] = e.num[I];
    } else {
      const int64_t d = e.num[size_t(j)] - e.num[I];
      if (d > 0) {
        if (j > 0) e.num[size_t(j - 1)] += e.num[I];
        e.num[size_t(j)] = d;
      } else if (d < 0) {
        if (j == 0 && i - j > 0) {
          e.op[size_t(j)] = Edit::sub;
          ++j;
        } else {
          e.num[size_t(j - 1)] += e.num[size_t(j)];
        }
        e.num[size_t(j)] = -d;
        e.op[size_t(j)] = e.op[I];
      } else {
        if (j > 0) e.num[size_t(j - 1)] += e.num[size_t(j)];
        --j;
      }
    }
  }
  e.op.resize(size_t(j + 1));
  e.num.resize(size_t(j + 1));
}

// s_ReduceGaps on the alignment [q0, q_end) x [s0, s_end) of the whole sequences q and s: runs of 12 or more
// substitutions take in the identities that the gaps beside them hide, and a gap-substitutions-gap pattern of
// fewer than 12 columns is shifted when that costs no identities. Letters compare raw (N equals N), as BLAST's do;
// BLAST may look at subject letters before the alignment (never before the sequence here).
void reduce_gaps(EditScript& e, const uint8_t* q, const uint8_t* s, int64_t q0, int64_t s0, int64_t q_end,
                 int64_t s_end) {
  auto same = [&](int64_t qi, int64_t si) { return qi >= 0 && si >= 0 && q[qi] == s[si]; };
  int64_t q1 = q0, s1 = s0;  // BLAST's pointers
  for (int64_t i = 0; i < e.size(); ++i) {
    const size_t I = size_t(i);
    if (e.num[I] == 0) continue;
    if (e.op[I] == Edit::sub) {
      if (e.num[I] >= 12) {
        int64_t nm1 = 1;
        if (i > 0)
          while (q1 - nm1 >= q0 && same(q1 - nm1, s1 - nm1)) ++nm1;
        q1 += e.num[I];
        s1 += e.num[I];
        int64_t nm2 = 0;
        if (i < e.size() - 1) {
          // BLAST's loop advances past the first mismatch before leaving; the decrement below undoes that.
          while (q1 + 1 < q_end && s1 + 1 < s_end) {
            const bool equal = same(q1, s1);
            ++q1, ++s1;
            if (!equal) break;
            ++nm2;
          }
        }
        if (nm1 > 1 || nm2 > 0) update_edit_script(e, i, nm1 - 1, nm2);
        --q1, --s1;
      } else {
        q1 += e.num[I];
        s1 += e.num[I];
      }
    } else if (e.op[I] == Edit::ins) {
      q1 += e.num[I];
    } else {
      s1 += e.num[I];
    }
  }
  rebuild_edit_script(e);

  int64_t qp = q0, sp = s0;
  for (int64_t i = 0; i < e.size(); ++i) {
    const size_t I = size_t(i);
    if (e.op[I] == Edit::sub) {
      qp += e.num[I];
      sp += e.num[I];
      continue;
    }
    if (i > 1 && e.op[I] != e.op[I - 2] && e.num[I - 2] > 0) {
      int64_t d = e.num[I] + e.num[I - 1] + e.num[I - 2];
      if (d == 3) {
        e.num[I - 2] = 0;
        e.num[I - 1] = 2;
        e.num[I] = 0;
        if (e.op[I] == Edit::ins) ++qp;
        else ++sp;
      } else if (d < 12) {
        int64_t nm1 = 0, nm2 = 0;
        d = std::min(e.num[I], e.num[I - 2]);
        qp -= e.num[I - 1];
        sp -= e.num[I - 1];
        int64_t qa = qp, sa = sp;
        if (e.op[I] == Edit::ins) sp -= d;
        else qp -= d;
        for (int64_t k = 0; k < e.num[I - 1]; ++k, ++qa, ++sa, ++qp, ++sp) {
          if (same(qa, sa)) ++nm1;
          if (same(qp, sp)) ++nm2;
        }
        for (int64_t k = 0; k < d; ++k, ++qp, ++sp)
          if (same(qp, sp)) ++nm2;
        if (nm2 >= nm1 - d) {
          e.num[I - 2] -= d;
          e.num[I - 1] += d;
          e.num[I] -= d;
        } else {
          qp = qa;
          sp = sa;
        }
      }
    }
    if (e.op[I] == Edit::ins) qp += e.num[I];
    else sp += e.num[I];
  }
  rebuild_edit_script(e);
}

}  // namespace

GreedyHalf greedy_align_one_way(const uint8_t* a, int64_t a_len, const uint8_t* b, int64_t b_len, bool reverse,
                                int x_dropoff, int match_cost, int mismatch_cost, bool traceback, int gap_open,
                                int gap_extend) {
  OneWay r = gap_open == 0 && gap_extend == 0
                 ? greedy_one_way(a, a_len, b, b_len, reverse, x_dropoff, match_cost, mismatch_cost, traceback)
                 : affine_one_way(MatchRuns{a, a_len, b, b_len, reverse}, x_dropoff, match_cost, mismatch_cost,
                                  gap_open, gap_extend, traceback);
  r.half.score = r.score;
  // The block runs from the far end inwards; columns from the start point outwards.
  for (size_t i = r.block.op.size(); i-- > 0;)
    r.half.ops.insert(r.half.ops.end(), size_t(r.block.num[i]), column_of(r.block.op[i]));
  return r.half;
}

GreedyAlignment greedy_gapped_align(const uint8_t* q, int64_t q_len, const uint8_t* s, int64_t s_len, int64_t q_off,
                                    int64_t s_off, int reward, int penalty, int gap_open, int gap_extend,
                                    int x_dropoff, bool traceback) {
  // BLAST_AffineGreedyAlign's scaling: an odd reward is doubled, with the penalty, the gap costs and X, so
  // reward/2 is whole.
  int64_t match = reward, mismatch = -penalty, X = x_dropoff, go = gap_open, ge = gap_extend;
  if (match % 2 == 1) match *= 2, mismatch *= 2, X *= 2, go *= 2, ge *= 2;
  const bool linear = gap_open == 0 && gap_extend == 0;
  const OneWay right =
      linear ? greedy_one_way(q + q_off, q_len - q_off, s + s_off, s_len - s_off, false, X, match, mismatch, traceback)
             : affine_one_way(MatchRuns{q + q_off, q_len - q_off, s + s_off, s_len - s_off, false}, X, match,
                              mismatch, go, ge, traceback);
  const OneWay left = linear ? greedy_one_way(q, q_off, s, s_off, true, X, match, mismatch, traceback)
                             : affine_one_way(MatchRuns{q, q_off, s, s_off, true}, X, match, mismatch, go, ge,
                                              traceback);
  GreedyAlignment g;
  g.distance = right.half.distance + left.half.distance;
  if (linear) {
    // The greedy counts differences; BLAST_GreedyGappedAlignment turns them into a score.
    const int64_t letters = right.half.a_len + right.half.b_len + left.half.a_len + left.half.b_len;
    g.score = letters * reward / 2 - g.distance * (reward - penalty);
  } else {
    g.score = right.score + left.score;
    if (reward % 2 == 1) g.score /= 2;
  }
  g.q_start = q_off - left.half.a_len;
  g.s_start = s_off - left.half.b_len;
  g.q_end = q_off + right.half.a_len;
  g.s_end = s_off + right.half.b_len;
  g.q_seed = q_off, g.s_seed = s_off;
  if (traceback) {
    // Blast_PrelimEditBlockToGapEditScript: the left block already runs left to right; the right one is reversed;
    // the operations meeting at the start point merge when of one kind.
    EditScript e = left.block;
    const EditScript& f = right.block;
    size_t k = f.op.size();
    if (k > 0 && !e.op.empty() && e.op.back() == f.op.back()) e.num.back() += f.num[--k];
    while (k-- > 0) {
      e.op.push_back(f.op[k]);
      e.num.push_back(f.num[k]);
    }
    // BLAST's gap reduction can leave a script that does not use exactly the box's letters (two opposite gaps
    // side by side next to a long run, seen only with affine gaps on random sequences; never on the genome pairs
    // compared with blastn); one that would read past a sequence's end is not taken.
    const EditScript traced = e;
    reduce_gaps(e, q, s, g.q_start, g.s_start, g.q_end, g.s_end);
    int64_t q_used = 0, s_used = 0;
    bool script = true;
    for (size_t i = 0; i < e.op.size(); ++i) {
      script = script && e.num[i] >= 0;
      if (e.op[i] != Edit::del) q_used += e.num[i];
      if (e.op[i] != Edit::ins) s_used += e.num[i];
    }
    if (!script || g.q_start + q_used > q_len || g.s_start + s_used > s_len) e = traced;
    for (size_t i = 0; i < e.op.size(); ++i) {
      assert(e.num[i] >= 0);
      g.ops.insert(g.ops.end(), size_t(e.num[i]), column_of(e.op[i]));
    }
    return g;
  }
  // The final alignment's start point: the middle of the longer of the two longest runs of matches (one per
  // direction), kept inside the alignment's box.
  const int64_t q_box_l = g.q_start, s_box_l = g.s_start, q_box_r = g.q_end, s_box_r = g.s_end;
  int64_t q_seed_l = q_off - left.half.seed_a, s_seed_l = s_off - left.half.seed_b;
  int64_t q_seed_r = q_off + right.half.seed_a, s_seed_r = s_off + right.half.seed_b;
  int64_t len_l = 0, len_r = 0;
  if (q_seed_r < q_box_r && s_seed_r < s_box_r) {
    len_r = std::min(q_box_r - q_seed_r, s_box_r - s_seed_r);
    len_r = std::min(len_r, right.half.seed_len) / 2;
  } else {
    q_seed_r = q_off, s_seed_r = s_off;
  }
  if (q_seed_l > q_box_l && s_seed_l > s_box_l) {
    len_l = std::min(q_seed_l - q_box_l, s_seed_l - s_box_l);
    len_l = std::min(len_l, left.half.seed_len) / 2;
  } else {
    q_seed_l = q_off, s_seed_l = s_off;
  }
  if (len_r > len_l) {
    g.q_seed = q_seed_r + len_r;
    g.s_seed = s_seed_r + len_r;
  } else {
    g.q_seed = q_seed_l - len_l;
    g.s_seed = s_seed_l - len_l;
  }
  return g;
}

}  // namespace bloomseq
