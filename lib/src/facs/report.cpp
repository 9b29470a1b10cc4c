#include "bloomseq/facs/report.hpp"

#include <algorithm>
#include <cstdio>
#include <utility>

namespace bloomseq {
namespace {

void append_fixed(std::string& out, double v) {
  char buf[32];
  const int n = std::snprintf(buf, sizeof buf, "%.4f", v);
  out.append(buf, size_t(n));
}

}  // namespace

void ClassifySummary::add(const BatchScores& s) {
  const size_t nf = s.filters;
  for (size_t r = 0; r < s.reads; ++r) {
    ++total;
    const int32_t m = s.matched[r];
    if (m == 0) ++no_match;
    if (m > 1) ++multi_match;
    if (s.call[r] == kCallTie) ++ties;
    if (s.call[r] == kCallUnscored) ++unscored;
    if (s.call[r] >= 0) ++best[size_t(s.call[r])];
    for (size_t j = 0; j < nf; ++j) {
      if (!s.passed[r * nf + j]) continue;
      ++hits[j];
      if (m > 1) ++shared[j];
    }
  }
  lookups += s.lookups;
}

std::string ClassifySummary::tsv(const std::vector<std::string>& names) const {
  std::string out = "#filter_id\thits\tmisses\tshared\trate_hits\trate_misses\trate_shared\tbest\trate_best\n";
  const double t = total ? double(total) : 1.0;
  auto row = [&](const std::string& name, uint64_t h, uint64_t sh, uint64_t b) {
    out += name;
    out += '\t' + std::to_string(h) + '\t' + std::to_string(total - h) + '\t' + std::to_string(sh) + '\t';
    append_fixed(out, double(h) / t);
    out += '\t';
    append_fixed(out, double(total - h) / t);
    out += '\t';
    append_fixed(out, double(sh) / t);
    out += '\t' + std::to_string(b) + '\t';
    append_fixed(out, double(b) / t);
    out += '\n';
  };
  for (size_t j = 0; j < names.size(); ++j) row(names[j], hits[j], shared[j], best[j]);
  row("multiMatch", multi_match, multi_match, ties);
  row("noMatch", no_match, 0, no_match);
  return out;
}

std::string read_tsv_header(const std::vector<std::string>& names, bool all_scores) {
  std::string h = "#read_id\tcall\tscore\tmatched";
  if (all_scores)
    for (const std::string& n : names) h += "\tscore:" + n;
  return h + '\n';
}

std::string_view call_name(const BatchScores& s, size_t r, const std::vector<std::string>& names) {
  const int32_t c = s.call[r];
  if (c >= 0) return names[size_t(c)];
  if (c == kCallTie) return "tie";
  if (c == kCallUnscored) return "unscored";
  return "novel";
}

void append_read_tsv(std::string& out, std::string_view id, const BatchScores& s, size_t r,
                     const std::vector<std::string>& names, bool all_scores) {
  out.append(id);
  out += '\t';
  out.append(call_name(s, r, names));
  out += '\t';
  append_fixed(out, s.best_score(r));
  out += '\t';
  // Matched filters, best score first (ties in filter order), "-" when none.
  const size_t nf = s.filters;
  if (s.matched[r] == 0) {
    out += '-';
  } else {
    std::vector<std::pair<int32_t, size_t>> m;
    for (size_t j = 0; j < nf; ++j)
      if (s.passed[r * nf + j]) m.emplace_back(-s.points[r * nf + j], j);
    std::sort(m.begin(), m.end());
    for (size_t i = 0; i < m.size(); ++i) {
      if (i) out += ',';
      out += names[m[i].second];
    }
  }
  if (all_scores)
    for (size_t j = 0; j < nf; ++j) {
      out += '\t';
      append_fixed(out, s.score(r, j));
    }
  out += '\n';
}

}  // namespace bloomseq
