// The CUDA classify kernel (emulated) inside facs: with the backend the classifier must give exactly the CPU
// path's scores, matches and calls, for both scores, single reads and pairs, on separate filters and on
// interleaved sets (the CPU's interleaved path against the kernel's interleaved rows).
#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "bloomseq/cuda/emu_backend.hpp"
#include "bloomseq/encode/dna.hpp"
#include "bloomseq/encode/sequence.hpp"
#include "bloomseq/facs/classifier.hpp"
#include "bloomseq/facs/filter_builder.hpp"
#include "bloomseq/facs/interleaved_builder.hpp"
#include "bloomseq/io/filter_file.hpp"

using namespace bloomseq;

namespace {

std::string random_dna(std::mt19937_64& rng, size_t n) {
  std::string s(n, 'A');
  for (auto& c : s) c = "ACGT"[rng() % 4];
  return s;
}

FilterSet make_set(std::mt19937_64& rng, int w, std::vector<std::string>& refs) {
  FilterSet set;
  set.w = w;
  set.seed = kDefaultH3Seed;
  const int ks[] = {3, 7, 5};
  const uint64_t ms[] = {40009, 512 * 128, 30011};
  for (int f = 0; f < 3; ++f) {
    refs.push_back(random_dna(rng, 4000));
    FilterEntry e;
    e.name = "ref" + std::to_string(f);
    e.k = ks[f];
    e.bits = BloomVector(ms[f]);
    e.layout = f == 1 ? BloomLayout::blocked512 : BloomLayout::classic;  // both layouts in one bank
    const H3Family fam(layout_hashes(e.layout, e.k), w, set.seed);
    const BlockedBloomView blocked{e.bits.words().data(), e.bits.m_bits()};
    uint32_t h[kMaxHashes];
    for (uint64_t key : canonical_wmers(refs.back(), w)) {
      fam.byte_view().hash_all(key, h);
      if (e.layout == BloomLayout::blocked512) blocked.insert(h, e.k);
      else e.bits.insert(h, e.k);
    }
    set.filters.push_back(std::move(e));
  }
  return set;
}

// The references as the bins of an interleaved set, after `fillers` random references of `filler_len` bases.
// m_bits = 0: the library's builder, which gives references of different sizes their own groups (of at most
// 64 bins: a larger group never takes fewer bits). Otherwise one group of that m and k 4 holding every bin,
// as a version-3 file may: with more than 512 bins its rows span several of the kernel's 64-byte chunks.
// `router`: BuildParams::group_router for the library's builder (auto: a router above 100 references).
FilterSet make_interleaved_set(std::mt19937_64& rng, int w, const std::vector<std::string>& refs, size_t fillers,
                               size_t filler_len, uint64_t m_bits, int router = -1) {
  std::vector<std::string> genomes;
  for (size_t i = 0; i < fillers; ++i) genomes.push_back(random_dna(rng, filler_len));
  genomes.insert(genomes.end(), refs.begin(), refs.end());
  BuildParams bp;
  bp.w = w;
  bp.fpr = 0.02;  // false positives the kernel must reproduce too
  bp.interleaved = true;
  bp.group_router = router;
  FilterSet set = make_filter_set(bp, "test");
  if (m_bits) {
    InterleavedGroup g;
    g.k = 4;
    g.m_bits = m_bits;
    g.bins = uint32_t(genomes.size());
    g.ibf = InterleavedBloom(g.bins, m_bits);
    const H3Family fam(g.k, w, set.seed);
    uint32_t h[kMaxHashes];
    for (uint32_t b = 0; b < g.bins; ++b) {
      g.members.push_back(b);
      FilterEntry f;
      f.name = "ref" + std::to_string(b);
      f.k = g.k;
      f.m_bits = m_bits;
      f.layout = BloomLayout::classic;
      f.group = 0;
      f.bin = b;
      set.filters.push_back(std::move(f));
      for (uint64_t key : canonical_wmers(genomes[b], w)) {
        fam.byte_view().hash_all(key, h);
        g.ibf.insert(b, h, g.k);
      }
    }
    set.groups.push_back(std::move(g));
    return set;
  }
  std::vector<InterleavedReference> in;
  for (size_t i = 0; i < genomes.size(); ++i) {
    const std::vector<std::string_view> seqs{genomes[i]};
    in.push_back({"ref" + std::to_string(i), "mem", genomes[i].size(), distinct_canonical_wmers(seqs, w).size()});
  }
  InterleavedSetBuilder b(set, in, bp);
  for (size_t i = 0; i < genomes.size(); ++i) b.add(i, {genomes[i]});
  b.finish();
  return set;
}

std::vector<std::string> make_reads(std::mt19937_64& rng, const std::vector<std::string>& refs, int w) {
  std::vector<std::string> reads;
  for (int i = 0; i < 150; ++i) {
    const size_t len = i % 10 == 0 ? size_t(w) - 1 : 40 + rng() % 120;
    std::string r;
    if (i % 3 == 2) {
      r = random_dna(rng, len);
    } else {
      const std::string& ref = refs[rng() % refs.size()];
      r = ref.substr(rng() % (ref.size() - len), len);
      for (int e = 0; e < 3; ++e) r[rng() % len] = "ACGTN"[rng() % 5];
      if (i % 7 == 0) r.replace(len / 2, std::min<size_t>(8, len / 2), std::string(std::min<size_t>(8, len / 2), 'N'));
    }
    reads.push_back(r);
  }
  reads.push_back("");
  reads.push_back(std::string(60, 'N'));
  return reads;
}

void check_same(const BatchScores& a, const BatchScores& b) {
  CHECK(a.points == b.points);
  CHECK(a.passed == b.passed);
  CHECK(a.denominator == b.denominator);
  CHECK(a.call == b.call);
  CHECK(a.matched == b.matched);
}

ClassifyParams params_for(ScoreKind kind) {
  ClassifyParams cp;
  cp.score = kind;
  cp.threshold = kind == ScoreKind::facs ? 0.0 : kBioBloomDefaultThreshold;
  return cp;
}

std::unique_ptr<Backend> make_small_emulated_backend() {
  cuda::EmuOptions o;
  o.classify_threads = 64;
  o.max_blocks = 7;
  return cuda::make_emulated_backend(o);
}

// Single reads, then the reads paired with `mates`: the CPU path and the emulated kernel must give the same
// scores, matches and calls.
void check_kernel_equals_cpu(const FilterSet& set, const ClassifyParams& cp, const std::vector<std::string>& reads,
                             const std::vector<std::string>& mates) {
  std::vector<std::string_view> v1(reads.begin(), reads.end()), v2(mates.begin(), mates.end());
  auto emulated = make_small_emulated_backend();
  Classifier cpu(set, cp), gpu(set, cp, emulated.get());

  Classifier::Workspace ws1, ws2;
  BatchScores a, b;
  cpu.classify(v1.data(), v1.size(), a, ws1);
  gpu.classify(v1.data(), v1.size(), b, ws2);
  check_same(a, b);
  size_t called = 0;
  for (int32_t c : a.call) called += c >= 0;
  CHECK(called > 50);  // reads from the references are called: the comparison is not vacuous

  cpu.classify_pairs(v1.data(), v2.data(), v1.size(), a, ws1);
  gpu.classify_pairs(v1.data(), v2.data(), v1.size(), b, ws2);
  check_same(a, b);
}

}  // namespace

TEST_CASE("facs classifier on the emulated CUDA kernel equals the CPU path", "[cuda][facs]") {
  const ScoreKind kind = GENERATE(ScoreKind::facs, ScoreKind::biobloom);
  const int w = GENERATE(15, 21);
  std::mt19937_64 rng(uint64_t(w) * 10 + uint64_t(kind));
  std::vector<std::string> refs;
  const FilterSet set = make_set(rng, w, refs);
  const auto reads = make_reads(rng, refs, w);
  const auto mates = make_reads(rng, refs, w);
  check_kernel_equals_cpu(set, params_for(kind), reads, mates);
}

TEST_CASE("facs classifier on interleaved sets: the emulated CUDA kernel equals the CPU interleaved path",
          "[cuda][facs][interleaved]") {
  const ScoreKind kind = GENERATE(ScoreKind::facs, ScoreKind::biobloom);
  struct Shape {
    size_t fillers, filler_len;
    uint64_t m_bits;
    uint32_t groups, max_row_words;
    int router;  // BuildParams::group_router
  };
  // 3 bins in one row word; 128 + 3 bins of two sizes in two size groups (the 128 small ones share one group of
  // two row words), with and without a group router (the kernel answers the bins; the host applies the router);
  // 600 + 3 bins of one m in one group whose rows are 10 words (two chunks of the kernel, the second partial).
  const Shape shape = GENERATE(Shape{0, 0, 0, 1, 1, -1}, Shape{128, 300, 0, 2, 2, 1}, Shape{128, 300, 0, 2, 2, 0},
                               Shape{600, 300, 60000, 1, 10, -1});
  const int w = 21;
  std::mt19937_64 rng(uint64_t(kind) * 100 + shape.fillers);
  std::vector<std::string> refs;
  make_set(rng, w, refs);  // the references of the separate-filter test
  const FilterSet set = make_interleaved_set(rng, w, refs, shape.fillers, shape.filler_len, shape.m_bits, shape.router);
  REQUIRE(set.interleaved());
  REQUIRE(set.routers.size() == (shape.router > 0 ? 1u : 0u));
  if (shape.groups) REQUIRE(set.groups.size() == shape.groups);
  else REQUIRE(set.groups.size() >= 2);
  uint32_t row_words = 0;
  for (const InterleavedGroup& g : set.groups) row_words = std::max(row_words, g.ibf.words_per_row());
  REQUIRE(row_words == shape.max_row_words);
  const auto reads = make_reads(rng, refs, w);
  const auto mates = make_reads(rng, refs, w);
  ClassifyParams cp = params_for(kind);
  check_kernel_equals_cpu(set, cp, reads, mates);

  // Without exact failing points the CPU path may stop a failing filter's scan early: the calls, the matches
  // and the passing filters stay those of the kernel's complete bitmaps.
  const std::vector<std::string_view> v1(reads.begin(), reads.end());
  auto emulated = make_small_emulated_backend();
  Classifier gpu(set, cp, emulated.get());
  cp.exact_failing_points = false;
  Classifier cpu_lazy(set, cp);
  Classifier::Workspace ws1, ws2;
  BatchScores a, b;
  cpu_lazy.classify(v1.data(), v1.size(), a, ws1);
  gpu.classify(v1.data(), v1.size(), b, ws2);
  CHECK(a.call == b.call);
  CHECK(a.matched == b.matched);
  CHECK(a.passed == b.passed);
  for (size_t i = 0; i < a.points.size(); ++i)
    if (a.passed[i]) CHECK(a.points[i] == b.points[i]);
}
