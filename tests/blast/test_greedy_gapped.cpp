// Greedy gapped extension (megablast's, greedy_gapped.hpp) against an independent brute force: with X large enough
// to never stop it, one direction's greedy extension finds the best-scoring alignment of a prefix of A with a prefix
// of B under linear gaps (each gap column costs reward/2 - penalty), which a plain dynamic programme over every
// prefix pair gives; its traceback is an alignment of exactly the reported letters with exactly the reported score.
// Both reward/penalty pairs megablast is run with (1/-2, doubled inside, and 2/-3), similar and unrelated sequences,
// ambiguity codes in A (which never match), and the two-way extension's box, score and columns.
#include <catch2/catch.hpp>

#include <algorithm>
#include <climits>
#include <random>
#include <vector>

#include "bloomseq/blast/greedy_gapped.hpp"

using namespace bloomseq;

namespace {

// The best score of a global alignment of a[0, i) with b[0, j), maximised over i and j (0 for the empty one), in
// the doubled units the greedy works in when the reward is odd.
int64_t best_prefix_score(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b, int64_t match,
                          int64_t mismatch, int64_t gap) {
  const size_t n = a.size(), m = b.size();
  std::vector<int64_t> prev(m + 1), cur(m + 1);
  int64_t best = 0;
  for (size_t j = 0; j <= m; ++j) prev[j] = -int64_t(j) * gap;
  for (size_t i = 1; i <= n; ++i) {
    cur[0] = -int64_t(i) * gap;
    for (size_t j = 1; j <= m; ++j) {
      const bool same = a[i - 1] < 4 && a[i - 1] == b[j - 1];
      cur[j] = std::max({prev[j - 1] + (same ? match : -mismatch), prev[j] - gap, cur[j - 1] - gap});
      best = std::max(best, cur[j]);
    }
    std::swap(prev, cur);
  }
  for (size_t j = 0; j <= m; ++j) best = std::max(best, -int64_t(j) * gap);
  return best;
}

// The same with affine gaps (Gotoh): a run of L gap columns costs open + L x extend.
int64_t best_prefix_score_affine(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b, int64_t match,
                                 int64_t mismatch, int64_t open, int64_t extend) {
  const size_t n = a.size(), m = b.size();
  constexpr int64_t kNone = INT64_MIN / 4;
  std::vector<std::vector<int64_t>> H(n + 1, std::vector<int64_t>(m + 1, kNone)), E = H, F = H;
  H[0][0] = 0;
  int64_t best = 0;
  for (size_t i = 0; i <= n; ++i)
    for (size_t j = 0; j <= m; ++j) {
      if (i == 0 && j == 0) continue;
      if (j > 0) E[i][j] = std::max(H[i][j - 1] - open - extend, E[i][j - 1] - extend);
      if (i > 0) F[i][j] = std::max(H[i - 1][j] - open - extend, F[i - 1][j] - extend);
      int64_t h = std::max(E[i][j], F[i][j]);
      if (i > 0 && j > 0) {
        const bool same = a[i - 1] < 4 && a[i - 1] == b[j - 1];
        h = std::max(h, H[i - 1][j - 1] + (same ? match : -mismatch));
      }
      H[i][j] = h;
      best = std::max(best, h);
    }
  return best;
}

// A copy of `a` with substitutions, insertions and deletions at the given rate each.
std::vector<uint8_t> mutate(const std::vector<uint8_t>& a, double rate, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<uint8_t> b;
  for (uint8_t x : a) {
    const double r = u(rng);
    if (r < rate) continue;                                           // deletion
    if (r < 2 * rate) b.push_back(uint8_t(rng() % 4));                // insertion before
    b.push_back(r < 3 * rate ? uint8_t((x % 4 + 1 + rng() % 3) % 4) : uint8_t(x % 4));  // substitution
  }
  return b;
}

// Walks the columns: letters of A and B used and the score (doubled units for an odd reward).
struct Walk {
  int64_t a = 0, b = 0, score = 0;
};
// A gap column costs `gap`, and each run of them `open` more.
Walk walk(const std::vector<GapOp>& ops, const uint8_t* a, int64_t a_step, const uint8_t* b, int64_t b_step,
          int64_t match, int64_t mismatch, int64_t gap, int64_t open = 0) {
  Walk w;
  GapOp prev = GapOp::substitution;
  for (const GapOp op : ops) {
    if (op == GapOp::substitution) {
      const uint8_t x = a[w.a * a_step], y = b[w.b * b_step];
      w.score += x < 4 && x == y ? match : -mismatch;
      ++w.a, ++w.b;
    } else {
      w.score -= gap + (op != prev ? open : 0);
      (op == GapOp::gap_in_b ? w.a : w.b) += 1;
    }
    prev = op;
  }
  return w;
}

// An X-drop that never stops an extension of these sequences: no alignment of them has more than |a| + |b| columns,
// each costing at most `worst_column` against the best so far. (The greedy runs through distances until the X-drop
// ends it, so a needlessly large X, such as 2^20, costs about X distances per call.)
int no_drop(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b, int64_t worst_column) {
  return int((int64_t(a.size() + b.size()) + 2) * worst_column);
}

}  // namespace

TEST_CASE("greedy extension without X-drop finds the best prefix alignment under linear gaps") {
  std::mt19937 rng(2024);
  struct Scores {
    int reward, penalty;
  };
  size_t with_gaps = 0, cases = 0;
  for (const Scores sc : {Scores{1, -2}, Scores{2, -3}}) {
    // The greedy's units: an odd reward is doubled with the penalty.
    const int64_t match = sc.reward % 2 ? 2 * sc.reward : sc.reward;
    const int64_t mismatch = sc.reward % 2 ? -2 * sc.penalty : -sc.penalty;
    const int64_t gap = match / 2 + mismatch;
    for (int round = 0; round < 300; ++round) {
      const size_t len = 1 + rng() % 120;
      std::vector<uint8_t> a(len);
      for (auto& x : a) x = uint8_t(rng() % 4);
      const double rate = std::vector<double>{0.0, 0.02, 0.05, 0.1, 0.3}[round % 5];
      std::vector<uint8_t> b = round % 7 == 6 ? std::vector<uint8_t>(1 + rng() % 120) : mutate(a, rate, rng);
      if (round % 7 == 6)
        for (auto& x : b) x = uint8_t(rng() % 4);
      if (round % 3 == 0)  // ambiguity codes in A never match
        for (size_t i = rng() % 17; i < a.size(); i += 5 + rng() % 20) a[i] = uint8_t(4 + rng() % 12);
      const int64_t want = best_prefix_score(a, b, match, mismatch, gap);
      for (const bool traceback : {false, true}) {
        const GreedyHalf h = greedy_align_one_way(a.data(), int64_t(a.size()), b.data(), int64_t(b.size()), false,
                                                  no_drop(a, b, match + mismatch), int(match), int(mismatch),
                                                  traceback);
        const int64_t got = (h.a_len + h.b_len) * (match / 2) - h.distance * (match + mismatch);
        INFO("reward " << sc.reward << " round " << round << " len " << len << " rate " << rate);
        REQUIRE(got == want);
        if (!traceback) continue;
        const Walk w = walk(h.ops, a.data(), 1, b.data(), 1, match, mismatch, gap);
        REQUIRE(w.a == h.a_len);
        REQUIRE(w.b == h.b_len);
        REQUIRE(w.score == got);
        with_gaps += std::count(h.ops.begin(), h.ops.end(), GapOp::substitution) != ptrdiff_t(h.ops.size());
        ++cases;
      }
    }
  }
  REQUIRE(with_gaps > cases / 4);  // the gapped cases this test is for did occur
}

TEST_CASE("greedy extension leftwards reads both sequences from their ends") {
  std::mt19937 rng(7);
  for (int round = 0; round < 100; ++round) {
    std::vector<uint8_t> a(20 + rng() % 80);
    for (auto& x : a) x = uint8_t(rng() % 4);
    std::vector<uint8_t> b = mutate(a, 0.05, rng);
    std::vector<uint8_t> ra(a.rbegin(), a.rend()), rb(b.rbegin(), b.rend());
    for (const int x : {4, 26, 1000}) {
      const GreedyHalf fwd = greedy_align_one_way(ra.data(), int64_t(ra.size()), rb.data(), int64_t(rb.size()),
                                                  false, x, 2, 4, true);
      const GreedyHalf rev = greedy_align_one_way(a.data(), int64_t(a.size()), b.data(), int64_t(b.size()), true,
                                                  x, 2, 4, true);
      REQUIRE(rev.distance == fwd.distance);
      REQUIRE(rev.a_len == fwd.a_len);
      REQUIRE(rev.b_len == fwd.b_len);
      REQUIRE(rev.ops == fwd.ops);
    }
  }
}

TEST_CASE("greedy two-way extension: box, score and columns agree, with and without traceback") {
  std::mt19937 rng(99);
  size_t reduced = 0;
  for (int round = 0; round < 200; ++round) {
    std::vector<uint8_t> q(200 + rng() % 600);
    for (auto& x : q) x = uint8_t(rng() % 4);
    std::vector<uint8_t> s = mutate(q, std::vector<double>{0.01, 0.03, 0.06}[round % 3], rng);
    // Unrelated flanks on the subject, so the extension stops inside it.
    std::vector<uint8_t> flank(50);
    for (auto& x : flank) x = uint8_t(rng() % 4);
    s.insert(s.begin(), flank.begin(), flank.end());
    const int64_t q_off = int64_t(q.size() / 2), s_off = std::min<int64_t>(q_off + 50, int64_t(s.size()) - 1);
    struct Costs {
      int reward, penalty, open, extend;
    };
    for (const Costs c : {Costs{1, -2, 0, 0}, Costs{2, -3, 0, 0}, Costs{1, -2, 2, 2}, Costs{2, -3, 5, 2}}) {
      const int reward = c.reward, penalty = c.penalty;
      const GreedyAlignment score_only =
          greedy_gapped_align(q.data(), int64_t(q.size()), s.data(), int64_t(s.size()), q_off, s_off, reward,
                              penalty, c.open, c.extend, 13, false);
      const GreedyAlignment traced = greedy_gapped_align(q.data(), int64_t(q.size()), s.data(), int64_t(s.size()),
                                                         q_off, s_off, reward, penalty, c.open, c.extend, 13, true);
      INFO("round " << round << " reward " << reward << " gaps " << c.open << "/" << c.extend);
      REQUIRE(score_only.q_start == traced.q_start);
      REQUIRE(score_only.q_end == traced.q_end);
      REQUIRE(score_only.s_start == traced.s_start);
      REQUIRE(score_only.s_end == traced.s_end);
      REQUIRE(score_only.score == traced.score);
      REQUIRE(score_only.q_start <= q_off);
      REQUIRE(q_off <= score_only.q_end);
      // The estimated start point lies inside the box.
      REQUIRE(score_only.q_seed >= score_only.q_start);
      REQUIRE(score_only.q_seed <= score_only.q_end);
      REQUIRE(score_only.s_seed >= score_only.s_start);
      REQUIRE(score_only.s_seed <= score_only.s_end);
      // The columns (after BLAST's gap reduction) use exactly the box's letters and score no less than the
      // greedy's own alignment: the reduction only moves gaps where that keeps or gains identities.
      const int64_t scale = reward % 2 ? 2 : 1;
      const int64_t match = scale * reward, mismatch = -scale * penalty;
      const bool linear = c.open == 0 && c.extend == 0;
      const Walk w = walk(traced.ops, q.data() + traced.q_start, 1, s.data() + traced.s_start, 1, match, mismatch,
                          linear ? match / 2 + mismatch : scale * c.extend, linear ? 0 : scale * c.open);
      // Never past a sequence's end; with linear gaps exactly the box's letters, scoring no less than the greedy's
      // own alignment. (With affine gaps BLAST's reduction can miscount next to two opposite gaps side by side;
      // the raw traceback is checked exactly in the affine test below.)
      REQUIRE(traced.q_start + w.a <= int64_t(q.size()));
      REQUIRE(traced.s_start + w.b <= int64_t(s.size()));
      if (!linear) continue;
      REQUIRE(w.a == traced.q_end - traced.q_start);
      REQUIRE(w.b == traced.s_end - traced.s_start);
      REQUIRE(w.score >= traced.score * scale);
      reduced += w.score > traced.score * scale;
    }
  }
  INFO("alignments whose gap reduction gained score: " << reduced);
  SUCCEED();
}

TEST_CASE("affine greedy extension without X-drop finds the best prefix alignment under affine gaps") {
  // One direction (BLAST_AffineGreedyAlign) in the greedy's units (an odd reward doubled with everything else);
  // then greedy_gapped_align from the sequences' start (its left part empty) gives the same score, halved back.
  std::mt19937 rng(4242);
  struct Costs {
    int reward, penalty, open, extend;
  };
  size_t with_gaps = 0, cases = 0;
  for (const Costs c : {Costs{1, -2, 2, 2}, Costs{1, -2, 0, 2}, Costs{1, -2, 1, 1}, Costs{2, -3, 5, 2},
                        Costs{2, -3, 2, 4}}) {
    for (int round = 0; round < 150; ++round) {
      std::vector<uint8_t> a(1 + rng() % 90);
      for (auto& x : a) x = uint8_t(rng() % 4);
      std::vector<uint8_t> b = mutate(a, std::vector<double>{0.0, 0.03, 0.08, 0.2}[round % 4], rng);
      if (round % 3 == 0)
        for (size_t i = rng() % 13; i < a.size(); i += 5 + rng() % 20) a[i] = uint8_t(4 + rng() % 12);
      const int64_t scale = c.reward % 2 ? 2 : 1;
      const int64_t worst_column = c.reward - c.penalty + c.open + c.extend;  // unscaled
      const int64_t want = best_prefix_score_affine(a, b, scale * c.reward, -scale * c.penalty, scale * c.open,
                                                    scale * c.extend);
      for (const bool traceback : {false, true}) {
        INFO("gaps " << c.open << "/" << c.extend << " reward " << c.reward << " round " << round);
        const GreedyHalf h = greedy_align_one_way(a.data(), int64_t(a.size()), b.data(), int64_t(b.size()), false,
                                                  no_drop(a, b, scale * worst_column), int(scale * c.reward),
                                                  int(-scale * c.penalty), traceback, int(scale * c.open),
                                                  int(scale * c.extend));
        REQUIRE(h.score == want);
        const GreedyAlignment g = greedy_gapped_align(a.data(), int64_t(a.size()), b.data(), int64_t(b.size()), 0, 0,
                                                      c.reward, c.penalty, c.open, c.extend,
                                                      no_drop(a, b, worst_column), traceback);
        REQUIRE(g.score == want / scale);  // halved back for an odd reward (BLAST_GreedyGappedAlignment)
        REQUIRE(g.q_end == h.a_len);
        REQUIRE(g.s_end == h.b_len);
        if (!traceback) continue;
        const Walk w = walk(h.ops, a.data(), 1, b.data(), 1, scale * c.reward, -scale * c.penalty, scale * c.extend,
                            scale * c.open);
        REQUIRE(w.a == h.a_len);
        REQUIRE(w.b == h.b_len);
        REQUIRE(w.score == want);
        with_gaps += std::count(h.ops.begin(), h.ops.end(), GapOp::substitution) != ptrdiff_t(h.ops.size());
        ++cases;
      }
    }
  }
  REQUIRE(with_gaps > cases / 4);
}
