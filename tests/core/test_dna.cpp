// 2-bit encoding, reverse complement, canonical w-mers and the w-mer scanner, checked against
// straightforward string-based oracles written here.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <string>

#include "bloomseq/encode/dna.hpp"
#include "bloomseq/encode/sequence.hpp"

using namespace bloomseq;

namespace {

std::string random_dna(std::mt19937_64& rng, size_t n, double n_rate = 0.0) {
  static const char kAlphabet[] = "ACGTacgt";
  std::uniform_int_distribution<int> pick(0, 7);
  std::uniform_real_distribution<double> u(0, 1);
  std::string s(n, 'A');
  for (auto& c : s) c = u(rng) < n_rate ? "NRYKMSWnBDHV"[pick(rng)] : kAlphabet[pick(rng)];
  return s;
}

// Oracle: pack a w-mer from text, first base most significant.
uint64_t pack_text(const std::string& s) {
  uint64_t x = 0;
  for (char c : s) {
    const char u = char(std::toupper(static_cast<unsigned char>(c)));
    const uint64_t code = u == 'A' ? 0 : u == 'C' ? 1 : u == 'G' ? 2 : 3;
    x = (x << 2) | code;
  }
  return x;
}

std::string revcomp_text(const std::string& s) {
  std::string r(s.rbegin(), s.rend());
  for (auto& c : r) {
    switch (std::toupper(static_cast<unsigned char>(c))) {
      case 'A': c = 'T'; break;
      case 'C': c = 'G'; break;
      case 'G': c = 'C'; break;
      case 'T': c = 'A'; break;
    }
  }
  return r;
}

bool is_acgt(char c) { return std::string("ACGTacgt").find(c) != std::string::npos; }

}  // namespace

TEST_CASE("base codes: A0 C1 G2 T3, lower case accepted, U (RNA) read as T, everything else invalid", "[dna]") {
  CHECK(base_code('A') == 0);
  CHECK(base_code('C') == 1);
  CHECK(base_code('G') == 2);
  CHECK(base_code('T') == 3);
  CHECK(base_code('a') == 0);
  CHECK(base_code('t') == 3);
  // blastn reads an RNA sequence's U as T (an rRNA database in the RNA alphabet matches its DNA genes).
  CHECK(base_code('U') == 3);
  CHECK(base_code('u') == 3);
  for (char c : std::string("NnRYKMSWBDHVXEFILPQ-.*0 \r\n")) CHECK(base_code(c) == kInvalidBase);
  for (int c = 0; c < 256; ++c) {
    const bool valid = is_acgt(char(c)) || c == 'U' || c == 'u';
    CHECK((base_code(char(c)) < 4) == valid);
  }
}

TEST_CASE("an RNA sequence encodes and reverse-complements as its DNA", "[dna]") {
  std::mt19937_64 rng(4);
  const auto dna = random_dna(rng, 500, 0.05);
  std::string rna = dna;
  for (auto& c : rna) c = c == 'T' ? 'U' : c == 't' ? 'u' : c;
  CHECK(encode_codes(rna) == encode_codes(dna));
  CHECK(reverse_complement(rna) == reverse_complement(dna));  // U pairs with A; the complement is DNA
  CHECK(reverse_complement("AUGCaugc") == "gcatGCAT");
}

TEST_CASE("encode/decode round trip keeps ACGT and turns the rest into N", "[dna]") {
  std::mt19937_64 rng(1);
  const auto s = random_dna(rng, 1000, 0.1);
  const auto decoded = decode_codes(encode_codes(s));
  REQUIRE(decoded.size() == s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (is_acgt(s[i]))
      CHECK(decoded[i] == std::toupper(static_cast<unsigned char>(s[i])));
    else
      CHECK(decoded[i] == 'N');
  }
}

TEST_CASE("reverse complement of packed w-mers matches the text oracle for w = 1..32", "[dna]") {
  std::mt19937_64 rng(2);
  for (int w = 1; w <= 32; ++w) {
    for (int rep = 0; rep < 50; ++rep) {
      const auto s = random_dna(rng, size_t(w));
      const uint64_t x = pack_text(s);
      CHECK(revcomp_wmer(x, w) == pack_text(revcomp_text(s)));
      CHECK(revcomp_wmer(revcomp_wmer(x, w), w) == x);  // an involution
      CHECK(canonical_wmer(x, revcomp_wmer(x, w)) == canonical_wmer(revcomp_wmer(x, w), x));
    }
  }
}

TEST_CASE("text reverse complement is an involution and keeps case and IUPAC complements", "[dna]") {
  std::mt19937_64 rng(3);
  const auto s = random_dna(rng, 777, 0.2);
  CHECK(reverse_complement(reverse_complement(s)) == s);
  CHECK(reverse_complement("ACGTacgtNRY") == "RYNacgtACGT");
}

TEST_CASE("the w-mer scanner yields exactly the windows without invalid bases", "[dna]") {
  std::mt19937_64 rng(4);
  for (int w : {1, 2, 5, 11, 21, 31, 32}) {
    for (double n_rate : {0.0, 0.01, 0.2}) {
      const auto s = random_dna(rng, 300, n_rate);
      const auto codes = encode_codes(s);
      std::vector<size_t> got_pos;
      bool all_match = true;
      for_each_wmer(codes.data(), codes.size(), w, [&](size_t pos, uint64_t f, uint64_t r) {
        got_pos.push_back(pos);
        const auto window = s.substr(pos, size_t(w));
        all_match = all_match && f == pack_text(window) && r == pack_text(revcomp_text(window));
      });
      std::vector<size_t> want_pos;
      for (size_t p = 0; p + size_t(w) <= s.size(); ++p) {
        bool ok = true;
        for (size_t j = 0; j < size_t(w); ++j) ok = ok && is_acgt(s[p + j]);
        if (ok) want_pos.push_back(p);
      }
      INFO("w=" << w << " n_rate=" << n_rate);
      CHECK(all_match);
      CHECK(got_pos == want_pos);
    }
  }
}

TEST_CASE("a sequence shorter than w or made of N only has no w-mers", "[dna]") {
  const auto n_only = encode_codes(std::string(100, 'N'));
  int count = 0;
  for_each_wmer(n_only.data(), n_only.size(), 5, [&](size_t, uint64_t, uint64_t) { ++count; });
  const auto short_seq = encode_codes("ACGT");
  for_each_wmer(short_seq.data(), short_seq.size(), 5, [&](size_t, uint64_t, uint64_t) { ++count; });
  CHECK(count == 0);
  CHECK(canonical_wmers("ACGTNACGTA", 5) == std::vector<uint64_t>{canonical_wmer(pack_text("ACGTA"), pack_text("TACGT"))});
}

TEST_CASE("packed sequences give the same w-mers as the code array", "[dna]") {
  std::mt19937_64 rng(5);
  const auto s = random_dna(rng, 513);
  const auto codes = encode_codes(s);
  const auto packed = pack_codes(codes);
  for (size_t i = 0; i < codes.size(); ++i) REQUIRE(packed_base(packed.data(), i) == codes[i]);
  for (int w : {1, 11, 32}) {
    bool ok = true;
    for_each_wmer(codes.data(), codes.size(), w,
                  [&](size_t pos, uint64_t f, uint64_t) { ok = ok && packed_wmer(packed.data(), pos, w) == f; });
    CHECK(ok);
  }
}

TEST_CASE("packing code arrays with invalid codes: every base in place, every invalid code listed", "[dna]") {
  std::mt19937_64 rng(6);
  std::vector<uint64_t> words, invalid;
  for (size_t n : {size_t(0), size_t(1), size_t(7), size_t(31), size_t(32), size_t(33), size_t(100), size_t(1000)}) {
    std::vector<uint8_t> codes(n);
    for (auto& c : codes) c = uint8_t(rng() % 40 == 0 ? kInvalidBase : rng() & 3);
    if (n > 40) std::fill(codes.begin() + 31, codes.begin() + 40, kInvalidBase);  // a run across two words
    pack_codes(codes.data(), n, words, invalid);
    INFO("n=" << n);
    REQUIRE(words.size() == (n + 31) / 32 + 1);
    CHECK(words.back() == 0);
    std::vector<uint64_t> want_invalid;
    bool ok = true;
    for (size_t i = 0; i < n; ++i) {
      if (codes[i] > 3) want_invalid.push_back(i);
      ok = ok && packed_base(words.data(), i) == (codes[i] > 3 ? 0 : codes[i]);
    }
    CHECK(ok);
    CHECK(invalid == want_invalid);
  }
}
