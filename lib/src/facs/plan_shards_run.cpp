// facs plan-shards (plan_shards_run.hpp).
#include "bloomseq/facs/plan_shards_run.hpp"

#include "bloomseq/error.hpp"
#include "bloomseq/facs/shard_plan.hpp"

namespace bloomseq {

void run_plan_shards(const PlanShardsRequest& r, std::FILE* log) {
  if (r.reads == "-" || r.mate == "-")
    throw UsageError("plan-shards: shards read their input by position: give a file, not stdin");
  const ShardPlan plan = make_shard_plan(r.reads, r.mate, r.shards);
  write_shard_plan(r.output, plan);
  if (log) {
    const PlannedShard& last = plan.starts.back();
    std::fprintf(log, "facs plan-shards: %s: %llu shards; the last starts after %llu %s\n", r.output.c_str(),
                 (unsigned long long)plan.shards, (unsigned long long)last.records, plan.paired ? "pairs" : "records");
  }
}

}  // namespace bloomseq
