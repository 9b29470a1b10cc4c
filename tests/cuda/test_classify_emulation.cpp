// The FACS classification kernel body, run by the host emulator, against the brute-force oracle and the CPU
// reference: frame bitmaps and hit counts, bit for bit.
#include <catch2/catch.hpp>

#include "bloomseq/backend/backend.hpp"
#include "bloomseq/backend/cpu_reference.hpp"
#include "bloomseq/cuda/emu_backend.hpp"
#include "classify_fixtures.hpp"
#include "fixtures.hpp"

using namespace bloomseq;
using namespace bloomseq::cuda;

using fixtures::Bank;
using fixtures::make_bank;
using fixtures::make_reads;
using fixtures::Reads;

namespace {

void check_against_oracle(const Bank& b, const Reads& reads, const ClassifyHits& got, int w) {
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
        const bool hit = fixtures::oracle_key(v.codes + v.offsets[r], len, j, w, key) &&
                         fixtures::oracle_contains(b.family, b.filters[f].bits.words, b.filters[f].bits.m_bits,
                                                   b.filters[f].k, key);
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
