// A small program outside the tools that uses only bloomseq's public API (<bloomseq/bloomseq.hpp>):
// it puts a reference's canonical k-mers into one Bloom filter sized for a target false-positive rate, then
// prints, for every read, how many of its k-mers the filter contains.
//
//   kmer_screen REFERENCE.fa[.gz] READS.fq[.gz] [k]
//
// Output: a header line, then one tab-separated line per read: name, k-mers, k-mers found, fraction found.
#include <bloomseq/bloomseq.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

// Calls f(canonical k-mer) for every k-mer of `seq` without an ambiguous base.
template <class F>
void for_each_canonical_kmer(const std::string& seq, int k, F&& f) {
  bloomseq::WmerRoller roller(k);
  for (char c : seq) {
    if (roller.push(bloomseq::base_code(c))) f(bloomseq::canonical_wmer(roller.fwd, roller.rc));
  }
}

int run(const std::string& reference, const std::string& reads, int k) {
  // Pass 1: count the reference's k-mers (an upper bound on the distinct ones) to size the filter.
  uint64_t n_kmers = 0;
  bloomseq::SequenceRecord rec;
  {
    bloomseq::SequenceReader in(reference);
    while (in.next(rec)) for_each_canonical_kmer(rec.seq, k, [&](uint64_t) { ++n_kmers; });
  }
  const double target_fpr = 1e-3;
  const uint64_t m_bits = bloomseq::bits_for_fpr(n_kmers ? n_kmers : 1, target_fpr);
  const int n_hashes = bloomseq::optimal_hashes(n_kmers ? n_kmers : 1, m_bits);
  const bloomseq::H3Family hashes(n_hashes, k, /*seed=*/42);
  const bloomseq::H3ByteView h3 = hashes.byte_view();
  bloomseq::BloomVector filter(m_bits);

  // Pass 2: insert.
  uint32_t h[bloomseq::kMaxHashes];
  {
    bloomseq::SequenceReader in(reference);
    while (in.next(rec)) {
      for_each_canonical_kmer(rec.seq, k, [&](uint64_t key) {
        h3.hash_all(key, h);
        filter.insert(h, n_hashes);
      });
    }
  }
  std::fprintf(stderr, "kmer_screen (bloomseq %s): %llu k-mers, %llu bits, %d hash functions, modelled FPR %.2g\n",
               bloomseq::version(), static_cast<unsigned long long>(n_kmers),
               static_cast<unsigned long long>(m_bits), n_hashes,
               bloomseq::expected_fpr(n_kmers, m_bits, n_hashes));

  // Screen the reads.
  std::printf("read\tkmers\tfound\tfraction\n");
  bloomseq::SequenceReader in(reads);
  while (in.next(rec)) {
    uint64_t total = 0, found = 0;
    for_each_canonical_kmer(rec.seq, k, [&](uint64_t key) {
      h3.hash_all(key, h);
      ++total;
      found += filter.contains(h, n_hashes) ? 1 : 0;
    });
    std::printf("%s\t%llu\t%llu\t%.4f\n", rec.name.c_str(), static_cast<unsigned long long>(total),
                static_cast<unsigned long long>(found), total ? double(found) / double(total) : 0.0);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3 || argc > 4) {
    std::fprintf(stderr, "usage: kmer_screen REFERENCE.fa READS.fq [k (default 25)]\n");
    return 64;
  }
  const int k = argc == 4 ? std::atoi(argv[3]) : 25;
  if (k < 1 || k > 32) {
    std::fprintf(stderr, "kmer_screen: k must be 1..32, got '%s'\n", argv[3]);
    return 64;
  }
  try {
    return run(argv[1], argv[2], k);
  } catch (const bloomseq::Error& e) {
    std::fprintf(stderr, "kmer_screen: %s\n", e.what());
    return static_cast<int>(e.code());
  }
}
