// The CUDA classify kernel (emulated) inside facs: with the backend the classifier must give exactly the CPU
// path's scores, matches and calls, for both scores, single reads and pairs.
#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "bloomseq/cuda/emu_backend.hpp"
#include "bloomseq/encode/dna.hpp"
#include "bloomseq/encode/sequence.hpp"
#include "bloomseq/facs/classifier.hpp"
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

}  // namespace

TEST_CASE("facs classifier on the emulated CUDA kernel equals the CPU path", "[cuda][facs]") {
  const ScoreKind kind = GENERATE(ScoreKind::facs, ScoreKind::biobloom);
  const int w = GENERATE(15, 21);
  std::mt19937_64 rng(uint64_t(w) * 10 + uint64_t(kind));
  std::vector<std::string> refs;
  const FilterSet set = make_set(rng, w, refs);
  const auto reads = make_reads(rng, refs, w);
  const auto mates = make_reads(rng, refs, w);
  std::vector<std::string_view> v1(reads.begin(), reads.end()), v2(mates.begin(), mates.end());

  ClassifyParams cp;
  cp.score = kind;
  cp.threshold = kind == ScoreKind::facs ? 0.0 : kBioBloomDefaultThreshold;
  cuda::EmuOptions o;
  o.classify_threads = 64;
  o.max_blocks = 7;
  auto emulated = cuda::make_emulated_backend(o);
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
