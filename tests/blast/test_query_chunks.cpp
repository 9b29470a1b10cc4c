// blastn's query chunks and the seeds they allow (query_chunks.hpp). The layout is checked for the properties BLAST+
// gives it (chunk count total / (chunk - overlap), chunks of equal span overlapping by overlap + 1 positions, the
// last one ending at the total, no split below two chunks); the seeds against a brute force that decides each w-mer
// from the definition alone: some chunk holds it and none of that chunk's cut masks (a mask [a, b] cut to the
// chunk's part [S, to] is [max(a, S), min(b + 1, to)] when max(a, S) <= min(b, to - 1)) touches it. The live check
// against blastn is tests/cli/blast_dust_vs_blastn.sh.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <utility>
#include <vector>

#include "bloomseq/blast/query_chunks.hpp"

using namespace bloomseq;

namespace {

using Chunks = std::vector<std::pair<uint64_t, uint64_t>>;

std::vector<bool> brute_force_seeds(uint64_t length, const MaskIntervals& masks, uint64_t w, const Chunks& chunks) {
  std::vector<bool> seed(length, false);
  for (uint64_t p = 0; p + w <= length; ++p) {
    if (chunks.size() == 1) {
      bool touches = false;
      for (const auto& m : masks) touches = touches || (p <= m.second && m.first <= p + w - 1);
      seed[p] = !touches;
      continue;
    }
    for (const auto& c : chunks) {
      const uint64_t S = c.first, to = std::min(length, c.second);
      if (p < S || p + w - 1 > std::min(to, length - 1)) continue;
      bool touches = false;
      for (const auto& m : masks) {
        const uint64_t lo = std::max(m.first, S);
        if (to == 0 || lo > std::min(m.second, to - 1)) continue;
        const uint64_t hi = std::min(m.second + 1, to);
        touches = touches || (p <= hi && lo <= p + w - 1);
      }
      if (!touches) seed[p] = true;
    }
  }
  return seed;
}

}  // namespace

TEST_CASE("blastn query chunks: count, spans, overlap, last end") {
  REQUIRE(blastn_query_chunks(1999799, kBlastnQueryChunk) == Chunks{{0, 1999799}});  // below two chunks: whole
  for (uint64_t total : {uint64_t(1999800), uint64_t(2050000), uint64_t(4938920), uint64_t(5333942),
                         uint64_t(12523000)}) {
    INFO(total);
    const Chunks c = blastn_query_chunks(total, kBlastnQueryChunk);
    REQUIRE(c.size() == total / (kBlastnQueryChunk - kQueryChunkOverlap));
    REQUIRE(c.front().first == 0);
    REQUIRE(c.back().second == total);
    const uint64_t span = c.front().second - c.front().first;
    // Spans even out the chunks: about total / n, each a little over the nominal chunk.
    REQUIRE(span >= kBlastnQueryChunk - kQueryChunkOverlap);
    REQUIRE(span <= total / c.size() + kQueryChunkOverlap + 1);
    for (size_t i = 0; i + 1 < c.size(); ++i) {
      REQUIRE(c[i].second - c[i].first == span);
      REQUIRE(c[i].second - c[i + 1].first + 1 == kQueryChunkOverlap + 1);  // both ends included
    }
  }
  // Megablast's chunks are five times as long.
  REQUIRE(blastn_query_chunks(9999799, kMegablastQueryChunk).size() == 1);
  REQUIRE(blastn_query_chunks(9999800, kMegablastQueryChunk).size() == 2);
}

TEST_CASE("seeds allowed in query chunks against the brute force") {
  std::mt19937_64 rng(1105);
  for (int round = 0; round < 400; ++round) {
    const uint64_t length = 20 + rng() % 600;
    const uint64_t w = 4 + rng() % 12;
    MaskIntervals masks;
    for (uint64_t at = rng() % 40; at < length;) {
      const uint64_t last = std::min(length - 1, at + rng() % 30);
      masks.emplace_back(at, last);
      at = last + 2 + rng() % 60;  // masks apart by at least one base, as DUST leaves them
    }
    // Small chunks so that several meet every record; chunk sizes and overlaps of several kinds.
    const uint64_t overlap = w + rng() % 20;
    const uint64_t chunk = overlap + 1 + rng() % 200;
    const Chunks chunks = blastn_query_chunks(length, chunk, overlap);
    INFO("round " << round << " length " << length << " w " << w << " chunks " << chunks.size());
    const std::vector<uint64_t> bits = seeds_allowed_in_chunks(length, masks, int(w), chunks);
    const std::vector<bool> want = brute_force_seeds(length, masks, w, chunks);
    for (uint64_t p = 0; p + w <= length; ++p) {
      INFO("w-mer at " << p);
      REQUIRE(((bits[p / 64] >> (p % 64)) & 1) == uint64_t(want[p]));
    }
  }
}

TEST_CASE("a split query's mask ends a base later: the w-mer right after it is no seed") {
  // Two chunks of 1,025,050 (both ends included); a mask at [500,000, 500,013] inside the first.
  const uint64_t length = 2050000, w = 11;
  const MaskIntervals masks{{500000, 500013}};
  const Chunks whole{{0, length}}, split = blastn_query_chunks(length, kBlastnQueryChunk);
  REQUIRE(split.size() == 2);
  const auto allowed = [&](const Chunks& c, uint64_t p) {
    return ((seeds_allowed_in_chunks(length, masks, int(w), c)[p / 64] >> (p % 64)) & 1) != 0;
  };
  REQUIRE(allowed(whole, 500014));
  REQUIRE_FALSE(allowed(split, 500014));
  REQUIRE(allowed(split, 500015));
  REQUIRE_FALSE(allowed(whole, 500003));
  REQUIRE(allowed(whole, 499989));  // ends at 499,999, the base before the mask
  REQUIRE(allowed(split, 499989));  // the start is not moved
}
