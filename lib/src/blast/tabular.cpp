#include "bloomseq/blast/tabular.hpp"

#include <algorithm>
#include <cstdio>

#include "bloomseq/error.hpp"

namespace bloomseq {

std::string format_evalue(double e) {
  char buf[64];
  if (e < 1.0e-180) std::snprintf(buf, sizeof buf, "0.0");
  else if (e < 0.0009) std::snprintf(buf, sizeof buf, "%.2e", e);
  else if (e < 0.1) std::snprintf(buf, sizeof buf, "%4.3f", e);
  else if (e < 1.0) std::snprintf(buf, sizeof buf, "%3.2f", e);
  else if (e < 10.0) std::snprintf(buf, sizeof buf, "%2.1f", e);
  else std::snprintf(buf, sizeof buf, "%2.0f", e);
  return buf;
}

std::string format_bitscore(double b) {
  char buf[64];
  if (b > 99999) std::snprintf(buf, sizeof buf, "%5.3e", b);
  else if (b > 99.9) std::snprintf(buf, sizeof buf, "%3.0ld", long(b));  // 99.9 < b < 100 prints " 99", as blastn
  else std::snprintf(buf, sizeof buf, "%4.1f", b);
  return buf;
}

namespace {

struct ColumnName {
  const char* name;
  TabularColumn column;
};
constexpr ColumnName kColumns[] = {
    {"qseqid", TabularColumn::qseqid},     {"qaccver", TabularColumn::qaccver}, {"qacc", TabularColumn::qacc},
    {"sseqid", TabularColumn::sseqid},     {"saccver", TabularColumn::saccver}, {"sacc", TabularColumn::sacc},
    {"pident", TabularColumn::pident},     {"length", TabularColumn::length},   {"mismatch", TabularColumn::mismatch},
    {"gapopen", TabularColumn::gapopen},   {"gaps", TabularColumn::gaps},       {"nident", TabularColumn::nident},
    {"positive", TabularColumn::positive}, {"ppos", TabularColumn::ppos},       {"qstart", TabularColumn::qstart},
    {"qend", TabularColumn::qend},         {"sstart", TabularColumn::sstart},   {"send", TabularColumn::send},
    {"evalue", TabularColumn::evalue},     {"bitscore", TabularColumn::bitscore}, {"score", TabularColumn::score},
    {"qlen", TabularColumn::qlen},         {"slen", TabularColumn::slen},       {"qcovhsp", TabularColumn::qcovhsp},
    {"sstrand", TabularColumn::sstrand},   {"qcovs", TabularColumn::qcovs},     {"qseq", TabularColumn::qseq},
    {"sseq", TabularColumn::sseq},
};

const std::vector<TabularColumn>& standard_columns() {
  static const std::vector<TabularColumn> std12 = {
      TabularColumn::qaccver, TabularColumn::saccver, TabularColumn::pident, TabularColumn::length,
      TabularColumn::mismatch, TabularColumn::gapopen, TabularColumn::qstart, TabularColumn::qend,
      TabularColumn::sstart,  TabularColumn::send,    TabularColumn::evalue, TabularColumn::bitscore};
  return std12;
}

const char* column_name(TabularColumn c) {
  for (const ColumnName& n : kColumns)
    if (n.column == c) return n.name;
  return "?";
}

std::string unsigned_text(uint64_t v) { return std::to_string(v); }

}  // namespace

TabularFormat::TabularFormat() : columns(standard_columns()) {}

TabularFormat parse_outfmt(const std::string& spec) {
  std::vector<std::string> words;
  size_t at = 0;
  while (at < spec.size()) {
    const size_t from = spec.find_first_not_of(" \t", at);
    if (from == std::string::npos) break;
    const size_t to = std::min(spec.find_first_of(" \t", from), spec.size());
    words.push_back(spec.substr(from, to - from));
    at = to;
  }
  if (words.empty() || words[0] != "6")
    throw UsageError("--outfmt: only tabular output (6) is supported, as \"6\" or \"6 qseqid sseqid ...\"; got \"" +
                     spec + "\"");
  TabularFormat f;
  if (words.size() == 1) return f;
  f.columns.clear();
  for (size_t i = 1; i < words.size(); ++i) {
    if (words[i] == "std") {
      f.columns.insert(f.columns.end(), standard_columns().begin(), standard_columns().end());
      continue;
    }
    bool known = false;
    for (const ColumnName& n : kColumns)
      if (words[i] == n.name) {
        f.columns.push_back(n.column);
        known = true;
      }
    if (!known) {
      std::string all = "std";
      for (const ColumnName& n : kColumns) all += std::string(" ") + n.name;
      throw UsageError("--outfmt: column \"" + words[i] + "\" is not supported (supported: " + all + ")");
    }
  }
  return f;
}

std::string outfmt_token(const TabularFormat& format) {
  std::string t;
  for (TabularColumn c : format.columns) t += std::string(t.empty() ? "" : ",") + column_name(c);
  return t;
}

TabularFormat outfmt_from_token(const std::string& token) {
  std::string spec = "6 " + token;
  std::replace(spec.begin(), spec.end(), ',', ' ');
  return parse_outfmt(spec);
}

std::string format_tabular(const TabularHit& h, const TabularFormat& format) {
  std::string line;
  char buf[64];
  const uint64_t mismatches = h.length - h.identities - h.gaps;
  for (size_t i = 0; i < format.columns.size(); ++i) {
    if (i) line += '\t';
    switch (format.columns[i]) {
      // Identifiers as blastn prints them for FASTA input read without -parse_seqids: the first word, whole.
      case TabularColumn::qseqid: case TabularColumn::qaccver: case TabularColumn::qacc: line += h.query; break;
      case TabularColumn::sseqid: case TabularColumn::saccver: case TabularColumn::sacc: line += h.subject; break;
      // blastn divides first, then scales (x_PrintPercentIdentical): 179 of 320 prints 55.937, not 55.938.
      case TabularColumn::pident:
        std::snprintf(buf, sizeof buf, "%.3f", h.length ? double(h.identities) / double(h.length) * 100 : 0.0);
        line += buf;
        break;
      case TabularColumn::ppos:  // nucleotides: positives are identities, printed with two decimals
        std::snprintf(buf, sizeof buf, "%.2f", h.length ? double(h.identities) / double(h.length) * 100 : 0.0);
        line += buf;
        break;
      case TabularColumn::length: line += unsigned_text(h.length); break;
      case TabularColumn::mismatch: line += unsigned_text(mismatches); break;
      case TabularColumn::gapopen: line += unsigned_text(h.gap_opens); break;
      case TabularColumn::gaps: line += unsigned_text(h.gaps); break;
      case TabularColumn::nident: case TabularColumn::positive: line += unsigned_text(h.identities); break;
      case TabularColumn::qstart: line += unsigned_text(h.q_start); break;
      case TabularColumn::qend: line += unsigned_text(h.q_end); break;
      case TabularColumn::sstart: line += unsigned_text(h.s_start); break;
      case TabularColumn::send: line += unsigned_text(h.s_end); break;
      case TabularColumn::evalue: line += format_evalue(h.evalue); break;
      case TabularColumn::bitscore: line += format_bitscore(h.bits); break;
      case TabularColumn::score: line += std::to_string(h.score); break;
      case TabularColumn::qlen: line += unsigned_text(h.q_len); break;
      case TabularColumn::slen: line += unsigned_text(h.s_len); break;
      case TabularColumn::qcovhsp: {
        // blastn rounds to whole percent, except that 99.5% up to (not including) 100% stays 99: 100 means all.
        const uint64_t span = h.q_end >= h.q_start ? h.q_end - h.q_start + 1 : h.q_start - h.q_end + 1;
        double pct = h.q_len ? 100.0 * double(span) / double(h.q_len) : 0.0;
        if (pct < 99) pct += 0.5;
        line += unsigned_text(uint64_t(pct));
        break;
      }
      case TabularColumn::sstrand: line += h.s_start <= h.s_end ? "plus" : "minus"; break;
      case TabularColumn::qseq: line += h.qseq; break;
      case TabularColumn::sseq: line += h.sseq; break;
      case TabularColumn::qcovs: {  // as qcovhsp, over the union of the subject's alignments (blastfmtutil.cpp)
        double pct = h.q_len ? 100.0 * double(h.q_covered_subject) / double(h.q_len) : 0.0;
        if (pct < 99) pct += 0.5;
        line += unsigned_text(uint64_t(pct));
        break;
      }
    }
  }
  return line;
}

std::string tabular_header(const TabularFormat& format) {
  std::string line = "#";
  for (size_t i = 0; i < format.columns.size(); ++i) line += std::string(i ? "\t" : " ") + column_name(format.columns[i]);
  return line;
}

}  // namespace bloomseq
