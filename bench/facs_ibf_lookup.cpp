// What one w-mer lookup costs against R references: R separate Bloom filters (k probes each, early exit on the
// first clear bit, as facs does today) against one interleaved Bloom filter (k row reads whatever R). Both hold
// the same bits (the same m, hashes and inserts); the answers are compared and must agree.
//
//   facs_ibf_lookup [--bins 8,64,256,1024] [--m-bits 4194304] [--k 10] [--fill 0.5] [--lookups 2000000]
//                   [--csv FILE]
//
// Prints a table (ns per w-mer lookup: separate, interleaved, interleaved with the rows of 16 w-mers prefetched;
// ratio = separate / prefetched) and writes CSV. Single thread; a third of the
// looked-up w-mers are inserted ones (hits in one bin), the rest random.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <utility>
#include <string>
#include <vector>

#include "bloomseq/bloom/bloom_vector.hpp"
#include "bloomseq/bloom/interleaved_bloom.hpp"
#include "bloomseq/hash/h3.hpp"

using namespace bloomseq;

namespace {

std::vector<uint32_t> parse_list(const std::string& s) {
  std::vector<uint32_t> out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, ',');) out.push_back(uint32_t(std::stoul(item)));
  return out;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<uint32_t> bin_counts = {8, 64, 256, 1024};
  uint64_t m = uint64_t(1) << 22, lookups = 2000000;
  int k = 10;
  double fill = 0.5;
  std::string csv = "facs_ibf_lookup.csv";
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i], v = argv[i + 1];
    if (a == "--bins") bin_counts = parse_list(v);
    else if (a == "--m-bits") m = std::stoull(v);
    else if (a == "--k") k = std::stoi(v);
    else if (a == "--fill") fill = std::stod(v);
    else if (a == "--lookups") lookups = std::stoull(v);
    else if (a == "--csv") csv = v;
    else {
      std::fprintf(stderr, "facs_ibf_lookup: unknown option %s\n", a.c_str());
      return 64;
    }
  }
  // Inserts per bin for the requested fill: 1 - exp(-k n / m) = fill.
  const uint64_t n = uint64_t(-std::log(1.0 - fill) * double(m) / k);
  const int w = 25;
  const uint64_t key_mask = (uint64_t(1) << (2 * w)) - 1;
  const H3Family fam(k, w, 12345);
  const H3ByteView h3 = fam.byte_view();
  std::ofstream out(csv);
  out << "bins,m_bits,k,fill,lookups,separate_ns,interleaved_ns,interleaved_prefetched_ns,ratio,separate_bytes,"
         "interleaved_bytes\n";
  std::printf("%6s %10s %3s %14s %16s %16s %8s\n", "bins", "m bits", "k", "separate ns", "interleaved ns",
              "+prefetch ns", "ratio");
  for (uint32_t bins : bin_counts) {
    std::mt19937_64 rng(bins);
    InterleavedBloom ibf(bins, m);
    std::vector<BloomVector> separate(bins, BloomVector(m));
    std::vector<uint64_t> inserted;
    uint32_t h[kMaxHashes];
    for (uint32_t b = 0; b < bins; ++b) {
      for (uint64_t i = 0; i < n; ++i) {
        const uint64_t key = rng() & key_mask;
        h3.hash_all(key, h);
        separate[b].insert(h, k);
        if (i % 64 == 0) inserted.push_back(key);
      }
      ibf.set_bin(b, separate[b]);
    }
    std::vector<uint64_t> keys(lookups);
    for (uint64_t i = 0; i < lookups; ++i)
      keys[i] = i % 3 == 0 ? inserted[rng() % inserted.size()] : rng() & key_mask;
    std::vector<uint64_t> hits_separate(lookups / 64 + 1), mask(ibf.words_per_row());

    auto t0 = std::chrono::steady_clock::now();
    uint64_t sum_separate = 0;
    for (uint64_t i = 0; i < lookups; ++i) {
      h3.hash_all(keys[i], h);
      for (uint32_t b = 0; b < bins; ++b) sum_separate += separate[b].contains(h, k) ? b + 1 : 0;
    }
    const double t_separate = seconds_since(t0);

    t0 = std::chrono::steady_clock::now();
    uint64_t sum_interleaved = 0;
    const ConstInterleavedBloomView view = std::as_const(ibf).view();
    for (uint64_t i = 0; i < lookups; ++i) {
      h3.hash_all(keys[i], h);
      if (!view.query(h, k, mask.data())) continue;
      for (uint32_t wd = 0; wd < ibf.words_per_row(); ++wd)
        for (uint64_t x = mask[wd]; x; x &= x - 1) sum_interleaved += wd * 64 + uint64_t(__builtin_ctzll(x)) + 1;
    }
    const double t_interleaved = seconds_since(t0);

    // The same, 16 w-mers at a time: their rows prefetched before any is queried.
    t0 = std::chrono::steady_clock::now();
    uint64_t sum_batched = 0;
    constexpr uint64_t kBatch = 16;
    std::vector<uint32_t> hb(kBatch * kMaxHashes);
    for (uint64_t i0 = 0; i0 < lookups; i0 += kBatch) {
      const uint64_t end = std::min(lookups, i0 + kBatch);
      for (uint64_t i = i0; i < end; ++i) {
        h3.hash_all(keys[i], &hb[(i - i0) * kMaxHashes]);
        view.prefetch(&hb[(i - i0) * kMaxHashes], k);
      }
      for (uint64_t i = i0; i < end; ++i) {
        if (!view.query(&hb[(i - i0) * kMaxHashes], k, mask.data())) continue;
        for (uint32_t wd = 0; wd < ibf.words_per_row(); ++wd)
          for (uint64_t x = mask[wd]; x; x &= x - 1) sum_batched += wd * 64 + uint64_t(__builtin_ctzll(x)) + 1;
      }
    }
    const double t_batched = seconds_since(t0);
    if (sum_separate != sum_interleaved || sum_batched != sum_interleaved) {
      std::fprintf(stderr, "facs_ibf_lookup: the two layouts disagree at %u bins\n", bins);
      return 1;
    }
    const double ns_s = t_separate * 1e9 / double(lookups), ns_i = t_interleaved * 1e9 / double(lookups),
                 ns_b = t_batched * 1e9 / double(lookups);
    std::printf("%6u %10llu %3d %14.1f %16.1f %16.1f %8.1f\n", bins, static_cast<unsigned long long>(m), k, ns_s, ns_i,
                ns_b, ns_s / ns_b);
    out << bins << ',' << m << ',' << k << ',' << fill << ',' << lookups << ',' << ns_s << ',' << ns_i << ',' << ns_b
        << ',' << ns_s / ns_b << ',' << uint64_t(bins) * bloom_words(m) * 4 << ',' << ibf.size_bytes() << '\n';
  }
  std::printf("CSV: %s\n", csv.c_str());
  return 0;
}
