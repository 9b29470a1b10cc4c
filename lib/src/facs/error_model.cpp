#include "bloomseq/facs/error_model.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>

#include "bloomseq/error.hpp"
#include "bloomseq/facs/read_scorer.hpp"

namespace bloomseq {
namespace {

// Runs the covered-bases recurrence for lengths 1..L_max and hands each length's distribution P(C = c),
// c = 0..L, to `each`. State: the length r of the current error-free run (r = w: at least w, already covered) and
// the bases covered so far; a run becomes covered, all w of its bases, when it reaches w.
void covered_distributions(int L_max, int w, double e, const std::function<void(int, const std::vector<double>&)>& each) {
  const size_t width = size_t(L_max) + 1;
  std::vector<double> d(size_t(w + 1) * width, 0.0), n(d.size());
  std::vector<double> dist;
  d[0] = 1.0;
  for (int L = 1; L <= L_max; ++L) {
    std::fill(n.begin(), n.end(), 0.0);
    const size_t top = size_t(L - 1);  // covered counts reachable before this base
    for (int r = 0; r <= w; ++r) {
      const double* dr = d.data() + size_t(r) * width;
      for (size_t c = 0; c <= top; ++c) {
        const double p = dr[c];
        if (p == 0.0) continue;
        n[c] += e * p;  // a wrong base ends the run
        if (r < w - 1) n[size_t(r + 1) * width + c] += (1 - e) * p;
        else if (r == w - 1) n[size_t(w) * width + c + size_t(w)] += (1 - e) * p;
        else n[size_t(w) * width + c + 1] += (1 - e) * p;
      }
    }
    d.swap(n);
    dist.assign(size_t(L) + 1, 0.0);
    for (int r = 0; r <= w; ++r)
      for (size_t c = 0; c <= size_t(L); ++c) dist[c] += d[size_t(r) * width + c];
    each(L, dist);
  }
}

}  // namespace

std::vector<double> FacsErrorModel::covered_distribution(int L, int w, double e) {
  std::vector<double> out(size_t(std::max(L, 0)) + 1, 0.0);
  if (L <= 0) {
    out[0] = 1.0;
    return out;
  }
  covered_distributions(L, w, e, [&](int len, const std::vector<double>& dist) {
    if (len == L) out = dist;
  });
  return out;
}

double FacsErrorModel::quick_pass_miss(int L, int w, double e, int d) {
  const int F = L - w + 1;
  if (F <= 0) return 1.0;
  std::vector<int> q;
  for (int f = 0; f < F; f = FacsScorer::next_quick_frame(f, F, w, d)) q.push_back(f);
  const size_t nq = q.size();
  // State j: quick frames before j hold an error, j and later none yet. A frame that ends error-free hits (the
  // read survives the quick pass): its probability leaves the recurrence. State nq: every quick frame is hit.
  std::vector<double> st(nq + 1, 0.0), next(nq + 1, 0.0);
  st[0] = 1.0;
  size_t lo = 0, started = 0;  // live states: lo..started (frames before lo ended), and nq
  for (int p = 0; p < L; ++p) {
    while (lo < nq && q[lo] + w - 1 < p) st[lo++] = 0.0;  // frame lo ended without an error: a hit
    while (started < nq && q[started] <= p) ++started;     // frames that contain p: those from j up to here
    for (size_t j = lo; j <= std::min(started, nq - 1); ++j) next[j] = 0.0;
    next[nq] = st[nq];
    for (size_t j = lo; j <= std::min(started, nq - 1); ++j) {
      const double pr = st[j];
      if (pr == 0.0) continue;
      next[std::max(j, started)] += pr * e;
      next[j] += pr * (1 - e);
    }
    for (size_t j = lo; j <= std::min(started, nq - 1); ++j) st[j] = next[j];
    st[nq] = next[nq];
  }
  return st[nq];
}

FacsErrorModel::FacsErrorModel(int w, double error_rate, double fixed_fraction)
    : w_(w), e_(error_rate), fixed_(fixed_fraction) {
  if (w < 1) throw UsageError("k-mer size must be positive, got " + std::to_string(w));
  if (!(error_rate >= 0.0 && error_rate < 0.5))
    throw UsageError("error rate must be in [0, 0.5), got " + std::to_string(error_rate));
  if (!(fixed_fraction >= 0.0 && fixed_fraction <= 1.0))
    throw UsageError("score threshold must be in (0, 1], got " + std::to_string(fixed_fraction));
  tables_ = std::make_shared<Tables>();
  tables_->need.assign(size_t(kMaxTabulated) + 1, 1);
  tables_->density.assign(size_t(kMaxTabulated) + 1, 1);
}

void FacsErrorModel::fill_to(int32_t L) const {
  Tables& t = *tables_;
  std::lock_guard<std::mutex> lock(t.grow);
  const int32_t from = t.filled.load(std::memory_order_relaxed);
  if (L < from) return;  // another thread filled it meanwhile
  // Lengths up to 128 at first, then at least doubling: the cost of the recurrences grows as L^2.
  const int32_t to = std::min<int32_t>(kMaxTabulated, std::max<int32_t>({L, 2 * from, 128}));
  for (int32_t n = std::max<int32_t>(from, w_); n <= to; ++n) {
    int d = 1;
    while (d < w_ && quick_pass_miss(n, w_, e_, d) > kQuickMiss) ++d;
    t.density[size_t(n)] = d;
  }
  if (fixed_ == 0) {
    // The recurrence runs from length 1 each time (entries below `from` come out the same and are not written).
    covered_distributions(to, w_, e_, [&](int n, const std::vector<double>& dist) {
      if (n < from) return;
      // The smallest c with P(C <= c) > kMiss: P(C < c) <= kMiss.
      double below = 0.0;
      int32_t c = 0;
      while (c < n && below + dist[size_t(c)] <= kMiss) below += dist[size_t(c++)];
      t.need[size_t(n)] = c;
    });
  }
  t.filled.store(to + 1, std::memory_order_release);
}

int32_t FacsErrorModel::min_covered(int32_t L, int32_t uncoverable) const {
  if (L <= 0) return 1;
  if (fixed_ > 0) {  // covered >= fixed * L, as an integer (the same double comparison the scorers made)
    const double need = fixed_ * double(L);
    int32_t p = int32_t(std::min<double>(std::ceil(need), double(L) + 1));
    while (p > 0 && double(p - 1) >= need) --p;
    while (p <= L && double(p) < need) ++p;
    return std::max<int32_t>(p, 1);
  }
  int32_t quantile = 0;
  if (L <= kMaxTabulated) {
    quantile = tables_->need[size_t(tabulated(L))];
  } else {
    const int32_t L_max = kMaxTabulated;
    quantile = int32_t(std::floor(double(tables_->need[size_t(tabulated(L_max))]) / double(L_max) * double(L)));
  }
  return std::max<int32_t>(1, std::min<int32_t>(L, std::max<int32_t>(quantile - uncoverable, w_ + 1)));
}

}  // namespace bloomseq
