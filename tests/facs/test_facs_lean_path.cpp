// The lean classifier path (FACS score on blocked filters) against the generic scorer machinery, and the
// printf-free score formatting against printf.
#include <catch2/catch.hpp>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "bloomseq/encode/dna.hpp"
#include "bloomseq/encode/sequence.hpp"
#include "bloomseq/facs/classifier.hpp"
#include "bloomseq/facs/filter_builder.hpp"
#include "bloomseq/facs/report.hpp"

using namespace bloomseq;

namespace {

std::string random_dna(size_t n, std::mt19937_64& rng) {
  std::string s(n, 'A');
  for (char& c : s) c = "ACGT"[rng() & 3];
  return s;
}

// Reads that exercise every branch: from a genome (either strand) with substitution errors, chimeras of two
// genomes (partial coverage: long full scans), N and IUPAC codes, lower case, reads shorter than w or around
// it, long reads (frames beyond 64 and 128), empty reads and random reads.
std::vector<std::string> awkward_reads(const std::vector<std::string>& genomes, int w, size_t n, std::mt19937_64& rng) {
  std::vector<std::string> reads;
  auto piece = [&](size_t len) {
    const std::string& g = genomes[rng() % genomes.size()];
    len = std::min(len, g.size());
    std::string r = g.substr(rng() % (g.size() - len + 1), len);
    return rng() & 1 ? reverse_complement(r) : r;
  };
  for (size_t i = 0; i < n; ++i) {
    std::string r;
    switch (i % 8) {
      case 0: r = piece(60 + rng() % 150); break;
      case 1: r = piece(80 + rng() % 70) + piece(20 + rng() % 80); break;  // chimera
      case 2: r = random_dna(size_t(w) - 2 + rng() % 6, rng); break;      // around w
      case 3: r = piece(300 + rng() % 400); break;                         // long
      case 4: r = random_dna(100 + rng() % 50, rng); break;
      case 5: r = piece(size_t(w) + rng() % 40); break;
      case 6: r = i % 16 == 6 ? std::string() : piece(1 + rng() % size_t(w)); break;
      default: r = piece(100 + rng() % 60); break;
    }
    const int errors = int(rng() % 6);
    for (int e = 0; e < errors && !r.empty(); ++e) r[rng() % r.size()] = "ACGT"[rng() & 3];
    if (i % 5 == 0 && !r.empty())
      for (int e = 0; e < 1 + int(rng() % 3); ++e) r[rng() % r.size()] = "NNRYn"[rng() % 5];
    if (i % 7 == 0)
      for (char& c : r) c = char(c | 0x20);  // lower case (N becomes n)
    reads.push_back(r);
  }
  return reads;
}

BatchScores run(const Classifier& c, const std::vector<std::string>& reads) {
  std::vector<std::string_view> v(reads.begin(), reads.end());
  Classifier::Workspace ws;
  BatchScores out;
  c.classify(v.data(), v.size(), out, ws);
  return out;
}

void require_same(const BatchScores& a, const BatchScores& b, const std::vector<std::string>& reads) {
  REQUIRE(a.reads == b.reads);
  REQUIRE(a.filters == b.filters);
  for (size_t r = 0; r < a.reads; ++r) {
    INFO("read " << r << ": " << reads[r]);
    REQUIRE(a.denominator[r] == b.denominator[r]);
    REQUIRE(a.call[r] == b.call[r]);
    REQUIRE(a.matched[r] == b.matched[r]);
    for (size_t j = 0; j < a.filters; ++j) {
      INFO("filter " << j);
      REQUIRE(a.points[r * a.filters + j] == b.points[r * b.filters + j]);
      REQUIRE(a.passed[r * a.filters + j] == b.passed[r * b.filters + j]);
    }
  }
}

}  // namespace

TEST_CASE("lean path: same scores and calls as the generic scorers") {
  const int w = GENERATE(21, 13, 32);
  std::mt19937_64 rng(uint64_t(w) * 1000 + 3);
  std::vector<std::string> genomes;
  for (int g = 0; g < 3; ++g) genomes.push_back(random_dna(15000, rng));
  genomes.push_back(genomes[0].substr(0, 7000) + genomes[1].substr(7000, 8000));  // shares halves with 0 and 1
  BuildParams bp;
  bp.w = w;
  FilterSet set = make_filter_set(bp, "test");
  for (size_t g = 0; g < genomes.size(); ++g) {
    BuildParams p = bp;
    if (g == 1) p.hashes = 5;           // a second k: two block masks per frame
    if (g == 2) {  // 512 KiB: a "large" filter (prefetched, windowed scans)
      p.m_bits = 512 * 8192;
      p.hashes = 12;
    }
    if (g == 3) p.fpr = 0.05;           // many false positives: quick hits and scans on unrelated reads
    set.filters.push_back(build_filter({genomes[g]}, p, "g" + std::to_string(g), "mem"));
  }
  const std::vector<std::string> reads = awkward_reads(genomes, w, 3000, rng);
  const double threshold = GENERATE(0.0, 0.55, 0.1, 1.0);  // 0: the error model's, per read length
  ClassifyParams lean_p, generic_p;
  lean_p.threshold = generic_p.threshold = threshold;
  generic_p.lean_path = false;
  lean_p.group_reads = 17;  // groups that do not divide the batch
  const Classifier lean(set, lean_p), generic(set, generic_p);
  REQUIRE(lean.uses_lean_path());
  REQUIRE_FALSE(generic.uses_lean_path());
  const BatchScores a = run(lean, reads), b = run(generic, reads);
  require_same(a, b, reads);
  // The reads exercised the interesting cases.
  size_t partial = 0, full = 0, unscored = 0;
  for (size_t r = 0; r < a.reads; ++r) {
    unscored += a.call[r] == kCallUnscored;
    for (size_t j = 0; j < a.filters; ++j) {
      const int32_t p = a.points[r * a.filters + j];
      full += p > 0 && p == a.denominator[r];
      partial += p > 0 && p < a.denominator[r];
    }
  }
  CHECK(partial > 300);
  CHECK(full > 300);
  CHECK(unscored > 100);
}

TEST_CASE("lean path: pairs as the generic scorers, both modes") {
  std::mt19937_64 rng(11);
  std::vector<std::string> genomes{random_dna(20000, rng), random_dna(20000, rng)};
  BuildParams bp;
  FilterSet set = make_filter_set(bp, "test");
  for (size_t g = 0; g < genomes.size(); ++g)
    set.filters.push_back(build_filter({genomes[g]}, bp, "g" + std::to_string(g), "mem"));
  const std::vector<std::string> m1 = awkward_reads(genomes, bp.w, 800, rng), m2 = awkward_reads(genomes, bp.w, 800, rng);
  const std::vector<std::string_view> v1(m1.begin(), m1.end()), v2(m2.begin(), m2.end());
  for (PairMode mode : {PairMode::both, PairMode::either}) {
    ClassifyParams lp, gp;
    lp.pair_mode = gp.pair_mode = mode;
    gp.lean_path = false;
    const Classifier lean(set, lp), generic(set, gp);
    Classifier::Workspace w1, w2;
    BatchScores a, b;
    lean.classify_pairs(v1.data(), v2.data(), v1.size(), a, w1);
    generic.classify_pairs(v1.data(), v2.data(), v1.size(), b, w2);
    require_same(a, b, m1);
  }
}

// With exact_failing_points = false a scan may stop once the threshold is out of reach: everything but the points
// of failing filters must stay as with exact scans (the generic scorers are the oracle).
static void require_same_calls(const BatchScores& a, const BatchScores& b, const std::vector<std::string>& reads) {
  REQUIRE(a.reads == b.reads);
  for (size_t r = 0; r < a.reads; ++r) {
    INFO("read " << r << ": " << reads[r]);
    REQUIRE(a.denominator[r] == b.denominator[r]);
    REQUIRE(a.call[r] == b.call[r]);
    REQUIRE(a.matched[r] == b.matched[r]);
    REQUIRE(a.best_points(r) == b.best_points(r));
    for (size_t j = 0; j < a.filters; ++j) {
      INFO("filter " << j);
      const size_t i = r * a.filters + j;
      REQUIRE(a.passed[i] == b.passed[i]);
      if (b.passed[i]) REQUIRE(a.points[i] == b.points[i]);
      else REQUIRE(a.points[i] <= b.points[i]);  // a stopped scan has counted part of the coverage
    }
  }
}

TEST_CASE("lean path: scans stopped once the threshold is out of reach keep calls and passing scores") {
  const double threshold = GENERATE(0.0, 0.55, 0.2, 0.9, 1.0);
  std::mt19937_64 rng(17);
  std::vector<std::string> genomes;
  for (int g = 0; g < 3; ++g) genomes.push_back(random_dna(15000, rng));
  genomes.push_back(genomes[0].substr(0, 7000) + genomes[1].substr(7000, 8000));
  BuildParams bp;
  FilterSet set = make_filter_set(bp, "test");
  for (size_t g = 0; g < genomes.size(); ++g) {
    BuildParams p = bp;
    if (g == 2) {  // a "large" filter: windowed scans
      p.m_bits = 512 * 8192;
      p.hashes = 12;
    }
    if (g == 3) p.fpr = 0.05;
    set.filters.push_back(build_filter({genomes[g]}, p, "g" + std::to_string(g), "mem"));
  }
  const std::vector<std::string> reads = awkward_reads(genomes, bp.w, 3000, rng);
  ClassifyParams fast, oracle;
  fast.threshold = oracle.threshold = threshold;
  fast.exact_failing_points = false;
  oracle.lean_path = false;
  const Classifier lean(set, fast), generic(set, oracle);
  REQUIRE(lean.uses_lean_path());
  const BatchScores a = run(lean, reads), b = run(generic, reads);
  require_same_calls(a, b, reads);
  size_t stopped = 0;
  for (size_t i = 0; i < a.points.size(); ++i) stopped += a.points[i] < b.points[i];
  if (threshold > 0.5) CHECK(stopped > 50);  // the shortcut was taken
  ClassifyParams exact = fast;
  exact.exact_failing_points = true;
  const BatchScores c = run(Classifier(set, exact), reads);
  require_same(c, b, reads);
  if (threshold > 0.5) CHECK(a.lookups < c.lookups);

  // Pairs: "both" may stop scans; "either" adds a failing mate's points, so its scans stay exact.
  const std::vector<std::string> m2 = awkward_reads(genomes, bp.w, 3000, rng);
  const std::vector<std::string_view> v1(reads.begin(), reads.end()), v2(m2.begin(), m2.end());
  for (PairMode mode : {PairMode::both, PairMode::either}) {
    ClassifyParams pf = fast, po = oracle;
    pf.pair_mode = po.pair_mode = mode;
    const Classifier lp(set, pf), gp(set, po);
    Classifier::Workspace w1, w2;
    BatchScores pa, pb;
    lp.classify_pairs(v1.data(), v2.data(), v1.size(), pa, w1);
    gp.classify_pairs(v1.data(), v2.data(), v1.size(), pb, w2);
    if (mode == PairMode::either) require_same(pa, pb, reads);
    else require_same_calls(pa, pb, reads);
  }
}

// Long runs of uncovered bases: a large filter's scan fetches the frames above such a run ahead of their tests, a
// small filter's scan tests its frames at once. Scores, calls and the lookups counted must not depend on either.
TEST_CASE("lean path: long uncovered runs in large and small filters score as the generic scorers") {
  std::mt19937_64 rng(23);
  const std::vector<std::string> genomes{random_dna(30000, rng), random_dna(12000, rng)};
  BuildParams bp;
  FilterSet set = make_filter_set(bp, "test");
  BuildParams large = bp;
  large.m_bits = 512 * 8192;  // 512 KiB: large
  set.filters.push_back(build_filter({genomes[0]}, large, "large", "mem"));
  set.filters.push_back(build_filter({genomes[1]}, bp, "small", "mem"));
  // Pieces of a genome broken by random stretches (runs of misses), in both filters' genomes.
  std::vector<std::string> reads;
  for (int i = 0; i < 1500; ++i) {
    const std::string& g = genomes[size_t(i) & 1];
    std::string r;
    const int parts = 1 + int(rng() % 4);
    for (int p = 0; p < parts; ++p) {
      const size_t len = 10 + rng() % 60;
      r += rng() % 3 ? g.substr(rng() % (g.size() - len), len) : random_dna(len, rng);
    }
    reads.push_back(rng() & 1 ? reverse_complement(r) : r);
  }
  for (const double threshold : {0.0, 0.55, 0.3, 1.0}) {
    ClassifyParams exact, fast, oracle;
    exact.threshold = fast.threshold = oracle.threshold = threshold;
    fast.exact_failing_points = false;
    oracle.lean_path = false;
    const BatchScores b = run(Classifier(set, oracle), reads);
    const BatchScores a = run(Classifier(set, exact), reads);
    require_same(a, b, reads);
    require_same_calls(run(Classifier(set, fast), reads), b, reads);
    size_t partial = 0;
    for (size_t i = 0; i < a.points.size(); ++i) partial += a.points[i] > 0 && a.points[i] < a.denominator[i / 2];
    CHECK(partial > 300);
    // Groups of other sizes interleave the scans differently: the same frames are looked up.
    for (const int group : {1, 5, 64}) {
      ClassifyParams other = exact;
      other.group_reads = group;
      const BatchScores c = run(Classifier(set, other), reads);
      require_same(c, b, reads);
      CHECK(c.lookups == a.lookups);
    }
  }
}

TEST_CASE("lean path is used only for the FACS score on blocked filters") {
  std::mt19937_64 rng(5);
  const std::string g = random_dna(5000, rng);
  BuildParams bp;
  FilterSet set = make_filter_set(bp, "test");
  set.filters.push_back(build_filter({g}, bp, "blocked", "mem"));
  ClassifyParams bbt;
  bbt.score = ScoreKind::biobloom;
  bbt.threshold = 0.15;
  CHECK(Classifier(set, ClassifyParams{}).uses_lean_path());
  CHECK_FALSE(Classifier(set, bbt).uses_lean_path());
  bp.layout = BloomLayout::classic;
  set.filters.push_back(build_filter({g}, bp, "classic", "mem"));
  CHECK_FALSE(Classifier(set, ClassifyParams{}).uses_lean_path());
}

TEST_CASE("per-read TSV scores print as printf's %.4f of points / denominator") {
  std::mt19937_64 rng(9);
  std::vector<std::pair<int32_t, int32_t>> cases{{0, 0},     {0, 7},     {1, 20000}, {3, 20000}, {1, 3},
                                                 {2, 3},     {150, 150}, {149, 150}, {1, 16},    {1, 80000},
                                                 {5, 100000}, {7, 140000}, {123456, 123457}};
  for (int i = 0; i < 20000; ++i) {
    const int32_t d = int32_t(1 + rng() % 400000);
    cases.emplace_back(int32_t(rng() % uint64_t(d + 1)), d);
  }
  for (int32_t d = 1; d <= 400; ++d)
    for (int32_t p = 0; p <= d; ++p) cases.emplace_back(p, d);
  BatchScores s;
  s.resize(cases.size(), 1);
  for (size_t r = 0; r < cases.size(); ++r) {
    s.points[r] = cases[r].first;
    s.denominator[r] = cases[r].second;
    s.passed[r] = 1;
    s.matched[r] = 1;
    s.call[r] = 0;
  }
  const std::vector<std::string> names{"f"};
  for (size_t r = 0; r < cases.size(); ++r) {
    std::string line;
    append_read_tsv(line, "id", s, r, names, true);
    const double v = cases[r].second ? double(cases[r].first) / double(cases[r].second) : 0.0;
    char buf[64];
    std::snprintf(buf, sizeof buf, "id\tf\t%.4f\tf\t%.4f\n", v, v);
    INFO(cases[r].first << " / " << cases[r].second);
    REQUIRE(line == buf);
  }
}
