// Classification through interleaved filter sets: (a) calls and scores equal those of separate classic filters
// holding the same bits (the sets' bins), (b) against exact k-mer sets, (c) the version-3 container.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <unordered_set>
#include <vector>

#include "../io/io_test_util.hpp"
#include "bloomseq/encode/dna.hpp"
#include "bloomseq/encode/sequence.hpp"
#include "bloomseq/error.hpp"
#include "bloomseq/facs/build_filter_run.hpp"
#include "bloomseq/facs/classifier.hpp"
#include "bloomseq/facs/filter_builder.hpp"
#include "bloomseq/facs/interleaved_builder.hpp"
#include "bloomseq/io/filter_file.hpp"

using namespace bloomseq;
using bloomseq_test::TempDir;

namespace {

constexpr int kW = 21;

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

// `n` reads of 100 bases: the odd ones random, the even ones from a random genome with substitutions at `err`.
std::vector<std::string> half_random_reads(const std::vector<std::string>& genomes, size_t n, double err, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::string> reads;
  for (size_t i = 0; i < n; ++i)
    reads.push_back(i % 2 ? random_dna(100, rng) : sample_read(genomes[rng() % genomes.size()], 100, err, rng));
  return reads;
}

// FACS's quick frames of a read of F frames, brute force: j w + floor(i w / d) for i < d, and the last frame.
std::vector<uint8_t> quick_frame_mask(int F, int d) {
  std::vector<uint8_t> quick(size_t(F), 0);
  for (int j = 0; j * kW < F; ++j)
    for (int i = 0; i < d; ++i)
      if (j * kW + i * kW / d < F) quick[size_t(j * kW + i * kW / d)] = 1;
  quick[size_t(F - 1)] = 1;
  return quick;
}

struct Panel {
  std::vector<std::string> genomes;
  FilterSet interleaved;
};

// `n` random genomes, sizes cycling through `sizes`, built into an interleaved set (exact k-mer counts).
// `router`: BuildParams::group_router (off by default here: most tests compare with separate filters of the bins).
Panel make_panel(size_t n, const std::vector<size_t>& sizes, uint64_t seed, double fpr = 5e-3, int router = 0) {
  std::mt19937_64 rng(seed);
  Panel p;
  BuildParams bp;
  bp.w = kW;
  bp.fpr = fpr;
  bp.interleaved = true;
  bp.group_router = router;
  std::vector<InterleavedReference> refs;
  for (size_t i = 0; i < n; ++i) {
    p.genomes.push_back(random_dna(sizes[i % sizes.size()], rng));
    const std::vector<std::string_view> seqs{p.genomes.back()};
    refs.push_back({"g" + std::to_string(i), "mem", p.genomes.back().size(), distinct_canonical_wmers(seqs, kW).size()});
  }
  p.interleaved = make_filter_set(bp, "test");
  InterleavedSetBuilder b(p.interleaved, refs, bp);
  for (size_t i = n; i-- > 0;) b.add(i, {p.genomes[i]});  // any order
  b.finish();
  return p;
}

// Separate classic filters holding exactly the bins' bits.
FilterSet separate_twin(const FilterSet& s) {
  FilterSet t;
  t.w = s.w;
  t.seed = s.seed;
  t.canonical = s.canonical;
  for (const FilterEntry& f : s.filters) {
    FilterEntry e = f;
    e.group = -1;
    e.bin = 0;
    e.layout = BloomLayout::classic;
    e.bits = s.groups[size_t(f.group)].ibf.bin_vector(f.bin);
    e.m_bits = e.bits.m_bits();
    t.filters.push_back(std::move(e));
  }
  return t;
}

// Reads from the genomes with 1-3% errors, random reads, short reads, N runs.
std::vector<std::string> make_reads(const std::vector<std::string>& genomes, size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::string> reads;
  for (size_t i = 0; i < n; ++i) {
    const std::string& g = genomes[rng() % genomes.size()];
    switch (i % 8) {
      case 0: case 1: case 2: reads.push_back(sample_read(g, 100, 0.01 * double(1 + i % 3), rng)); break;
      case 3: reads.push_back(random_dna(100, rng)); break;
      case 4: reads.push_back(sample_read(g, size_t(kW - 1 + i % 12), 0.0, rng)); break;  // short: 20..31
      case 5: {
        std::string r = sample_read(g, 150, 0.01, rng);
        const size_t at = rng() % 120;
        std::fill(r.begin() + long(at), r.begin() + long(at + 1 + rng() % 30), 'N');
        reads.push_back(r);
        break;
      }
      case 6: reads.push_back(std::string(60, 'N')); break;
      default: {  // a chimera of two references: ties and multi-matches
        const std::string& h = genomes[rng() % genomes.size()];
        reads.push_back(sample_read(g, 60, 0.0, rng) + sample_read(h, 60, 0.0, rng));
      }
    }
  }
  return reads;
}

void require_same(const BatchScores& a, const BatchScores& b, bool all_points) {
  REQUIRE(a.reads == b.reads);
  REQUIRE(a.filters == b.filters);
  for (size_t r = 0; r < a.reads; ++r) {
    INFO("read " << r);
    REQUIRE(a.call[r] == b.call[r]);
    REQUIRE(a.matched[r] == b.matched[r]);
    REQUIRE(a.denominator[r] == b.denominator[r]);
    for (size_t j = 0; j < a.filters; ++j) {
      const size_t i = r * a.filters + j;
      INFO("filter " << j);
      REQUIRE(a.passed[i] == b.passed[i]);
      if (all_points || a.passed[i]) REQUIRE(a.points[i] == b.points[i]);
    }
  }
}

void compare_with_separate(const Panel& p, size_t nreads, uint64_t seed) {
  const FilterSet twin = separate_twin(p.interleaved);
  const std::vector<std::string> reads = make_reads(p.genomes, nreads, seed);
  std::vector<std::string_view> v(reads.begin(), reads.end());
  std::vector<std::string_view> m1(v.begin(), v.begin() + long(v.size() / 2)), m2(v.begin() + long(v.size() / 2), v.end());
  m2.resize(m1.size());
  for (ScoreKind kind : {ScoreKind::facs, ScoreKind::biobloom}) {
    for (bool exact : {true, false}) {
      if (kind == ScoreKind::biobloom && !exact) continue;
      ClassifyParams cp;
      cp.score = kind;
      cp.threshold = kind == ScoreKind::biobloom ? 0.15 : 0.0;
      cp.exact_failing_points = exact;
      cp.group_reads = 7;
      const Classifier ci(p.interleaved, cp), cs(twin, cp);
      Classifier::Workspace wi, wsep;
      BatchScores a, b;
      ci.classify(v.data(), v.size(), a, wi);
      cs.classify(v.data(), v.size(), b, wsep);
      INFO("score " << score_kind_name(kind) << " exact " << exact);
      require_same(a, b, exact);
      for (PairMode mode : {PairMode::both, PairMode::either}) {
        ClassifyParams pp = cp;
        pp.pair_mode = mode;
        const Classifier pi(p.interleaved, pp), ps(twin, pp);
        pi.classify_pairs(m1.data(), m2.data(), m1.size(), a, wi);
        ps.classify_pairs(m1.data(), m2.data(), m1.size(), b, wsep);
        require_same(a, b, exact || mode == PairMode::either);
      }
    }
  }
}

}  // namespace

TEST_CASE("interleaved set: groups by size, bins hold the references' k-mers", "[facs][interleaved]") {
  // 64 small and 64 large references: two groups of one row word each take less than one of two.
  const Panel p = make_panel(128, {400, 6000}, 1);
  const FilterSet& s = p.interleaved;
  REQUIRE(s.groups.size() == 2);
  for (const InterleavedGroup& g : s.groups) {
    REQUIRE(g.bins == 64);
    for (uint32_t b = 0; b < g.bins; ++b) REQUIRE(s.filters[g.members[b]].bin == b);
  }
  REQUIRE(s.groups[0].m_bits < s.groups[1].m_bits / 10);
  // Below 64 references one group is always smallest (a row word is 64 bins wide).
  REQUIRE(make_panel(12, {3000, 9000, 30000}, 1).interleaved.groups.size() == 1);
  // References of nearly equal size share one group: every further group would add k row reads to each lookup
  // for a sliver of memory (memory alone made 16 groups of 64 bins of 1,024 such references).
  std::vector<uint64_t> even(1024);
  for (size_t i = 0; i < even.size(); ++i) even[i] = 499970 + i % 11;
  const std::vector<InterleavedGroup> planned = plan_interleaved_groups(even, BuildParams{});
  REQUIRE(planned.size() == 1);
  REQUIRE(planned[0].bins == 1024);
  // Without -k or -m, bins get the fewest hashes within 8% of the optimal bits, sized to still meet --fpr.
  const BuildParams defaults;
  const uint64_t largest = *std::max_element(even.begin(), even.end());
  const int optimal_k = optimal_hashes(largest, bits_for_fpr(largest, defaults.fpr));
  REQUIRE(planned[0].k < optimal_k);
  REQUIRE(double(planned[0].m_bits) <= 1.08 * double(bits_for_fpr_with_hashes(largest, defaults.fpr, optimal_k)));
  REQUIRE(expected_fpr(largest, planned[0].m_bits, planned[0].k) <= defaults.fpr * 1.001);
  // Given -k (or -m), the classic sizing is kept.
  BuildParams given;
  given.hashes = optimal_k;
  const std::vector<InterleavedGroup> fixed = plan_interleaved_groups(even, given);
  REQUIRE(fixed.size() == 1);
  REQUIRE(fixed[0].k == optimal_k);
  REQUIRE(fixed[0].m_bits == bits_for_fpr(largest, defaults.fpr));
  // Every k-mer of a reference is in its bin (no false negatives), checked with the bin as a classic filter.
  const FilterSet twin = separate_twin(s);
  for (size_t j = 0; j < s.filters.size(); ++j) {
    const H3Family fam(twin.filters[j].k, kW, s.seed);
    uint32_t h[kMaxHashes];
    const std::vector<std::string_view> seqs{p.genomes[j]};
    for (uint64_t key : distinct_canonical_wmers(seqs, kW)) {
      fam.byte_view().hash_all(key, h);
      REQUIRE(twin.filters[j].bits.contains(h, twin.filters[j].k));
    }
  }
}

TEST_CASE("interleaved classify equals separate classic filters with the same bits", "[facs][interleaved]") {
  SECTION("one group") { compare_with_separate(make_panel(9, {2000, 7000, 25000}, 2), 400, 3); }
  SECTION("two size groups") { compare_with_separate(make_panel(140, {300, 600, 9000}, 12), 300, 13); }
  SECTION("more than 64 bins in a group") { compare_with_separate(make_panel(70, {1500, 2200}, 4), 300, 5); }
  SECTION("more than 512 bins, two groups") { compare_with_separate(make_panel(530, {400, 1300}, 6), 200, 7); }
}

TEST_CASE("interleaved classify against exact k-mer sets", "[facs][interleaved]") {
  // Every true hit is found (scores >= exact scores), and calls equal those of exact sets except where a false
  // positive of a bin raises a score; the FPR target is loose (2e-3) so that such reads occur.
  const Panel p = make_panel(80, {2000, 5000}, 8, 2e-3);
  std::vector<std::unordered_set<uint64_t>> exact;
  for (const std::string& g : p.genomes) {
    const std::vector<std::string_view> seqs{g};
    const std::vector<uint64_t> keys = distinct_canonical_wmers(seqs, kW);
    exact.emplace_back(keys.begin(), keys.end());
  }
  const std::vector<std::string> reads = half_random_reads(p.genomes, 1500, 0.01, 9);
  std::vector<std::string_view> v(reads.begin(), reads.end());
  ClassifyParams cp;
  const Classifier c(p.interleaved, cp);
  Classifier::Workspace ws;
  BatchScores out;
  c.classify(v.data(), v.size(), out, ws);
  const int L = 100, F = L - kW + 1, d = c.error_model().quick_density(L);
  const int32_t need = c.error_model().min_covered(L, 0);
  size_t differ = 0;
  for (size_t r = 0; r < reads.size(); ++r) {
    // Brute force: every frame's membership, FACS's quick frames, coverage.
    const std::vector<uint8_t> quick = quick_frame_mask(F, d);
    int32_t best = -1, ties = 0, best_points = -1;
    bool raised = false;
    for (size_t j = 0; j < exact.size(); ++j) {
      std::vector<uint8_t> hit(size_t(F), 0);
      for_each_wmer(encode_codes(reads[r]).data(), reads[r].size(), kW, [&](size_t pos, uint64_t fwd, uint64_t rc) {
        hit[pos] = exact[j].count(canonical_wmer(fwd, rc)) ? 1 : 0;
      });
      bool any_quick = false;
      for (int f = 0; f < F; ++f) any_quick = any_quick || (quick[size_t(f)] && hit[size_t(f)]);
      int covered = 0;
      for (int b = 0; any_quick && b < L; ++b) {
        bool cov = false;
        for (int f = std::max(0, b - kW + 1); f <= std::min(b, F - 1); ++f) cov = cov || hit[size_t(f)];
        covered += cov;
      }
      const int32_t got = out.points[r * exact.size() + j];
      REQUIRE(got >= covered);  // no false negatives
      raised = raised || got > covered;
      if (covered > 0 && covered >= need) {
        if (covered > best_points) best = int32_t(j), best_points = covered, ties = 1;
        else if (covered == best_points) ++ties;
      }
    }
    const int32_t call = best < 0 ? kCallNovel : ties > 1 ? kCallTie : best;
    if (out.call[r] != call) {
      ++differ;
      INFO("read " << r);
      REQUIRE(raised);  // only a false positive can change a call
    }
  }
  // A random read passes a bin only if false positives cover `need` bases (a few k-mers' worth): with 80 bins at
  // an FPR of at most 2e-3 per k-mer that is rare (1 read of 1,500 here; at 1e-2 it is ~10%).
  INFO("need " << need << ", calls changed by false positives: " << differ);
  CHECK(differ <= reads.size() / 100);
}

TEST_CASE("interleaved set: file round trip and damaged files", "[facs][interleaved][io]") {
  TempDir dir;
  const Panel p = make_panel(70, {1500, 4000}, 10);
  const std::string path = dir.file("set.bf");
  write_filter_file(path, p.interleaved);
  const FilterSet back = read_filter_file(path);
  REQUIRE(back.format_version == 3u);
  REQUIRE(back.groups.size() == p.interleaved.groups.size());
  for (size_t g = 0; g < back.groups.size(); ++g) {
    REQUIRE(back.groups[g].k == p.interleaved.groups[g].k);
    REQUIRE(back.groups[g].members == p.interleaved.groups[g].members);
    REQUIRE(back.groups[g].ibf.rows() == p.interleaved.groups[g].ibf.rows());
  }
  for (size_t j = 0; j < back.filters.size(); ++j) {
    REQUIRE(back.filters[j].name == p.interleaved.filters[j].name);
    REQUIRE(back.filters[j].elements == p.interleaved.filters[j].elements);
    REQUIRE(back.filters[j].group == p.interleaved.filters[j].group);
    REQUIRE(back.filters[j].bin == p.interleaved.filters[j].bin);
  }
  const FilterSet head = read_filter_header(path);
  REQUIRE(head.filters.size() == 70);
  REQUIRE(head.groups.size() == back.groups.size());
  // Mapped: the rows are borrowed from the file, the same bits.
  const FilterSet mapped = read_filter_file(path, FilterLoading{FilterLoadMode::map, UINT64_MAX});
  REQUIRE(mapped.groups.size() == p.interleaved.groups.size());
  for (size_t g = 0; g < mapped.groups.size(); ++g) {
    const InterleavedBloom& ibf = mapped.groups[g].ibf;
    REQUIRE(ibf.is_borrowed());
    const InterleavedBloom::Rows& want = p.interleaved.groups[g].ibf.rows();
    REQUIRE(ibf.size_bytes() == want.size() * 8);
    REQUIRE(std::equal(want.begin(), want.end(), ibf.row_data()));
    for (uint32_t bin = 0; bin < ibf.bins(); ++bin) REQUIRE(ibf.bin_popcount(bin) == p.interleaved.groups[g].ibf.bin_popcount(bin));
  }

  const std::string bytes = bloomseq_test::read_bytes(path);
  auto refused = [&](const std::string& damaged, const std::string& expect) {
    bloomseq_test::write_bytes(dir.file("bad.bf"), damaged);
    for (const FilterLoading how : {FilterLoading{}, FilterLoading{FilterLoadMode::map, UINT64_MAX}}) {
      try {
        read_filter_file(dir.file("bad.bf"), how);
        FAIL("loaded a damaged file");
      } catch (const DataError& e) {
        const std::string what = e.what();
        INFO(what);
        CHECK(what.find('\n') == std::string::npos);
        CHECK(what.find("bad.bf") != std::string::npos);
        CHECK(what.find(expect) != std::string::npos);
      }
    }
  };
  std::string flipped = bytes;
  flipped[bytes.size() - 100] ^= 0x10;
  refused(flipped, "corrupt");  // a checksum mismatch, or a bit past the last bin
  refused(bytes.substr(0, bytes.size() / 2), "truncated");
  refused(bytes.substr(0, 40), "truncated");
  std::string newer = bytes;
  newer[8] = 5;
  refused(newer, "version 5");
}

// A request to build an interleaved set with one bin per record of `fasta` (written to DIR/refs.fa) into
// DIR/refs.bf.
static BuildFilterRequest per_record_interleaved_build(TempDir& dir, const std::string& fasta) {
  bloomseq_test::write_bytes(dir.file("refs.fa"), fasta);
  BuildFilterRequest b;
  b.output = dir.file("refs.bf");
  b.refs = {dir.file("refs.fa")};
  b.no_progress = true;
  b.params.per_record = true;
  b.params.interleaved = true;
  return b;
}

TEST_CASE("build-filter --layout interleaved: per-record bins, --add refused", "[facs][interleaved]") {
  TempDir dir;
  std::mt19937_64 rng(11);
  std::string fa;
  for (int i = 0; i < 5; ++i) fa += ">rec" + std::to_string(i) + "\n" + random_dna(1000 + 3000 * size_t(i), rng) + "\n";
  BuildFilterRequest b = per_record_interleaved_build(dir, fa);
  b.params.layout = BloomLayout::classic;
  run_build_filter(b, FacsSinks{nullptr});
  const FilterSet s = read_filter_file(b.output);
  REQUIRE(s.filters.size() == 5);
  REQUIRE(s.groups.size() == 1);  // below 64 references one group takes the fewest bits
  for (int i = 0; i < 5; ++i) {
    REQUIRE(s.filters[size_t(i)].name == "rec" + std::to_string(i));
    REQUIRE(s.filters[size_t(i)].elements == size_t(1000 + 3000 * i - kW + 1));
  }
  b.add = true;
  REQUIRE_THROWS_WITH(run_build_filter(b, FacsSinks{nullptr}), Catch::Contains("--add cannot extend an interleaved set"));
  b.params.interleaved = false;
  REQUIRE_THROWS_WITH(run_build_filter(b, FacsSinks{nullptr}), Catch::Contains("--add cannot extend an interleaved set"));
}

TEST_CASE("build-filter --layout interleaved: without --fpr, more than 100 references get 0.05 / references",
          "[facs][interleaved]") {
  // Each false bin a random k-mer hits costs a read a scan of that bin: sets of many references are sized so that
  // references x FPR stays at 0.05; an explicit --fpr is kept, and small sets keep FACS's 5e-4.
  TempDir dir;
  std::mt19937_64 rng(12);
  auto build = [&](int records, bool given, double fpr, int router, size_t large = 400) {
    std::string fa;  // records of 400 bases, every second one of `large`
    for (int i = 0; i < records; ++i) fa += ">r" + std::to_string(i) + "\n" + random_dna(i % 2 ? large : 400, rng) + "\n";
    BuildFilterRequest b = per_record_interleaved_build(dir, fa);
    b.params.fpr = fpr;
    b.params.fpr_given = given;
    b.params.group_router = router;
    run_build_filter(b, FacsSinks{nullptr});
    return read_filter_file(b.output);
  };
  auto planned_for = [](const FilterSet& s, double fpr) {
    std::vector<uint64_t> elements;
    for (const FilterEntry& f : s.filters) elements.push_back(f.elements);
    BuildParams bp;
    bp.fpr = fpr;
    return plan_interleaved_groups(elements, bp);
  };
  auto same_groups = [](const FilterSet& s, const std::vector<InterleavedGroup>& want) {
    REQUIRE(s.groups.size() == want.size());
    for (size_t g = 0; g < want.size(); ++g) {
      CHECK(s.groups[g].m_bits == want[g].m_bits);
      CHECK(s.groups[g].k == want[g].k);
    }
  };
  const FilterSet many = build(250, false, 5e-4, 0);
  same_groups(many, planned_for(many, 0.05 / 250));
  REQUIRE(planned_for(many, 0.05 / 250)[0].m_bits > planned_for(many, 5e-4)[0].m_bits);  // the rule changed something
  REQUIRE(many.routers.empty());
  const FilterSet kept = build(250, true, 5e-4, -1);
  same_groups(kept, planned_for(kept, 5e-4));
  const FilterSet few = build(100, false, 5e-4, -1);
  same_groups(few, planned_for(few, 5e-4));
  REQUIRE(few.routers.empty());  // --router auto: none up to 100 references
  // With a group router a random k-mer reaches a group at the router's FPR (~0.1), so the bins get 10x the FPR,
  // at most FACS's 5e-4: 0.05 / 250 / 0.1 = 2e-3 -> 5e-4; 2,000 -> 2.5e-4. --router auto gives one only to sets
  // of several size groups (in one group a true k-mer meets every bin, router or not).
  REQUIRE(build(250, false, 5e-4, -1).routers.empty());  // one group
  const FilterSet routed = build(250, false, 5e-4, -1, 6000);
  REQUIRE(routed.routers.size() == 1);
  REQUIRE(routed.groups.size() >= 2);
  same_groups(routed, planned_for(routed, 5e-4));
  const FilterSet forced = build(250, false, 5e-4, 1);
  REQUIRE(forced.routers.size() == 1);
  REQUIRE(forced.groups.size() == 1);
  same_groups(forced, planned_for(forced, 5e-4));
  REQUIRE(interleaved_default_fpr(2000, true) == Approx(2.5e-4));
  REQUIRE(interleaved_default_fpr(2000, false) == Approx(2.5e-5));
}

TEST_CASE("build-filter --layout interleaved from files of mixed sizes: each bin holds its own file's k-mers",
          "[facs][interleaved]") {
  // Files alternate small and large, so their groups interleave in file order and the files are built in bin
  // order instead: every file's k-mers must still land in its own bin, under its own name.
  TempDir dir;
  std::mt19937_64 rng(13);
  BuildFilterRequest b;
  std::vector<std::string> genomes;
  for (int i = 0; i < 140; ++i) {
    genomes.push_back(random_dna(i % 2 ? 9000 : 300 + size_t(i), rng));
    const std::string path = dir.file("g" + std::to_string(i) + ".fa");
    bloomseq_test::write_bytes(path, ">g\n" + genomes.back() + "\n");
    b.refs.push_back(path);
  }
  b.output = dir.file("set.bf");
  b.no_progress = true;
  b.params.interleaved = true;
  run_build_filter(b, FacsSinks{nullptr});
  const FilterSet s = read_filter_file(b.output);
  REQUIRE(s.groups.size() >= 2);
  REQUIRE(s.filters.size() == genomes.size());
  const FilterSet twin = separate_twin(s);
  uint32_t h[kMaxHashes];
  for (size_t j = 0; j < genomes.size(); ++j) {
    REQUIRE(s.filters[j].name == "g" + std::to_string(j));
    const H3Family fam(twin.filters[j].k, kW, s.seed);
    const std::vector<std::string_view> seqs{genomes[j]};
    size_t missing = 0;
    for (uint64_t key : distinct_canonical_wmers(seqs, kW)) {
      fam.byte_view().hash_all(key, h);
      missing += !twin.filters[j].bits.contains(h, twin.filters[j].k);
    }
    CHECK(missing == 0);
  }
}

TEST_CASE("group router: no false negatives, and its FPR is the one its size was chosen for",
          "[facs][interleaved][router]") {
  // 40,000 (key, group) pairs over 6 groups at kRouterBitsPerElement: every inserted pair is admitted, and a key
  // never inserted is admitted to a group at about the rate of a blocked filter of 5 bits per element and k = 3
  // (0.09-0.10 by the Poisson-averaged formula; interleaved_default_fpr counts on 0.1).
  const uint32_t groups = 6;
  const size_t pairs = 40000;
  const uint64_t blocks = uint64_t(double(pairs) * kRouterBitsPerElement / 512.0) + 1;
  std::vector<uint64_t> words(blocks * kRouterBlockWords, 0);
  const GroupRouterView router{words.data(), blocks, groups, kRouterHashes};
  const H3Family fam(kRouterHashes + 1, kW, group_router_seed(kDefaultH3Seed));
  const H3ByteView hv = fam.byte_view();
  std::mt19937_64 rng(31);
  std::vector<std::pair<uint64_t, uint32_t>> in;
  uint32_t h[kMaxHashes];
  for (size_t i = 0; i < pairs; ++i) {
    in.emplace_back(rng() & wmer_mask(kW), uint32_t(rng() % groups));
    hv.hash_all(in.back().first, h);
    router.insert(in.back().second, h);
  }
  const ConstGroupRouterView view = router;
  for (const auto& [key, g] : in) {
    hv.hash_all(key, h);
    REQUIRE(((view.groups_of(h) >> g) & 1u) == 1u);
  }
  size_t admitted = 0, probes = 0;
  for (size_t i = 0; i < 20000; ++i) {
    hv.hash_all(rng() & wmer_mask(kW), h);  // a random key: almost surely not inserted
    const uint64_t a = view.groups_of(h);
    REQUIRE((a >> groups) == 0);  // no bits beyond the router's groups
    admitted += size_t(__builtin_popcountll(a));
    probes += groups;
  }
  const double fpr = double(admitted) / double(probes);
  INFO("router FPR " << fpr);
  CHECK(fpr > 0.07);
  CHECK(fpr < 0.12);
}

TEST_CASE("interleaved set with a group router: a bin is a candidate where a quick frame hits it in a group the "
          "router admits, and scores as without the router", "[facs][interleaved][router]") {
  // A brute-force oracle of the routed definition: for every read, filter and frame, the bin's classic filter
  // and the router's block answered from the hash functions. FACS's points are the bases the bin's hits cover,
  // or 0 unless some quick frame hits the bin where the router admits its group. Two and more size groups, a
  // loose FPR so that both kinds of false positive occur.
  const Panel p = make_panel(140, {300, 600, 9000}, 21, 2e-2, 1);
  REQUIRE(p.interleaved.routers.size() == 1);
  REQUIRE(p.interleaved.groups.size() >= 2);
  const GroupRouter& gr = p.interleaved.routers.front();
  REQUIRE(gr.groups == p.interleaved.groups.size());
  const H3Family rf(gr.k + 1, kW, group_router_seed(p.interleaved.seed));
  std::vector<H3Family> gf;
  std::vector<BloomVector> bins;
  for (const InterleavedGroup& g : p.interleaved.groups) gf.emplace_back(g.k, kW, p.interleaved.seed);
  for (const FilterEntry& f : p.interleaved.filters)
    bins.push_back(p.interleaved.groups[size_t(f.group)].ibf.bin_vector(f.bin));

  const std::vector<std::string> reads = half_random_reads(p.genomes, 600, 0.02, 22);
  std::vector<std::string_view> v(reads.begin(), reads.end());
  ClassifyParams cp;
  cp.exact_failing_points = true;
  cp.group_reads = 7;
  const Classifier routed(p.interleaved, cp);
  FilterSet plain_set = p.interleaved;  // the same bins without the router
  plain_set.routers.clear();
  const Classifier plain(plain_set, cp);
  Classifier::Workspace ws1, ws2;
  BatchScores a, b;
  routed.classify(v.data(), v.size(), a, ws1);
  plain.classify(v.data(), v.size(), b, ws2);

  const int L = 100, F = L - kW + 1, d = routed.error_model().quick_density(L);
  const std::vector<uint8_t> quick = quick_frame_mask(F, d);
  const size_t nf = p.interleaved.filters.size();
  size_t turned_away = 0;  // bins that a quick frame hit, none of them where the router admits the group
  for (size_t r = 0; r < reads.size(); ++r) {
    std::vector<uint64_t> keys(static_cast<size_t>(F));
    for_each_wmer(encode_codes(reads[r]).data(), reads[r].size(), kW,
                  [&](size_t pos, uint64_t fwd, uint64_t rc) { keys[pos] = canonical_wmer(fwd, rc); });
    std::vector<uint64_t> admitted(static_cast<size_t>(F));
    uint32_t h[kMaxHashes];
    for (int f = 0; f < F; ++f) {
      rf.byte_view().hash_all(keys[size_t(f)], h);
      admitted[size_t(f)] = gr.view().groups_of(h);
    }
    for (size_t j = 0; j < nf; ++j) {
      const FilterEntry& fe = p.interleaved.filters[j];
      std::vector<uint8_t> hit(size_t(F), 0);
      bool any_quick = false, any_quick_bin = false;
      for (int f = 0; f < F; ++f) {
        gf[size_t(fe.group)].byte_view().hash_all(keys[size_t(f)], h);
        hit[size_t(f)] = bins[j].contains(h, fe.k);
        any_quick_bin = any_quick_bin || (quick[size_t(f)] && hit[size_t(f)]);
        any_quick = any_quick || (quick[size_t(f)] && hit[size_t(f)] && ((admitted[size_t(f)] >> fe.group) & 1u));
      }
      turned_away += any_quick_bin && !any_quick;
      int covered = 0;
      for (int base = 0; any_quick && base < L; ++base) {
        bool cov = false;
        for (int f = std::max(0, base - kW + 1); f <= std::min(base, F - 1); ++f) cov = cov || hit[size_t(f)];
        covered += cov;
      }
      INFO("read " << r << " filter " << j);
      REQUIRE(a.points[r * nf + j] == covered);
      REQUIRE(a.points[r * nf + j] == (any_quick ? b.points[r * nf + j] : 0));  // the router only takes candidates away
    }
  }
  INFO("bin hits the router turned away: " << turned_away);
  REQUIRE(turned_away > 0);  // the router did something here
}

TEST_CASE("interleaved set with a group router: file round trip, mapped, and older readers' versions",
          "[facs][interleaved][router][io]") {
  TempDir dir;
  const Panel p = make_panel(130, {800, 5000}, 23, 5e-3, 1);
  REQUIRE(p.interleaved.routers.size() == 1);
  const std::string path = dir.file("routed.bf");
  write_filter_file(path, p.interleaved);
  const GroupRouter& want = p.interleaved.routers.front();
  for (const FilterLoading how : {FilterLoading{}, FilterLoading{FilterLoadMode::map, UINT64_MAX}}) {
    const FilterSet back = read_filter_file(path, how);
    REQUIRE(back.format_version == 4u);
    REQUIRE(back.routers.size() == 1);
    const GroupRouter& gr = back.routers.front();
    REQUIRE(gr.k == want.k);
    REQUIRE(gr.groups == want.groups);
    REQUIRE(gr.n_blocks == want.n_blocks);
    REQUIRE(gr.blocks.is_borrowed() == (how.mode == FilterLoadMode::map));
    REQUIRE(std::equal(want.blocks.rows().begin(), want.blocks.rows().end(), gr.blocks.row_data()));
  }
  REQUIRE(read_filter_header(path).routers.front().n_blocks == want.n_blocks);
  // Without a router the set is written as version 3, which older programs read.
  FilterSet plain = p.interleaved;
  plain.routers.clear();
  write_filter_file(dir.file("plain.bf"), plain);
  REQUIRE(read_filter_file(dir.file("plain.bf")).format_version == 3u);
  REQUIRE(read_filter_file(dir.file("plain.bf")).routers.empty());
  // A router damaged on disk is caught by the checksum.
  std::string bytes = bloomseq_test::read_bytes(path);
  bytes[bytes.size() - 200] ^= 0x01;  // the router's payload is the last one
  bloomseq_test::write_bytes(dir.file("bad.bf"), bytes);
  REQUIRE_THROWS_AS(read_filter_file(dir.file("bad.bf")), DataError);
}
