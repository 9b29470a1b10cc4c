// What sequencing errors do to a read's k-mers, and the two per-read-length rules of the FACS score that follow.
//
// Model: each base of a read from a present reference is wrong (a substitution, or an N) independently with
// probability e (--error-rate). A wrong base destroys the w frames (k-mers) that contain it, so a base stays
// covered exactly when it lies in an error-free run of at least w bases: the covered bases C of a read of length L
// are the bases of its maximal error-free runs of length >= w. From the distribution of C, with kMiss = 0.5% and
// kQuickMiss = 1% (the shares of such reads the threshold and the quick pass may lose):
//  - threshold: a read is called to a filter when it covers at least the kMiss quantile of C, less the bases its
//    N's already leave uncoverable (an N is an error whose place is known), but never fewer than w + 1 bases: one
//    k-mer alone (a Bloom-filter false positive, or a single k-mer shared by chance) never makes a call. One error
//    costs a short read a larger share of its bases than a long one, so the threshold, as a fraction of L, grows
//    with L (e = 1%: 0.43 at 75 bases, 0.54 at 100, 0.67 at 150, 0.77 at 250).
//  - quick density: the quick pass looks at frames 0, w, 2w, ... and the last one; a read none of whose quick
//    frames is error-free scores 0 (FACS). Density d adds d - 1 evenly spaced frames between FACS's (read_scorer.hpp).
//    d = 1 (FACS's frames) unless that loses more than kQuickMiss of the reads; then the smallest d that does not (at
//    e = 1% only reads of 60 bases or fewer: the lookups of the usual case do not change).
// Both rules are tabulated per classifier for lengths up to kMaxTabulated, on first use and only as far as the
// reads need (lengths up to 128 first, then doubling: a process classifying 100-bp reads spends ~1.5 ms here
// instead of the ~27 ms the whole table takes, which every shard of a sharded run would pay);
// longer reads take the threshold fraction of the last length (lower than their own quantile: the fraction only
// grows with L) and s = w.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace bloomseq {

constexpr double kFacsDefaultErrorRate = 0.01;  // Illumina: 0.1-1% per base on average, more toward the 3' end

class FacsErrorModel {
 public:
  // 0.5%: at 1% the threshold lost 0.9% of 100-bp reads with 1% errors (kraken2 0.1%); 0.25% lost 0.25% but
  // called 40% more 75-bp reads of an absent relative and took 19% longer against 1,024 references (the sweep
  // is in docs/benchmarks.md). The quick pass keeps 1%: denser frames for 72-bp reads cost 5% of the time.
  static constexpr double kMiss = 0.005;
  static constexpr double kQuickMiss = 0.01;
  static constexpr int32_t kMaxTabulated = 1000;

  // `fixed_fraction` > 0: a read passes with covered >= fixed_fraction * L instead (-s); the quick density still
  // follows the error model.
  FacsErrorModel(int w, double error_rate, double fixed_fraction = 0);

  // The fewest covered bases that pass, for a read of length L of which `uncoverable` bases lie outside N-free
  // runs of w bases (>= 1: nothing covered never passes). A fixed fraction ignores the N's, as FACS does.
  int32_t min_covered(int32_t L, int32_t uncoverable = 0) const;
  // Quick frames per w frames for a read of length L (1..w).
  int32_t quick_density(int32_t L) const {
    if (L < 0 || L > kMaxTabulated) return 1;
    return tables_->density[std::size_t(tabulated(L))];
  }
  int w() const { return w_; }
  double error_rate() const { return e_; }
  double fixed_fraction() const { return fixed_; }

  // Counts a read's uncoverable bases, base by base: those outside runs of >= w bases without N.
  struct Uncoverable {
    int w = 0;
    int32_t run = 0, total = 0;
    explicit Uncoverable(int word_size) : w(word_size) {}
    void push(bool valid) {
      if (valid) {
        ++run;
        return;
      }
      total += (run < w ? run : 0) + 1;
      run = 0;
    }
    int32_t finish() const { return total + (run < w ? run : 0); }
  };

  // P(C = c) for c = 0..L under the model.
  static std::vector<double> covered_distribution(int L, int w, double e);
  // P(no quick frame of a read of length L, density d, is error-free).
  static double quick_pass_miss(int L, int w, double e, int d);

 private:
  // Entries [0, filled) are final and never written again; growing them is serialised by `grow`.
  struct Tables {
    std::vector<int32_t> need;     // [L]: min_covered by the model (unused with a fixed fraction)
    std::vector<int32_t> density;  // [L]
    std::atomic<int32_t> filled{0};
    std::mutex grow;
  };
  // L itself, once the tables hold it (filling them up to a bound past L when they do not yet).
  int32_t tabulated(int32_t L) const {
    if (L >= tables_->filled.load(std::memory_order_acquire)) fill_to(L);
    return L;
  }
  void fill_to(int32_t L) const;

  int w_;
  double e_;
  double fixed_;
  std::shared_ptr<Tables> tables_;  // shared by copies: the same function of (w, e, fixed)
};

}  // namespace bloomseq
