#include "bloomseq/blast/tabular.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

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
  const char* field;  // format 7's "# Fields:" text, as blastn 2.12 prints it
};
constexpr ColumnName kColumns[] = {
    {"qseqid", TabularColumn::qseqid, "query id"},
    {"qaccver", TabularColumn::qaccver, "query acc.ver"},
    {"qacc", TabularColumn::qacc, "query acc."},
    {"sseqid", TabularColumn::sseqid, "subject id"},
    {"saccver", TabularColumn::saccver, "subject acc.ver"},
    {"sacc", TabularColumn::sacc, "subject acc."},
    {"pident", TabularColumn::pident, "% identity"},
    {"length", TabularColumn::length, "alignment length"},
    {"mismatch", TabularColumn::mismatch, "mismatches"},
    {"gapopen", TabularColumn::gapopen, "gap opens"},
    {"gaps", TabularColumn::gaps, "gaps"},
    {"nident", TabularColumn::nident, "identical"},
    {"positive", TabularColumn::positive, "positives"},
    {"ppos", TabularColumn::ppos, "% positives"},
    {"qstart", TabularColumn::qstart, "q. start"},
    {"qend", TabularColumn::qend, "q. end"},
    {"sstart", TabularColumn::sstart, "s. start"},
    {"send", TabularColumn::send, "s. end"},
    {"evalue", TabularColumn::evalue, "evalue"},
    {"bitscore", TabularColumn::bitscore, "bit score"},
    {"score", TabularColumn::score, "score"},
    {"qlen", TabularColumn::qlen, "query length"},
    {"slen", TabularColumn::slen, "subject length"},
    {"qcovhsp", TabularColumn::qcovhsp, "% query coverage per hsp"},
    {"sstrand", TabularColumn::sstrand, "subject strand"},
    {"qcovs", TabularColumn::qcovs, "% query coverage per subject"},
    {"qseq", TabularColumn::qseq, "query seq"},
    {"sseq", TabularColumn::sseq, "subject seq"},
    {"btop", TabularColumn::btop, "BTOP"},
    {"sallseqid", TabularColumn::sallseqid, "subject ids"},
    {"sallacc", TabularColumn::sallacc, "subject accs."},
    {"sgi", TabularColumn::sgi, "subject gi"},
    {"sallgi", TabularColumn::sallgi, "subject gis"},
    {"stitle", TabularColumn::stitle, "subject title"},
    {"salltitles", TabularColumn::salltitles, "subject titles"},
    {"frames", TabularColumn::frames, "query/sbjct frames"},
    {"qframe", TabularColumn::qframe, "query frame"},
    {"sframe", TabularColumn::sframe, "sbjct frame"},
};

const std::vector<TabularColumn>& standard_columns() {
  static const std::vector<TabularColumn> std12 = {
      TabularColumn::qaccver, TabularColumn::saccver, TabularColumn::pident, TabularColumn::length,
      TabularColumn::mismatch, TabularColumn::gapopen, TabularColumn::qstart, TabularColumn::qend,
      TabularColumn::sstart,  TabularColumn::send,    TabularColumn::evalue, TabularColumn::bitscore};
  return std12;
}

const ColumnName& column_entry(TabularColumn c) {
  for (const ColumnName& n : kColumns)
    if (n.column == c) return n;
  throw std::logic_error("tabular: a column without a name");
}
const char* column_name(TabularColumn c) { return column_entry(c).name; }

void add_column(std::vector<TabularColumn>& columns, TabularColumn c) {
  if (std::find(columns.begin(), columns.end(), c) == columns.end()) columns.push_back(c);
}

std::string unsigned_text(uint64_t v) { return std::to_string(v); }

}  // namespace

TabularFormat::TabularFormat() : columns(standard_columns()) {}

bool TabularFormat::needs_aligned_letters() const {
  if (style == TabularStyle::pairwise || style == TabularStyle::xml || style == TabularStyle::json) return true;
  for (TabularColumn c : columns)
    if (c == TabularColumn::qseq || c == TabularColumn::sseq || c == TabularColumn::btop) return true;
  return false;
}

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
  if (words.empty() ||
      (words[0] != "0" && words[0] != "5" && words[0] != "6" && words[0] != "7" && words[0] != "10" &&
       words[0] != "15"))
    throw UsageError("--outfmt: only blastn's pairwise report 0, its XML 5, its JSON 15 and its tabular formats 6, "
                     "7 (with comment lines) and 10 (commas) are supported, as \"0\", \"6\" or \"6 qseqid sseqid "
                     "...\"; got \"" + spec + "\"");
  TabularFormat f;
  if (words[0] == "0" || words[0] == "5" || words[0] == "15") {
    const char* what = words[0] == "0" ? "pairwise report" : words[0] == "5" ? "XML" : "JSON";
    if (words.size() > 1)
      throw UsageError("--outfmt " + words[0] + " (blastn's " + what + ") takes no columns; got \"" + spec + "\"");
    f.style = words[0] == "0" ? TabularStyle::pairwise : words[0] == "5" ? TabularStyle::xml : TabularStyle::json;
    return f;
  }
  f.style = words[0] == "6" ? TabularStyle::tabs : words[0] == "7" ? TabularStyle::commented : TabularStyle::csv;
  if (words.size() == 1) return f;
  f.columns.clear();
  for (size_t i = 1; i < words.size(); ++i) {
    if (words[i] == "std") {
      for (TabularColumn c : standard_columns()) add_column(f.columns, c);
      continue;
    }
    bool known = false;
    for (const ColumnName& n : kColumns)
      if (words[i] == n.name) {
        add_column(f.columns, n.column);
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
  if (format.style != TabularStyle::tabs && format.style != TabularStyle::csv)
    throw std::logic_error("outfmt_token: only formats 6 and 10 have a part token");
  std::string t = format.style == TabularStyle::csv ? "10:" : "";
  for (size_t i = 0; i < format.columns.size(); ++i) t += std::string(i ? "," : "") + column_name(format.columns[i]);
  return t;
}

TabularFormat outfmt_from_token(const std::string& token) {
  const bool csv = token.compare(0, 3, "10:") == 0;
  std::string spec = (csv ? "10 " : "6 ") + token.substr(csv ? 3 : 0);
  std::replace(spec.begin(), spec.end(), ',', ' ');
  return parse_outfmt(spec);
}

std::string btop_text(const std::string& qseq, const std::string& sseq) {
  std::string t;
  uint64_t run = 0;
  for (size_t i = 0; i < qseq.size() && i < sseq.size(); ++i) {
    if (qseq[i] == sseq[i]) {
      ++run;
      continue;
    }
    if (run) t += std::to_string(run);
    run = 0;
    t += qseq[i];
    t += sseq[i];
  }
  if (run) t += std::to_string(run);
  return t;
}

std::string format_tabular(const TabularHit& h, const TabularFormat& format) {
  std::string line;
  char buf[64];
  const uint64_t mismatches = h.length - h.identities - h.gaps;
  for (size_t i = 0; i < format.columns.size(); ++i) {
    if (i) line += format.separator();
    switch (format.columns[i]) {
      // Identifiers as blastn prints them for FASTA input read without -parse_seqids: the first word, whole.
      case TabularColumn::qseqid: case TabularColumn::qaccver: case TabularColumn::qacc: line += h.query; break;
      case TabularColumn::sseqid: case TabularColumn::saccver: case TabularColumn::sacc:
      case TabularColumn::sallseqid: case TabularColumn::sallacc: line += h.subject; break;
      // blastn -subject reads FASTA without -parse_seqids: no GI (0) and no title (N/A) for a subject.
      case TabularColumn::sgi: case TabularColumn::sallgi: line += '0'; break;
      case TabularColumn::stitle: case TabularColumn::salltitles: line += "N/A"; break;
      // Nucleotide frames: the query's is always 1, the subject's the strand it aligns on.
      case TabularColumn::qframe: line += '1'; break;
      case TabularColumn::sframe: line += h.s_start <= h.s_end ? "1" : "-1"; break;
      case TabularColumn::frames: line += h.s_start <= h.s_end ? "1/1" : "1/-1"; break;
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
      case TabularColumn::btop: line += btop_text(h.qseq, h.sseq); break;
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
  for (size_t i = 0; i < format.columns.size(); ++i) {
    line += i ? format.separator() : ' ';
    line += column_name(format.columns[i]);
  }
  return line;
}

std::string blast_query_title(const std::string& definition_line) {
  std::string t = definition_line.substr(0, definition_line.find('\t'));
  t.erase(t.find_last_not_of(" \t\r") + 1);
  return t;
}

// blastn's lines but the first, which names this program where blastn names itself ("# BLASTN 2.12.0+").
std::string commented_query_block(const TabularFormat& format, const std::string& title, const std::string& database,
                                  uint64_t hits) {
  std::string b = std::string("# BLASTN blast-bloom ") + BLOOMSEQ_VERSION + "\n# Query: " + title +
                  "\n# Database: User specified sequence set (Input: " + database + ")\n";
  if (hits) {
    b += "# Fields: ";
    for (size_t i = 0; i < format.columns.size(); ++i)
      b += std::string(i ? ", " : "") + column_entry(format.columns[i]).field;
    b += '\n';
  }
  return b + "# " + std::to_string(hits) + " hits found\n";
}

std::string commented_trailer(uint64_t queries) { return "# BLAST processed " + std::to_string(queries) + " queries\n"; }

}  // namespace bloomseq
