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

// p / d with four decimals, exactly as "%.4f" prints double(p) / double(d), without printf (called for every read
// and filter). printf rounds the double, which is within half an ulp of p / d: unless 10^4 p / d is exactly
// halfway between two integers (the rounding then depends on the double's error), the nearest integer to the
// rational is the nearest to the double too, because a non-tie is at least 1 / (2d) away from a halfway point,
// far more than that error. Exact ties and negative or huge values go to printf.
void append_ratio(std::string& out, int64_t p, int64_t d) {
  if (d == 0) {
    out += "0.0000";
    return;
  }
  if (p < 0 || d < 0 || p > (int64_t(1) << 40) || d > (int64_t(1) << 40)) {
    append_fixed(out, double(p) / double(d));
    return;
  }
  const int64_t num = p * 10000;
  int64_t q = num / d;
  const int64_t rem2 = 2 * (num - q * d);
  if (rem2 == d) {
    append_fixed(out, double(p) / double(d));
    return;
  }
  if (rem2 > d) ++q;
  char buf[32];
  char* e = buf + sizeof buf;
  char* b = e;
  int64_t frac = q % 10000, whole = q / 10000;
  for (int i = 0; i < 4; ++i, frac /= 10) *--b = char('0' + frac % 10);
  *--b = '.';
  do {
    *--b = char('0' + whole % 10);
    whole /= 10;
  } while (whole);
  out.append(b, size_t(e - b));
}

}  // namespace

void ClassifySummary::add(const BatchScores& s) {
  for (size_t r = 0; r < s.reads; ++r) {
    ++total;
    const int32_t m = s.matched[r];
    if (m == 0) ++no_match;
    if (m > 1) ++multi_match;
    if (s.call[r] == kCallTie) ++ties;
    if (s.call[r] == kCallUnscored) ++unscored;
    if (s.call[r] >= 0) ++best[size_t(s.call[r])];
    if (m == 0) continue;
    s.for_each_passed(r, [&](size_t j) {
      ++hits[j];
      if (m > 1) ++shared[j];
    });
  }
  lookups += s.lookups;
}

std::string ClassifySummary::tsv(const std::vector<std::string>& names) const {
  // BioBloom's header, byte for byte: MultiQC finds the file by "filter_id\thits\tmisses\tshared\trate_hit\t..."
  std::string out = "filter_id\thits\tmisses\tshared\trate_hit\trate_miss\trate_shared\tbest\trate_best\n";
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
  append_ratio(out, s.best_points(r), s.denominator[r]);
  out += '\t';
  // Matched filters, best score first (ties in filter order), "-" when none.
  const size_t nf = s.filters;
  const int32_t* pts = &s.points[r * nf];
  if (s.matched[r] == 0) {
    out += '-';
  } else if (s.matched[r] == 1) {
    s.for_each_passed(r, [&](size_t j) { out += names[j]; });
  } else {
    thread_local std::vector<std::pair<int32_t, size_t>> m;  // reused: no allocation per read
    m.clear();
    s.for_each_passed(r, [&](size_t j) { m.emplace_back(-pts[j], j); });
    std::sort(m.begin(), m.end());
    for (size_t i = 0; i < m.size(); ++i) {
      if (i) out += ',';
      out += names[m[i].second];
    }
  }
  if (all_scores)
    for (size_t j = 0; j < nf; ++j) {
      out += '\t';
      append_ratio(out, pts[j], s.denominator[r]);
    }
  out += '\n';
}

}  // namespace bloomseq
