// One-pass classification of reads against many FACS filters.
//
// All filters share w and the H3 seed, and H3 function i is the same whatever k a filter uses, so every canonical
// w-mer of a read is hashed once with the largest k (kmax) and each filter is probed with its own first k hashes.
// Scoring runs one ReadScorer per (read, filter); the CPU driver interleaves the scorers of a group of reads:
// each step asks every active scorer for its next frame, hashes it (once per read and frame), prefetches the
// filter words it will probe, and only then tests the frames, so dozens of cache misses are in flight at once.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "bloomseq/bloom/bloom_view.hpp"
#include "bloomseq/facs/params.hpp"
#include "bloomseq/facs/read_scorer.hpp"
#include "bloomseq/hash/h3.hpp"
#include "bloomseq/io/filter_file.hpp"

namespace bloomseq {

// What a read (or a pair) was called.
constexpr int32_t kCallNovel = -1;     // no filter reached the threshold
constexpr int32_t kCallTie = -2;       // several filters share the best score
constexpr int32_t kCallUnscored = -3;  // no complete k-mer (shorter than w, or N everywhere): counted as noMatch

// Scores of a batch: per read and filter, points / denominator is the score (FACS: covered bases / L;
// BioBloom: half points / 2F); the denominator is the same for every filter of a read, so points compare.
struct BatchScores {
  size_t reads = 0;
  size_t filters = 0;
  std::vector<int32_t> points;    // [read * filters + filter]
  std::vector<uint8_t> passed;    // [read * filters + filter]
  std::vector<int32_t> denominator;  // [read]
  std::vector<int32_t> call;         // [read]: filter index or kCall*
  std::vector<int32_t> matched;      // [read]: filters that passed the threshold
  uint64_t lookups = 0;              // frame lookups (for statistics)

  void resize(size_t n, size_t f);
  double score(size_t r, size_t j) const {
    return denominator[r] ? double(points[r * filters + j]) / double(denominator[r]) : 0.0;
  }
  // Score of the call (the best score), 0 when none passed.
  double best_score(size_t r) const;
};

class Classifier {
 public:
  // Keeps a reference to `set`, which must outlive the classifier. Throws UsageError on an empty set or
  // (for the BioBloom score) a threshold outside (0, 1].
  Classifier(const FilterSet& set, const ClassifyParams& params);

  // Per-thread scratch memory, reused between batches.
  struct Workspace {
    std::vector<uint64_t> keys;
    std::vector<uint8_t> valid;
    std::vector<uint32_t> hashes;
    std::vector<uint8_t> hashed;
    std::vector<uint8_t> states;
    std::vector<size_t> frame_offset;
    std::vector<int32_t> frames;
    std::vector<int32_t> valid_frames;
    std::vector<uint32_t> active;
    std::vector<int32_t> pending;
    std::vector<ReadScorer> scorers;
    BatchScores mate_scores;
  };

  // Scores and calls single reads.
  void classify(const std::string_view* reads, size_t n, BatchScores& out, Workspace& ws) const;
  // Scores and calls pairs: mate scores add up, a filter passes if both mates pass (PairMode::both) or either.
  void classify_pairs(const std::string_view* mates1, const std::string_view* mates2, size_t n, BatchScores& out,
                      Workspace& ws) const;

  const FilterSet& filters() const { return set_; }
  const ClassifyParams& params() const { return params_; }
  int max_hashes() const { return kmax_; }

 private:
  void score(const std::string_view* reads, size_t n, BatchScores& out, Workspace& ws) const;
  void score_group(const std::string_view* reads, size_t n, int32_t* points, uint8_t* passed, int32_t* denom,
                   int32_t* valid_frames, uint64_t& lookups, Workspace& ws) const;
  void call(BatchScores& out, const std::vector<int32_t>& valid_frames) const;

  const FilterSet& set_;
  ClassifyParams params_;
  int kmax_ = 0;
  H3Family family_;
  H3ByteView hash_;
  std::vector<ConstBloomView> views_;
  std::vector<int> ks_;
};

}  // namespace bloomseq
