// One-pass classification of reads against many FACS filters.
//
// All filters share w and the H3 seed, and H3 function i is the same whatever k a filter uses, so every canonical
// w-mer of a read is hashed once with the largest k (kmax) and each filter is probed with its own first k hashes.
// Scoring runs one ReadScorer per (read, filter); the CPU driver interleaves the scorers of a group of reads:
// each step asks every active scorer for its next frame, hashes it (once per read and frame), prefetches the
// filter words it will probe, and only then tests the frames, so dozens of cache misses are in flight at once.
// The default case (FACS score, blocked filters) takes a lean path with the same scores and less work per
// lookup (lib/src/facs/lean_facs_path.cpp); the scorer machinery above serves the BioBloom score, classic
// filters and the backends. A set of interleaved groups (FilterSet::groups) takes the interleaved path
// (lib/src/facs/interleaved_path.cpp): one query per frame answers every filter of a group, so a read's cost
// hardly grows with the number of filters; its scores equal those of separate classic filters with the same bits.
#pragma once
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "bloomseq/bloom/blocked_bloom_view.hpp"
#include "bloomseq/bloom/bloom_view.hpp"
#include "bloomseq/bloom/group_router.hpp"
#include "bloomseq/bloom/interleaved_bloom_view.hpp"
#include "bloomseq/encode/dna.hpp"
#include "bloomseq/facs/error_model.hpp"
#include "bloomseq/facs/params.hpp"
#include "bloomseq/facs/read_scorer.hpp"
#include "bloomseq/hash/h3.hpp"
#include "bloomseq/io/filter_file.hpp"

namespace bloomseq {

class Backend;

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
  // f(j) for every filter j that read r passed, in filter order. Eight flags at a time: against 1,024 filters a
  // read passes one or none, and calls, summaries and outputs visit every read.
  template <class F>
  void for_each_passed(size_t r, F&& f) const {
    const uint8_t* p = passed.data() + r * filters;
    size_t j = 0;
    for (; j + 8 <= filters; j += 8) {
      uint64_t word;
      std::memcpy(&word, p + j, 8);
      if (!word) continue;
      for (size_t i = 0; i < 8; ++i)
        if (p[j + i]) f(j + i);
    }
    for (; j < filters; ++j)
      if (p[j]) f(j);
  }
  double score(size_t r, size_t j) const {
    return denominator[r] ? double(points[r * filters + j]) / double(denominator[r]) : 0.0;
  }
  // Score of the call (the best score), 0 when none passed.
  double best_score(size_t r) const;
  // Points of the call's score (best_score = best_points / denominator), 0 when none passed.
  int32_t best_points(size_t r) const;
};

struct ClassifierScratch;

class Classifier {
 public:
  // Keeps a reference to `set`, which must outlive the classifier. Throws UsageError on an empty set, a threshold
  // outside (0, 1] (0 allowed for the FACS score: the error model's) or an error rate outside [0, 0.5).
  // `device`: frame lookups on a library backend (backend/backend.hpp, e.g. the CUDA backend) instead of the CPU
  // path; the backend returns every frame's hit bit and the same scorers run on them, so calls and scores are
  // identical. Not owned; calls from several threads are serialised. nullptr (the default) = the CPU path.
  Classifier(const FilterSet& set, const ClassifyParams& params, Backend* device = nullptr);

  // Bits of hashes 1.. in a frame's hash head (lean path): scan frames, mostly misses, are tested on these first.
  static constexpr int kLeanHeadBits = 3;

  // Per-thread scratch memory, reused between batches; what it holds is the classifier's own business.
  class Workspace {
   public:
    Workspace();
    ~Workspace();
    Workspace(Workspace&&) noexcept;
    Workspace& operator=(Workspace&&) noexcept;

   private:
    friend class Classifier;
    std::unique_ptr<ClassifierScratch> scratch_;
  };

  // Scores and calls single reads.
  void classify(const std::string_view* reads, size_t n, BatchScores& out, Workspace& ws) const;
  // Scores and calls pairs: mate scores add up, a filter passes if both mates pass (PairMode::both) or either.
  void classify_pairs(const std::string_view* mates1, const std::string_view* mates2, size_t n, BatchScores& out,
                      Workspace& ws) const;

  const FilterSet& filters() const { return set_; }
  const ClassifyParams& params() const { return params_; }
  int max_hashes() const { return kmax_; }
  // The per-read-length threshold and quick step of the FACS score.
  const FacsErrorModel& error_model() const { return model_; }
  // Whether classify() takes the lean path for FACS scores on blocked filters (same scores as the generic
  // scorers; ClassifyParams::lean_path = false forces the generic path).
  bool uses_lean_path() const { return lean_ && !backend_; }

 private:
  // One scorer of one read against one filter, with where its lookup stands.
  struct Job {
    uint32_t read = 0;
    uint32_t filter = 0;
    int32_t frame = -1;   // frame being looked up
    int32_t from = 0;     // probes [from, stage) were prefetched and are tested next: 0-2, 2-4, 4-8, ...
    int32_t stage = 0;
    uint8_t* state = nullptr;
    const uint32_t* hashes = nullptr;
    ReadScorer scorer;
  };

  // One lookup of the quick pass: frame `slot` in `filter`, probes [from, to) prefetched.
  struct ProbeItem {
    uint32_t slot = 0;
    uint16_t filter = 0;
    uint8_t from = 0;
    uint8_t to = 0;
    uint8_t* state = nullptr;
  };

  // A full FACS scan of one read against one filter on the lean path, resumable (lean_facs_path.cpp).
  static constexpr int kScanWindow = 4;
  // Frames hashed and fetched ahead of a run of uncovered bases in a large filter (lean path).
  static constexpr int kScanAhead = 4;
  struct FastScan {
    uint32_t read = 0;
    uint32_t filter = 0;
    size_t state = 0;          // offset of its frame states in Workspace::states
    int32_t length = 0;        // L
    int32_t base = 0;          // first base whose coverage is undecided
    int32_t covered = 0;       // bases covered so far (the score)
    int32_t seen_misses_to = -1;  // after a base without a hit: frames up to here are known misses
    int32_t max_uncovered = 0;    // more uncovered bases cannot pass: the scan may stop (INT32_MAX: never)
    int32_t top = 0, stop = 0;    // the search for `base` goes from frame top down to stop + 1
    int32_t cursor = -1;          // frame the search stands at; -1 = no search under way
    int32_t pending = 0;          // frames in todo: hashed and prefetched, to be tested
    uint32_t tested = 0;          // frames looked up (statistics)
    int32_t ahead = -1;           // frames up to here were fetched ahead of a run of uncovered bases
    int32_t todo[kScanWindow] = {};
  };

  // Probes prefetched for a new lookup. A miss usually shows within the first two probes (fill ~1/2), so the
  // remaining k - 2 words are only fetched for lookups that pass them, in a second round.
  static constexpr int kFirstProbes = 2;
  using Scratch = ClassifierScratch;  // the workspace's contents (lib/src/facs/classifier_scratch.hpp)
  friend struct ClassifierScratch;

  // exact_failing = false: the lean path may stop a scan once the threshold is out of reach (points then exact
  // only for filters that pass).
  void score(const std::string_view* reads, size_t n, BatchScores& out, Scratch& ws, bool exact_failing) const;
  void score_on_backend(const std::string_view* reads, size_t n, BatchScores& out, Scratch& ws) const;
  void score_group(const std::string_view* reads, size_t n, int32_t* points, uint8_t* passed, int32_t* denom,
                   int32_t* valid_frames, uint64_t& lookups, Scratch& ws) const;
  void quick_pass(size_t n, uint64_t& lookups, Scratch& ws) const;
  // The interleaved path for one group of reads (lib/src/facs/interleaved_path.cpp).
  void score_group_interleaved(const std::string_view* reads, size_t n, int32_t* points, uint8_t* passed,
                               int32_t* denom, int32_t* valid_frames, uint64_t& lookups, Scratch& ws,
                               bool exact_failing) const;
  // Checks an interleaved set and lays out its columns (the groups' rows side by side, word by word).
  void set_up_interleaved();
  // Packs a group's reads (2 bits per base + N mask), sets frames, offsets and valid_frames.
  void pack_group(const std::string_view* reads, size_t n, int32_t* valid_frames, Scratch& ws) const;
  // The lean path for one group (lib/src/facs/lean_facs_path.cpp).
  void score_group_lean(const std::string_view* reads, size_t n, int32_t* points, uint8_t* passed, int32_t* denom,
                        int32_t* valid_frames, uint64_t& lookups, Scratch& ws, bool exact_failing) const;
  // Key of a frame and its hash lanes (false if the k-mer holds an N); lean path.
  // Canonical key of a frame from the packed read; false if the window holds an N (or IUPAC) base.
  bool frame_key(const Scratch& ws, size_t read, int frame, uint64_t& key) const;
  // Hashes a frame once for all filters (false if it holds an N): the head (hash 0 and the first bits, from a
  // small table), and all lanes if `full` (quick frames: every filter tests all their bits).
  bool hash_frame(Scratch& ws, size_t read, int frame, bool full) const;
  void hash_lanes(Scratch& ws, uint32_t entry) const;
  // Computes the key of a frame (false if it holds an N) and its first kFirstProbes hashes.
  bool hash_head(Scratch& ws, size_t read, int frame) const;
  // Extends the hashes of a frame whose head is done to at least the first `upto` functions.
  void hash_more(Scratch& ws, size_t slot, int upto) const;
  // Lookup of a frame whose head is hashed in a blocked filter (hashes the rest only if the first bit is set).
  bool blocked_contains(Scratch& ws, size_t slot, const ConstBloomView& v, int k) const;
  void copy_filters_to_huge_pages();
  void call(BatchScores& out, const std::vector<int32_t>& valid_frames) const;

  const FilterSet& set_;
  ClassifyParams params_;
  FacsErrorModel model_;
  Backend* backend_ = nullptr;
  std::unique_ptr<std::mutex> backend_mutex_ = std::make_unique<std::mutex>();
  int kmax_ = 0;
  H3Family family_;
  int key_bytes_ = 0;
  int tail_lanes_ = 0;                // 16 or 32 (fixed-length SIMD loop)
  std::vector<uint64_t> head_table_;  // [byte][value]: functions 0 and 1 packed in one word
  std::vector<uint64_t> mid_table_;   // [byte][value]: functions 2 and 3
  std::vector<uint32_t> tail_table_;  // [byte][value][tail_lanes]: functions 4 .. kmax - 1, zero padded
  std::vector<ConstBloomView> views_;
  std::vector<int> ks_;
  std::vector<uint8_t> blocked_;  // [filter]: BloomLayout::blocked512
  std::shared_ptr<uint32_t> arena_;  // the filters' bits, on huge pages where the system allows (views_ point here)
  // Lean path: byte-sliced H3 rows in 16-bit lanes: hash 0 in lanes 0-1, then the top 9 bits of hashes 1..kmax-1
  // (XOR commutes with taking bits; a bit inside a block needs only those 9), padded to lean_stride_ lanes.
  bool lean_ = false;
  int lean_stride_ = 16;
  std::vector<uint16_t> lean_table_;  // [byte][value][lean_stride_]
  std::vector<uint64_t> lean_head_table_;  // [byte][value]: the head of each row (12 KiB: stays in L1)
  std::vector<int> lean_ks_;          // the filters' distinct k, ascending (one block mask per frame for each)
  std::vector<uint32_t> lean_kidx_;   // [filter]: index of its k in lean_ks_
  // Interleaved sets: the groups' views (rows in arena_), and the columns: word c of a frame's answer is word
  // c - first_word of its group's row; bit b of column word c is filter column_filter_[64 c + b] (-1: padding).
  struct IbfGroup {
    ConstInterleavedBloomView view;
    int k = 0;
    uint32_t first_word = 0;
  };
  bool interleaved_ = false;
  std::vector<IbfGroup> ibf_groups_;
  // Group routers (bloom/group_router.hpp): a frame hits a bin only where its group's router admits it. Groups no
  // router covers are always admitted (unrouted_groups_); with a router, a set has at most 64 groups in all.
  struct IbfRouter {
    ConstGroupRouterView view;
    uint32_t first_group = 0;
  };
  std::vector<IbfRouter> ibf_routers_;
  H3Family router_family_;
  uint64_t unrouted_groups_ = ~uint64_t(0);
  // The groups (bit g) the routers admit for a canonical k-mer.
  uint64_t route_key(uint64_t key) const;
  uint32_t ibf_words_ = 0;
  std::vector<uint32_t> word_group_;     // [column word]: its group
  std::vector<int32_t> column_filter_;   // [column bit]
  std::vector<uint64_t> all_columns_;    // [column word]: the bits that are filters (BioBloom scores them all)
  std::vector<uint8_t> big_;          // [filter]: larger than a core's cache share, worth a prefetch
  std::vector<uint32_t> big_filters_; // the filters with big_ set
};

}  // namespace bloomseq
