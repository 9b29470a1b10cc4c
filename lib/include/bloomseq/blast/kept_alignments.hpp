// The alignments stage 3 keeps for its containment tests, as blastn's interval tree (blast_itree.c) keeps them:
// which alignment a new one is skipped for (s_HSPIsContained), and which a new one replaces or is refused beside
// when they share a start or an end (BlastIntervalTreeAddHSP with eQueryAndSubject).
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <unordered_map>
#include <utility>
#include <vector>

namespace bloomseq {

struct AlignmentBox {
  int64_t q_start, q_end, s_start, s_end;  // half-open
  int64_t score;
  int64_t q_gapped = 0, s_gapped = 0;  // where the final alignment starts looking
};

// BLAST's containment test (s_HSPIsContained): both ends of `in` inside `by`'s query and subject ranges (ends
// inclusive), a score no higher, and its start or its end within `separation` diagonals of `by`'s start or end
// (alignments on distant diagonals, such as repeats inside a long self-match, are kept). blastn's
// min_diag_separation is 50 for -task blastn and 6 for megablast.
constexpr int64_t kMinDiagSeparation = 50;
constexpr int64_t kMegablastMinDiagSeparation = 6;
inline bool alignment_contained(const AlignmentBox& in, const AlignmentBox& by,
                                int64_t separation = kMinDiagSeparation) {
  if (!(in.score <= by.score && by.q_start <= in.q_start && in.q_start <= by.q_end && by.s_start <= in.s_start &&
        in.s_start <= by.s_end && by.q_start <= in.q_end && in.q_end <= by.q_end && by.s_start <= in.s_end &&
        in.s_end <= by.s_end))
    return false;
  auto close = [separation](int64_t q1, int64_t s1, int64_t q2, int64_t s2) {
    const int64_t d = (q1 - s1) - (q2 - s2);
    return (d < 0 ? -d : d) < separation;
  };
  return close(by.q_start, by.s_start, in.q_start, in.s_start) || close(by.q_end, by.s_end, in.q_end, in.s_end);
}

// Of two alignments sharing a start (or an end), the one BLAST's interval tree keeps (s_HSPsHaveCommonEndpoint): the
// higher score, then the shorter in the query, then the shorter in the subject, then the one already kept.
inline bool replaces_at_endpoint(const AlignmentBox& in, const AlignmentBox& kept) {
  if (in.score != kept.score) return in.score > kept.score;
  if (in.q_end - in.q_start != kept.q_end - kept.q_start) return in.q_end - in.q_start < kept.q_end - kept.q_start;
  return in.s_end - in.s_start < kept.s_end - kept.s_start;
}

// The alignments kept for containment tests, as BLAST's interval tree keeps them (BlastIntervalTreeAddHSP with
// eQueryAndSubject): an alignment sharing its start or its end with a better one is not kept, and one it beats is
// dropped (at most one kept alignment has a given start, and one a given end). So an alignment that ran into a
// better one and ended where it ends contains nothing: a repeat's copy next to a self-match is still traced.
// Indexed by the band of `separation` diagonals of their start and of their end: a container's start or end lies
// within that many diagonals of the tested alignment's, so only the neighbouring bands need looking at.
class KeptAlignments {
 public:
  explicit KeptAlignments(int64_t separation = kMinDiagSeparation) : separation_(separation) {}
  void add(const AlignmentBox& b) {
    const auto s = by_start_point_.find(point(b.q_start, b.s_start));
    if (s != by_start_point_.end()) {
      if (!replaces_at_endpoint(b, boxes_[s->second])) return;
      drop(s->second);
    }
    const auto e = by_end_point_.find(point(b.q_end, b.s_end));
    if (e != by_end_point_.end()) {
      if (!replaces_at_endpoint(b, boxes_[e->second])) return;
      drop(e->second);
    }
    const size_t i = boxes_.size();
    boxes_.push_back(b);
    live_.push_back(true);
    by_start_point_[point(b.q_start, b.s_start)] = i;
    by_end_point_[point(b.q_end, b.s_end)] = i;
    by_start_[band(b.q_start - b.s_start)].push_back(i);
    const int64_t end_band = band(b.q_end - b.s_end);
    if (end_band != band(b.q_start - b.s_start)) by_end_[end_band].push_back(i);
  }
  bool contains(const AlignmentBox& in) const {
    for (const int64_t d : {in.q_start - in.s_start, in.q_end - in.s_end})
      for (int64_t k = band(d) - 1; k <= band(d) + 1; ++k)
        for (const auto* map : {&by_start_, &by_end_}) {
          const auto it = map->find(k);
          if (it == map->end()) continue;
          for (size_t i : it->second)
            if (live_[i] && alignment_contained(in, boxes_[i], separation_)) return true;
        }
    return false;
  }

 private:
  struct PointHash {
    size_t operator()(const std::pair<int64_t, int64_t>& p) const {
      return std::hash<int64_t>()(p.first * 1000003 ^ p.second);
    }
  };
  using PointMap = std::unordered_map<std::pair<int64_t, int64_t>, size_t, PointHash>;
  static std::pair<int64_t, int64_t> point(int64_t q, int64_t s) { return {q, s}; }
  void drop(size_t i) {
    live_[i] = false;
    by_start_point_.erase(point(boxes_[i].q_start, boxes_[i].s_start));
    by_end_point_.erase(point(boxes_[i].q_end, boxes_[i].s_end));
  }
  int64_t band(int64_t diagonal) const {
    return diagonal >= 0 ? diagonal / separation_ : -((-diagonal + separation_ - 1) / separation_);
  }
  int64_t separation_;
  std::vector<AlignmentBox> boxes_;
  std::vector<bool> live_;
  std::unordered_map<int64_t, std::vector<size_t>> by_start_, by_end_;
  PointMap by_start_point_, by_end_point_;
};

}  // namespace bloomseq
