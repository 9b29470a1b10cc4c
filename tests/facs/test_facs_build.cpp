// Building filters: the exact count's block sort and merge against the k-mers taken straight from the sequence.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "../io/io_test_util.hpp"
#include "bloomseq/bloom/blocked_bloom.hpp"
#include "bloomseq/facs/filter_builder.hpp"
#include "bloomseq/hash/h3.hpp"

using namespace bloomseq;

TEST_CASE("build: exact count over many sorted blocks gives the distinct k-mers and the same bits") {
  // 3.5 Mbases: several sort blocks; a repeated stretch and N's give duplicates across blocks and skipped k-mers.
  std::mt19937_64 rng(5);
  std::string a(2000000, 'A');
  for (char& c : a) c = "ACGT"[rng() % 4];
  std::string b = a.substr(100000, 1500000);
  for (size_t i = 0; i < b.size(); i += 100000) b[i] = 'N';
  const std::vector<std::string_view> seqs{a, b};

  BuildParams exact;
  exact.w = 21;
  exact.m_bits = 1 << 24;
  exact.hashes = 7;
  BuildParams streamed = exact;
  streamed.count = KmerCount::hyperloglog;  // inserts every k-mer as it comes: no sort, no merge

  uint64_t reports = 0;
  const FilterEntry e = build_filter(seqs, exact, "e", "mem", [&](const char*, uint64_t done, uint64_t total) {
    CHECK(done <= total);
    ++reports;
  });
  const FilterEntry s = build_filter(seqs, streamed, "s", "mem");
  CHECK(e.elements == distinct_canonical_wmers(seqs, 21).size());
  CHECK(e.bits.words() == s.bits.words());
  CHECK(reports > 20);  // reading, sorting, counting and inserting all reported
}

namespace {

// Canonical k-mer codes the slow way, as the oracle: every window re-encoded from scratch, the reverse complement
// spelt out; windows with a base other than ACGT (either case) skipped.
std::vector<uint64_t> oracle_kmers(const std::string& s, int w) {
  auto code = [](char c) -> int {
    switch (c) {
      case 'A': case 'a': return 0;
      case 'C': case 'c': return 1;
      case 'G': case 'g': return 2;
      case 'T': case 't': return 3;
      default: return -1;
    }
  };
  std::vector<uint64_t> out;
  for (size_t i = 0; i + size_t(w) <= s.size(); ++i) {
    uint64_t fwd = 0, rc = 0;
    bool ok = true;
    for (int j = 0; j < w && ok; ++j) {
      const int c = code(s[i + size_t(j)]);
      if (c < 0) ok = false;
      else fwd = fwd << 2 | uint64_t(c);
    }
    for (int j = w - 1; j >= 0 && ok; --j) rc = rc << 2 | uint64_t(3 - code(s[i + size_t(j)]));
    if (ok) out.push_back(std::min(fwd, rc));
  }
  return out;
}

}  // namespace

TEST_CASE("build: the exact count's two-level partition sort counts every word size right, short ones included") {
  // Word sizes around the partition's byte boundaries: no second byte (w <= 4), overlapping bytes (5..7), two
  // whole bytes and more; the bits must equal the streamed (unsorted) build's.
  std::mt19937_64 rng(11);
  std::string a(300000, 'A');
  for (char& c : a) c = "ACGT"[rng() % 4];
  const std::string b = a.substr(1000, 50000) + "NN" + a.substr(7, 999);
  for (int w : {2, 4, 5, 7, 8, 9, 13, 31}) {
    std::vector<uint64_t> want = oracle_kmers(a, w), more = oracle_kmers(b, w);
    want.insert(want.end(), more.begin(), more.end());
    std::sort(want.begin(), want.end());
    want.erase(std::unique(want.begin(), want.end()), want.end());
    BuildParams exact;
    exact.w = w;
    exact.m_bits = 1 << 20;
    exact.hashes = 3;
    BuildParams streamed = exact;
    streamed.count = KmerCount::hyperloglog;
    uint64_t last = 0, total = 0;
    const FilterEntry e = build_filter({a, b}, exact, "e", "mem", [&](const char* phase, uint64_t done, uint64_t all) {
      if (std::string(phase).rfind("sorting", 0) != 0) return;
      CHECK(done >= last);
      CHECK(done <= all);
      last = done;
      total = all;
    });
    const FilterEntry s = build_filter({a, b}, streamed, "s", "mem");
    INFO("w = " << w);
    CHECK(e.elements == want.size());
    CHECK(e.bits.words() == s.bits.words());
    CHECK(last == total);  // the sort's progress ends at its total
  }
}

TEST_CASE("build: streamed from a file on threads, sized by HyperLogLog against an exact k-mer oracle") {
  // A small synthetic genome in several records: one of 2.6 Mbases (slices of 1 Mbase: k-mers across their joins),
  // repeats (a copied stretch and a reverse-complemented one), N runs, lower case, a record shorter than w.
  std::mt19937_64 rng(17);
  auto random_dna = [&](size_t n) {
    std::string s(n, 'A');
    for (char& c : s) c = "ACGT"[rng() % 4];
    return s;
  };
  std::string chr1 = random_dna(2600000);
  chr1.replace(1500000, 200000, chr1.substr(100000, 200000));  // a repeat
  for (size_t i = 700000; i < 700500; ++i) chr1[i] = 'N';
  for (size_t i = 900000; i < 950000; ++i) chr1[i] = char(std::tolower(chr1[i]));
  std::string chr2 = random_dna(300000);
  std::string rc = chr1.substr(2000000, 50000);
  std::reverse(rc.begin(), rc.end());
  for (char& c : rc) c = c == 'A' ? 'T' : c == 'C' ? 'G' : c == 'G' ? 'C' : c == 'T' ? 'A' : c;
  chr2 += rc;  // the reverse complement of a stretch of chr1: the same canonical k-mers
  const std::string tiny = "ACGTACGT";
  bloomseq_test::TempDir dir;
  const std::string path = dir.file("genome.fa");
  bloomseq_test::write_bytes(path, ">chr1\n" + chr1 + "\n>chr2 second\n" + chr2 + "\n>tiny\n" + tiny + "\n");

  const int w = 21;
  std::vector<uint64_t> all;
  for (const std::string* s : std::initializer_list<const std::string*>{&chr1, &chr2, &tiny})
    for (uint64_t k : oracle_kmers(*s, w)) all.push_back(k);
  std::vector<uint64_t> distinct = all;
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  REQUIRE(distinct.size() < all.size() - 200000);  // the repeats are there

  BuildParams p;
  p.w = w;
  p.count = KmerCount::hyperloglog;
  for (BloomLayout layout : {BloomLayout::blocked512, BloomLayout::classic}) {
    p.layout = layout;
    INFO(layout_name(layout));
    const FilterEntry one = build_filter_from_file(path, p, "g", 1);
    // Sizing: the estimate is within 3% of the exact distinct count (HyperLogLog, standard error ~0.8%).
    CHECK(std::abs(double(one.elements) - double(distinct.size())) < 0.03 * double(distinct.size()));
    CHECK(one.source_length == chr1.size() + chr2.size() + tiny.size());
    // No false negatives: every k-mer of the genome is in the filter.
    const H3Family family(layout_hashes(layout, one.k), w, p.seed);
    const H3ByteView hv = family.byte_view();
    uint32_t h[kMaxHashes];
    auto contains = [&](uint64_t key) {
      hv.hash_all(key, h);
      const ConstBloomView v = one.bits.view();
      return layout == BloomLayout::blocked512 ? ConstBlockedBloomView{v.words, v.m_bits}.contains(h, one.k)
                                               : v.contains(h, one.k);
    };
    size_t missing = 0;
    for (uint64_t key : distinct) missing += !contains(key);
    CHECK(missing == 0);
    // The false-positive rate of k-mers not in the genome meets the target within sampling error.
    size_t fp = 0, tested = 0;
    while (tested < 400000) {
      const uint64_t key = rng() & ((uint64_t(1) << (2 * w)) - 1);
      const uint64_t rc_key = [&] {
        uint64_t r = 0, x = key;
        for (int j = 0; j < w; ++j, x >>= 2) r = r << 2 | (3 - (x & 3));
        return r;
      }();
      const uint64_t canon = std::min(key, rc_key);
      if (std::binary_search(distinct.begin(), distinct.end(), canon)) continue;
      ++tested;
      fp += contains(canon);
    }
    CHECK(double(fp) / double(tested) < 2.0 * p.fpr);
    // Threads and the file path change nothing: the bits of the in-memory build from the same sequences.
    const FilterEntry three = build_filter_from_file(path, p, "g", 3);
    CHECK(three.elements == one.elements);
    CHECK(three.bits.words() == one.bits.words());
    const FilterEntry mem = build_filter({chr1, chr2, tiny}, p, "g", "mem");
    CHECK(mem.elements == one.elements);
    CHECK(mem.bits.words() == one.bits.words());
  }
}

TEST_CASE("build: filters past 2^32 bits are sized for the blocked layout, refused for classic, checked for memory") {
  BuildParams p;
  p.count = KmerCount::hyperloglog;
  uint64_t m = 0;
  int k = 0;
  const uint64_t human = 3100000000ull;  // distinct k-mers of a human-sized genome, about
  p.layout = BloomLayout::blocked512;
  size_filter(human, p, m, k);
  CHECK(m > (uint64_t(1) << 32));
  CHECK(m <= kMaxBlockedBloomBits);
  CHECK(m % kBloomBlockBits == 0);
  CHECK(blocked_expected_fpr(human, m, k) <= p.fpr);
  p.layout = BloomLayout::classic;
  CHECK_THROWS_WITH(size_filter(human, p, m, k), Catch::Contains("2^32") && Catch::Contains("--layout blocked"));
  // 2^41 bits (256 GiB): more than this machine has, refused before allocating, saying how much is needed.
  const uint64_t have = available_memory_bytes();
  if (have > 0 && have < (uint64_t(1) << 38))
    CHECK_THROWS_WITH(check_filter_memory(kMaxBlockedBloomBits, "huge"),
                      Catch::Contains("'huge' needs 274.88 GB") && Catch::Contains("available"));
  CHECK_NOTHROW(check_filter_memory(uint64_t(1) << 20, "small"));
}
