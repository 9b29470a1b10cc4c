// KeptAlignments (stage 3's containment index) against a flat model of blastn's interval tree: every alignment
// added is compared with every one kept, by the rules of BlastIntervalTreeAddHSP (a start or an end shared with a
// better kept alignment: not kept; shared with a worse one: that one dropped) and s_HSPIsContained (both ends
// inside, score no higher, start or end within 50 diagonals, or megablast's 6). Small coordinate ranges make shared
// endpoints, containment and ties common.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <random>
#include <vector>

#include "bloomseq/blast/kept_alignments.hpp"

using namespace bloomseq;

namespace {

struct FlatTree {
  int64_t separation = 50;
  std::vector<AlignmentBox> kept;

  // s_HSPsHaveCommonEndpoint: true when `in` is the one to keep.
  static bool in_wins(const AlignmentBox& in, const AlignmentBox& old) {
    if (in.score > old.score) return true;
    if (in.score < old.score) return false;
    const int64_t in_q = in.q_end - in.q_start, old_q = old.q_end - old.q_start;
    if (in_q != old_q) return in_q < old_q;
    const int64_t in_s = in.s_end - in.s_start, old_s = old.s_end - old.s_start;
    return in_s < old_s;  // identical: the kept one stays
  }
  size_t drops = 0;
  // One endpoint's check; false when `in` must not be added.
  bool endpoint(const AlignmentBox& in, bool left) {
    for (size_t i = 0; i < kept.size(); ++i) {
      const AlignmentBox& k = kept[i];
      const bool shared = left ? (k.q_start == in.q_start && k.s_start == in.s_start)
                               : (k.q_end == in.q_end && k.s_end == in.s_end);
      if (!shared) continue;
      if (!in_wins(in, k)) return false;
      kept.erase(kept.begin() + std::ptrdiff_t(i));
      ++drops;
      return true;
    }
    return true;
  }
  bool add(const AlignmentBox& in) {  // false: not kept
    if (!endpoint(in, true)) return false;
    if (!endpoint(in, false)) return false;
    kept.push_back(in);
    return true;
  }
  bool contains(const AlignmentBox& in) const {
    for (const AlignmentBox& t : kept) {
      const bool inside = in.score <= t.score && t.q_start <= in.q_start && in.q_start <= t.q_end &&
                          t.s_start <= in.s_start && in.s_start <= t.s_end && t.q_start <= in.q_end &&
                          in.q_end <= t.q_end && t.s_start <= in.s_end && in.s_end <= t.s_end;
      if (!inside) continue;
      const int64_t d_start = std::llabs((t.q_start - t.s_start) - (in.q_start - in.s_start));
      const int64_t d_end = std::llabs((t.q_end - t.s_end) - (in.q_end - in.s_end));
      if (d_start < separation || d_end < separation) return true;
    }
    return false;
  }
};

AlignmentBox random_box(std::mt19937& rng) {
  AlignmentBox b{};
  b.q_start = int64_t(rng() % 40) * 5;
  b.s_start = b.q_start + (int64_t(rng() % 9) - 4) * 20;
  const int64_t len = 5 + int64_t(rng() % 8) * 10;
  b.q_end = b.q_start + len;
  b.s_end = b.s_start + len + (int64_t(rng() % 3) - 1) * 5;
  if (b.s_end <= b.s_start) b.s_end = b.s_start + 1;
  b.score = int64_t(rng() % 6) * 10;
  return b;
}

}  // namespace

TEST_CASE("kept alignments follow blastn's interval tree: endpoint rules and containment") {
  const int64_t separation = GENERATE(kMinDiagSeparation, kMegablastMinDiagSeparation);
  INFO("min_diag_separation " << separation);
  std::mt19937 rng(31337);
  size_t refused = 0, contained = 0, dropped = 0;
  for (int round = 0; round < 200; ++round) {
    KeptAlignments index(separation);
    FlatTree model;
    model.separation = separation;
    for (int step = 0; step < 60; ++step) {
      const AlignmentBox b = random_box(rng);
      if (!model.add(b)) ++refused;
      index.add(b);
      for (int probe = 0; probe < 8; ++probe) {
        const AlignmentBox p = random_box(rng);
        const bool want = model.contains(p);
        INFO("round " << round << " step " << step << " probe " << probe);
        REQUIRE(index.contains(p) == want);
        contained += want ? 1 : 0;
      }
    }
    dropped += model.drops;
  }
  // The cases this test is for did occur.
  REQUIRE(refused > 100);
  REQUIRE(dropped > 100);
  REQUIRE(contained > 100);
}
