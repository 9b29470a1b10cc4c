// `facs merge`: the part files of a sharded `facs classify` run (part_file.hpp) into the outputs the single run
// writes: per-read calls concatenated in shard order, counters summed and every rate recomputed from the sums.
// Parts may come in any order; a missing or duplicate shard, parts of another run, a truncated or non-part file
// is a DataError naming the file, and nothing is written. Memory does not grow with the input: calls are streamed.
#pragma once
#include <string>
#include <vector>

namespace bloomseq {

struct FacsMergeRequest {
  bool output = false;  // -o: the per-read TSV (needs the shards' calls parts)
  std::string output_path;
  std::string summary = "-";
  bool json = false;
  std::string json_path;
  std::vector<std::string> parts;
  std::string command_line;  // recorded where the single run records its own (TSV first line, JSON)
};

void run_facs_merge(const FacsMergeRequest& request);

}  // namespace bloomseq
