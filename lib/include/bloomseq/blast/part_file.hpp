// The part file a sharded search writes instead of BLAST tabular output, and `blast-bloom merge`'s reader of it.
//
//   #bloomseq-blast-part 1<TAB>fp=<16 hex><TAB>db=I/N<TAB>query=J/M<TAB>header=0|1<TAB><identity>
//   <query index><TAB><subject index><TAB><rank E-value, hex float><TAB><rank score><TAB><tabular line>
//   ...
//   #end<TAB><number of HSP lines>
//
// The identity names everything that must agree between the parts of one search (program version, the
// parameters as run, the query's and the database's fingerprints, the stage); fp is its hash. The rank of an HSP
// is its subject's rank in BlastSearch::finish(): the E-value and score of the subject's best HSP for that query.
// Lines come in the single run's order, so the merge is a k-way merge on (query, E-value, -score, subject).
#pragma once
#include <cstdint>
#include <string>

#include "bloomseq/blast/shard.hpp"

namespace bloomseq {

struct PartHeader {
  std::string identity;  // no tabs or newlines
  ShardSpec db, query;
  bool header = true;  // the single run prints the tabular header line
};

std::string part_header_line(const PartHeader& h);  // with its newline
// Parses a first line (without its newline); throws DataError naming `path` if it is not a part's.
PartHeader parse_part_header(const std::string& line, const std::string& path);

struct PartKey {
  uint32_t query = 0, subject = 0;
  double evalue = 0;
  int64_t score = 0;
};
// True if a comes before b in the single run's order (subjects of a query by best E-value, best score, then the
// later subject first, as blastn orders them).
bool part_key_less(const PartKey& a, const PartKey& b);

std::string part_hsp_line(const PartKey& key, const std::string& tabular);  // with its newline
// Parses an HSP line (without its newline): its key and where the tabular text starts. False if malformed.
bool parse_part_hsp_line(const std::string& line, PartKey& key, size_t& tabular_at);

std::string part_trailer_line(uint64_t hsp_lines);  // with its newline
const char* const kPartTrailerPrefix = "#end\t";

}  // namespace bloomseq
