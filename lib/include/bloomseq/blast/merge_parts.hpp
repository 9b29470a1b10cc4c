// blast-bloom merge: the part files of a sharded search (part_file.hpp) into the single run's output, byte for
// byte. A streaming k-way merge: one line of each part in memory, whatever their size.
#pragma once
#include <string>
#include <vector>

namespace bloomseq {

// Checks that `parts` are the complete grid of one search's shards (every db I/N x query J/M exactly once, the
// same fingerprint), then writes the merged output to `output` ('-' = stdout) through OutputFile. Throws
// DataError naming the file (or the missing shard) on a missing, duplicate, foreign, truncated or corrupt part;
// nothing is written then (on stdout, a corrupt line found late stops the output where it is).
void merge_parts(const std::string& output, const std::vector<std::string>& parts);

}  // namespace bloomseq
