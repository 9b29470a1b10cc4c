// A blast-bloom search as one library call: read the queries, open the database, choose the stage-1a backend,
// merge the --auto-tune plan or the short-word scan plan into the parameters, stream the database through
// BlastSearch, write the chosen stage's output (1a hits, 1b seeds or BLAST tabular HSPs) and the --stats JSON.
// The tool only parses its command line into a SearchRequest and calls run_search.
#pragma once
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "bloomseq/blast/params.hpp"
#include "bloomseq/blast/pipeline.hpp"
#include "bloomseq/blast/shard.hpp"
#include "bloomseq/blast/tabular.hpp"
#include "bloomseq/model/planner.hpp"

namespace bloomseq {

struct SearchRequest {
  std::string query, db;  // '-' = stdin (not both)
  BlastParams params;     // validated
  std::string stage = "hsp";  // what to print: 1a, 1b or hsp
  // --every-wmer: stage 1a tests every database w-mer for --stage hsp too (no probe word; see
  // BlastParams::probe_word).
  bool every_wmer = false;
  // --scan-word: the word stage 1a tests for --stage hsp (0 = chosen by short_word_plan.hpp or the defaults).
  int scan_word = 0;
  // --auto-tune: the objective and targets (sizes are filled in once the inputs are known).
  bool auto_tune = false;
  // With --auto-tune: time the plan against the defaults on a database sample first and keep the faster
  // (--tune-check; off by default: measured, it pays only where the plan is far off).
  bool tune_trial = false;
  model::PlanRequest request;
  std::string profile;  // --profile ("" = the default profile)
  // Given explicitly, so --auto-tune keeps them fixed.
  bool given_n_sub = false, given_k = false, given_m_bits = false, given_threads = false, given_batch = false;
  bool given_max_target_seqs = false;
  // The pairwise report's subjects per query: in the table and with their alignments (blastn -num_descriptions,
  // -num_alignments; -max_target_seqs sets both).
  size_t report_descriptions = 500, report_alignments = 250;
  std::string backend = "auto";  // auto, cpu or cuda
  int device = 0;
  std::string output = "-";
  bool stats = false;  // --stats given
  std::string stats_path;
  bool header = true;
  TabularFormat format;  // --outfmt: the HSP columns
  bool progress = false, no_progress = false;
  std::string command_line;  // recorded in the --stats JSON
  // --db-shard I/N, --query-shard J/M: search one shard and write a part file (part_file.hpp) to `output`.
  ShardSpec db_shard, query_shard;
  bool sharded = false;  // either option given (1/1 included)
  // `blast-bloom plan`: write the parameters as run and the inputs' fingerprints (search_plan.hpp) to `output`
  // instead of searching. --plan FILE: run that plan's parameters (no --auto-tune or scan plan here).
  bool make_plan = false;
  std::string plan;
};

// Where a search's results go besides its output file.
struct SearchSinks {
  std::FILE* log = stderr;  // the plan, the backend fallback, the estimate before long work; nullptr: silent
  // The HSPs in report order (stage hsp), as values, with the search that found them (names, parameters).
  std::function<void(const BlastSearch&, const std::vector<Hsp>&)> on_hsps;
};

struct SearchReport {
  BlastParams params;  // as run: after the --auto-tune or short-word plan
  Stage1aLayout layout = Stage1aLayout::automatic;
  std::string backend;  // "cpu" or the device's description
  BlastStats stats;
  uint64_t query_bases = 0;
  uint32_t subqueries = 0;
  double seconds = 0;
};

SearchReport run_search(const SearchRequest& request, const SearchSinks& sinks = {});

}  // namespace bloomseq
