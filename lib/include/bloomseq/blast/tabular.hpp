// BLAST tabular output as blastn's -outfmt 6 (tabs), 7 (tabs with blastn's comment lines) and 10 (commas): the 12
// standard columns, or a column list as blastn takes it ("6 qseqid sseqid pident ... qlen slen qcovhsp"), with
// BLAST+'s number formatting.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace bloomseq {

// E-value text as BLAST+ prints it (0.0 below 1e-180, %.2e below 0.0009, then %4.3f, %3.2f, %2.1f, %2.0f).
std::string format_evalue(double evalue);
// Bit score text (%5.3e above 99999, the truncated integer above 99.9, else %4.1f).
std::string format_bitscore(double bits);

// One HSP in plus-strand, 1-based coordinates: for a minus-strand hit q_start < q_end and s_start > s_end.
struct TabularHit {
  std::string query;
  std::string subject;
  uint64_t length = 0;
  uint64_t identities = 0;
  uint64_t q_start = 0, q_end = 0, s_start = 0, s_end = 0;
  double evalue = 0;
  double bits = 0;
  uint64_t gaps = 0;       // columns with a gap (length = identities + mismatches + gaps)
  uint64_t gap_opens = 0;  // runs of gap columns
  int64_t score = 0;       // raw score
  uint64_t q_len = 0, s_len = 0;  // the query record's and the subject record's lengths
  uint64_t q_covered_subject = 0;  // query bases covered by any alignment with this subject (qcovs)
  std::string qseq{}, sseq{};      // the aligned letters (qseq, sseq)
  std::string s_title{};           // the subject's definition line (the pairwise report's "> " line)
  // The subject's lower-case bases in the HSP's range ([first, last], 0-based record coordinates, increasing;
  // the report shows them in lower case under --lcase-masking, as blastn).
  std::vector<std::pair<uint64_t, uint64_t>> s_masked{};
  uint64_t subject_ordinal = 0;  // the subject's record number, 1-based (XML's Subject_N)
};

// The columns blast-bloom can print (blastn's names; qcovus and taxonomy are not among them; titles and GIs print what
// blastn -subject prints for FASTA: N/A and 0).
enum class TabularColumn {
  qseqid, qaccver, qacc, sseqid, saccver, sacc, pident, length, mismatch, gapopen, gaps, nident, positive, ppos,
  qstart, qend, sstart, send, evalue, bitscore, score, qlen, slen, qcovhsp, sstrand, qcovs, qseq, sseq, btop,
  sallseqid, sallacc, sgi, sallgi, stitle, salltitles, frames, qframe, sframe
};

// blastn's -outfmt numbers: the tabular ones, its pairwise report (0), its XML (5) and its JSON (15;
// pairwise_report.hpp).
enum class TabularStyle { pairwise = 0, xml = 5, tabs = 6, commented = 7, csv = 10, json = 15 };

struct TabularFormat {
  TabularStyle style = TabularStyle::tabs;
  // blastn's default 12 ("std"): qaccver saccver pident length mismatch gapopen qstart qend sstart send evalue
  // bitscore.
  std::vector<TabularColumn> columns;
  TabularFormat();
  char separator() const { return style == TabularStyle::csv ? ',' : '\t'; }
  // Whether the HSPs must carry their aligned letters (qseq, sseq, btop; the pairwise report).
  bool needs_aligned_letters() const;
};

// Parses --outfmt: "0" (the pairwise report, no columns), or "6", "7" or "10", alone or followed by columns (blastn's names, "std" for the 12 standard ones);
// a column named twice is printed once, where it first appears, as blastn does. Anything else (another format
// number, an unknown or unsupported column) is a UsageError naming it.
TabularFormat parse_outfmt(const std::string& spec);

// The format as one token ("qseqid,sseqid,...", "10:qseqid,..." for commas), and back: how a part file records it
// (merge_parts.hpp). Formats 7 and 0 have no token: their comments and reports need every query's title and
// statistics (refused with shards).
std::string outfmt_token(const TabularFormat& format);
TabularFormat outfmt_from_token(const std::string& token);

// The line without its newline.
std::string format_tabular(const TabularHit& h, const TabularFormat& format = TabularFormat());

// The header line naming the columns (a comment, starts with '#'; formats 6 and 10).
std::string tabular_header(const TabularFormat& format = TabularFormat());

// BTOP (blastn's "Blast traceback operations") from the aligned letters: a count for each run of equal letters,
// the query's then the subject's letter for each other column ('-' for a gap).
std::string btop_text(const std::string& qseq, const std::string& sseq);

// Format 7's comment lines: the block that opens each query's hits (blastn's four or five lines; `hits` of them
// follow), and the line that closes the output. `title` is the query's definition line as blastn shows it
// (blast_query_title), `database` the path of the subject file.
std::string commented_query_block(const TabularFormat& format, const std::string& title, const std::string& database,
                                  uint64_t hits);
std::string commented_trailer(uint64_t queries);
// A FASTA definition line (without '>') as blastn's comment shows it: up to the first tab, trailing blanks dropped.
std::string blast_query_title(const std::string& definition_line);

}  // namespace bloomseq
