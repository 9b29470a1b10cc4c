// blastn's ungapped pre-screen (s_NuclUngappedExtend's approximate pass) against a transcription written here from
// its description: the query as BLASTNA letters (A C G T R Y M K W S B D H V N, both strands concatenated with a
// sentinel 15 after each), each group of four packed as (q0 << 6) | (q1 << 4) | (q2 << 2) | q3 truncated to a byte
// whatever the letters' values, XORed with the subject's packed byte and scored per 2-bit field; groups aligned on
// the subject's 4-base boundaries, leftwards and then rightwards from the first boundary at or after the seed,
// X-drop on the running sum. The query comes from text through QuerySet and ConcatenatedQuery, so its IUPAC codes
// reach the pre-screen as blastn's letter values (a swapped letter changes the packed bytes).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "bloomseq/blast/pipeline.hpp"
#include "bloomseq/blast/ungapped.hpp"

using namespace bloomseq;

namespace {

int64_t reference_prescreen(const std::vector<uint8_t>& q, uint64_t q_len, const std::vector<uint8_t>& s,
                            uint64_t q_off, uint64_t s_off, int reward, int penalty, int xdrop) {
  int table[256];
  for (int i = 0; i < 256; ++i) {
    int score = 0;
    for (int f = 0; f < 4; ++f) score += ((i >> (2 * f)) & 3) ? penalty : reward;
    table[i] = score;
  }
  auto s_byte = [&](uint64_t i) { return (s[4 * i] << 6) | (s[4 * i + 1] << 4) | (s[4 * i + 2] << 2) | s[4 * i + 3]; };
  auto q_byte = [&](uint64_t at) { return ((q[at] << 6) | (q[at + 1] << 4) | (q[at + 2] << 2) | q[at + 3]) & 0xFF; };
  const int64_t X = -xdrop;
  const uint64_t adj = (4 - s_off % 4) % 4, q_ext = q_off + adj, s_ext = s_off + adj;
  int64_t score = 0, sum = 0;
  for (uint64_t i = 0, n = std::min(q_ext, s_ext) / 4; i < n; ++i) {
    sum += table[q_byte(q_ext - 4 * (i + 1)) ^ s_byte(s_ext / 4 - 1 - i)];
    if (sum > 0) score += sum, sum = 0;
    if (sum < X) break;
  }
  sum = 0;
  for (uint64_t i = 0, n = std::min(q_len - q_ext, uint64_t(s.size()) - s_ext) / 4; i < n; ++i) {
    sum += table[q_byte(q_ext + 4 * i) ^ s_byte(s_ext / 4 + i)];
    if (sum > 0) score += sum, sum = 0;
    if (sum < X) break;
  }
  return score;
}

}  // namespace

TEST_CASE("The ungapped pre-screen packs a query's IUPAC codes as blastn's letters", "[ungapped][prescreen]") {
  const std::string blastna = "ACGTRYMKWSBDHVN";
  std::mt19937 rng(20261128);
  for (int trial = 0; trial < 400; ++trial) {
    // A query of bases with every third-to-tenth letter another code, and a subject of bases (as stage 2 reads it).
    std::string text(60 + rng() % 200, 'A');
    const unsigned every = 3 + rng() % 8;
    for (auto& c : text) c = (rng() % every == 0) ? blastna[4 + rng() % 11] : blastna[rng() % 4];
    QuerySet qs;
    qs.add("q", text);
    ConcatenatedQuery cq;
    cq.add(qs.scored_strand(0), qs.scored_strand(1));
    // The reference's query: BLASTNA letters of the text, then of its reverse complement, each strand closed by 15.
    const std::string complement = "TGCAYRKMWSVHDBN";
    std::vector<uint8_t> ref;
    for (char c : text) ref.push_back(uint8_t(blastna.find(c)));
    ref.push_back(15);
    for (auto it = text.rbegin(); it != text.rend(); ++it) ref.push_back(uint8_t(blastna.find(complement[blastna.find(*it)])));
    ref.push_back(15);
    REQUIRE(cq.codes == ref);
    std::vector<uint8_t> subject(4 * (20 + rng() % 60));
    for (auto& b : subject) b = uint8_t(rng() % 4);
    const int reward = (trial % 2) ? 1 : 2, penalty = (trial % 2) ? -2 : -3;
    const UngappedScoring sc{reward, penalty, int(8 + rng() % 25), ambiguous_score(reward, penalty)};
    const uint64_t q_len = cq.codes.size() - 1;
    for (int k = 0; k < 20; ++k) {
      const uint64_t q_off = rng() % (q_len - 11), s_off = rng() % (subject.size() - 11);
      INFO("trial " << trial << " q_off " << q_off << " s_off " << s_off);
      REQUIRE(approximate_ungapped_score(cq.codes.data(), q_len, subject.data(), subject.size(), q_off, s_off, sc) ==
              reference_prescreen(cq.codes, q_len, subject, q_off, s_off, reward, penalty, sc.xdrop));
    }
  }
}
