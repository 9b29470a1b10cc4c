#include "bloomseq/blast/gapped_karlin.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "bloomseq/error.hpp"

namespace bloomseq {
namespace {

// gap open, gap extend, lambda, K, H, alpha, beta (BLAST+ blast_stat.c; the eighth column, theta, is unused here).
struct Row {
  int open, extend;
  double lambda, K, H, alpha, beta;
};
struct Table {
  int reward, penalty;
  bool round_down;
  int open_max, extend_max;
  std::vector<Row> rows;  // a first row with gap costs 0/0 is the linear (megablast) entry
};

const std::vector<Table>& tables() {
  static const std::vector<Table> t = {
      {1, -5, false, 3, 3, {{0, 0, 1.39, 0.747, 1.38, 1.00, 0}, {3, 3, 1.39, 0.747, 1.38, 1.00, 0}}},
      {1, -4, false, 2, 2,
       {{0, 0, 1.383, 0.738, 1.36, 1.02, 0}, {1, 2, 1.36, 0.67, 1.2, 1.1, 0}, {0, 2, 1.26, 0.43, 0.90, 1.4, -1},
        {2, 1, 1.35, 0.61, 1.1, 1.2, -1}, {1, 1, 1.22, 0.35, 0.72, 1.7, -3}}},
      {2, -7, true, 4, 4,
       {{0, 0, 0.69, 0.73, 1.34, 0.515, 0}, {2, 4, 0.68, 0.67, 1.2, 0.55, 0}, {0, 4, 0.63, 0.43, 0.90, 0.7, -1},
        {4, 2, 0.675, 0.62, 1.1, 0.6, -1}, {2, 2, 0.61, 0.35, 0.72, 1.7, -3}}},
      {1, -3, false, 2, 2,
       {{0, 0, 1.374, 0.711, 1.31, 1.05, 0}, {2, 2, 1.37, 0.70, 1.2, 1.1, 0}, {1, 2, 1.35, 0.64, 1.1, 1.2, -1},
        {0, 2, 1.25, 0.42, 0.83, 1.5, -2}, {2, 1, 1.34, 0.60, 1.1, 1.2, -1}, {1, 1, 1.21, 0.34, 0.71, 1.7, -2}}},
      {2, -5, true, 4, 4,
       {{0, 0, 0.675, 0.65, 1.1, 0.6, -1}, {2, 4, 0.67, 0.59, 1.1, 0.6, -1}, {0, 4, 0.62, 0.39, 0.78, 0.8, -2},
        {4, 2, 0.67, 0.61, 1.0, 0.65, -2}, {2, 2, 0.56, 0.32, 0.59, 0.95, -4}}},
      {1, -2, false, 2, 2,
       {{0, 0, 1.28, 0.46, 0.85, 1.5, -2}, {2, 2, 1.33, 0.62, 1.1, 1.2, 0}, {1, 2, 1.30, 0.52, 0.93, 1.4, -2},
        {0, 2, 1.19, 0.34, 0.66, 1.8, -3}, {3, 1, 1.32, 0.57, 1.0, 1.3, -1}, {2, 1, 1.29, 0.49, 0.92, 1.4, -1},
        {1, 1, 1.14, 0.26, 0.52, 2.2, -5}}},
      {2, -3, true, 6, 4,
       {{0, 0, 0.55, 0.21, 0.46, 1.2, -5}, {4, 4, 0.63, 0.42, 0.84, 0.75, -2}, {2, 4, 0.615, 0.37, 0.72, 0.85, -3},
        {0, 4, 0.55, 0.21, 0.46, 1.2, -5}, {3, 3, 0.615, 0.37, 0.68, 0.9, -3}, {6, 2, 0.63, 0.42, 0.84, 0.75, -2},
        {5, 2, 0.625, 0.41, 0.78, 0.8, -2}, {4, 2, 0.61, 0.35, 0.68, 0.9, -3}, {2, 2, 0.515, 0.14, 0.33, 1.55, -9}}},
      {3, -4, true, 6, 3,
       {{6, 3, 0.389, 0.25, 0.56, 0.7, -5}, {5, 3, 0.375, 0.21, 0.47, 0.8, -6}, {4, 3, 0.351, 0.14, 0.35, 1.0, -9},
        {6, 2, 0.362, 0.16, 0.45, 0.8, -4}, {5, 2, 0.330, 0.092, 0.28, 1.2, -13},
        {4, 2, 0.281, 0.046, 0.16, 1.8, -23}}},
      {4, -5, false, 12, 8,
       {{0, 0, 0.22, 0.061, 0.22, 1.0, -15}, {6, 5, 0.28, 0.21, 0.47, 0.6, -7}, {5, 5, 0.27, 0.17, 0.39, 0.7, -9},
        {4, 5, 0.25, 0.10, 0.31, 0.8, -10}, {3, 5, 0.23, 0.065, 0.25, 0.9, -11}}},
      {1, -1, false, 4, 2,
       {{3, 2, 1.09, 0.31, 0.55, 2.0, -2}, {2, 2, 1.07, 0.27, 0.49, 2.2, -3}, {1, 2, 1.02, 0.21, 0.36, 2.8, -6},
        {0, 2, 0.80, 0.064, 0.17, 4.8, -16}, {4, 1, 1.08, 0.28, 0.54, 2.0, -2}, {3, 1, 1.06, 0.25, 0.46, 2.3, -4},
        {2, 1, 0.99, 0.17, 0.30, 3.3, -10}}},
      {3, -2, false, 5, 5, {{5, 5, 0.208, 0.030, 0.072, 2.9, -47}}},
      {5, -4, false, 25, 10, {{10, 6, 0.163, 0.068, 0.16, 1.0, -19}, {8, 6, 0.146, 0.039, 0.11, 1.3, -29}}},
  };
  return t;
}

const Table* table_of(int reward, int penalty) {
  if (reward <= 0 || penalty >= 0) return nullptr;
  const int divisor = std::gcd(reward, -penalty);
  for (const Table& t : tables())
    if (t.reward == reward / divisor && t.penalty == penalty / divisor) return &t;
  return nullptr;
}

}  // namespace

bool blastn_supports_scores(int reward, int penalty) { return table_of(reward, penalty) != nullptr; }

std::string blastn_supported_scores() {
  std::vector<std::pair<int, int>> pairs;
  for (const Table& t : tables()) pairs.emplace_back(t.reward, -t.penalty);
  std::sort(pairs.begin(), pairs.end());
  std::string s;
  for (const auto& [r, p] : pairs) s += (s.empty() ? "" : " ") + std::to_string(r) + "/-" + std::to_string(p);
  return s;
}

GappedKarlin gapped_karlin(int reward, int penalty, int gap_open, int gap_extend, const KarlinParams& ungapped) {
  const std::string pair = std::to_string(reward) + "/" + std::to_string(penalty);
  if (reward <= 0 || penalty >= 0) throw UsageError("reward/penalty " + pair + " not supported");
  const int divisor = std::gcd(reward, -penalty);
  const Table* table = table_of(reward, penalty);
  if (!table) throw UsageError("reward/penalty " + pair + " not supported by blastn's gapped statistics");
  GappedKarlin g;
  g.round_down = table->round_down;
  auto take = [&](const Row& r) {
    KarlinParams& k = g.params;
    k.lambda = r.lambda / divisor;
    k.K = r.K;
    k.logK = std::log(r.K);
    k.H = r.H;
    k.alpha = r.alpha / divisor;
    k.beta = r.beta;
    return g;
  };
  // Gap costs 0/0: linear gaps (megablast's greedy extension), the table's first row where it has one.
  if (gap_open == 0 && gap_extend == 0) {
    const Row& first = table->rows.front();
    if (first.open == 0 && first.extend == 0) return take(first);
    throw UsageError("gap costs 0/0 (linear gaps) not supported for reward/penalty " + pair);
  }
  std::string supported;
  for (const Row& r : table->rows) {
    if (r.open == 0 && r.extend == 0 && &r == &table->rows.front()) continue;  // the linear entry
    const int open = r.open * divisor, extend = r.extend * divisor;
    supported += " " + std::to_string(open) + "/" + std::to_string(extend);
    if (open == gap_open && extend == gap_extend) return take(r);
  }
  const int open_max = table->open_max * divisor, extend_max = table->extend_max * divisor;
  if (gap_open >= open_max && gap_extend >= extend_max) {
    g.params = ungapped;  // alpha = lambda / H and the ungapped beta, as BLAST uses beyond the table
    return g;
  }
  throw UsageError("gap costs " + std::to_string(gap_open) + "/" + std::to_string(gap_extend) +
                   " not supported for reward/penalty " + pair + " (supported:" + supported + ", or at least " +
                   std::to_string(open_max) + "/" + std::to_string(extend_max) + ")");
}

}  // namespace bloomseq
