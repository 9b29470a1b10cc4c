// One random stage-1a stream and one random classify stream, run on a backend and checked against the CPU
// backend; a call that fails with bloomseq::Error (an injected allocation failure) is repeated on the same backend.
#pragma once
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "bloomseq/backend/backend.hpp"
#include "bloomseq/backend/cpu_reference.hpp"
#include "bloomseq/error.hpp"
#include "classify_fixtures.hpp"
#include "fixtures.hpp"
#include "stream_fixtures.hpp"

namespace fixtures {

// Runs call() until it succeeds: an injected failure must surface as bloomseq::Error, nothing else.
template <class Call>
void until_success(Call&& call) {
  for (int attempt = 0;; ++attempt) {
    REQUIRE(attempt < 200);
    try {
      call();
      return;
    } catch (const Error&) {
    }
  }
}

inline void stage1a_pipeline(std::mt19937_64& rng, Backend& gpu, Backend& cpu) {
  const int w = int(5 + rng() % 12);
  auto s = make_vectors(rng, uint32_t(1 + rng() % 4), 256 + rng() % 2048, int(1 + rng() % 5), w, 80);
  const auto db = make_db(rng, s.query, 300 + rng() % 900);
  std::vector<uint64_t> lens(8);
  for (auto& len : lens) len = 1 + rng() % 300;
  const auto chunks = chunks_of(db, w, lens, rng() % 9);
  const auto want = run_stage1a_stream(cpu, s.view, chunks);
  std::vector<std::vector<Stage1aHit>> got;
  until_success([&] { got = run_stage1a_stream(gpu, s.view, chunks); });
  REQUIRE(got == want);
}

inline void classify_pipeline(std::mt19937_64& rng, Backend& gpu) {
  const int w = int(7 + rng() % 10);
  std::vector<std::pair<uint64_t, int>> shapes;
  for (size_t f = 0, n = 1 + rng() % 3; f < n; ++f) shapes.push_back({512 + rng() % 8192, int(1 + rng() % 4)});
  const Bank b = make_bank(rng, w, shapes, 5);
  std::vector<Reads> batches;
  for (size_t i = 0, n = rng() % 6; i < n; ++i) batches.push_back(make_reads(rng, b, w, rng() % 12));
  std::vector<ClassifyHits> got;
  until_success([&] {
    got.clear();
    size_t next = 0;
    gpu.classify_stream(
        b.view,
        [&](ReadBatchView& v) {
          if (next == batches.size()) return false;
          v = batches[next++].view();
          return true;
        },
        [&](uint64_t index, ClassifyHits& hits) {
          REQUIRE(index == got.size());
          got.push_back(hits);
        });
  });
  REQUIRE(got.size() == batches.size());
  for (size_t i = 0; i < batches.size(); ++i) {
    ClassifyHits want;
    classify_reference(b.view, batches[i].view(), want);
    REQUIRE(got[i].hit_frames == want.hit_frames);
    REQUIRE(got[i].bitmaps == want.bitmaps);
  }
}

}  // namespace fixtures
