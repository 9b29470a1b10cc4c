// The DUST masker against an independent brute force of the symmetric DUST definition (Morgulis et al. 2006):
// score(x) = sum over triplet values of c (c - 1) / 2 for a stretch x of l triplets; x is perfect when
// 10 score(x) > level (l - 1) and no stretch inside it has a higher score per (l - 1); the mask is the union of the
// bases of all perfect stretches of at most window - 2 triplets (runs at most `linker` bases apart joined). The
// brute force scores every stretch from scratch. Small random sequences and low-complexity ones (homopolymers,
// di- and trinucleotide repeats, mixed with random bases, N inside).
#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <utility>
#include <vector>

#include "bloomseq/blast/dust.hpp"
#include "bloomseq/encode/sequence.hpp"
#include "bloomseq/io/sequence_reader.hpp"

using namespace bloomseq;

namespace {

using Intervals = std::vector<std::pair<uint64_t, uint64_t>>;

Intervals brute_force_dust(const std::vector<uint8_t>& codes, const DustParams& p) {
  const int64_t n = int64_t(codes.size());
  const int64_t triplets = n - 2;
  if (triplets < 1) return {};
  std::vector<int> tri(static_cast<size_t>(triplets), 0);
  auto base = [&](int64_t i) { return codes[size_t(i)] < 4 ? int(codes[size_t(i)]) : 0; };
  for (int64_t i = 0; i < triplets; ++i) tri[size_t(i)] = base(i) * 16 + base(i + 1) * 4 + base(i + 2);
  const int64_t max_len = p.window - 2;
  // Every stretch's score from its definition, counted from each start outwards (memoized: recounting each stretch
  // from scratch for every stretch it is tested inside made this test take ~20 s).
  std::vector<long> table(size_t(triplets * max_len), 0);
  for (int64_t a = 0; a < triplets; ++a) {
    int c[64] = {0};
    long s = 0;
    for (int64_t b = a; b < triplets && b - a < max_len; ++b) {
      s += c[tri[size_t(b)]]++;
      table[size_t(a * max_len + (b - a))] = s;
    }
  }
  auto score = [&](int64_t a, int64_t b) { return table[size_t(a * max_len + (b - a))]; };  // triplets a..b
  std::vector<char> masked(size_t(n), 0);
  for (int64_t a = 0; a < triplets; ++a)
    for (int64_t b = a + 1; b < triplets && b - a + 1 <= max_len; ++b) {
      const long s = score(a, b);
      const int64_t len = b - a;  // triplets - 1
      if (!(10 * s > long(p.level) * len)) continue;
      bool perfect = true;
      for (int64_t x = a; x <= b && perfect; ++x)
        for (int64_t y = x + 1; y <= b; ++y)
          if (score(x, y) * len > s * (y - x)) {
            perfect = false;
            break;
          }
      if (perfect)
        for (int64_t k = a; k <= b + 2; ++k) masked[size_t(k)] = 1;
    }
  Intervals out;
  for (int64_t i = 0; i < n; ++i) {
    if (!masked[size_t(i)]) continue;
    if (!out.empty() && out.back().second + uint64_t(p.linker) >= uint64_t(i)) out.back().second = uint64_t(i);
    else out.emplace_back(uint64_t(i), uint64_t(i));
  }
  return out;
}

std::string random_bases(std::mt19937_64& rng, size_t n) {
  std::string s(n, 'A');
  for (auto& c : s) c = "ACGT"[rng() % 4];
  return s;
}

// Random stretches and low-complexity pieces, glued.
std::string mixed(std::mt19937_64& rng, size_t pieces) {
  const char* motifs[] = {"A", "T", "AT", "CA", "GAT", "CAG", "AAT", "TTAGGG", "ACGT"};
  std::string s;
  for (size_t i = 0; i < pieces; ++i) {
    switch (rng() % 3) {
      case 0: s += random_bases(rng, 5 + rng() % 40); break;
      case 1: {
        const std::string m = motifs[rng() % 9];
        const size_t copies = 3 + rng() % 30;
        for (size_t k = 0; k < copies; ++k) s += m;
        break;
      }
      default: {
        // A repeat with point changes.
        std::string r;
        const std::string m = motifs[rng() % 9];
        while (r.size() < 20 + rng() % 50) r += m;
        for (auto& c : r)
          if (rng() % 12 == 0) c = "ACGTN"[rng() % 5];
        s += r;
      }
    }
  }
  return s;
}

void check(const std::string& seq, const DustParams& p = {}) {
  const std::vector<uint8_t> codes = encode_codes(seq);
  INFO(seq);
  DustParams as_a = p;
  as_a.n_bases = DustN::as_a;  // the definition reads a fixed sequence; BLAST+'s N draws are tested below
  REQUIRE(dust_intervals(codes.data(), codes.size(), as_a) == brute_force_dust(codes, as_a));
}

}  // namespace

TEST_CASE("DUST: no mask on short or high-complexity sequences") {
  for (const char* s : {"", "A", "AC", "ACG", "ACGT", "ACGTTGCAAGTCCTGATGCAATCGGATCCAGTAGCTAGGCTTACGCATGACG"}) {
    const std::vector<uint8_t> c = encode_codes(s);
    REQUIRE(dust_intervals(c.data(), c.size()).empty());
  }
}

TEST_CASE("DUST: low-complexity runs are masked whole") {
  const std::vector<uint8_t> c = encode_codes("ACGTTGCAAGTCCTGATGCA" + std::string(30, 'A') + "TCGGATCCAGTAGCTAGGCT");
  const Intervals m = dust_intervals(c.data(), c.size());
  REQUIRE(m.size() == 1);
  REQUIRE(m[0].first <= 20);
  REQUIRE(m[0].second >= 49);
}

TEST_CASE("DUST against the brute-force definition: homopolymers, repeats, random and mixed sequences") {
  for (size_t n : {5, 10, 20, 40, 63, 64, 65, 80, 130, 200}) {
    check(std::string(n, 'A'));
    check(std::string(n, 'G'));
    std::string di, tri;
    while (di.size() < n) di += "AT";
    while (tri.size() < n) tri += "CAG";
    check(di.substr(0, n));
    check(tri.substr(0, n));
  }
  std::mt19937_64 rng(20060701);
  for (int i = 0; i < 300; ++i) check(random_bases(rng, 20 + rng() % 200));
  for (int i = 0; i < 300; ++i) check(mixed(rng, 2 + rng() % 6));
}

TEST_CASE("DUST against the brute force at other levels and windows") {
  std::mt19937_64 rng(7);
  for (const DustParams p : {DustParams{10, 20, 1}, DustParams{30, 40, 1}, DustParams{20, 64, 5}})
    for (int i = 0; i < 100; ++i) check(mixed(rng, 2 + rng() % 5), p);
}

// An N as BLAST+ reads it: a base drawn from the toolkit's fixed-seed generator each time the letter is read, other
// ambiguity codes as A. The expected intervals are blastn 2.12's own query masks (-task blastn, default -dust, read
// from its -outfmt 11 archive) and dustmasker's for DWV; none of them comes from this code.
TEST_CASE("DUST reads N as BLAST+ does: blastn's masks") {
  const std::string flank = "ACGTTGCAAGTCCTGATGCA", after = "TCGGATCCAGTAGCTAGGCTTACGCATGACG";
  const struct {
    std::string seq;
    Intervals blastn;
  } cases[] = {
      // The first two letters' draws (C, then A) in BLAST+'s order: NN + poly-A starts the mask at 1, NN + (AC)n at 2.
      {"NNAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAACGTTGCAAGTCCTGATGCAATCGGATCCAGTAGCTAGG", {{1, 32}}},
      {"NNCACACACACACACACACACACACACACACACGTTGCAAGTCCTGATGCAATCGGATCCAGTAGCTAGG", {{0, 32}}},
      {"NNACACACACACACACACACACACACACACACACGTTGCAAGTCCTGATGCAATCGGATCCAGTAGCTAGG", {{2, 33}}},
      {"NNNNTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTGCAAGTCCTGATGCAATCGGATCCAGTAGCTAGG", {{4, 34}}},
      // 150 Ns are no homopolymer: their draws happen to hold one low-complexity stretch.
      {std::string(150, 'N') + "ACGTTGCAAGTCCTGATGCAATCGGATCCAGTAGCTAGG", {{105, 112}}},
      // An N or an IUPAC letter inside a poly-A run.
      {flank + std::string(20, 'A') + "N" + std::string(16, 'A') + "N" + std::string(14, 'A') + after, {{19, 71}}},
      {flank + std::string(20, 'A') + "R" + std::string(16, 'A') + "Y" + std::string(14, 'A') + after, {{19, 71}}},
  };
  // The search's letters: N is kInvalidBase, another IUPAC code anything else above 3.
  auto letters = [](const std::string& seq) {
    std::vector<uint8_t> codes = encode_codes(seq);
    for (size_t i = 0; i < seq.size(); ++i)
      if (seq[i] != 'N' && seq[i] != 'n' && codes[i] > 3) codes[i] = 16;
    return codes;
  };
  for (const auto& c : cases) {
    INFO(c.seq);
    const std::vector<uint8_t> codes = letters(c.seq);
    REQUIRE(dust_intervals(codes.data(), codes.size()) == c.blastn);
  }
  // Read as A, the Ns would be one homopolymer, masked with the run that follows.
  const std::vector<uint8_t> n_run = encode_codes(std::string(150, 'N') + "ACGTTGCAAGTCCTGATGCAATCGG");
  DustParams as_a;
  as_a.n_bases = DustN::as_a;
  REQUIRE(dust_intervals(n_run.data(), n_run.size(), as_a).front().first == 0);
  // DWV (bundled): Ns at 1,022, 1,090 and 1,133 (1-based) inside a low-complexity stretch from 947; dustmasker and
  // blastn end its mask at 1,112 (0-based), where reading the Ns as A ended it at 1,141.
  const auto dwv = read_all_sequences(std::string(BLOOMSEQ_DATA_DIR) + "/bee-viruses/dwv.fa");
  REQUIRE(dwv.size() == 1);
  const std::vector<uint8_t> d = letters(dwv[0].seq);
  REQUIRE(dust_intervals(d.data(), d.size()) == Intervals{{947, 1112}, {9823, 9865}});
}
