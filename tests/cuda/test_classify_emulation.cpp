// The FACS classification kernel body, run by the host emulator, against the brute-force oracle and the CPU
// reference: frame bitmaps and hit counts, bit for bit.
#include <catch2/catch.hpp>

#include <algorithm>
#include <utility>
#include <vector>

#include "bloomseq/backend/backend.hpp"
#include "bloomseq/backend/cpu_reference.hpp"
#include "bloomseq/bloom/interleaved_bloom.hpp"
#include "bloomseq/cuda/emu_backend.hpp"
#include "bloomseq/cuda/host_side.hpp"
#include "bloomseq/error.hpp"
#include "classify_fixtures.hpp"
#include "fixtures.hpp"

using namespace bloomseq;
using namespace bloomseq::cuda;

using fixtures::Bank;
using fixtures::make_bank;
using fixtures::make_reads;
using fixtures::Reads;

namespace {

// `as_classic[f]`, when given and not null: filter f is a bin of an interleaved group, and this is the classic
// Bloom vector it was built as (probed with `classic_k[f]` functions).
void check_against_oracle(const Bank& b, const Reads& reads, const ClassifyHits& got, int w,
                          const std::vector<const BloomVector*>* as_classic = nullptr,
                          const std::vector<int>* classic_k = nullptr) {
  const ReadBatchView v = reads.view();
  REQUIRE(got.n_reads == v.count);
  REQUIRE(got.n_filters == b.view.count);
  for (uint32_t r = 0; r < v.count; ++r) {
    const uint64_t len = v.offsets[r + 1] - v.offsets[r];
    REQUIRE(got.frames[r] == (len >= uint64_t(w) ? len - uint64_t(w) + 1 : 0));
    for (uint32_t f = 0; f < b.view.count; ++f) {
      uint32_t count = 0;
      for (uint32_t j = 0; j < got.frames[r]; ++j) {
        uint64_t key;
        const BloomVector* bin = as_classic ? (*as_classic)[f] : nullptr;
        const bool hit = fixtures::oracle_key(v.codes + v.offsets[r], len, j, w, key) &&
                         (bin ? fixtures::oracle_contains(b.family, bin->words().data(), bin->m_bits(),
                                                          (*classic_k)[f], key)
                              : fixtures::oracle_contains(b.family, b.filters[f].bits.words, b.filters[f].bits.m_bits,
                                                          b.filters[f].k, key));
        count += hit;
        if (got.frame_hit(r, f, j) != hit) FAIL("read " << r << " filter " << f << " frame " << j);
      }
      REQUIRE(got.hits(r, f) == count);
    }
  }
}

}  // namespace

TEST_CASE("emulated classify kernel equals the oracle and the CPU reference", "[cuda][classify]") {
  const int w = GENERATE(7, 21, 32);
  const uint32_t threads = GENERATE(32u, 64u, 160u);
  const uint32_t max_blocks = GENERATE(0u, 3u);
  std::mt19937_64 rng(uint64_t(w) * 1000 + threads + max_blocks);
  // Different m and k per filter; the family has more functions than any filter uses.
  Bank b = make_bank(rng, w, {{20011, 3}, {65537, 7}, {8191, 1}, {100003, 10}, {30011, 5}}, 12);
  const Reads reads = make_reads(rng, b, w, 97);

  ClassifyHits cpu, emu;
  make_reference_backend()->classify(b.view, reads.view(), cpu);
  check_against_oracle(b, reads, cpu, w);

  EmuOptions o;
  o.classify_threads = threads;
  o.max_blocks = max_blocks;
  EmuStats stats;
  make_emulated_backend(o, &stats)->classify(b.view, reads.view(), emu);
  CHECK(emu.frames == cpu.frames);
  CHECK(emu.hit_frames == cpu.hit_frames);
  CHECK(emu.bitmap_offset == cpu.bitmap_offset);
  CHECK(emu.bitmaps == cpu.bitmaps);
  if (max_blocks) CHECK(stats.max_passes > 1);

  // Reads taken from a reference hit it on most frames; the test would be vacuous otherwise.
  uint64_t total_hits = 0;
  for (auto h : cpu.hit_frames) total_hits += h;
  CHECK(total_hits > 1000);
}

TEST_CASE("emulated classify kernel: interleaved groups answer as their bins' classic filters",
          "[cuda][classify][interleaved]") {
  const int w = GENERATE(7, 21);
  const uint32_t threads = GENERATE(32u, 160u);
  std::mt19937_64 rng(uint64_t(w) * 1000 + threads + 17);
  // Separate filters and groups in one bank; a group of 3 bins (one row word) and one of 600 (rows of 10
  // words: two of the kernel's 8-word chunks, the second partial).
  Bank b = make_bank(rng, w, {{20011, 3}, {65537, 7}}, 12);
  struct Shape {
    uint32_t bins;
    uint64_t m;
    int k;
  };
  const Shape shapes[] = {{3, 8191, 2}, {600, 4099, 5}};
  std::vector<InterleavedBloom> ibfs;
  std::vector<BloomVector> bins;
  std::vector<std::pair<uint32_t, uint32_t>> bin_of;  // (group, bin) in the order they become filters
  for (uint32_t g = 0; g < 2; ++g) {
    ibfs.emplace_back(shapes[g].bins, shapes[g].m);
    for (uint32_t x = 0; x < shapes[g].bins; ++x) {
      // A piece of a reference: reads from it hit the bin.
      const auto& ref = b.refs[rng() % b.refs.size()];
      const size_t from = rng() % (ref.size() - 400);
      BloomVector v(shapes[g].m);
      fixtures::insert_all(b.family, v.words().data(), shapes[g].m, shapes[g].k, ref.data() + from, 400);
      ibfs[g].set_bin(x, v);
      bins.push_back(std::move(v));
      bin_of.push_back({g, x});
    }
  }
  // Filters of the bank: the bins in a shuffled order (the kernel maps bins to filters through the bank).
  std::vector<size_t> order(bin_of.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), rng);
  std::vector<const BloomVector*> as_classic(b.filters.size(), nullptr);
  std::vector<int> classic_k(b.filters.size(), 0);
  for (size_t i : order) {
    ClassifyFilter f;
    f.group = int32_t(bin_of[i].first);
    f.bin = bin_of[i].second;
    b.filters.push_back(f);
    as_classic.push_back(&bins[i]);
    classic_k.push_back(shapes[bin_of[i].first].k);
  }
  const std::vector<ClassifyGroup> groups = {{ibfs[0].view(), shapes[0].k}, {ibfs[1].view(), shapes[1].k}};
  b.view = {b.filters.data(), uint32_t(b.filters.size()), &b.family, groups.data(), uint32_t(groups.size())};
  const Reads reads = make_reads(rng, b, w, 61);

  ClassifyHits cpu, emu;
  make_reference_backend()->classify(b.view, reads.view(), cpu);
  check_against_oracle(b, reads, cpu, w, &as_classic, &classic_k);
  EmuOptions o;
  o.classify_threads = threads;
  o.max_blocks = 3;
  make_emulated_backend(o)->classify(b.view, reads.view(), emu);
  CHECK(emu.frames == cpu.frames);
  CHECK(emu.hit_frames == cpu.hit_frames);
  CHECK(emu.bitmap_offset == cpu.bitmap_offset);
  CHECK(emu.bitmaps == cpu.bitmaps);
  uint64_t bin_hits = 0;
  for (uint32_t r = 0; r < cpu.n_reads; ++r)
    for (uint32_t f = 2; f < cpu.n_filters; ++f) bin_hits += cpu.hits(r, f);
  CHECK(bin_hits > 1000);  // reads hit bins: the comparison is not vacuous
}

TEST_CASE("emulated classify: empty batches and batches of only short reads", "[cuda][classify]") {
  std::mt19937_64 rng(3);
  Bank b = make_bank(rng, 21, {{4099, 4}}, 4);
  Reads none;
  ClassifyHits out;
  make_emulated_backend()->classify(b.view, none.view(), out);
  CHECK(out.n_reads == 0);
  Reads shorts;
  for (int i = 0; i < 40; ++i) shorts.add(fixtures::random_codes(rng, size_t(i % 21)));
  make_emulated_backend()->classify(b.view, shorts.view(), out);
  CHECK(out.bitmaps.empty());
  for (auto h : out.hit_frames) CHECK(h == 0);
}

TEST_CASE("emulated classify: streamed batches come back in input order", "[cuda][classify]") {
  std::mt19937_64 rng(9);
  Bank b = make_bank(rng, 15, {{30011, 4}, {9001, 2}}, 4);
  std::vector<Reads> batches;
  for (int i = 0; i < 5; ++i) batches.push_back(make_reads(rng, b, 15, size_t(1 + i * 7)));
  size_t at = 0;
  uint64_t expected = 0;
  make_emulated_backend()->classify_stream(
      b.view,
      [&](ReadBatchView& v) {
        if (at == batches.size()) return false;
        v = batches[at++].view();
        return true;
      },
      [&](uint64_t index, ClassifyHits& hits) {
        REQUIRE(index == expected);
        ClassifyHits cpu;
        classify_reference(b.view, batches[index].view(), cpu);
        CHECK(hits.bitmaps == cpu.bitmaps);
        CHECK(hits.hit_frames == cpu.hit_frames);
        ++expected;
      });
  CHECK(expected == batches.size());
}

TEST_CASE("classify: inconsistent interleaved banks are refused before any upload", "[cuda][classify][interleaved]") {
  std::mt19937_64 rng(5);
  Bank b = make_bank(rng, 11, {{20011, 3}}, 6);
  InterleavedBloom ibf(70, 4099);
  std::vector<ClassifyGroup> groups = {{ibf.view(), 4}};
  ClassifyFilter bin;
  bin.group = 0;
  bin.bin = 69;
  b.filters.push_back(bin);
  auto bank = [&] { return FilterBank{b.filters.data(), uint32_t(b.filters.size()), &b.family, groups.data(), 1}; };
  CHECK_NOTHROW(check_bank(bank()));
  b.filters.back().bin = 70;  // past the group's bins
  CHECK_THROWS_AS(check_bank(bank()), UsageError);
  b.filters.back().bin = 0;
  b.filters.back().group = 1;  // no such group
  CHECK_THROWS_AS(check_bank(bank()), UsageError);
  b.filters.back().group = 0;
  groups[0].k = 7;  // more functions than the family has
  CHECK_THROWS_AS(check_bank(bank()), UsageError);
  groups[0].k = 4;
  groups[0].rows.words_per_row = 1;  // 70 bins need two words per row
  CHECK_THROWS_AS(check_bank(bank()), UsageError);
}
