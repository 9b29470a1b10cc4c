// The shard plan of paired reads cut by bytes (`facs plan-shards`, then `facs classify --shard I/N --shard-plan`).
// Without a plan, a shard of pairs finds its first pair's index by counting the reads file's records up to its
// block and then the mate file's up to that index (facs/shard.hpp): N shards together read both files about N/2
// times. The plan reads both files once and writes, for every shard, where its block starts in both files and how
// many records and lines precede it; a shard then seeks to its block in both files without counting.
//
// The plan also fingerprints each input: its size and a hash of the bytes around the start, the end and every cut
// (kPlanWindow either side), so a plan is refused for other files, another N, or a file that changed where it
// matters. A change that keeps the size and every byte near the cuts moves no cut; the mates are still checked
// pair by pair while the shard runs.
//
// File (text, one item per line, fields separated by tabs):
//   #bloomseq-facs-shard-plan <TAB> format=1 <TAB> version=V <TAB> shards=N <TAB> paired=0|1
//   #input <TAB> reads|mates <TAB> size <TAB> hash (16 hex) <TAB> path (as given; for messages only)
//   #shard <TAB> I <TAB> begin <TAB> lines <TAB> records <TAB> mate begin <TAB> mate lines    (I = 1..N)
//   #end <TAB> checksum (16 hex: FNV-1a of every line above, so that a damaged plan is refused)
// Only plain files can be entered at an offset: gzip (and other inputs cut by records) cannot have a plan. A plan
// made by another version of facs is refused (the cut rule could differ).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace bloomseq {

constexpr uint64_t kPlanWindow = 2048;  // bytes hashed either side of each cut

struct PlannedInput {
  std::string path;
  uint64_t size = 0;
  uint64_t hash = 0;  // input_window_hash over the shards' cuts in this file
};

// Where shard I's block starts: byte offset, lines and records before it, in the reads and (pairs) the mate file.
struct PlannedShard {
  uint64_t begin = 0, lines = 0, records = 0;
  uint64_t mate_begin = 0, mate_lines = 0;
};

struct ShardPlan {
  uint64_t shards = 0;
  bool paired = false;
  PlannedInput reads, mates;         // mates: pairs only
  std::vector<PlannedShard> starts;  // one per shard
};

// The hash of a plain text's size and of the kPlanWindow bytes either side of its start, its end and each cut
// (with the cuts' offsets).
uint64_t input_window_hash(std::string_view text, const std::vector<uint64_t>& cuts);

// Reads both files once. `mates` empty for single reads. Throws UsageError naming the file if it cannot be cut by
// bytes (gzip, .2bit, multi-line FASTQ, not a regular file), NoInputError / IoError if it cannot be read.
ShardPlan make_shard_plan(const std::string& reads, const std::string& mates, uint64_t shards);

std::string shard_plan_text(const ShardPlan& plan);
// Written whole or not at all (OutputFile).
void write_shard_plan(const std::string& path, const ShardPlan& plan);
// Throws NoInputError if it cannot be opened, DataError naming the file and line if it is not an intact plan.
ShardPlan parse_shard_plan(const std::string& path, const std::string& text);
ShardPlan read_shard_plan(const std::string& path);

// Refuses (DataError, one line naming the plan and the file) a plan made for other files, pairs vs single reads,
// another shard count or files that changed. `reads_text` / `mates_text`: the inputs' mapped text.
void check_shard_plan(const ShardPlan& plan, const std::string& plan_path, const std::string& reads,
                      std::string_view reads_text, const std::string& mates, std::string_view mates_text,
                      uint64_t shards);

}  // namespace bloomseq
