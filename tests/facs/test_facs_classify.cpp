// Filter building and one-pass classification on generated genomes, against exact k-mer set oracles.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <unordered_set>
#include <vector>

#include "bloomseq/bloom/blocked_bloom.hpp"
#include "bloomseq/encode/dna.hpp"
#include "bloomseq/encode/sequence.hpp"
#include "../io/io_test_util.hpp"
#include "bloomseq/facs/classifier.hpp"
#include "bloomseq/facs/filter_load_choice.hpp"
#include "bloomseq/facs/filter_builder.hpp"
#include "bloomseq/facs/ordered_pipeline.hpp"
#include "bloomseq/error.hpp"
#include "bloomseq/facs/report.hpp"

using namespace bloomseq;

namespace {

std::string random_dna(size_t n, std::mt19937_64& rng) {
  std::string s(n, 'A');
  for (char& c : s) c = "ACGT"[rng() & 3];
  return s;
}

// A read of length L from a random position and strand, with substitutions at rate `err`.
std::string sample_read(const std::string& g, size_t L, double err, std::mt19937_64& rng) {
  const size_t pos = rng() % (g.size() - L + 1);
  std::string r = g.substr(pos, L);
  if (rng() & 1) r = reverse_complement(r);
  std::bernoulli_distribution e(err);
  for (char& c : r)
    if (e(rng)) c = "ACGT"[(base_code(c) + 1 + rng() % 3) & 3];
  return r;
}

// FACS score with exact k-mer membership (the oracle).
int oracle_facs_score(const std::string& read, const std::unordered_set<uint64_t>& kmers, int w) {
  const int L = int(read.size()), F = L - w + 1;
  if (F <= 0) return 0;
  std::vector<uint8_t> hit(size_t(F), 0);
  for_each_wmer(encode_codes(read).data(), read.size(), w, [&](size_t pos, uint64_t fwd, uint64_t rc) {
    hit[pos] = kmers.count(canonical_wmer(fwd, rc)) ? 1 : 0;
  });
  bool quick = hit[size_t(F - 1)] != 0;
  for (int f = 0; f < F; f += w) quick = quick || hit[size_t(f)];
  if (!quick) return 0;
  int covered = 0;
  for (int b = 0; b < L; ++b) {
    bool c = false;
    for (int f = std::max(0, b - w + 1); f <= std::min(b, F - 1); ++f) c = c || hit[size_t(f)];
    covered += c;
  }
  return covered;
}

struct Fixture {
  std::mt19937_64 rng{7};
  std::vector<std::string> genomes;
  FilterSet set;
  BuildParams bp;
  explicit Fixture(int w = 25, size_t n = 3, size_t len = 40000) {
    bp.w = w;
    set = make_filter_set(bp, "test");
    for (size_t i = 0; i < n; ++i) {
      genomes.push_back(random_dna(len, rng));
      set.filters.push_back(build_filter({genomes.back()}, bp, "g" + std::to_string(i), "mem"));
    }
  }
  std::vector<std::string> names() const {
    std::vector<std::string> v;
    for (auto& f : set.filters) v.push_back(f.name);
    return v;
  }
};

BatchScores classify(const Classifier& c, const std::vector<std::string>& reads) {
  std::vector<std::string_view> v(reads.begin(), reads.end());
  Classifier::Workspace ws;
  BatchScores out;
  c.classify(v.data(), v.size(), out, ws);
  return out;
}

}  // namespace

TEST_CASE("H3 function i is the same for any number of functions") {
  const H3Family a(3, 25, kDefaultH3Seed), b(11, 25, kDefaultH3Seed);
  std::mt19937_64 rng(1);
  for (int t = 0; t < 1000; ++t) {
    const uint64_t key = rng() & wmer_mask(25);
    uint32_t ha[kMaxHashes], hb[kMaxHashes];
    a.byte_view().hash_all(key, ha);
    b.byte_view().hash_all(key, hb);
    for (int i = 0; i < 3; ++i) REQUIRE(ha[i] == hb[i]);
  }
}

TEST_CASE("distinct k-mer counts: exact matches a hash set, HyperLogLog within 3%") {
  std::mt19937_64 rng(3);
  const std::string g = random_dna(200000, rng);
  const std::string with_n = g.substr(0, 1000) + "NNNN" + g.substr(500, 2000);  // repeats and N
  for (const std::string* s : {&g, &with_n}) {
    std::unordered_set<uint64_t> oracle;
    for (uint64_t k : canonical_wmers(*s, 21)) oracle.insert(k);
    CHECK(distinct_canonical_wmers({*s}, 21).size() == oracle.size());
  }
  const double est = double(estimate_distinct_wmers({g}, 21));
  CHECK(std::abs(est - 199980.0) / 199980.0 < 0.03);
}

TEST_CASE("filters are sized for the FPR target and hold every k-mer") {
  Fixture fx(25, 1, 30000);
  for (BloomLayout layout : {BloomLayout::blocked512, BloomLayout::classic}) {
    BuildParams bp = fx.bp;
    bp.layout = layout;
    const FilterEntry f = build_filter({fx.genomes[0]}, bp, "g", "mem");
    INFO(layout_name(layout));
    CHECK(f.layout == layout);
    CHECK(f.elements == distinct_canonical_wmers({fx.genomes[0]}, 25).size());
    if (layout == BloomLayout::classic) {
      CHECK(f.k == optimal_hashes(f.elements, f.bits.m_bits()));
    } else {
      CHECK(f.bits.m_bits() % 512 == 0);
      CHECK(f.k == blocked_optimal_hashes(f.elements, f.bits.m_bits()));
      // The blocked filter needs more bits than the classic one for the same target, but not many more.
      const uint64_t classic_m = bits_for_fpr(f.elements, bp.fpr);
      CHECK(f.bits.m_bits() > classic_m);
      CHECK(f.bits.m_bits() < classic_m * 13 / 10);
    }
    CHECK(predicted_fpr(f) <= 5.5e-4);
    CHECK(std::abs(fill_fpr(f) - predicted_fpr(f)) < 3e-4);
    const H3Family fam(layout_hashes(layout, f.k), 25, kDefaultH3Seed);
    const BloomView v{const_cast<uint32_t*>(f.bits.words().data()), f.bits.m_bits()};
    for (uint64_t key : distinct_canonical_wmers({fx.genomes[0]}, 25)) {
      uint32_t h[kMaxHashes];
      fam.byte_view().hash_all(key, h);
      if (layout == BloomLayout::classic) REQUIRE(v.contains(h, f.k));
      else REQUIRE(ConstBlockedBloomView{v.words, v.m_bits}.contains(h, f.k));
    }
  }
}

TEST_CASE("no false negatives: the Bloom score is never below the exact k-mer set score") {
  Fixture fx(21, 2, 20000);
  const BloomLayout layout = GENERATE(BloomLayout::blocked512, BloomLayout::classic);
  BuildParams bp = fx.bp;
  bp.layout = layout;
  fx.set.filters[0] = build_filter({fx.genomes[0]}, bp, "g0", "mem");
  std::unordered_set<uint64_t> exact;
  for (uint64_t k : canonical_wmers(fx.genomes[0], 21)) exact.insert(k);
  std::vector<std::string> reads;
  for (int i = 0; i < 2000; ++i) {
    const double err = (i % 4) * 0.02;
    reads.push_back(i % 5 == 4 ? random_dna(40 + size_t(i % 60), fx.rng) : sample_read(fx.genomes[0], 30 + i % 150, err, fx.rng));
  }
  ClassifyParams cp;
  const Classifier c(fx.set, cp);
  const BatchScores s = classify(c, reads);
  for (size_t r = 0; r < reads.size(); ++r) {
    const int oracle = oracle_facs_score(reads[r], exact, 21);
    INFO(reads[r]);
    REQUIRE(s.points[r * 2 + 0] >= oracle);
    // Error-free reads are fully covered in both.
    if (oracle == int(reads[r].size())) REQUIRE(s.points[r * 2 + 0] == oracle);
  }
}

TEST_CASE("any byte in a read: only A, C, G, T (U) in either case make k-mers, at any position of any length") {
  Fixture fx(21, 2, 20000);
  std::unordered_set<uint64_t> exact;
  for (uint64_t k : canonical_wmers(fx.genomes[0], 21)) exact.insert(k);
  std::vector<std::string> reads, as_n;
  for (int i = 0; i < 3000; ++i) {
    std::string r = sample_read(fx.genomes[0], 1 + size_t(i % 200), 0.0, fx.rng);  // every tail length mod 32
    if (i % 3 == 0)
      for (char& c : r)
        if (fx.rng() % 4 == 0) c = char(c | 0x20);
    if (i % 2 == 0)
      for (int e = 0; e < 1 + int(fx.rng() % 3) && !r.empty(); ++e) r[fx.rng() % r.size()] = char(1 + fx.rng() % 255);
    std::string n = r;  // what the read means: every other byte is an N
    for (char& c : n)
      if (base_code(c) > 3) c = 'N';
    reads.push_back(r);
    as_n.push_back(n);
  }
  ClassifyParams cp;
  cp.exact_failing_points = true;
  const Classifier c(fx.set, cp);
  const BatchScores s = classify(c, reads), t = classify(c, as_n);
  for (size_t r = 0; r < reads.size(); ++r) {
    INFO(as_n[r]);
    const int oracle = oracle_facs_score(as_n[r], exact, 21);
    REQUIRE(s.points[r * 2] >= oracle);
    if (oracle == int(reads[r].size())) REQUIRE(s.points[r * 2] == oracle);
    REQUIRE(s.points[r * 2] == t.points[r * 2]);
    REQUIRE(s.points[r * 2 + 1] == t.points[r * 2 + 1]);
    REQUIRE(s.call[r] == t.call[r]);
  }
}

TEST_CASE("reads and references in the RNA alphabet (U for T) score as the same ones in DNA") {
  Fixture fx(21, 2, 20000);
  std::vector<std::string> dna, rna;
  for (int i = 0; i < 2000; ++i) {
    std::string r = sample_read(fx.genomes[size_t(i % 2)], 20 + size_t(i % 180), i % 3 ? 0.0 : 0.02, fx.rng);
    if (i % 5 == 0)
      for (char& c : r)
        if (fx.rng() % 3 == 0) c = char(c | 0x20);
    std::string u = r;
    for (char& c : u) c = c == 'T' ? 'U' : c == 't' ? 'u' : c;
    dna.push_back(r);
    rna.push_back(u);
  }
  ClassifyParams cp;
  cp.exact_failing_points = true;
  const Classifier c(fx.set, cp);
  const BatchScores s = classify(c, dna), t = classify(c, rna);
  REQUIRE(s.points == t.points);
  REQUIRE(s.call == t.call);
  // Filters built from the genomes written in U hold the same k-mers.
  FilterSet rna_set = make_filter_set(fx.bp, "test");
  for (size_t i = 0; i < fx.genomes.size(); ++i) {
    std::string g = fx.genomes[i];
    std::replace(g.begin(), g.end(), 'T', 'U');
    rna_set.filters.push_back(build_filter({g}, fx.bp, "g" + std::to_string(i), "mem"));
  }
  const Classifier c_rna(rna_set, cp);
  const BatchScores u = classify(c_rna, dna);
  REQUIRE(u.points == s.points);
  REQUIRE(u.call == s.call);
  size_t called = 0;
  for (size_t r = 0; r < dna.size(); ++r) called += s.call[r] == int32_t(r % 2);
  CHECK(called > dna.size() * 9 / 10);  // the reads are their references' (not all novel in both alphabets)
}

TEST_CASE("simulated reads classify to their reference, with and without errors") {
  Fixture fx(kFacsDefaultWordSize, 3, 40000);
  ClassifyParams cp;
  const Classifier c(fx.set, cp);
  for (double err : {0.0, 0.005, 0.01}) {
    std::vector<std::string> reads;
    std::vector<int> truth;
    for (int i = 0; i < 900; ++i) {
      truth.push_back(i % 3);
      reads.push_back(sample_read(fx.genomes[size_t(i % 3)], 100 + size_t(i % 51), err, fx.rng));
    }
    const BatchScores s = classify(c, reads);
    int correct = 0;
    for (size_t r = 0; r < reads.size(); ++r) correct += s.call[r] == truth[r];
    INFO("error rate " << err);
    CHECK(correct >= int(0.995 * reads.size()));
    if (err == 0.0) CHECK(correct == int(reads.size()));
  }
}

TEST_CASE("random reads come out novel; non-zero scores occur at the rate the FPR predicts") {
  Fixture fx(25, 0);
  BuildParams bp = fx.bp;
  bp.fpr = 0.01;  // a high FPR so that the rate is measurable
  const std::string g = random_dna(50000, fx.rng);
  fx.set.filters.push_back(build_filter({g}, bp, "g", "mem"));
  const double p = fill_fpr(fx.set.filters[0]);
  ClassifyParams cp;
  const Classifier c(fx.set, cp);
  std::vector<std::string> reads;
  const int n = 20000;
  for (int i = 0; i < n; ++i) reads.push_back(random_dna(150, fx.rng));
  const BatchScores s = classify(c, reads);
  int nonzero = 0, called = 0;
  for (size_t r = 0; r < reads.size(); ++r) {
    nonzero += s.points[r] > 0;
    called += s.call[r] != kCallNovel;
  }
  // The quick pass looks at 6 frames (0, 25, ..., 125): P(score > 0) = 1 - (1 - p)^6 (random keys are
  // independent of the genome's k-mers up to a negligible chance of a true match).
  const double expect = 1.0 - std::pow(1.0 - p, 6);
  const double sd = std::sqrt(n * expect * (1 - expect));
  INFO("p=" << p << " nonzero=" << nonzero << " expected=" << n * expect);
  CHECK(std::abs(nonzero - n * expect) < 4 * sd + 2);
  // Each false-positive frame covers w bases, so at this FPR a few random reads do reach the threshold
  // (about P(quick hit) * P(>= 3 more FP frames among ~126) ~ 1%); at the default FPR almost none should.
  CHECK(called < n / 50);
  fx.set.filters[0] = build_filter({g}, fx.bp, "g", "mem");
  const Classifier c2(fx.set, cp);
  const BatchScores s2 = classify(c2, reads);
  int called2 = 0, nonzero2 = 0;
  for (size_t r = 0; r < reads.size(); ++r) {
    called2 += s2.call[r] != kCallNovel;
    nonzero2 += s2.points[r] > 0;
  }
  // ~60 reads pass the quick pass by chance and need >= 2 more false-positive frames out of ~125 to reach
  // 0.5 L: expected ~0.1 reads.
  CHECK(called2 <= 2);
  const double p2 = fill_fpr(fx.set.filters[0]), e2 = n * (1.0 - std::pow(1.0 - p2, 6));
  CHECK(std::abs(nonzero2 - e2) < 4 * std::sqrt(e2) + 2);
}

TEST_CASE("one pass over many filters gives the same scores as one filter at a time") {
  Fixture fx(23, 4, 20000);
  fx.set.filters[2].k = 3;  // different k per filter share one hashing pass
  BuildParams classic = fx.bp;  // and classic and blocked filters mix in one run
  classic.layout = BloomLayout::classic;
  fx.set.filters[1] = build_filter({fx.genomes[1]}, classic, "g1", "mem");
  fx.set.filters[3] = build_filter({fx.genomes[3]}, classic, "g3", "mem");
  fx.set.filters[3].k = 30;  // more hash functions than any blocked filter uses
  std::vector<std::string> reads;
  for (int i = 0; i < 600; ++i) reads.push_back(sample_read(fx.genomes[size_t(i % 4)], 120, 0.01, fx.rng));
  for (ScoreKind kind : {ScoreKind::facs, ScoreKind::biobloom}) {
    ClassifyParams cp;
    cp.score = kind;
    cp.threshold = kind == ScoreKind::facs ? 0.5 : 0.15;
    const BatchScores all = classify(Classifier(fx.set, cp), reads);
    for (size_t j = 0; j < 4; ++j) {
      FilterSet one = fx.set;
      one.filters = {fx.set.filters[j]};
      cp.group_reads = 1 + int(j) * 7;  // and grouping does not matter
      const BatchScores single = classify(Classifier(one, cp), reads);
      for (size_t r = 0; r < reads.size(); ++r) {
        REQUIRE(single.points[r] == all.points[r * 4 + j]);
        REQUIRE(single.passed[r] == all.passed[r * 4 + j]);
      }
    }
  }
}

TEST_CASE("ties and multi-matches are reported") {
  Fixture fx(25, 1, 20000);
  fx.set.filters.push_back(fx.set.filters[0]);
  fx.set.filters.back().name = "copy";
  const Classifier c(fx.set, ClassifyParams{});
  const BatchScores s = classify(c, {sample_read(fx.genomes[0], 150, 0.0, fx.rng)});
  CHECK(s.call[0] == kCallTie);
  CHECK(s.matched[0] == 2);
  ClassifySummary sum(2);
  sum.add(s);
  CHECK(sum.multi_match == 1);
  CHECK(sum.shared[0] == 1);
  CHECK(sum.ties == 1);
  std::string line;
  append_read_tsv(line, "r1", s, 0, {"g0", "copy"}, true);
  CHECK(line == "r1\ttie\t1.0000\tg0,copy\t1.0000\t1.0000\n");
}

TEST_CASE("short, all-N and empty reads are counted as unscored") {
  Fixture fx(25, 2, 10000);
  const Classifier c(fx.set, ClassifyParams{});
  const BatchScores s = classify(c, {"", "ACGT", std::string(24, 'A'), std::string(200, 'N'),
                                     "NNNNACGTNNNNACGTACGTNNNNNNNNNNNNNNNNNNNNNNNNN"});
  for (size_t r = 0; r < 5; ++r) CHECK(s.call[r] == kCallUnscored);
  ClassifySummary sum(2);
  sum.add(s);
  CHECK(sum.unscored == 5);
  CHECK(sum.no_match == 5);
  CHECK(sum.total == 5);
}

TEST_CASE("pairs: both-mates and either-mate modes") {
  Fixture fx(25, 2, 20000);
  std::vector<std::string> m1, m2;
  m1.push_back(sample_read(fx.genomes[0], 100, 0, fx.rng));
  m2.push_back(sample_read(fx.genomes[0], 100, 0, fx.rng));
  m1.push_back(sample_read(fx.genomes[0], 100, 0, fx.rng));
  m2.push_back(random_dna(100, fx.rng));
  std::vector<std::string_view> v1(m1.begin(), m1.end()), v2(m2.begin(), m2.end());
  for (PairMode mode : {PairMode::both, PairMode::either}) {
    ClassifyParams cp;
    cp.pair_mode = mode;
    const Classifier c(fx.set, cp);
    Classifier::Workspace ws;
    BatchScores s;
    c.classify_pairs(v1.data(), v2.data(), 2, s, ws);
    CHECK(s.call[0] == 0);
    CHECK(s.denominator[0] == 200);
    CHECK(s.call[1] == (mode == PairMode::both ? kCallNovel : 0));
  }
}

TEST_CASE("identical calls for 1 and 3 threads through the ordered pipeline") {
  Fixture fx(25, 3, 20000);
  std::vector<std::string> reads;
  for (int i = 0; i < 5000; ++i) reads.push_back(sample_read(fx.genomes[size_t(i % 3)], 80 + size_t(i % 71), 0.01, fx.rng));
  ClassifyParams cp;
  const Classifier c(fx.set, cp);
  auto run = [&](int threads) {
    struct Slot {
      std::vector<std::string_view> batch;
      BatchScores scores;
      Classifier::Workspace ws;
      std::string text;
    };
    size_t next = 0;
    std::string out;
    run_ordered_pipeline(
        threads, [] { return Slot{}; },
        [&](Slot& s) {
          if (next >= reads.size()) return false;
          const size_t n = std::min<size_t>(37 + next % 50, reads.size() - next);
          s.batch.assign(reads.begin() + long(next), reads.begin() + long(next + n));
          next += n;
          return true;
        },
        [&](Slot& s) {
          c.classify(s.batch.data(), s.batch.size(), s.scores, s.ws);
          s.text.clear();
          for (size_t r = 0; r < s.batch.size(); ++r) append_read_tsv(s.text, "r", s.scores, r, {"a", "b", "c"}, true);
        },
        [&](Slot& s) { out += s.text; });
    return out;
  };
  const std::string one = run(1);
  CHECK(std::count(one.begin(), one.end(), '\n') == 5000);
  CHECK(run(3) == one);
}

TEST_CASE("the ordered pipeline rethrows the first error") {
  int n = 0;
  CHECK_THROWS_AS(run_ordered_pipeline(
                      2, [] { return 0; }, [&](int& s) { s = n++; return n < 100; },
                      [](int& s) { if (s == 50) throw DataError("record 50"); }, [](int&) {}),
                  DataError);
}

TEST_CASE("classifier refuses bad parameters") {
  FilterSet empty;
  empty.w = 25;
  CHECK_THROWS_AS(Classifier(empty, ClassifyParams{}), UsageError);
  Fixture fx(25, 1, 1000);
  ClassifyParams cp;
  cp.threshold = 1.5;
  CHECK_THROWS_AS(Classifier(fx.set, cp), UsageError);
  BuildParams bp;
  bp.w = 31;
  CHECK_THROWS_AS(check_compatible(fx.set, bp, "x.bf"), UsageError);
}

TEST_CASE("classify --load auto maps sets up to 32 MB or above a quarter of the memory, others for reads up to 4x, "
          "1x or 1/32 of their bytes by their size, copies for more or for a stream", "[facs][load]") {
  CHECK(choose_filter_load(FilterLoadChoice::map, 1u << 30, 1) == FilterLoadMode::map);
  CHECK(choose_filter_load(FilterLoadChoice::copy, 1, 1u << 30) == FilterLoadMode::copy);
  const uint64_t mb = uint64_t(1) << 20, gb = uint64_t(1) << 30;
  // up to 32 MB of filters: always, a stream of reads too
  CHECK(choose_filter_load(FilterLoadChoice::automatic, uint64_t(1) << 40, 15 * mb) == FilterLoadMode::map);
  CHECK(choose_filter_load(FilterLoadChoice::automatic, 0, 32 * mb) == FilterLoadMode::map);
  CHECK(choose_filter_load(FilterLoadChoice::automatic, 0, 32 * mb + 1) == FilterLoadMode::copy);
  // up to 128 MB of filters: reads up to 4x their bytes
  CHECK(choose_filter_load(FilterLoadChoice::automatic, 4 * 69 * mb, 69 * mb) == FilterLoadMode::map);
  CHECK(choose_filter_load(FilterLoadChoice::automatic, 4 * 69 * mb + 1, 69 * mb) == FilterLoadMode::copy);
  CHECK(choose_filter_load(FilterLoadChoice::automatic, 512 * mb, 128 * mb) == FilterLoadMode::map);
  // above 128 MB, up to the verified 256 MB: reads up to 1x
  CHECK(choose_filter_load(FilterLoadChoice::automatic, 128 * mb + 2, 128 * mb + 1) == FilterLoadMode::copy);
  CHECK(choose_filter_load(FilterLoadChoice::automatic, 200 * mb, 200 * mb) == FilterLoadMode::map);
  CHECK(choose_filter_load(FilterLoadChoice::automatic, 256 * mb, 256 * mb) == FilterLoadMode::map);
  // beyond: reads up to 1/32
  CHECK(choose_filter_load(FilterLoadChoice::automatic, gb / 32, gb) == FilterLoadMode::map);
  CHECK(choose_filter_load(FilterLoadChoice::automatic, gb / 32 + 1, gb) == FilterLoadMode::copy);
  CHECK(choose_filter_load(FilterLoadChoice::automatic, 256 * mb + 1, 256 * mb + 1) == FilterLoadMode::copy);
  const uint64_t huge = uint64_t(1) << 62;  // no overflow in the comparison
  CHECK(choose_filter_load(FilterLoadChoice::automatic, huge / 32, huge) == FilterLoadMode::map);
  // sets of more than a quarter of the available memory: mapped whatever the reads (a stream too); within it the
  // rules above; unknown memory (0) sets no limit; an explicit copy stays a copy
  CHECK(choose_filter_load(FilterLoadChoice::automatic, 4 * gb, 6 * gb + 1, 24 * gb) == FilterLoadMode::map);
  CHECK(choose_filter_load(FilterLoadChoice::automatic, 0, 6 * gb + 1, 24 * gb) == FilterLoadMode::map);
  CHECK(choose_filter_load(FilterLoadChoice::automatic, 4 * gb, 6 * gb, 24 * gb) == FilterLoadMode::copy);
  CHECK(choose_filter_load(FilterLoadChoice::automatic, gb / 32 + 1, gb, 24 * gb) == FilterLoadMode::copy);
  CHECK(choose_filter_load(FilterLoadChoice::automatic, gb / 32 + 1, gb, 0) == FilterLoadMode::copy);
  CHECK(choose_filter_load(FilterLoadChoice::copy, 1, 6 * gb + 1, 24 * gb) == FilterLoadMode::copy);
  CHECK(choose_filter_load(FilterLoadChoice::automatic, huge, huge) == FilterLoadMode::copy);
  CHECK(choose_filter_load(FilterLoadChoice::automatic, 0, gb) == FilterLoadMode::copy);  // unknown length
  // files the page cache maps through 2-MiB pages: mapped whatever the reads; an explicit copy stays a copy
  CHECK(choose_filter_load(FilterLoadChoice::automatic, 0, gb, 0, true) == FilterLoadMode::map);
  CHECK(choose_filter_load(FilterLoadChoice::automatic, huge, huge, 0, true) == FilterLoadMode::map);
  CHECK(choose_filter_load(FilterLoadChoice::automatic, 4 * gb, 6 * gb, 24 * gb, true) == FilterLoadMode::map);
  CHECK(choose_filter_load(FilterLoadChoice::copy, 1, gb, 0, true) == FilterLoadMode::copy);

  bloomseq_test::TempDir dir;
  bloomseq_test::write_bytes(dir.file("r.fq"), std::string(1000, 'A'));
  bloomseq_test::write_bytes(dir.file("m.fq.gz"), std::string(100, 'A'));
  bloomseq_test::write_bytes(dir.file("a.bf"), std::string(3000, 'B'));
  CHECK(estimated_read_bytes({dir.file("r.fq")}, 1) == 1000);
  CHECK(estimated_read_bytes({dir.file("r.fq"), dir.file("m.fq.gz")}, 1) == 1400);  // gzip counted x4
  CHECK(estimated_read_bytes({dir.file("r.fq")}, 4) == 250);                       // one shard of four
  CHECK(estimated_read_bytes({"-"}, 1) == 0);
  CHECK(estimated_read_bytes({dir.file("r.fq"), dir.file("none.fq")}, 1) == 0);
  CHECK(filter_file_bytes({dir.file("a.bf"), dir.file("a.bf")}) == 6000);
}

TEST_CASE("BatchScores::for_each_passed visits exactly the passed filters, in order") {
  std::mt19937_64 rng(41);
  for (size_t filters : {size_t(1), size_t(7), size_t(8), size_t(9), size_t(64), size_t(70), size_t(1029)}) {
    BatchScores s;
    s.resize(5, filters);
    for (size_t i = 0; i < s.passed.size(); ++i) s.passed[i] = (rng() % 5 == 0) ? 1 : 0;
    s.passed[4 * filters + filters - 1] = 1;  // the last flag of the last read
    for (size_t r = 0; r < s.reads; ++r) {
      std::vector<size_t> want, got;
      for (size_t j = 0; j < filters; ++j)
        if (s.passed[r * filters + j]) want.push_back(j);
      s.for_each_passed(r, [&](size_t j) { got.push_back(j); });
      CHECK(got == want);
    }
  }
}
