// The plan file of a sharded search (`blast-bloom plan ... -o plan.json`, then `--plan plan.json` on every shard):
// the parameters as run, after --auto-tune and the short-word scan plan, decided once from the whole query and
// database, with both inputs' fingerprints so that a shard refuses inputs other than the plan's.
#pragma once
#include <cstdint>
#include <string>

#include "bloomseq/blast/database.hpp"
#include "bloomseq/blast/params.hpp"

namespace bloomseq {

struct SearchPlan {
  BlastParams params;  // as run (threads: the planner's choice; a shard's -t overrides it)
  uint64_t query_records = 0, query_bases = 0, query_hash = 0;
  uint64_t db_records = 0, db_bases = 0, db_hash = 0;  // db_hash: DatabaseReader::layout_hash
  // Where the database's records start, so that a shard of a plain FASTA file skips the counting pass and starts
  // at its first record (DatabaseReader(path, DbLayout)); offsets empty when the file cannot be entered so.
  DbLayout db_layout;
};

// JSON (one flat object; doubles as hex floats, exact). Written through OutputFile.
void write_search_plan(const std::string& path, const SearchPlan& plan);
// Throws NoInputError if unreadable, DataError naming the file if it is not a plan of this program version.
SearchPlan read_search_plan(const std::string& path);

}  // namespace bloomseq
