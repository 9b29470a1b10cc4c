// blastn's own command line as blast-bloom's options: a script written for
//   blastn -task blastn -query Q.fa -subject DB.fa -outfmt "6 qseqid sseqid evalue" -evalue 1e-5 -num_threads 2
// runs unchanged with blast-bloom in place of blastn and prints blastn's output (no '#' header line). The
// options blast-bloom cannot honour (BLAST databases, sum statistics, pairwise reports, culling...) are refused
// with one line naming them, never ignored. Pure argument rewriting: no I/O.
#pragma once
#include <string>
#include <vector>

namespace bloomseq {

struct BlastnArguments {
  bool used = false;             // at least one argument was one of blastn's options
  std::vector<std::string> args;  // blast-bloom's arguments (the program name not included)
  std::string note;              // a line for stderr, or empty (blastn's default pairwise report is not written)
};

// `args` without the program name. Arguments that are not blastn's pass through unchanged, so blastn's and
// blast-bloom's options mix; -query and -subject become QUERY and DB (QUERY '-', stdin, without -query, as blastn).
BlastnArguments translate_blastn_arguments(const std::vector<std::string>& args);

}  // namespace bloomseq
