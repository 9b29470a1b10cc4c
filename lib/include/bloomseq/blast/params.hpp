// Parameters of the blast-bloom pipeline. Plain values so that a planner (the performance model) or the CLI can
// choose them; nothing here is derived behind the caller's back except where a field says "0 = automatic".
#pragma once
#include <cstdint>
#include <string>

#include "bloomseq/hash/h3.hpp"

namespace bloomseq {

// How stage 1a tests database w-mers against the sub-query vectors.
enum class Stage1aLayout {
  automatic,  // bit-sliced when there are many vectors, vector-by-vector otherwise
  vector,     // the paper's layout: one m-bit vector per sub-query, hashes shared across vectors
  bitsliced,  // rows = bit positions, columns = sub-queries: k row reads answer all sub-queries at once
  naive,      // the paper's loop with the k hashes recomputed for every (w-mer, vector) test (baseline only)
};

Stage1aLayout parse_layout(const std::string& name);  // "auto" | "vector" | "bitsliced" | "naive"; UsageError otherwise
const char* layout_name(Stage1aLayout layout);

struct BlastParams {
  int w = 11;                    // word size (1..32)
  uint64_t n_sub = 1000;         // sub-query length in bases (sub-queries overlap by w-1)
  int k = 6;                     // hash functions per vector
  uint64_t m_bits = 256 * 1024;  // bits per sub-query vector
  uint64_t seed = kDefaultH3Seed;
  Stage1aLayout layout = Stage1aLayout::automatic;
  int threads = 1;
  uint64_t chunk_bases = uint64_t(1) << 16;  // stage-1a/1b work unit (database bases per chunk)
  uint64_t batch_bases = uint64_t(64) << 20; // database records held in memory at once (whole records)
  int reward = 1;
  int penalty = -2;
  double xdrop_bits = 20.0;  // ungapped X-drop in bits (blastn -xdrop_ungap)
  double evalue = 10.0;
  // Stage 1a normally tests every database w-mer (the paper's scheme; what stage-1a/1b outputs report). When only
  // HSPs are wanted, a shorter probe word of probe_word bases tested at every s-th database position only, s = w -
  // probe_word + 1, finds every exact w-mer match too (each contains one such probe), s times fewer tests; stage 1b
  // then recovers exactly the same seeds by extending each probe match along its diagonal (strided_seeds.hpp).
  // 0 = off. The Bloom vectors, sub-queries and stage-1a/1b statistics are then those of the probe word.
  int probe_word = 0;

  // Throws UsageError naming the offending value.
  void validate() const;
};

// The probe word blast-bloom uses for HSP-only searches with word size w (0: test every w-mer): 16-mers, which
// match by chance about once per 2^32 / (2 x query length) probes, when that gives a stride of at least 5.
int default_probe_word(int w);

// The sub-query length the CPU pipeline uses when none is given (BlastParams::n_sub stays the papers' 1000, which
// the GPU kernel keeps). Fewer, longer sub-queries mean fewer bit-sliced columns per database w-mer at a higher FPR;
// stage 1b checks a hit with one lookup in the direct query index, but with probe words (probe_word > 0) it scans
// the named sub-query, so there the hits' cost grows with n_sub. Measured: docs/benchmarks.md.
uint64_t default_cpu_sub_query(int probe_word);

// The CPU layout actually used when `requested` may be automatic.
Stage1aLayout resolve_layout(Stage1aLayout requested);

}  // namespace bloomseq
