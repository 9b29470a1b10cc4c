// Stage 3's dynamic programming against an independent brute force: with an X-drop too large to stop anything,
// the one-directional gapped X-drop alignment must find the best score of any alignment of a prefix of A with a
// prefix of B (affine gaps: open + length x extend), computed here by a plain Gotoh recursion over the full
// matrix, and the first cell (row by row) that reaches it. Every traceback, with any X-drop, must re-score to the
// reported score and consume the reported letters. All reward/penalty/gap-cost combinations blastn tabulates.
#include <catch2/catch.hpp>

#include <algorithm>
#include <climits>
#include <random>
#include <thread>
#include <vector>

#include "bloomseq/blast/gapped_extension.hpp"
#include "bloomseq/blast/gapped_karlin.hpp"
#include "bloomseq/blast/karlin.hpp"
#include "bloomseq/blast/xdrop_gapped.hpp"
#include "bloomseq/error.hpp"

using namespace bloomseq;

namespace {

struct Best {
  int score = 0;
  int64_t a = 0, b = 0;
};

// Gotoh over the whole (M + 1) x (N + 1) matrix, alignments anchored at (0, 0).
Best brute_force(const std::vector<uint8_t>& A, const std::vector<uint8_t>& B, const GappedScoring& sc) {
  const int64_t M = int64_t(A.size()), N = int64_t(B.size());
  const long NEG = -1000000;
  std::vector<std::vector<long>> H(size_t(M + 1), std::vector<long>(size_t(N + 1), NEG)), E = H, F = H;
  H[0][0] = 0;
  Best best;
  for (int64_t a = 0; a <= M; ++a)
    for (int64_t b = 0; b <= N; ++b) {
      if (a == 0 && b == 0) continue;
      // E: ends with a letter of A against a gap; F: a letter of B against a gap.
      if (a > 0) E[a][b] = std::max(H[a - 1][b] - sc.gap_open - sc.gap_extend, E[a - 1][b] - sc.gap_extend);
      if (b > 0) F[a][b] = std::max(H[a][b - 1] - sc.gap_open - sc.gap_extend, F[a][b - 1] - sc.gap_extend);
      long h = std::max(E[a][b], F[a][b]);
      if (a > 0 && b > 0) h = std::max(h, H[a - 1][b - 1] + sc.pair(A[size_t(a - 1)], B[size_t(b - 1)]));
      H[a][b] = h;
      if (a > 0 && h > best.score) best = {int(h), a, b};
    }
  return best;
}

int rescore(const XdropAlignment& r, const std::vector<uint8_t>& A, const std::vector<uint8_t>& B,
            const GappedScoring& sc, int64_t& used_a, int64_t& used_b) {
  int score = 0;
  used_a = used_b = 0;
  GapOp prev = GapOp::substitution;
  for (GapOp op : r.ops) {
    if (op == GapOp::substitution) {
      score += sc.pair(A[size_t(used_a)], B[size_t(used_b)]);
      ++used_a, ++used_b;
    } else {
      score -= sc.gap_extend + (op != prev ? sc.gap_open : 0);
      (op == GapOp::gap_in_b ? used_a : used_b) += 1;
    }
    prev = op;
  }
  return score;
}

struct Combo {
  int reward, penalty, open, extend;
};

// Every affine combination in blastn's tables (gap costs 0/0 are megablast's linear gaps, not this aligner).
const std::vector<Combo> kCombos = {
    {1, -5, 3, 3}, {1, -4, 1, 2}, {1, -4, 0, 2}, {1, -4, 2, 1}, {1, -4, 1, 1}, {2, -7, 2, 4}, {2, -7, 0, 4},
    {2, -7, 4, 2}, {2, -7, 2, 2}, {1, -3, 2, 2}, {1, -3, 1, 2}, {1, -3, 0, 2}, {1, -3, 2, 1}, {1, -3, 1, 1},
    {2, -5, 2, 4}, {2, -5, 0, 4}, {2, -5, 4, 2}, {2, -5, 2, 2}, {1, -2, 2, 2}, {1, -2, 1, 2}, {1, -2, 0, 2},
    {1, -2, 3, 1}, {1, -2, 2, 1}, {1, -2, 1, 1}, {2, -3, 4, 4}, {2, -3, 2, 4}, {2, -3, 0, 4}, {2, -3, 3, 3},
    {2, -3, 6, 2}, {2, -3, 5, 2}, {2, -3, 4, 2}, {2, -3, 2, 2}, {3, -4, 6, 3}, {3, -4, 5, 3}, {3, -4, 4, 3},
    {3, -4, 6, 2}, {3, -4, 5, 2}, {3, -4, 4, 2}, {4, -5, 6, 5}, {4, -5, 5, 5}, {4, -5, 4, 5}, {4, -5, 3, 5},
    {1, -1, 3, 2}, {1, -1, 2, 2}, {1, -1, 1, 2}, {1, -1, 0, 2}, {1, -1, 4, 1}, {1, -1, 3, 1}, {1, -1, 2, 1},
    {3, -2, 5, 5}, {5, -4, 10, 6}, {5, -4, 8, 6},
};

std::vector<uint8_t> random_seq(std::mt19937& rng, int64_t len, const std::vector<uint8_t>* like,
                                bool iupac = false) {
  std::vector<uint8_t> s(static_cast<size_t>(len), 0);
  for (int64_t i = 0; i < len; ++i) {
    // Related sequences (mostly copies with changes) give alignments worth extending; a few N (code 4) and, with
    // `iupac`, other IUPAC codes (16 + the bases they allow, as a subject's true codes: nucleotide_score.hpp).
    static const uint8_t kIupac[10] = {3, 5, 9, 6, 10, 12, 7, 11, 13, 14};
    if (like && i < int64_t(like->size()) && rng() % 4 != 0) s[size_t(i)] = (*like)[size_t(i)];
    else if (rng() % 23 == 0) s[size_t(i)] = 4;
    else if (iupac && rng() % 31 == 0) s[size_t(i)] = uint8_t(kIupacCodeBase + kIupac[rng() % 10]);
    else s[size_t(i)] = uint8_t(rng() % 4);
  }
  return s;
}


// BLAST's semi-gapped X-drop (Blast_SemiGappedAlign's window, ALIGN_EX's traceback flags) transcribed directly,
// one branch per rule, whole rows kept: the window's bookkeeping (columns that drop out keep stale gap scores, the
// window's first column moves past a run of dropped cells, the row grows while its gap score stays within x) decides
// borderline cells and ties, which the optimum alone does not pin down. The production aligner computes the same
// rules without branches.
XdropAlignment reference_xdrop(const LetterRun& A, const LetterRun& B, const GappedScoring& sc, int x_dropoff,
                               bool traceback) {
  XdropAlignment out;
  const int ext = sc.gap_extend, oe = sc.gap_open + sc.gap_extend, x = std::max(x_dropoff, oe);
  const int64_t M = A.length, N = B.length;
  if (M <= 0 || N <= 0) return out;
  const int NEG = INT_MIN / 2;
  std::vector<int> best(size_t(N + 2), NEG), gap(size_t(N + 2), NEG);
  std::vector<std::vector<uint8_t>> ops(1, std::vector<uint8_t>(size_t(N + 2), 1));  // row 0: gaps in A
  int score = -oe;
  best[0] = 0, gap[0] = -oe;
  int64_t i = 1;
  for (; i <= N && score >= -x; ++i) best[size_t(i)] = score, gap[size_t(i)] = score - oe, score -= ext;
  ops[0][0] = 0;
  int64_t b_size = i, first_b = 0, best_a = 0, best_b = 0;
  int best_score = 0;
  for (int64_t a = 1; a <= M; ++a) {
    ops.emplace_back(size_t(N + 2), 0);
    std::vector<uint8_t>& row = ops.back();
    score = NEG;
    int gap_row = NEG;
    int64_t last_b = first_b;
    for (int64_t b = first_b; b < b_size; ++b) {
      int gap_col = gap[size_t(b)];
      const int next = best[size_t(b)] + (b < N ? sc.pair(A.at(a), B.at(b + 1)) : 0);
      uint8_t op = 0;
      if (score < gap_col) op = 2, score = gap_col;
      if (score < gap_row) op = 1, score = gap_row;
      if (best_score - score > x) {
        if (b == first_b) ++first_b;
        else best[size_t(b)] = NEG;
      } else {
        last_b = b;
        if (score > best_score) best_score = score, best_a = a, best_b = b;
        gap_row -= ext, gap_col -= ext;
        if (gap_col < score - oe) gap[size_t(b)] = score - oe;
        else gap[size_t(b)] = gap_col, op |= 8;
        if (gap_row < score - oe) gap_row = score - oe;
        else op |= 4;
        best[size_t(b)] = score;
      }
      score = next;
      row[size_t(b)] = op;
    }
    if (first_b == b_size) break;
    if (last_b < b_size - 1) {
      b_size = last_b + 1;
    } else {
      while (gap_row >= best_score - x && b_size <= N) {
        best[size_t(b_size)] = gap_row, gap[size_t(b_size)] = gap_row - oe, row[size_t(b_size)] = 1;
        gap_row -= ext, ++b_size;
      }
    }
    if (b_size <= N) best[size_t(b_size)] = NEG, gap[size_t(b_size)] = NEG, ++b_size;
  }
  out.score = best_score, out.a_end = best_a, out.b_end = best_b;
  if (!traceback) return out;
  std::vector<GapOp> back;
  int64_t a = best_a, b = best_b;
  uint8_t state = 0;
  while (a > 0 || b > 0) {
    const uint8_t cell = ops[size_t(a)][size_t(b)];
    if (state == 1) state = (cell & 4) ? 1 : uint8_t(cell & 3);
    else if (state == 2) state = (cell & 8) ? 2 : uint8_t(cell & 3);
    else state = cell & 3;
    if (state == 1) --b, back.push_back(GapOp::gap_in_a);
    else if (state == 2) --a, back.push_back(GapOp::gap_in_b);
    else --a, --b, back.push_back(GapOp::substitution);
  }
  out.ops.assign(back.rbegin(), back.rend());
  return out;
}
}  // namespace

TEST_CASE("gapped X-drop alignment without a drop-off equals the brute-force optimum", "[gapped]") {
  std::mt19937 rng(12345);
  for (const Combo& c : kCombos) {
    const GappedScoring sc{c.reward, c.penalty, -1, c.open, c.extend};
    for (int trial = 0; trial < 60; ++trial) {
      const std::vector<uint8_t> A = random_seq(rng, int64_t(rng() % 14), nullptr, true);
      const std::vector<uint8_t> B = random_seq(rng, int64_t(rng() % 14), &A, true);
      const Best want = brute_force(A, B, sc);
      for (bool tb : {false, true}) {
        const XdropAlignment got = xdrop_gapped_align(LetterRun{A.data(), 1, int64_t(A.size()), true},
                                                      LetterRun{B.data(), 1, int64_t(B.size()), true}, sc, 1000000, tb);
        INFO("reward " << c.reward << " penalty " << c.penalty << " gaps " << c.open << "/" << c.extend);
        REQUIRE(got.score == want.score);
        if (want.score > 0) {
          REQUIRE(got.a_end == want.a);
          REQUIRE(got.b_end == want.b);
        }
        if (tb) {
          int64_t ua, ub;
          REQUIRE(rescore(got, A, B, sc, ua, ub) == got.score);
          REQUIRE(ua == got.a_end);
          REQUIRE(ub == got.b_end);
        }
      }
    }
  }
}

TEST_CASE("gapped X-drop alignment follows BLAST's window rules cell for cell", "[gapped]") {
  // Related sequences long enough for the window to open, close and drop columns; small and large drop-offs; both
  // reading directions; score-only and traceback; the vector rows (where the CPU has them) and the scalar ones;
  // letters with IUPAC codes other than N (a subject's true codes) and without. Score, ends and every operation must
  // equal the transcription's.
  const bool vectors = GENERATE(true, false);
  const bool iupac = GENERATE(false, true);
  const bool running_vectors = xdrop_vector_rows(vectors);
  INFO("vector rows " << running_vectors << " IUPAC codes " << iupac);
  std::mt19937 rng(2026);
  for (const Combo& c : kCombos) {
    const GappedScoring sc{c.reward, c.penalty, -1, c.open, c.extend};
    for (int trial = 0; trial < 40; ++trial) {
      const std::vector<uint8_t> A = random_seq(rng, 1 + int64_t(rng() % 300), nullptr, iupac);
      std::vector<uint8_t> B = random_seq(rng, 1 + int64_t(rng() % 300), &A, iupac);
      if (trial % 3 == 0 && B.size() > 10) B.erase(B.begin() + 5, B.begin() + 5 + int64_t(rng() % 5));  // an indel
      if (trial % 4 == 1)
        for (auto& ch : B)
          if (rng() % 3 == 0) ch = uint8_t(rng() % 4);  // distant
      if (trial % 7 == 2 && B.size() > 30) B.insert(B.begin() + 20, B.begin(), B.begin() + int64_t(rng() % 10));
      const int x = trial % 5 == 0 ? 1000 : 1 + int(rng() % 40);
      for (int dir : {1, -1}) {
        const LetterRun ra{dir == 1 ? A.data() : A.data() + A.size() - 1, dir, int64_t(A.size()), iupac};
        const LetterRun rb{dir == 1 ? B.data() : B.data() + B.size() - 1, dir, int64_t(B.size()), iupac};
        for (bool tb : {false, true}) {
          const XdropAlignment want = reference_xdrop(ra, rb, sc, x, tb);
          const XdropAlignment got = xdrop_gapped_align(ra, rb, sc, x, tb);
          INFO("reward " << c.reward << " penalty " << c.penalty << " gaps " << c.open << "/" << c.extend << " x "
                         << x << " dir " << dir << " traceback " << tb);
          REQUIRE(got.score == want.score);
          REQUIRE(got.a_end == want.a_end);
          REQUIRE(got.b_end == want.b_end);
          REQUIRE(got.ops == want.ops);
        }
      }
    }
  }
  xdrop_vector_rows(true);
}

TEST_CASE("gapped X-drop tracebacks re-score to their score at any drop-off", "[gapped]") {
  std::mt19937 rng(777);
  for (const Combo& c : kCombos) {
    const GappedScoring sc{c.reward, c.penalty, -1, c.open, c.extend};
    for (int trial = 0; trial < 40; ++trial) {
      const std::vector<uint8_t> A = random_seq(rng, 5 + int64_t(rng() % 60), nullptr);
      const std::vector<uint8_t> B = random_seq(rng, 5 + int64_t(rng() % 60), &A);
      const int x = 1 + int(rng() % 25);
      const LetterRun ra{A.data(), 1, int64_t(A.size())}, rb{B.data(), 1, int64_t(B.size())};
      const XdropAlignment score_only = xdrop_gapped_align(ra, rb, sc, x, false);
      const XdropAlignment traced = xdrop_gapped_align(ra, rb, sc, x, true);
      REQUIRE(traced.score == score_only.score);
      REQUIRE(traced.a_end == score_only.a_end);
      REQUIRE(traced.b_end == score_only.b_end);
      int64_t ua, ub;
      REQUIRE(rescore(traced, A, B, sc, ua, ub) == traced.score);
      REQUIRE(ua == traced.a_end);
      REQUIRE(ub == traced.b_end);
      // A drop-off never finds more than the full optimum.
      REQUIRE(traced.score <= brute_force(A, B, sc).score);
    }
  }
}

TEST_CASE("tracebacks computed on several threads at once equal those computed one by one", "[gapped]") {
  // The traceback cells live in stores shared by the process, one leased per alignment: two alignments at once
  // must never share one. Long alignments (several blocks of cells) and short ones, interleaved over threads.
  std::mt19937 rng(4242);
  const GappedScoring sc{2, -3, -1, 5, 2};
  struct Job {
    std::vector<uint8_t> a, b;
    XdropAlignment want;
  };
  std::vector<Job> jobs(48);
  for (size_t j = 0; j < jobs.size(); ++j) {
    jobs[j].a = random_seq(rng, j % 4 == 0 ? 20000 : 1 + int64_t(rng() % 500), nullptr);
    jobs[j].b = random_seq(rng, int64_t(jobs[j].a.size()), &jobs[j].a);
    const LetterRun ra{jobs[j].a.data(), 1, int64_t(jobs[j].a.size())};
    const LetterRun rb{jobs[j].b.data(), 1, int64_t(jobs[j].b.size())};
    jobs[j].want = xdrop_gapped_align(ra, rb, sc, 60, true);
  }
  std::vector<XdropAlignment> got(jobs.size());
  std::vector<std::thread> pool;
  for (size_t t = 0; t < 4; ++t)
    pool.emplace_back([&, t] {
      for (int round = 0; round < 3; ++round)
        for (size_t j = t; j < jobs.size(); j += 4) {
          const LetterRun ra{jobs[j].a.data(), 1, int64_t(jobs[j].a.size())};
          const LetterRun rb{jobs[j].b.data(), 1, int64_t(jobs[j].b.size())};
          got[j] = xdrop_gapped_align(ra, rb, sc, 60, true);
        }
    });
  for (auto& th : pool) th.join();
  for (size_t j = 0; j < jobs.size(); ++j) {
    INFO("job " << j);
    REQUIRE(got[j].score == jobs[j].want.score);
    REQUIRE(got[j].a_end == jobs[j].want.a_end);
    REQUIRE(got[j].b_end == jobs[j].want.b_end);
    REQUIRE(got[j].ops == jobs[j].want.ops);
  }
  REQUIRE(jobs[0].want.ops.size() > 10000);  // the long ones span several blocks of cells
}

TEST_CASE("reading leftwards aligns the reversed sequences", "[gapped]") {
  std::mt19937 rng(99);
  const GappedScoring sc{2, -3, -2, 5, 2};
  for (int trial = 0; trial < 200; ++trial) {
    const std::vector<uint8_t> A = random_seq(rng, 1 + int64_t(rng() % 40), nullptr);
    const std::vector<uint8_t> B = random_seq(rng, 1 + int64_t(rng() % 40), &A);
    const std::vector<uint8_t> Ar(A.rbegin(), A.rend()), Br(B.rbegin(), B.rend());
    const XdropAlignment fwd = xdrop_gapped_align(LetterRun{Ar.data(), 1, int64_t(Ar.size())},
                                                  LetterRun{Br.data(), 1, int64_t(Br.size())}, sc, 30, true);
    const XdropAlignment back = xdrop_gapped_align(LetterRun{A.data() + A.size() - 1, -1, int64_t(A.size())},
                                                   LetterRun{B.data() + B.size() - 1, -1, int64_t(B.size())}, sc, 30,
                                                   true);
    REQUIRE(fwd.score == back.score);
    REQUIRE(fwd.a_end == back.a_end);
    REQUIRE(fwd.b_end == back.b_end);
    REQUIRE(fwd.ops == back.ops);
  }
}

TEST_CASE("gapped extension of a sequence against itself is one full-length alignment", "[gapped]") {
  std::mt19937 rng(5);
  std::vector<uint8_t> s(3000);
  for (auto& c : s) c = uint8_t(rng() % 4);
  GappedExtensionParams p;
  p.scoring = GappedScoring{2, -3, -2, 5, 2};
  p.xdrop_gap = 47;
  p.xdrop_final = 110;
  p.cutoff = 30;
  const std::vector<GappedHsp> hsps = extend_gapped(s.data(), s.size(), s.data(), s.size(),
                                                    {GapTrigger{100, 100, 0, 0, 3000, 6000}}, p);
  REQUIRE(!hsps.empty());
  CHECK(hsps[0].q_start == 0);
  CHECK(hsps[0].q_end == 3000);
  CHECK(hsps[0].s_end == 3000);
  CHECK(hsps[0].score == 6000);
  CHECK(hsps[0].identities == 3000);
  CHECK(hsps[0].gap_opens == 0);
}

TEST_CASE("an insertion is aligned with one gap and counted as blastn counts it", "[gapped]") {
  std::mt19937 rng(8);
  std::vector<uint8_t> q(400);
  for (auto& c : q) c = uint8_t(rng() % 4);
  std::vector<uint8_t> s(q.begin(), q.begin() + 200);
  s.insert(s.end(), {0, 1, 2});  // three extra subject bases
  s.insert(s.end(), q.begin() + 200, q.end());
  GappedExtensionParams p;
  p.scoring = GappedScoring{2, -3, -2, 5, 2};
  p.xdrop_gap = 47;
  p.xdrop_final = 110;
  p.cutoff = 30;
  const std::vector<GappedHsp> hsps =
      extend_gapped(q.data(), q.size(), s.data(), s.size(), {GapTrigger{20, 20, 0, 0, 200, 400}}, p);
  REQUIRE(!hsps.empty());
  const GappedHsp& h = hsps[0];
  CHECK(h.q_start == 0);
  CHECK(h.q_end == 400);
  CHECK(h.s_end == 403);
  CHECK(h.align_length == 403);
  CHECK(h.gap_opens == 1);
  CHECK(h.identities + h.mismatches == 400);
  CHECK(h.score == 2 * int64_t(h.identities) - 3 * int64_t(h.mismatches) - (5 + 3 * 2));
}

// Two exact copies, A (a_len bases) and B (b_len), separated by `junk` columns that mismatch whatever the shift
// (query junk all G, subject junk all T), between flanks that match nothing (query all A, subject all C). The
// traceback from A crosses the junk (its cost 3 x junk is under the final X-drop) into B and ends where B ends;
// from B it stops at B, A being worth less than the junk costs. blastn then cuts the alignment from A where B
// begins and rescores the rest: A alone is reported next to B (Blast_HSPListPurgeHSPsWithCommonEndpoints and the
// rescoring of what it cut), not dropped as sharing B's end.
struct TwoCopies {
  std::vector<uint8_t> q, s;
  int64_t a_start = 0, b_start = 0;  // the same in query and subject
};
TwoCopies two_copies(int64_t a_len, int64_t junk, int64_t b_len, bool b_first) {
  std::mt19937 rng(11);
  TwoCopies t;
  std::vector<uint8_t> A(static_cast<size_t>(a_len)), B(static_cast<size_t>(b_len));
  for (auto& c : A) c = uint8_t(rng() % 4);
  for (auto& c : B) c = uint8_t(rng() % 4);
  auto build = [&](uint8_t flank, uint8_t filler) {
    std::vector<uint8_t> v(100, flank);
    const std::vector<uint8_t>& first = b_first ? B : A;
    const std::vector<uint8_t>& second = b_first ? A : B;
    v.insert(v.end(), first.begin(), first.end());
    v.insert(v.end(), size_t(junk), filler);
    v.insert(v.end(), second.begin(), second.end());
    v.insert(v.end(), 100, flank);
    return v;
  };
  t.q = build(0, 2);
  t.s = build(1, 3);
  t.a_start = b_first ? 100 + b_len + junk : 100;
  t.b_start = b_first ? 100 : 100 + a_len + junk;
  return t;
}

std::vector<GappedHsp> extend_two_copies(const TwoCopies& t, int64_t a_len, int64_t b_len) {
  GappedExtensionParams p;
  p.scoring = GappedScoring{2, -3, -2, 5, 2};
  p.xdrop_gap = 33;  // blastn -task blastn: 30 and 100 bits
  p.xdrop_final = 110;
  p.cutoff = 30;
  const uint64_t a = uint64_t(t.a_start), b = uint64_t(t.b_start);
  return extend_gapped(t.q.data(), t.q.size(), t.s.data(), t.s.size(),
                       {GapTrigger{a, a, a, a, uint64_t(a_len), 2 * a_len},
                        GapTrigger{b, b, b, b, uint64_t(b_len), 2 * b_len}},
                       p);
}

void require_copies(const std::vector<GappedHsp>& hsps, const TwoCopies& t, int64_t a_len, int64_t b_len) {
  REQUIRE(hsps.size() == 2);
  const GappedHsp &b = hsps[0], &a = hsps[1];  // best first
  CHECK(b.q_start == uint64_t(t.b_start));
  CHECK(b.q_end == uint64_t(t.b_start + b_len));
  CHECK(b.s_start == uint64_t(t.b_start));
  CHECK(b.score == 2 * b_len);
  CHECK(a.q_start == uint64_t(t.a_start));
  CHECK(a.q_end == uint64_t(t.a_start + a_len));
  CHECK(a.s_start == uint64_t(t.a_start));
  CHECK(a.s_end == uint64_t(t.a_start + a_len));
  CHECK(a.score == 2 * a_len);
  CHECK(a.identities == uint64_t(a_len));
  CHECK(a.align_length == uint64_t(a_len));
  CHECK(a.gap_opens == 0);
}

TEST_CASE("an alignment sharing a better one's end is cut where that one begins and rescored", "[gapped]") {
  // A 40 bases (80), junk 30 (-90), B 300: from A the traceback reaches B's end with 80 - 90 + 600.
  const TwoCopies t = two_copies(40, 30, 300, false);
  require_copies(extend_two_copies(t, 40, 300), t, 40, 300);
}

TEST_CASE("an alignment sharing a better one's start is cut where that one ends and rescored", "[gapped]") {
  const TwoCopies t = two_copies(40, 30, 300, true);
  require_copies(extend_two_copies(t, 40, 300), t, 40, 300);
}

TEST_CASE("of two alignments sharing an end with equal scores the longer one is cut", "[gapped]") {
  // A 30 bases (60), junk 20 (-60), B 100 (200): from A the traceback reaches B's end with exactly B's score;
  // blastn keeps the shorter one whole (s_QueryEndCompareHSPs) and cuts the longer one back to A.
  const TwoCopies t = two_copies(30, 20, 100, false);
  require_copies(extend_two_copies(t, 30, 100), t, 30, 100);
}

TEST_CASE("gapped Karlin-Altschul values follow blastn's tables and rules", "[gapped]") {
  const KarlinParams u23 = ungapped_karlin(2, -3), u12 = ungapped_karlin(1, -2);
  const GappedKarlin g = gapped_karlin(2, -3, 5, 2, u23);  // blastn -task blastn defaults
  CHECK(g.params.lambda == Approx(0.625));
  CHECK(g.params.K == Approx(0.41));
  CHECK(g.params.H == Approx(0.78));
  CHECK(g.params.alpha == Approx(0.8));
  CHECK(g.params.beta == Approx(-2));
  CHECK(g.round_down);
  const GappedKarlin h = gapped_karlin(1, -2, 2, 2, u12);
  CHECK(h.params.lambda == Approx(1.33));
  CHECK(!h.round_down);
  // Beyond the largest tabulated costs: the ungapped values.
  CHECK(gapped_karlin(2, -3, 7, 5, u23).params.lambda == Approx(u23.lambda));
  // 2/-4 is 1/-2 scaled by 2: gap costs and lambda scale with it.
  CHECK(gapped_karlin(2, -4, 4, 4, u12).params.lambda == Approx(1.33 / 2));
  CHECK_THROWS_AS(gapped_karlin(2, -3, 1, 1, u23), UsageError);
  // Gap costs 0/0: the tables' linear row (megablast's greedy extension; blastn -task megablast prints E-values
  // and bit scores from these); a table without one refuses them.
  const GappedKarlin lin12 = gapped_karlin(1, -2, 0, 0, u12);
  CHECK(lin12.params.lambda == Approx(1.28));
  CHECK(lin12.params.K == Approx(0.46));
  CHECK(lin12.params.alpha == Approx(1.5));
  CHECK(lin12.params.beta == Approx(-2));
  CHECK(gapped_karlin(2, -3, 0, 0, u23).params.lambda == Approx(0.55));
  CHECK(gapped_karlin(2, -4, 0, 0, u12).params.lambda == Approx(1.28 / 2));
  CHECK_THROWS_AS(gapped_karlin(3, -4, 0, 0, u23), UsageError);
  CHECK_THROWS_AS(gapped_karlin(7, -11, 5, 2, u23), UsageError);
}

TEST_CASE("a traceback that joins an earlier one takes its end and path: the same alignment as computed whole",
          "[gapped]") {
  // A tandem copy of u bases inside a sequence aligned against itself: the copy's alignment (u diagonals off) bridges
  // onto the self-match and follows it to the end, as a repeat's final alignment does in a self-comparison. With
  // the self-match traced first, it joins it there; the alignment must be the one computed without joins.
  const GappedScoring sc{2, -3, -2, 5, 2};
  uint64_t joined = 0;
  for (const uint32_t seed : {3u, 4u, 5u})
    for (const int64_t u : {int64_t(20), int64_t(31), int64_t(45)}) {
      INFO("seed " << seed << " copy of " << u);
      std::mt19937 rng(seed);
      auto random_bases = [&](size_t n) {
        std::vector<uint8_t> v(n);
        for (auto& c : v) c = uint8_t(rng() % 4);
        return v;
      };
      const int64_t p = 2000;
      // p random bases, the copy twice, 10,000 more.
      std::vector<uint8_t> s = random_bases(size_t(p + 2 * u + 10000));
      for (int64_t i = 0; i < u; ++i) s[size_t(p + u + i)] = s[size_t(p + i)];
      const int64_t L = int64_t(s.size());
      const uint8_t* d = s.data();
      AlignmentJoins joins;
      // Rightwards: the self-match from the start, then the second copy against the first.
      const XdropAlignment self = xdrop_gapped_align(LetterRun{d, 1, L}, LetterRun{d, 1, L}, sc, 110, true, &joins);
      CHECK(self.a_end == L);
      const LetterRun fa{d + p + u, 1, L - p - u}, fb{d + p, 1, L - p};
      const XdropAlignment want = xdrop_gapped_align(fa, fb, sc, 110, true);
      const uint64_t before = joins.joined();
      const XdropAlignment got = xdrop_gapped_align(fa, fb, sc, 110, true, &joins);
      CHECK(joins.joined() == before + 1);
      CHECK(got.score == want.score);
      CHECK(got.a_end == want.a_end);
      CHECK(got.b_end == want.b_end);
      CHECK(got.ops == want.ops);
      // Leftwards: the self-match from the end, then the first copy's end against the second's.
      const XdropAlignment self_left =
          xdrop_gapped_align(LetterRun{d + L - 1, -1, L}, LetterRun{d + L - 1, -1, L}, sc, 110, true, &joins);
      CHECK(self_left.a_end == L);
      const LetterRun la{d + p + u - 1, -1, p + u}, lb{d + p + 2 * u - 1, -1, p + 2 * u};
      const XdropAlignment want_left = xdrop_gapped_align(la, lb, sc, 110, true);
      const XdropAlignment got_left = xdrop_gapped_align(la, lb, sc, 110, true, &joins);
      CHECK(got_left.score == want_left.score);
      CHECK(got_left.a_end == want_left.a_end);
      CHECK(got_left.b_end == want_left.b_end);
      CHECK(got_left.ops == want_left.ops);
      // Other letters never join: a random sequence against this one.
      const std::vector<uint8_t> other = random_bases(size_t(L));
      const uint64_t n = joins.joined();
      const XdropAlignment alone =
          xdrop_gapped_align(LetterRun{other.data(), 1, L}, LetterRun{d, 1, L}, sc, 110, true, &joins);
      CHECK(joins.joined() == n);
      const XdropAlignment alone_want = xdrop_gapped_align(LetterRun{other.data(), 1, L}, LetterRun{d, 1, L}, sc, 110, true);
      CHECK(alone.ops == alone_want.ops);
      joined = joins.joined();
      CHECK(joined >= 2);  // the rightward and the leftward copy
    }
}
