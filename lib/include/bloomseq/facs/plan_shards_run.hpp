// facs plan-shards: the shard plan of a sharded classify run (facs/shard_plan.hpp), made once for every shard.
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>

namespace bloomseq {

struct PlanShardsRequest {
  std::string reads;
  std::string mate;  // "" for single reads
  uint64_t shards = 0;
  std::string output;
  bool quiet = false;
};

// Writes the plan to request.output (whole or not at all); a line on `log` (null: none) says what it holds.
void run_plan_shards(const PlanShardsRequest& request, std::FILE* log);

}  // namespace bloomseq
