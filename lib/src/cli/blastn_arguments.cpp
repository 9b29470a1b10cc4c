#include "bloomseq/cli/blastn_arguments.hpp"

#include <algorithm>

#include "bloomseq/error.hpp"

namespace bloomseq {

namespace {

// blastn options that map onto one of ours and take a value ("--ours=VALUE": a negative value cannot be taken
// for an option that way).
struct Renamed {
  const char* blastn;
  const char* ours;
};
constexpr Renamed kValues[] = {
    {"-out", "--output"},         {"-outfmt", "--outfmt"},
    {"-evalue", "--evalue"},      {"-word_size", "--word-size"},
    {"-reward", "--reward"},      {"-penalty", "--penalty"},
    {"-gapopen", "--gapopen"},    {"-gapextend", "--gapextend"},
    {"-xdrop_ungap", "--xdrop"},  {"-xdrop_gap", "--xdrop-gap"},
    {"-xdrop_gap_final", "--xdrop-gap-final"},
    {"-task", "--task"},          {"-strand", "--strand"},
    {"-num_threads", "--threads"}, {"-max_target_seqs", "--max-target-seqs"},
    {"-max_hsps", "--max-hsps"},  {"-perc_identity", "--perc-identity"},
    {"-qcov_hsp_perc", "--qcov-hsp-perc"}, {"-dbsize", "--dbsize"},
    {"-searchsp", "--searchsp"},
    {"-num_alignments", "--max-target-seqs"},  // blastn: the same as -max_target_seqs for tabular output
};
constexpr Renamed kFlags[] = {
    {"-lcase_masking", "--lcase-masking"}, {"-help", "--help"}, {"-version", "--version"},
};

// blastn options with no counterpart, and whether they take a value. A default value that changes nothing is
// accepted (kNoOpValues).
struct Unsupported {
  const char* name;
  bool value;
};
constexpr Unsupported kUnsupported[] = {
    {"-db", true}, {"-window_size", true}, {"-off_diagonal_range", true},
    {"-culling_limit", true}, {"-best_hit_overhang", true}, {"-best_hit_score_edge", true},
    {"-subject_besthit", false}, {"-template_type", true}, {"-template_length", true}, {"-use_index", true},
    {"-index_name", true}, {"-min_raw_gapped_score", true}, {"-no_greedy", false}, {"-query_loc", true},
    {"-subject_loc", true}, {"-parse_deflines", false}, {"-show_gis", false}, {"-html", false},
    {"-line_length", true}, {"-sorthits", true}, {"-sorthsps", true}, {"-filtering_db", true}, {"-window_masker_taxid", true},
    {"-window_masker_db", true}, {"-db_soft_mask", true}, {"-db_hard_mask", true}, {"-gilist", true},
    {"-seqidlist", true}, {"-negative_gilist", true}, {"-negative_seqidlist", true}, {"-taxids", true},
    {"-negative_taxids", true}, {"-taxidlist", true}, {"-negative_taxidlist", true}, {"-entrez_query", true},
    {"-import_search_strategy", true}, {"-export_search_strategy", true}, {"-remote", false},
    {"-mt_mode", true}, {"-max_intron_length", true},
};
struct NoOp {
  const char* name;
  const char* value;
};
constexpr NoOp kNoOpValues[] = {{"-window_size", "0"}, {"-off_diagonal_range", "0"}, {"-mt_mode", "0"}};

bool is_blastn_option(const std::string& a) {
  for (const char* n : {"-query", "-subject", "-ungapped", "-sum_stats", "-dust", "-soft_masking", "-num_descriptions"})
    if (a == n) return true;
  for (const Renamed& r : kValues)
    if (a == r.blastn) return true;
  for (const Renamed& r : kFlags)
    if (a == r.blastn) return true;
  for (const Unsupported& u : kUnsupported)
    if (a == u.name) return true;
  return false;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}
bool is_false(const std::string& v) {
  const std::string l = lower(v);
  return l == "false" || l == "f" || l == "0" || l == "no";
}
bool is_true(const std::string& v) {
  const std::string l = lower(v);
  return l == "true" || l == "t" || l == "1" || l == "yes";
}

}  // namespace

BlastnArguments translate_blastn_arguments(const std::vector<std::string>& args) {
  BlastnArguments out;
  std::string query, subject;
  std::string outfmt;  // -outfmt's value, if given
  bool have_query = false, have_subject = false, ungapped = false, task = false;
  std::string num_descriptions;  // -num_descriptions' value (the pairwise report's table)
  bool num_descriptions_given = false, num_alignments_given = false;
  int sum_stats = -1;  // -1 not given, 0 false, 1 true
  std::vector<std::string> seen;  // blastn refuses an option given twice; so does this
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (is_blastn_option(a)) {
      if (std::find(seen.begin(), seen.end(), a) != seen.end())
        throw UsageError("blastn's " + a + " is given more than once");
      seen.push_back(a);
    }
    const auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) throw UsageError("blastn's " + a + " needs a value");
      out.used = true;
      return args[++i];
    };
    if (a == "-query") {
      query = value(), have_query = true;
      continue;
    }
    if (a == "-subject") {
      subject = value(), have_subject = true;
      continue;
    }
    if (a == "-ungapped") {
      out.used = ungapped = true;
      out.args.push_back("--ungapped");
      continue;
    }
    if (a == "-sum_stats") {
      const std::string& v = value();
      if (is_true(v)) sum_stats = 1;
      else if (is_false(v)) sum_stats = 0;
      else throw UsageError("blastn's -sum_stats: '" + v + "' (expected true or false)");
      continue;
    }
    if (a == "-dust") {
      const std::string& v = value();
      // blastn's "yes" is level 20, window 64, linker 1; only those settings are blast-bloom's DUST.
      std::string squeezed;  // the three numbers with single spaces between them
      for (char c : v)
        if (c != ' ' || (!squeezed.empty() && squeezed.back() != ' ')) squeezed += c;
      if (!squeezed.empty() && squeezed.back() == ' ') squeezed.pop_back();
      if (is_true(v) || squeezed == "20 64 1") out.args.push_back("--dust=yes");
      else if (is_false(v)) out.args.push_back("--dust=no");
      else throw UsageError("blastn's -dust '" + v + "': only yes (20 64 1) or no");
      continue;
    }
    if (a == "-num_descriptions") {
      num_descriptions = value();  // blastn ignores it for tabular output and says so; so does this
      num_descriptions_given = true;
      out.note = "blastn's -num_descriptions is ignored for tabular output (as blastn ignores it); -max_target_seqs "
                 "limits the subjects";
      continue;
    }
    if (a == "-soft_masking") {
      const std::string& v = value();
      // DUST masks seeds only (soft), as blastn's default; hard masking is not done.
      if (!is_true(v)) throw UsageError("blastn's -soft_masking " + v + ": only soft masking (true, blastn's default)");
      continue;
    }
    bool done = false;
    for (const Renamed& r : kValues)
      if (a == r.blastn) {
        const std::string& v = value();
        if (a == "-outfmt") outfmt = v;
        num_alignments_given |= a == "-num_alignments";
        task |= a == "-task";
        out.args.push_back(std::string(r.ours) + "=" + v);
        done = true;
        break;
      }
    for (const Renamed& r : kFlags)
      if (!done && a == r.blastn) {
        out.used = true;
        out.args.push_back(r.ours);
        done = true;
      }
    for (const Unsupported& u : kUnsupported)
      if (!done && a == u.name) {
        const std::string v = u.value ? value() : std::string();
        bool no_op = false;
        for (const NoOp& n : kNoOpValues) no_op |= a == n.name && v == n.value;
        if (no_op) {
          done = true;
          break;
        }
        out.used = true;
        if (a == "-db")
          throw UsageError("blastn's -db: BLAST databases (makeblastdb) are not read; give the sequences as FASTA, "
                           "gzip or .2bit with -subject");
        throw UsageError("blastn's " + a + " is not supported by blast-bloom (docs/blast-bloom.md, \"blastn's "
                         "command line\")");
      }
    if (!done) out.args.push_back(a);
  }
  if (!out.used) {
    out.args = args;
    return out;
  }
  const bool pairwise = outfmt.find_first_not_of(" \t") == std::string::npos ||
                        outfmt.substr(outfmt.find_first_not_of(" \t"), 1) == "0";
  if (pairwise) {
    // The report has its own table and alignment counts (blastn's defaults 500 and 250): the two options set
    // those instead of the subjects kept (tabular) or nothing (-num_descriptions, tabular).
    for (std::string& x : out.args)
      if (x.rfind("--max-target-seqs=", 0) == 0 && num_alignments_given) x = "--num-alignments=" + x.substr(18);
    if (num_descriptions_given) {
      out.args.push_back("--num-descriptions=" + num_descriptions);
      out.note.clear();
    }
  }
  if (std::find(seen.begin(), seen.end(), "-num_alignments") != seen.end() &&
      std::find(seen.begin(), seen.end(), "-max_target_seqs") != seen.end())
    throw UsageError("blastn's -num_alignments and -max_target_seqs cannot be combined (as in blastn)");
  if (ungapped && sum_stats != 0)
    throw UsageError("blastn's -ungapped scores with sum statistics unless -sum_stats false, and blast-bloom has "
                     "none: add -sum_stats false");
  if (sum_stats == 1) throw UsageError("blastn's -sum_stats true: sum statistics are not computed by blast-bloom");
  if (have_query && !have_subject)
    throw UsageError("blastn's -query needs -subject: blast-bloom searches sequences given as FASTA, gzip or .2bit");
  // blastn prints no header line (format 7 has its own comment lines); without -outfmt it writes its pairwise
  // report (format 0).
  const size_t from = std::min(outfmt.find_first_not_of(" \t"), outfmt.size());
  const std::string format = outfmt.substr(from, outfmt.find_first_of(" \t", from) - from);
  if (format != "7") out.args.insert(out.args.begin(), "--no-header");
  if (!task) out.args.insert(out.args.begin(), "--task=megablast");  // blastn's default task
  if (outfmt.empty()) out.args.insert(out.args.begin(), "--outfmt=0");
  if (have_subject) {
    out.args.push_back(have_query ? query : "-");
    out.args.push_back(subject);
  }
  return out;
}

}  // namespace bloomseq
