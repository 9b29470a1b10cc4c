// blastn's pairwise report (-outfmt 0, its default output) for a search of FASTA subjects (blastn -subject): the
// header with the reference, per query the descriptions table and the alignments in 60-column blocks with the
// Karlin-Altschul values and the search space, and the database footer. Laid out as BLAST+ 2.12 lays it out
// (docs/blast-bloom.md, "The pairwise report"); the first line names this program instead of BLAST+.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "bloomseq/blast/karlin.hpp"
#include "bloomseq/blast/tabular.hpp"

namespace bloomseq {

// What the whole report shares.
struct PairwiseSettings {
  std::string version;     // the first line: "BLASTN " + version
  bool megablast = false;  // megablast's reference (Zhang et al. 2000); the others cite Altschul et al. 1997
  std::string database;    // the subject file as given
  uint64_t db_letters = 0, db_sequences = 0;
  int reward = 2, penalty = -3, gap_open = 5, gap_extend = 2;  // open = extend = 0: megablast's linear gaps
  bool gapped = true;
  double evalue = 10;  // the E-value cut-off (XML's Parameters_expect)
  bool dust = true;    // XML's Parameters_filter: "L;m;" with DUST, "m;" without
  size_t descriptions = 500;  // subjects in the table (blastn -num_descriptions)
  size_t alignments = 250;    // subjects whose alignments are shown (blastn -num_alignments)
};

// One query record.
struct PairwiseQuery {
  std::string title;  // its definition line (without '>')
  uint64_t length = 0;
  KarlinParams ungapped, gapped;  // its first searched strand's; no values are printed for a record without bases
  double search_space = 0;
  int64_t length_adjustment = 0;  // BLAST's hsp-len (XML's Statistics_hsp-len)
  size_t ordinal = 1;             // the record's number among the queries (XML's Query_N)
  // Its masked bases (DUST, lower case with --lcase-masking), shown in lower case: [first, last], increasing.
  std::vector<std::pair<uint64_t, uint64_t>> masked{};
};

std::string pairwise_header(const PairwiseSettings& s);
// The query's part: `hits` in the output's order (grouped by subject, best subject first), each with its aligned
// letters and its subject's definition line (TabularHit::s_title).
std::string pairwise_query_report(const PairwiseSettings& s, const PairwiseQuery& q, const std::vector<TabularHit>& hits);
std::string pairwise_footer(const PairwiseSettings& s);

// blastn's XML (-outfmt 5) from the same pieces: the document's start (parameters, the first query's name),
// one Iteration per query, and its end. TabularHit::subject_ordinal gives each hit's Subject_N.
std::string xml_report_header(const PairwiseSettings& s, const PairwiseQuery& first);
std::string xml_report_iteration(const PairwiseSettings& s, const PairwiseQuery& q, const std::vector<TabularHit>& hits);
std::string xml_report_footer();

// blastn's single-file JSON (-outfmt 15): one "report" per query (`first` for the first one), each naming all
// `subjects` subjects, then the document's end.
std::string json_report(const PairwiseSettings& s, const PairwiseQuery& q, const std::vector<TabularHit>& hits,
                        uint64_t subjects, bool first);
std::string json_report_footer();

// The pieces, for the tests.
// BLAST+'s word wrap of the header lines (68 columns, breaking at blanks, then after commas or hyphens).
std::vector<std::string> wrap_report_line(const std::string& text, size_t width = 68);
// A subject's definition line as the report shows it (trailing punctuation and doubled blanks removed).
std::string report_subject_title(const std::string& definition_line);
// E-value as the report prints it (2e-45 where the tabular format prints 2.34e-45).
std::string report_evalue(double evalue);
// A percentage as the report prints it: 100 only when equal, else rounded and at most 99.
int report_percent(uint64_t part, uint64_t whole);

}  // namespace bloomseq
