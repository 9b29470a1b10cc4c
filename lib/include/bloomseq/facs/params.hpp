// Parameters of filter building and classification, as plain structs so that a planner (the performance model)
// can fill them in, and so that the JSON report can print exactly what a run used.
#pragma once
#include <cstdint>
#include <string>

#include "bloomseq/bloom/blocked_bloom_view.hpp"
#include "bloomseq/facs/error_model.hpp"
#include "bloomseq/facs/read_scorer.hpp"
#include "bloomseq/hash/h3.hpp"

namespace bloomseq {

// Defaults chosen by measurement (docs/benchmarks.md, "facs" section).
constexpr int kFacsDefaultWordSize = 21;
constexpr double kFacsDefaultFpr = 5e-4;
constexpr double kBioBloomDefaultThreshold = 0.15;  // BioBloom Tools' default s

enum class KmerCount : uint8_t {
  exact,        // sort + unique of all canonical k-mers: exact, 8 bytes per k-mer of memory
  hyperloglog,  // HyperLogLog estimate (2^14 registers, ~1% error): constant memory
};

struct BuildParams {
  int w = kFacsDefaultWordSize;
  double fpr = kFacsDefaultFpr;  // target false-positive rate per k-mer lookup
  // --fpr was given: an interleaved set keeps it instead of interleaved_default_fpr (interleaved_builder.hpp).
  bool fpr_given = false;
  int hashes = 0;                // 0 = optimal for the size
  uint64_t m_bits = 0;           // 0 = sized from the distinct k-mer count and fpr
  bool per_record = false;       // one filter per FASTA record instead of per file
  KmerCount count = KmerCount::exact;
  uint64_t seed = kDefaultH3Seed;
  // Blocked by default: one cache line per k-mer lookup instead of k (docs/facs.md, "Filter layout").
  BloomLayout layout = BloomLayout::blocked512;
  // One interleaved Bloom filter per group of similar-sized references instead of one filter each (--layout
  // interleaved; classic bins, `layout` is ignored): a lookup answers every reference of a group at once.
  bool interleaved = false;
  // An interleaved set's group router (bloom/group_router.hpp): 1 on, 0 off, -1 auto (on for more than
  // kRouterFromReferences references in several size groups: run_build_filter decides, interleaved_builder.hpp).
  int group_router = -1;
};

enum class PairMode : uint8_t {
  both,    // a pair matches a filter only if both mates do (BioBloom -e)
  either,  // one mate is enough (BioBloom -e -i)
};

struct ClassifyParams {
  ScoreKind score = ScoreKind::facs;
  // FACS: 0 = the error model's threshold for each read length (facs/error_model.hpp), or a fixed fraction of
  // the read's bases (-s); BioBloom: s.
  double threshold = 0;
  double error_rate = kFacsDefaultErrorRate;  // expected sequencing errors per base (FACS score)
  PairMode pair_mode = PairMode::both;
  int threads = 1;
  uint64_t batch_bases = uint64_t(1) << 21;  // bases per batch handed to a worker
  // --batch-bases given: kept as it is. Otherwise, on the CPU, a set of more than 64 filters gets proportionally
  // fewer bases per batch (classify_batch_bases): a batch's reads x filters scores and its time grow with the filters.
  bool batch_bases_given = false;
  int group_reads = 32;                      // reads scored together to overlap memory latency
  // FACS score on blocked filters: a specialised path with the same scores (false = the generic scorers).
  bool lean_path = true;
  // Whether a filter's points must be exact even when it fails the threshold (per-filter score columns, or a
  // pair in PairMode::either, where a failing mate's points still add up). false lets the lean path stop a full
  // scan once the threshold is out of reach: calls, passing scores and the summary are the same.
  bool exact_failing_points = true;
};

const char* score_kind_name(ScoreKind k);
const char* pair_mode_name(PairMode m);

}  // namespace bloomseq
