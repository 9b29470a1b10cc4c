#include "bloomseq/blast/pairwise_report.hpp"

#include "bloomseq/app/json_writer.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <sstream>

namespace bloomseq {
namespace {

constexpr size_t kBlockColumns = 60;  // alignment columns per block (blastn -line_length)
constexpr size_t kTitleColumns = 68;  // the descriptions table's title field

std::string with_commas(uint64_t v) {
  std::string digits = std::to_string(v), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string wrapped(const std::string& prefix, const std::string& text) {
  std::string out;
  const std::vector<std::string> lines = wrap_report_line(text);
  for (size_t i = 0; i < lines.size(); ++i) out += (i == 0 ? prefix : std::string()) + lines[i] + '\n';
  if (lines.empty()) out = prefix + '\n';
  return out;
}

// The "> title" line: a title over 60 characters breaks after the first blank at or past each 60th character,
// the blank kept at the line's end.
std::string subject_title_lines(const std::string& title) {
  if (title.size() <= 60) return title;
  std::string out;
  bool due = false;
  for (size_t i = 0; i < title.size(); ++i) {
    if (i > 0 && i % 60 == 0) due = true;
    out += title[i];
    if (due && std::isspace(static_cast<unsigned char>(title[i]))) {
      out += '\n';
      due = false;
    }
  }
  return out;
}

std::string karlin_line(const KarlinParams& k) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "%#8.3g %#8.3g %#8.3g \n", k.lambda, k.K, k.H);
  return buf;
}

size_t digits(uint64_t v) { return std::to_string(v).size(); }

bool masked_at(const std::vector<std::pair<uint64_t, uint64_t>>& masked, uint64_t pos) {
  const auto it = std::upper_bound(masked.begin(), masked.end(), pos,
                                   [](uint64_t p, const std::pair<uint64_t, uint64_t>& m) { return p < m.first; });
  return it != masked.begin() && std::prev(it)->second >= pos;
}

// An alignment's midline ('|' where the two letters are equal, N against N too; a blank at mismatches and gaps),
// its identities and its gap columns.
struct Columns {
  std::string midline;
  uint64_t identities = 0, gaps = 0;
};
Columns columns_of(const TabularHit& h) {
  Columns c;
  c.midline.assign(h.qseq.size(), ' ');
  for (size_t k = 0; k < h.qseq.size(); ++k) {
    const char a = char(std::toupper(static_cast<unsigned char>(h.qseq[k])));
    const char b = char(std::toupper(static_cast<unsigned char>(h.sseq[k])));
    c.gaps += (a == '-') + (b == '-');
    if (a == b && a != '-') c.midline[k] = '|', ++c.identities;
  }
  return c;
}

// The reference as blastn's XML and JSON give it (the report wraps its own copy, "Schaffer" spelled plainly).
const char* structured_reference(bool megablast) {
  return megablast ? "Zheng Zhang, Scott Schwartz, Lukas Wagner, and Webb Miller (2000), \"A greedy algorithm for "
                     "aligning DNA sequences\", J Comput Biol 2000; 7(1-2):203-14."
                   : "Stephen F. Altschul, Thomas L. Madden, Alejandro A. Sch&auml;ffer, Jinghui Zhang, Zheng Zhang, "
                     "Webb Miller, and David J. Lipman (1997), \"Gapped BLAST and PSI-BLAST: a new generation of "
                     "protein database search programs\", Nucleic Acids Res. 25:3389-3402.";
}

// The query masks blastn's JSON shows in an alignment starting at query base `q_start` (1-based): those that start
// in it (a mask that starts before the alignment is not shown, not even the part inside it; the pairwise report
// shows them all).
std::vector<std::pair<uint64_t, uint64_t>> shown_masks(const std::vector<std::pair<uint64_t, uint64_t>>& masked,
                                                       uint64_t q_start) {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  for (const auto& m : masked)
    if (m.first + 1 >= q_start) out.push_back(m);
  return out;
}

// One HSP: score lines and its 60-column blocks, the query on its plus strand (1-based coordinates as TabularHit).
std::string alignment_text(const TabularHit& h, const PairwiseQuery& q) {
  std::string out;
  const uint64_t L = h.qseq.size();
  const Columns columns = columns_of(h);
  const uint64_t ident = columns.identities, gaps = columns.gaps;
  out += " Score = " + format_bitscore(h.bits) + " bits (" + std::to_string(h.score > 0 ? h.score : -1) +
         "),  Expect = " + report_evalue(h.evalue) + '\n';
  out += " Identities = " + std::to_string(ident) + '/' + std::to_string(L) + " (" +
         std::to_string(report_percent(ident, L)) + "%), Gaps = " + std::to_string(gaps) + '/' + std::to_string(L) +
         " (" + std::to_string(report_percent(gaps, L)) + "%)\n";
  const bool minus = h.s_start > h.s_end;
  out += std::string(" Strand=Plus/") + (minus ? "Minus" : "Plus") + "\n\n";
  // The numbers' field: the digits of the largest 0-based coordinate of either row, plus two.
  const uint64_t largest = std::max(std::max(h.q_start, h.q_end), std::max(h.s_start, h.s_end)) - 1;
  const size_t D = digits(largest);
  uint64_t qpos = h.q_start, spos = h.s_start;  // the next residue's coordinate in each row
  const auto row = [&](const char* name, const std::string& letters, uint64_t& pos, int step, size_t from,
                       size_t n, bool query) {
    std::string seq;
    uint64_t first = 0, last = 0;
    bool any = false;
    for (size_t i = from; i < from + n; ++i) {
      char c = letters[i];
      if (c == '-') {
        seq += c;
        continue;
      }
      c = char(std::toupper(static_cast<unsigned char>(c)));
      if (masked_at(query ? q.masked : h.s_masked, pos - 1)) c = char(std::tolower(static_cast<unsigned char>(c)));
      seq += c;
      if (!any) first = pos;
      last = pos;
      any = true;
      pos = step > 0 ? pos + 1 : pos - 1;
    }
    std::string line = std::string(name) + "  ";
    if (any) {
      const std::string s = std::to_string(first);
      line += s + std::string(D + 2 > s.size() ? D + 2 - s.size() : 1, ' ') + seq + "  " + std::to_string(last);
    } else {  // a row of gaps only: no numbers
      line += std::string(D + 2, ' ') + seq;
    }
    return line + '\n';
  };
  for (size_t from = 0; from < L; from += kBlockColumns) {
    const size_t n = std::min<size_t>(kBlockColumns, L - from);
    out += row("Query", h.qseq, qpos, 1, from, n, true);
    out += std::string(7 + D + 2, ' ') + columns.midline.substr(from, n) + '\n';
    out += row("Sbjct", h.sseq, spos, minus ? -1 : 1, from, n, false);
    out += '\n';
  }
  return out + '\n';
}

}  // namespace

std::vector<std::string> wrap_report_line(const std::string& text, size_t width) {
  // Break candidates, worst to best: anywhere (a hard cut at `width`), after a hyphen, after a comma, before a
  // blank, before a newline; among equals the last one within the line wins.
  enum { kForced, kHyphen, kComma, kSpace, kNewline };
  std::vector<std::string> lines;
  size_t pos = 0;
  const size_t n = text.size();
  while (pos < n) {
    if (n - pos <= width) {
      lines.push_back(text.substr(pos));
      break;
    }
    int best_class = -1;
    size_t best = pos + width;
    for (size_t col = 0; col <= width && pos + col < n; ++col) {
      const size_t i = pos + col;
      const char c = text[i];
      int cls;
      size_t at;
      if (c == '\n') cls = kNewline, at = i;
      else if (std::isspace(static_cast<unsigned char>(c))) cls = kSpace, at = i;
      else if (c == ',' && col < width && i + 1 < n) cls = kComma, at = i + 1;
      else if (c == '-' && col < width && i + 1 < n) cls = kHyphen, at = i + 1;
      else cls = kForced, at = i;
      if (col == 0) continue;
      if (cls >= best_class) best_class = cls, best = at;
    }
    lines.push_back(text.substr(pos, best - pos));
    pos = best;
    if (best_class == kSpace) {
      while (pos < n && text[pos] == ' ') ++pos;
      if (pos < n && text[pos] == '\n') ++pos;
    } else if (best_class == kNewline) {
      ++pos;
    }
  }
  return lines;
}

std::string report_subject_title(const std::string& definition_line) {
  std::string t = definition_line;
  const auto strip_end = [&t](const char* set) {
    while (!t.empty() && std::string(set).find(t.back()) != std::string::npos) t.pop_back();
  };
  strip_end(".,;~ ");
  // The common HTML entities, as BLAST decodes them in titles.
  static const std::pair<const char*, const char*> kEntities[] = {
      {"&amp;", "&"}, {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&apos;", "'"}};
  for (const auto& e : kEntities)
    for (size_t at = t.find(e.first); at != std::string::npos; at = t.find(e.first, at + 1))
      t.replace(at, std::string(e.first).size(), e.second);
  strip_end(",;~ ");
  const size_t first = t.find_first_not_of(' ');
  t = first == std::string::npos ? std::string() : t.substr(first);
  // Blanks and punctuation tidied: runs of blanks become one, no blank inside brackets, none before a comma or
  // semicolon (moved after it), a doubled comma becomes a comma and a blank.
  std::string out;
  for (size_t i = 0; i < t.size(); ++i) {
    const char c = t[i];
    const char next = i + 1 < t.size() ? t[i + 1] : '\0';
    if (c == ' ' && (next == ' ' || next == ')')) continue;
    if (c == ' ' && (next == ',' || next == ';')) {
      out += next;
      out += ' ';
      ++i;
      while (i + 1 < t.size() && (t[i + 1] == ' ' || t[i + 1] == next)) ++i;
      continue;
    }
    if ((c == ',' || c == ';') && next == ' ') {
      out += c;
      out += ' ';
      ++i;
      while (i + 1 < t.size() && (t[i + 1] == ' ' || t[i + 1] == c)) ++i;
      continue;
    }
    if (c == ',' && next == ',') {
      out += ", ";
      ++i;
      continue;
    }
    out += c;
    if (c == '(')
      while (i + 1 < t.size() && t[i + 1] == ' ') ++i;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

std::string report_evalue(double e) {
  // The tabular text but for small values: one digit where the tabular formats print three (2e-45, 2.34e-45).
  if (e < 1.0e-180 || e >= 0.0009) return format_evalue(e);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0e", e);
  return buf;
}

int report_percent(uint64_t part, uint64_t whole) {
  if (whole == 0 || part == whole) return 100;
  const int p = int(0.5 + 100.0 * double(part) / double(whole));
  return p < 100 ? p : 99;
}

std::string pairwise_header(const PairwiseSettings& s) {
  std::string out = "BLASTN " + s.version + "\n\n\n";
  const char* reference =
      s.megablast ? "Reference: Zheng Zhang, Scott Schwartz, Lukas Wagner, and Webb Miller (2000), \"A greedy "
                    "algorithm for aligning DNA sequences\", J Comput Biol 2000; 7(1-2):203-14."
                  : "Reference: Stephen F. Altschul, Thomas L. Madden, Alejandro A. Schaffer, Jinghui Zhang, Zheng "
                    "Zhang, Webb Miller, and David J. Lipman (1997), \"Gapped BLAST and PSI-BLAST: a new generation "
                    "of protein database search programs\", Nucleic Acids Res. 25:3389-3402.";
  out += wrapped("", reference) + "\n\n\n";
  out += wrapped("Database: ", "User specified sequence set (Input: " + s.database + ").");
  out += "           " + with_commas(s.db_sequences) + " sequences; " + with_commas(s.db_letters) +
         " total letters\n\n";
  return out;
}

std::string pairwise_query_report(const PairwiseSettings& s, const PairwiseQuery& q,
                                  const std::vector<TabularHit>& hits) {
  std::string title = q.title;
  while (!title.empty() && std::isspace(static_cast<unsigned char>(title.back()))) title.pop_back();
  title.erase(0, std::min(title.size(), title.find_first_not_of(" \t")));
  std::string out = "\n\n" + wrapped("Query= ", title) + "\nLength=" + std::to_string(q.length) + '\n';
  // The subjects in output order: [begin, end) of `hits` each, and its best HSP (the first of the highest bits).
  struct Group {
    size_t begin, end, best;
  };
  std::vector<Group> groups;
  for (size_t i = 0; i < hits.size(); ++i) {
    if (groups.empty() || hits[i].subject != hits[groups.back().begin].subject ||
        hits[i].s_title != hits[groups.back().begin].s_title)
      groups.push_back(Group{i, i, i});
    Group& g = groups.back();
    g.end = i + 1;
    if (hits[i].bits > hits[g.best].bits) g.best = i;
  }
  if (groups.empty()) {
    out += "\n\n***** No hits found *****\n\n\n";
  } else {
    const size_t shown = std::min(groups.size(), s.descriptions);
    if (shown > 0) {
      size_t W = 6, V = 5;
      for (size_t g = 0; g < shown; ++g) {
        W = std::max(W, format_bitscore(hits[groups[g].best].bits).size());
        V = std::max(V, report_evalue(hits[groups[g].best].evalue).size());
      }
      // BLAST+ widens the bits column to 9 when the last row's subject sums to over 99999 bits in all its HSPs.
      double last_sum = 0;
      for (size_t i = groups[shown - 1].begin; i < groups[shown - 1].end; ++i) last_sum += hits[i].bits;
      if (last_sum > 99999) W = 9;
      out += std::string(70, ' ') + "Score" + std::string(W - 5, ' ') + "    E\n";
      out += "Sequences producing significant alignments:" + std::string(26, ' ') + "(Bits)" +
             std::string(W - 6, ' ') + "  Value\n\n";
      for (size_t g = 0; g < shown; ++g) {
        const TabularHit& b = hits[groups[g].best];
        std::string t = report_subject_title(b.s_title);
        if (t.size() > kTitleColumns) t = t.substr(0, kTitleColumns - 3) + "...";
        t.resize(kTitleColumns, ' ');
        const std::string bits = format_bitscore(b.bits), e = report_evalue(b.evalue);
        out += t + "  " + bits + std::string(W - bits.size(), ' ') + "  " + e + std::string(V - e.size(), ' ') + '\n';
      }
    }
    out += "\n\n";
    for (size_t g = 0; g < std::min(groups.size(), s.alignments); ++g) {
      out += "> " + subject_title_lines(report_subject_title(hits[groups[g].begin].s_title)) + '\n';
      out += "Length=" + std::to_string(hits[groups[g].begin].s_len) + "\n\n";
      for (size_t i = groups[g].begin; i < groups[g].end; ++i) out += alignment_text(hits[i], q);
    }
  }
  out += '\n';
  if (q.length > 0) out += "Lambda      K        H\n" + karlin_line(q.ungapped);
  out += '\n';
  if (q.length > 0 && s.gapped) out += "Gapped\nLambda      K        H\n" + karlin_line(q.gapped);
  char space[48];
  std::snprintf(space, sizeof space, "%.0f", q.length > 0 ? q.search_space : 0.0);
  out += "\nEffective search space used: " + std::string(space) + '\n';
  return out;
}

std::string pairwise_footer(const PairwiseSettings& s) {
  std::string out = "\n\n" + wrapped("  Database: ", "User specified sequence set (Input: " + s.database + ").");
  out += "    Posted date:  Unknown\n";
  out += "  Number of letters in database: " + with_commas(s.db_letters) + '\n';
  out += "  Number of sequences in database:  " + with_commas(s.db_sequences) + "\n\n\n\n";
  out += "Matrix: blastn matrix " + std::to_string(s.reward) + ' ' + std::to_string(s.penalty) + '\n';
  if (s.gapped) {
    std::ostringstream gaps;
    if (s.gap_open == 0 && s.gap_extend == 0)  // linear gaps (megablast): BLAST+ prints their cost per column
      gaps << "Existence: 0, Extension: " << (double(s.reward) - 2.0 * double(s.penalty)) / 2.0;
    else
      gaps << "Existence: " << s.gap_open << ", Extension: " << s.gap_extend;
    out += "Gap Penalties: " + gaps.str() + '\n';
  }
  return out;
}

// ---- blastn's XML (-outfmt 5) ----

namespace {

std::string xml_escaped(const std::string& text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

// BLAST's XML writes the scores with six significant digits and the statistics with fifteen.
std::string xml_number(double v, int digits = 6) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

std::string element(int indent, const std::string& name, const std::string& value) {
  return std::string(size_t(indent), ' ') + '<' + name + '>' + value + "</" + name + ">\n";
}

std::string trimmed(const std::string& t) {
  const size_t b = t.find_first_not_of(" \t"), e = t.find_last_not_of(" \t");
  return b == std::string::npos ? std::string() : t.substr(b, e - b + 1);
}

// The message blastn adds to a query's results: for a record without sequence it names the record twice, as read
// (blanks inside kept); without hits "No hits found"; else none.
std::string empty_record_message(const PairwiseQuery& q, const std::string& id, bool no_hits) {
  if (q.length == 0) {
    const std::string named = id + ' ' + trimmed(q.title) + ':';
    return named + "  " + named + " Sequence contains no data  No hits found";
  }
  return no_hits ? "No hits found" : std::string();
}

// Aligned letters in upper case but the masked bases ([first, last] 0-based, of the row's record) in lower case;
// `first` is the row's first base (1-based), `step` +1 or -1.
std::string shown_letters(const std::string& letters, uint64_t first, int step,
                          const std::vector<std::pair<uint64_t, uint64_t>>& masked) {
  std::string out = letters;
  uint64_t pos = first;
  for (char& c : out) {
    if (c == '-') continue;
    const bool lower = masked_at(masked, pos - 1);
    c = char(lower ? std::tolower(static_cast<unsigned char>(c)) : std::toupper(static_cast<unsigned char>(c)));
    pos = step > 0 ? pos + 1 : pos - 1;
  }
  return out;
}

}  // namespace

std::string xml_report_header(const PairwiseSettings& s, const PairwiseQuery& first) {
  const char* reference = structured_reference(s.megablast);
  std::string out =
      "<?xml version=\"1.0\"?>\n<!DOCTYPE BlastOutput PUBLIC \"-//NCBI//NCBI BlastOutput/EN\" "
      "\"http://www.ncbi.nlm.nih.gov/dtd/NCBI_BlastOutput.dtd\">\n<BlastOutput>\n";
  out += element(2, "BlastOutput_program", "blastn");
  out += element(2, "BlastOutput_version", "BLASTN " + xml_escaped(s.version));
  out += element(2, "BlastOutput_reference", xml_escaped(reference));
  out += element(2, "BlastOutput_db", "");
  out += element(2, "BlastOutput_query-ID", "Query_" + std::to_string(first.ordinal));
  out += element(2, "BlastOutput_query-def", xml_escaped(report_subject_title(first.title)));
  out += element(2, "BlastOutput_query-len", std::to_string(first.length));
  out += "  <BlastOutput_param>\n    <Parameters>\n";
  out += element(6, "Parameters_expect", xml_number(s.evalue));
  out += element(6, "Parameters_sc-match", std::to_string(s.reward));
  out += element(6, "Parameters_sc-mismatch", std::to_string(s.penalty));
  out += element(6, "Parameters_gap-open", std::to_string(s.gap_open));
  out += element(6, "Parameters_gap-extend", std::to_string(s.gap_extend));
  out += element(6, "Parameters_filter", s.dust ? "L;m;" : "m;");
  out += "    </Parameters>\n  </BlastOutput_param>\n<BlastOutput_iterations>\n";
  return out;
}

std::string xml_report_iteration(const PairwiseSettings& s, const PairwiseQuery& q,
                                 const std::vector<TabularHit>& hits) {
  const std::string id = "Query_" + std::to_string(q.ordinal);
  std::string out = "<Iteration>\n";
  out += element(2, "Iteration_iter-num", std::to_string(q.ordinal));
  out += element(2, "Iteration_query-ID", id);
  out += element(2, "Iteration_query-def", xml_escaped(report_subject_title(q.title)));
  out += element(2, "Iteration_query-len", std::to_string(q.length));
  out += "<Iteration_hits>\n";
  size_t hit_num = 0, hsp_num = 0;
  for (size_t i = 0; i < hits.size(); ++i) {
    const TabularHit& h = hits[i];
    const bool first = i == 0 || h.subject_ordinal != hits[i - 1].subject_ordinal;
    if (first) {
      if (i > 0) out += "  </Hit_hsps>\n</Hit>\n";
      out += "<Hit>\n";
      out += element(2, "Hit_num", std::to_string(++hit_num));
      out += element(2, "Hit_id", xml_escaped(h.subject));
      out += element(2, "Hit_def", xml_escaped(report_subject_title(h.s_title)));
      out += element(2, "Hit_accession", "Subject_" + std::to_string(h.subject_ordinal));
      out += element(2, "Hit_len", std::to_string(h.s_len));
      out += "  <Hit_hsps>\n";
      hsp_num = 0;
    }
    const Columns c = columns_of(h);
    out += "    <Hsp>\n";
    out += element(6, "Hsp_num", std::to_string(++hsp_num));
    out += element(6, "Hsp_bit-score", xml_number(h.bits));
    out += element(6, "Hsp_score", std::to_string(h.score));
    out += element(6, "Hsp_evalue", xml_number(h.evalue < 1.0e-180 ? 0.0 : h.evalue));  // as its other formats
    out += element(6, "Hsp_query-from", std::to_string(h.q_start));
    out += element(6, "Hsp_query-to", std::to_string(h.q_end));
    out += element(6, "Hsp_hit-from", std::to_string(h.s_start));
    out += element(6, "Hsp_hit-to", std::to_string(h.s_end));
    out += element(6, "Hsp_query-frame", "1");
    out += element(6, "Hsp_hit-frame", h.s_start > h.s_end ? "-1" : "1");
    out += element(6, "Hsp_identity", std::to_string(c.identities));
    out += element(6, "Hsp_positive", std::to_string(c.identities));
    out += element(6, "Hsp_gaps", std::to_string(c.gaps));
    out += element(6, "Hsp_align-len", std::to_string(h.qseq.size()));
    out += element(6, "Hsp_qseq", h.qseq);
    out += element(6, "Hsp_hseq", h.sseq);
    out += element(6, "Hsp_midline", c.midline);
    out += "    </Hsp>\n";
  }
  if (!hits.empty()) out += "  </Hit_hsps>\n</Hit>\n";
  out += "</Iteration_hits>\n  <Iteration_stat>\n    <Statistics>\n";
  const bool any = q.length > 0;
  const KarlinParams& k = s.gapped ? q.gapped : q.ungapped;
  out += element(6, "Statistics_db-num", "0");
  out += element(6, "Statistics_db-len", "0");
  out += element(6, "Statistics_hsp-len", std::to_string(any ? q.length_adjustment : 0));
  char space[48];
  std::snprintf(space, sizeof space, "%.0f", any ? q.search_space : 0.0);
  out += element(6, "Statistics_eff-space", space);
  out += element(6, "Statistics_kappa", any ? xml_number(k.K, 15) : "-1");
  out += element(6, "Statistics_lambda", any ? xml_number(k.lambda, 15) : "-1");
  out += element(6, "Statistics_entropy", any ? xml_number(k.H, 15) : "-1");
  out += "    </Statistics>\n  </Iteration_stat>\n";
  const std::string message = empty_record_message(q, id, hits.empty());
  if (!message.empty()) out += element(2, "Iteration_message", xml_escaped(message));
  return out + "</Iteration>\n";
}

std::string json_report(const PairwiseSettings& s, const PairwiseQuery& q, const std::vector<TabularHit>& hits,
                        uint64_t subjects, bool first) {
  const auto str = [](const std::string& v) { return '"' + json_escape(v) + '"'; };
  const auto field = [](int indent, const std::string& name, const std::string& value, bool last = false) {
    return std::string(size_t(indent), ' ') + '"' + name + "\": " + value + (last ? "\n" : ",\n");
  };
  const char* reference = structured_reference(s.megablast);
  std::string out = first ? "{\n\"BlastOutput2\": [\n{\n" : ",\n{\n";
  out += "    \"report\": {\n";
  out += field(6, "program", "\"blastn\"");
  out += field(6, "version", str("BLASTN " + s.version));
  out += field(6, "reference", str(reference));
  out += "      \"search_target\": {\n        \"subjects\": [\n";
  for (uint64_t i = 1; i <= subjects; ++i)
    out += "          \"Subject_" + std::to_string(i) + (i < subjects ? "\",\n" : "\"\n");
  out += "        ]\n      },\n      \"params\": {\n";
  out += field(8, "expect", xml_number(s.evalue));
  out += field(8, "sc_match", std::to_string(s.reward));
  out += field(8, "sc_mismatch", std::to_string(s.penalty));
  if (s.gapped) {
    out += field(8, "gap_open", std::to_string(s.gap_open));
    out += field(8, "gap_extend", std::to_string(s.gap_extend));
  }
  out += field(8, "filter", s.dust ? "\"L;m;\"" : "\"m;\"", true);
  out += "      },\n      \"results\": {\n        \"bl2seq\": [\n          {\n";
  const std::string id = "Query_" + std::to_string(q.ordinal);
  out += field(12, "query_id", str(id));
  out += field(12, "query_title", str(report_subject_title(q.title)));
  out += field(12, "query_len", std::to_string(q.length));
  if (!q.masked.empty()) {
    out += "            \"query_masking\": [\n";
    for (size_t i = 0; i < q.masked.size(); ++i)
      out += "              {\n                \"from\": " + std::to_string(q.masked[i].first) +
             ",\n                \"to\": " + std::to_string(q.masked[i].second) + "\n              }" +
             (i + 1 < q.masked.size() ? ",\n" : "\n");
    out += "            ],\n";
  }
  out += "            \"hits\": [\n";
  size_t hit_num = 0, hsp_num = 0;
  for (size_t i = 0; i < hits.size(); ++i) {
    const TabularHit& h = hits[i];
    if (i == 0 || h.subject_ordinal != hits[i - 1].subject_ordinal) {
      if (i > 0) out += "\n                ]\n              },\n";
      out += "              {\n";
      out += field(16, "num", std::to_string(++hit_num));
      out += "                \"description\": [\n                  {\n";
      out += field(20, "id", str(h.subject));
      out += field(20, "title", str(report_subject_title(h.s_title)), true);
      out += "                  }\n                ],\n";
      out += field(16, "len", std::to_string(h.s_len));
      out += "                \"hsps\": [\n";
      hsp_num = 0;
    } else {
      out += ",\n";
    }
    // The query's masked bases in lower case (blastn's JSON shows no subject's lower case).
    const std::string qseq = shown_letters(h.qseq, h.q_start, 1, shown_masks(q.masked, h.q_start));
    const std::string sseq = shown_letters(h.sseq, h.s_start, h.s_start > h.s_end ? -1 : 1, {});
    const Columns c = columns_of(h);
    out += "                  {\n";
    out += field(20, "num", std::to_string(++hsp_num));
    out += field(20, "bit_score", xml_number(h.bits));
    out += field(20, "score", std::to_string(h.score));
    out += field(20, "evalue", xml_number(h.evalue < 1.0e-180 ? 0.0 : h.evalue));
    out += field(20, "identity", std::to_string(c.identities));
    out += field(20, "query_from", std::to_string(h.q_start));
    out += field(20, "query_to", std::to_string(h.q_end));
    out += field(20, "query_strand", "\"Plus\"");
    out += field(20, "hit_from", std::to_string(h.s_start));
    out += field(20, "hit_to", std::to_string(h.s_end));
    out += field(20, "hit_strand", h.s_start > h.s_end ? "\"Minus\"" : "\"Plus\"");
    out += field(20, "align_len", std::to_string(h.qseq.size()));
    out += field(20, "gaps", std::to_string(c.gaps));
    out += field(20, "qseq", str(qseq));
    out += field(20, "hseq", str(sseq));
    out += field(20, "midline", str(c.midline), true);
    out += "                  }";
  }
  if (!hits.empty()) out += "\n                ]\n              }\n";
  out += "            ],\n            \"stat\": {\n";
  const bool any = q.length > 0;
  const KarlinParams& k = s.gapped ? q.gapped : q.ungapped;
  char space[48];
  std::snprintf(space, sizeof space, "%.0f", any ? q.search_space : 0.0);
  out += field(14, "hsp_len", std::to_string(any ? q.length_adjustment : 0));
  out += field(14, "eff_space", space);
  out += field(14, "kappa", any ? xml_number(k.K, 15) : "-1");
  out += field(14, "lambda", any ? xml_number(k.lambda, 15) : "-1");
  out += field(14, "entropy", any ? xml_number(k.H, 15) : "-1", true);
  const std::string message = empty_record_message(q, id, hits.empty());
  out += message.empty() ? "            }\n" : "            },\n" + field(12, "message", str(message), true);
  out += "          }\n        ]\n      }\n    }\n  }\n";
  return out;
}

std::string json_report_footer() { return "]\n}\n"; }

std::string xml_report_footer() { return "</BlastOutput_iterations>\n</BlastOutput>\n\n"; }  // a blank line last

}  // namespace bloomseq
