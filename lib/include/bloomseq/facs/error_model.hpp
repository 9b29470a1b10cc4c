// What sequencing errors do to a read's k-mers, and the two per-read-length rules of the FACS score that follow.
//
// Model: each base of a read from a present reference is wrong (a substitution, or an N) independently with
// probability e (--error-rate). A wrong base destroys the w frames (k-mers) that contain it, so a base stays
// covered exactly when it lies in an error-free run of at least w bases: the covered bases C of a read of length L
// are the bases of its maximal error-free runs of length >= w. From the distribution of C:
//  - threshold: a read is called to a filter when it covers at least the kThresholdMiss quantile of C (so at most
//    0.1% of such reads fall below it), but never fewer than w + 1 bases: one k-mer alone (a Bloom-filter false
//    positive, or a single k-mer shared by chance) never makes a call. One error costs a short read a larger share
//    of its bases than a long one, so the threshold, as a fraction of L, grows with L.
//  - quick step: the quick pass looks at frames 0, s, 2s, ... and the last one; a read none of whose quick frames
//    is error-free scores 0 (FACS). s = w (FACS's non-overlapping frames) unless that loses more than
//    kQuickMiss of the reads; then the largest s that does not (short reads only: a 150-base read keeps s = w
//    up to e = 2.5%, so the lookups of the usual case do not change).
// Both rules are tabulated once per classifier for lengths up to kMaxTabulated; longer reads take the threshold
// fraction of that length (lower than their own quantile: the fraction only grows with L) and s = w.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace bloomseq {

constexpr double kFacsDefaultErrorRate = 0.01;  // Illumina: 0.1-1% per base on average, more toward the 3' end

class FacsErrorModel {
 public:
  static constexpr double kThresholdMiss = 0.001;
  static constexpr double kQuickMiss = 0.005;
  static constexpr int32_t kMaxTabulated = 1000;

  // `fixed_fraction` > 0: a read passes with covered >= fixed_fraction * L instead (-s); the quick step still
  // follows the error model.
  FacsErrorModel(int w, double error_rate, double fixed_fraction = 0);

  // The fewest covered bases that pass, for a read of length L (>= 1: nothing covered never passes).
  int32_t min_covered(int32_t L) const;
  // The spacing of the quick frames for a read of length L (1..w).
  int32_t quick_step(int32_t L) const {
    return L >= 0 && L < int32_t(step_.size()) ? step_[std::size_t(L)] : w_;
  }
  int w() const { return w_; }
  double error_rate() const { return e_; }
  double fixed_fraction() const { return fixed_; }

  // P(C = c) for c = 0..L under the model.
  static std::vector<double> covered_distribution(int L, int w, double e);
  // P(no quick frame of a read of length L, step s, is error-free).
  static double quick_pass_miss(int L, int w, double e, int s);

 private:
  int w_;
  double e_;
  double fixed_;
  std::vector<int32_t> need_;  // [L]: min_covered by the model
  std::vector<int32_t> step_;  // [L]
};

}  // namespace bloomseq
