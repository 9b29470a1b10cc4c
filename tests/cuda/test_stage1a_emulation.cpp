// The stage-1a kernel body, run by the host emulator, against the brute-force oracle and the CPU reference.
#include <catch2/catch.hpp>

#include "bloomseq/model/profiles.hpp"
#include "bloomseq/backend/backend.hpp"
#include "bloomseq/backend/cpu_reference.hpp"
#include "bloomseq/cuda/emu_backend.hpp"
#include "fixtures.hpp"

using namespace bloomseq;
using namespace bloomseq::cuda;

namespace {

DbChunk whole(const std::vector<uint8_t>& db, int w, uint64_t first_pos = 0) {
  DbChunk c;
  c.codes = db.data();
  c.n = db.size();
  c.n_starts = db.size() >= size_t(w) ? db.size() - size_t(w) + 1 : 0;
  c.first_pos = first_pos;
  c.w = w;
  return c;
}

std::vector<Stage1aHit> run(Backend& b, const SubqueryVectors& v, const DbChunk& c) {
  std::vector<Stage1aHit> hits;
  b.stage1a(v, c, hits);
  return hits;
}

}  // namespace

TEST_CASE("emulated stage-1a kernel equals the oracle and the CPU reference", "[cuda][stage1a]") {
  const int w = GENERATE(1, 5, 11, 16, 31, 32);
  const int k = GENERATE(1, 4, 9, 17);
  std::mt19937_64 rng(uint64_t(w * 100 + k));
  auto s = fixtures::make_vectors(rng, 7, 2053, k, w, 97);
  const auto db = fixtures::make_db(rng, s.query, 3001);
  const DbChunk c = whole(db, w, 1000003);

  const auto oracle = fixtures::oracle_stage1a(s, c);
  REQUIRE(oracle.size() > 50);  // true hits from the copied pieces plus false positives
  auto cpu = make_reference_backend();
  CHECK(run(*cpu, s.view, c) == oracle);
  EmuStats stats;
  auto emu = make_emulated_backend({}, &stats);
  CHECK(run(*emu, s.view, c) == oracle);
  CHECK(stats.vectors_in_shared);
}

TEST_CASE("emulated stage-1a: a chunk's stride tests only the starts at multiples of it", "[cuda][stage1a]") {
  const uint64_t stride = GENERATE(2, 3, 5, 9);
  const uint64_t first_pos = GENERATE(0, 1000003, 7777777);
  const uint32_t threads = GENERATE(32u, 256u);
  std::mt19937_64 rng(stride * 1000 + first_pos % 97 + threads);
  auto s = fixtures::make_vectors(rng, 5, 2053, 3, 11, 97);
  const auto db = fixtures::make_db(rng, s.query, 4001);
  DbChunk c = whole(db, 11, first_pos);
  c.stride = stride;
  const auto oracle = fixtures::oracle_stage1a(s, c);
  REQUIRE(oracle.size() > 20);
  for (const auto& h : oracle) REQUIRE(h.db_pos % stride == 0);
  auto cpu = make_reference_backend();
  CHECK(run(*cpu, s.view, c) == oracle);
  EmuOptions o;
  o.stage1a_threads = threads;
  o.slices = threads == 32 ? 7 : 0;  // slices that end between tested starts
  auto emu = make_emulated_backend(o);
  CHECK(run(*emu, s.view, c) == oracle);
  // Cut into chunks that start at every residue of the stride.
  std::vector<Stage1aHit> pieces;
  for (uint64_t at = 0, len = 101; at < c.n_starts; at += len, len += 37) {
    DbChunk part = c;
    part.codes = db.data() + at;
    part.first_pos = first_pos + at;
    part.n_starts = std::min<uint64_t>(len, c.n_starts - at);
    part.n = std::min<uint64_t>(part.n_starts + 10, db.size() - at);
    const auto h = run(*emu, s.view, part);
    pieces.insert(pieces.end(), h.begin(), h.end());
  }
  CHECK(pieces == oracle);
}

TEST_CASE("emulated stage-1a: awkward launch shapes give identical hits", "[cuda][stage1a]") {
  const uint32_t threads = GENERATE(32u, 96u);
  const uint32_t max_blocks = GENERATE(1u, 3u);
  const uint32_t per_group = GENERATE(1u, 4u);
  const uint32_t slices = GENERATE(0u, 5u);
  std::mt19937_64 rng(threads * 7 + max_blocks * 13 + per_group * 17 + slices);
  auto s = fixtures::make_vectors(rng, 11, 1021, 5, 13, 61, 12);  // family has more functions than the vectors use
  const auto db = fixtures::make_db(rng, s.query, 2003);
  const DbChunk c = whole(db, 13);
  EmuOptions o;
  o.stage1a_threads = threads;
  o.max_blocks = max_blocks;
  o.vectors_per_group = per_group;
  o.slices = slices;
  EmuStats stats;
  auto emu = make_emulated_backend(o, &stats);
  CHECK(run(*emu, s.view, c) == fixtures::oracle_stage1a(s, c));
}

TEST_CASE("emulated stage-1a: more sub-queries than resident blocks means several passes", "[cuda][stage1a]") {
  std::mt19937_64 rng(42);
  auto s = fixtures::make_vectors(rng, 53, 4099, 6, 11, 101);
  const auto db = fixtures::make_db(rng, s.query, 1009);
  const DbChunk c = whole(db, 11);
  EmuOptions o;
  o.profile = model::with_multiprocessors(o.profile, 2);
  o.profile.max_blocks_total = 6;  // 3 resident blocks per multiprocessor: 6 for 53 vectors
  EmuStats stats;
  auto emu = make_emulated_backend(o, &stats);
  CHECK(run(*emu, s.view, c) == fixtures::oracle_stage1a(s, c));
  CHECK(stats.max_blocks == 6);
  CHECK(stats.max_passes >= 9);
}

TEST_CASE("emulated stage-1a: output-buffer overflow grows and reruns, never drops a hit", "[cuda][stage1a]") {
  std::mt19937_64 rng(7);
  auto s = fixtures::make_vectors(rng, 5, 509, 2, 9, 83);  // small, dense vectors: many hits
  const auto db = fixtures::make_db(rng, s.query, 4001);
  const DbChunk c = whole(db, 9);
  EmuOptions o;
  o.initial_capacity = 3;
  EmuStats stats;
  auto emu = make_emulated_backend(o, &stats);
  const auto oracle = fixtures::oracle_stage1a(s, c);
  REQUIRE(oracle.size() > 100);
  CHECK(run(*emu, s.view, c) == oracle);
  CHECK(stats.overflow_reruns >= 1);
}

TEST_CASE("emulated stage-1a: vectors too large for shared memory are probed in global memory", "[cuda][stage1a]") {
  std::mt19937_64 rng(11);
  auto s = fixtures::make_vectors(rng, 3, 1u << 16, 4, 12, 200);  // 8 KiB per vector
  const auto db = fixtures::make_db(rng, s.query, 1500);
  const DbChunk c = whole(db, 12);
  EmuOptions o;
  o.shared_limit = 4096;  // tables fit (6 nibbles * 16 * 4 * 4 B), a vector does not
  EmuStats stats;
  auto emu = make_emulated_backend(o, &stats);
  CHECK(run(*emu, s.view, c) == fixtures::oracle_stage1a(s, c));
  CHECK_FALSE(stats.vectors_in_shared);
}

TEST_CASE("emulated stage-1a: streamed chunks come back in input order and match the whole database", "[cuda][stage1a]") {
  const size_t streams = GENERATE(size_t(1), size_t(2), size_t(3));
  const uint64_t chunk_len = GENERATE(uint64_t(1), uint64_t(37), uint64_t(331), uint64_t(5000));
  const int w = 11;
  std::mt19937_64 rng(streams * 1000 + chunk_len);
  auto s = fixtures::make_vectors(rng, 6, 2053, 4, w, 89);
  const auto db = fixtures::make_db(rng, s.query, 1801);
  const auto oracle = fixtures::oracle_stage1a(s, whole(db, w));

  // Chunks of chunk_len starts with w-1 extra bases where available; the last chunks run into the end.
  uint64_t at = 0;
  auto next = [&](DbChunk& c) {
    if (at >= db.size()) return false;
    c.codes = db.data() + at;
    c.n_starts = std::min<uint64_t>(chunk_len, db.size() - at);
    c.n = std::min<uint64_t>(c.n_starts + w - 1, db.size() - at);
    c.first_pos = at;
    c.w = w;
    at += c.n_starts;
    return true;
  };
  EmuOptions o;
  o.streams = streams;
  o.initial_capacity = 4;
  auto emu = make_emulated_backend(o);
  std::vector<Stage1aHit> all;
  uint64_t expected_index = 0;
  emu->stage1a_stream(s.view, next, [&](uint64_t index, std::vector<Stage1aHit>& hits) {
    CHECK(index == expected_index++);
    all.insert(all.end(), hits.begin(), hits.end());
  });
  CHECK(expected_index == (db.size() + chunk_len - 1) / chunk_len);
  CHECK(all == oracle);  // in order across chunks: each chunk sorted, chunks in input order
}

TEST_CASE("emulated stage-1a: databases shorter than w and empty chunks give no hits", "[cuda][stage1a]") {
  std::mt19937_64 rng(5);
  auto s = fixtures::make_vectors(rng, 4, 257, 1, 16, 40);  // k = 1, tiny m: nearly every w-mer would hit
  auto emu = make_emulated_backend();
  std::vector<uint8_t> short_db(15, 0);
  DbChunk c = whole(short_db, 16);
  CHECK(c.n_starts == 0);
  c.n_starts = 15;  // starts whose windows run past the end are never complete
  CHECK(run(*emu, s.view, c).empty());
  std::vector<uint8_t> all_n(100, kInvalidBase);
  CHECK(run(*emu, s.view, whole(all_n, 16)).empty());
}
