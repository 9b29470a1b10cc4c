// The streaming scorers against brute-force definitions on random hit patterns.
#include <catch2/catch.hpp>

#include <random>
#include <vector>

#include "bloomseq/facs/read_scorer.hpp"

using namespace bloomseq;

namespace {

// FACS score by definition: if any non-overlapping frame 0, w, 2w, ... (with density d also j w + floor(i w / d),
// i < d) or the last frame hits, the number of bases covered by a hit frame; else 0.
int facs_brute_force(const std::vector<uint8_t>& hit, int L, int w, int d = 1) {
  const int F = L - w + 1;
  if (F <= 0) return 0;
  bool quick = hit[size_t(F - 1)] != 0;
  for (int f = 0; f < F; f += w)
    for (int i = 0; i < d && f + i * w / d < F; ++i) quick = quick || hit[size_t(f + i * w / d)];
  if (!quick) return 0;
  int covered = 0;
  for (int b = 0; b < L; ++b) {
    bool c = false;
    for (int f = std::max(0, b - w + 1); f <= std::min(b, F - 1); ++f) c = c || hit[size_t(f)];
    covered += c;
  }
  return covered;
}

// Runs a scorer to the end, answering lookups from `hit`; frames marked invalid start as misses.
template <class S>
int drive(S& s, const std::vector<uint8_t>& hit, const std::vector<uint8_t>& invalid, int& lookups) {
  std::vector<uint8_t> state(hit.size());
  for (size_t f = 0; f < hit.size(); ++f) state[f] = invalid[f] ? kFrameMiss : kFrameUnknown;
  lookups = 0;
  for (int f; (f = s.next(state.data())) >= 0;) {
    REQUIRE(state[size_t(f)] == kFrameUnknown);  // never looks a frame up twice
    s.feed(state.data(), f, hit[size_t(f)] != 0);
    ++lookups;
  }
  return s.points();
}

}  // namespace

TEST_CASE("lazy FACS scorer equals the full scan on random hit patterns") {
  std::mt19937_64 rng(42);
  for (int trial = 0; trial < 20000; ++trial) {
    const int w = 1 + int(rng() % 31);
    const int L = int(rng() % 200);
    const int F = std::max(0, L - w + 1);
    const double p_hit = (rng() % 5) / 4.0;
    std::vector<uint8_t> hit(static_cast<size_t>(F)), invalid(static_cast<size_t>(F));
    std::bernoulli_distribution bh(p_hit), bi(0.05);
    for (int f = 0; f < F; ++f) {
      invalid[size_t(f)] = bi(rng);
      hit[size_t(f)] = !invalid[size_t(f)] && bh(rng);
    }
    const int d = trial % 3 == 0 ? 1 + int(rng() % uint64_t(w)) : 1;  // quick density (error model, short reads)
    FacsScorer s;
    s.start(L, w, d);
    int lookups = 0;
    const int got = drive(s, hit, invalid, lookups);
    INFO("w=" << w << " L=" << L << " p=" << p_hit << " d=" << d);
    REQUIRE(got == facs_brute_force(hit, L, w, d));
    REQUIRE(lookups <= F);
  }
}

TEST_CASE("an error-free read needs only its non-overlapping frames") {
  const int L = 150, w = 25, F = L - w + 1;
  std::vector<uint8_t> hit(F, 1), invalid(F, 0);
  FacsScorer s;
  s.start(L, w);
  int lookups = 0;
  REQUIRE(drive(s, hit, invalid, lookups) == L);
  CHECK(lookups == 6);  // frames 0, 25, 50, 75, 100 and 125
}

TEST_CASE("a single error costs about w/2 extra lookups and uncovers one base") {
  const int L = 150, w = 25, F = L - w + 1, p = 60;
  std::vector<uint8_t> hit(F, 1), invalid(F, 0);
  for (int f = p - w + 1; f <= p; ++f) hit[size_t(f)] = 0;
  FacsScorer s;
  s.start(L, w);
  int lookups = 0;
  REQUIRE(drive(s, hit, invalid, lookups) == L - 1);
  CHECK(lookups < 6 + 2 * w);
}

TEST_CASE("FACS quick pass: no hit among frames 0, w, 2w, ... and the last gives score 0") {
  const int L = 100, w = 20, F = L - w + 1;
  std::vector<uint8_t> hit(F, 1), invalid(F, 0);
  for (int f = 0; f < F; f += w) hit[size_t(f)] = 0;
  hit[size_t(F - 1)] = 0;
  FacsScorer s;
  s.start(L, w);
  int lookups = 0;
  CHECK(drive(s, hit, invalid, lookups) == 0);
  CHECK(lookups == 5);  // frames 0, 20, 40, 60 and the last, 80
}

TEST_CASE("reads shorter than w are scored 0 without lookups") {
  for (int L : {0, 1, 24}) {
    ReadScorer s;
    s.start(ScoreKind::facs, L, 25, 0.5);
    std::vector<uint8_t> st(1);
    CHECK(s.next(st.data()) == -1);
    CHECK(s.points() == 0);
    CHECK_FALSE(s.passes(0.5));
    s.start(ScoreKind::biobloom, L, 25, 0.15);
    CHECK(s.next(st.data()) == -1);
    CHECK_FALSE(s.passes(0.15));
  }
}

TEST_CASE("BioBloom scorer: run scores, early accept and reject") {
  const int L = 150, w = 25, F = L - w + 1;
  std::vector<uint8_t> invalid(F, 0);
  int lookups = 0;
  SECTION("all hits: accepts after ceil(s F) points") {
    std::vector<uint8_t> hit(F, 1);
    BioBloomScorer s;
    s.start(L, w, 0.15);
    drive(s, hit, invalid, lookups);
    CHECK(s.accepted);
    // 0.5 + (n - 1) >= 0.15 * 126 = 18.9  ->  n = 20 frames
    CHECK(lookups == 20);
  }
  SECTION("no hits: rejects after floor((1 - s) F) misses") {
    std::vector<uint8_t> hit(F, 0);
    BioBloomScorer s;
    s.start(L, w, 0.15);
    drive(s, hit, invalid, lookups);
    CHECK_FALSE(s.accepted);
    CHECK(lookups == int(0.85 * F));
  }
  SECTION("isolated hits score 0.5 each") {
    std::vector<uint8_t> hit(F, 0);
    for (int f = 0; f < F; f += 2) hit[size_t(f)] = 1;
    BioBloomScorer s;
    s.start(L, w, 0.5);
    drive(s, hit, invalid, lookups);
    CHECK_FALSE(s.accepted);
    CHECK(s.points() == s.lookups - s.misses);  // one half point per isolated hit
  }
}
