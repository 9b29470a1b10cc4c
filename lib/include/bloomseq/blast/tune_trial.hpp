// --auto-tune's on-line check. The model prices stage 1a from a probe on random DNA and a calibration that may be
// stale; it cannot see a busy machine or the real DNA's true hits. So before the search proper, the model's plan and
// the parameters a run without --auto-tune would use are each timed on a sample of the first database batch
// (filter build + stages 1a and 1b), the whole run's cost is extrapolated for both, and the search goes on with
// the cheaper one. The plan is not built whole when the model's figure for it plus its build timed on a sixteenth
// of the query is above the defaults' measured cost. Stage 1b is exact, so both find the same seeds and the output does not depend on the choice:
// only the time does. The check costs the sample searched once or twice (1/32 of stages 1a and 1b each) and,
// when both are timed, the build of the one not kept.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>

#include "bloomseq/blast/database.hpp"
#include "bloomseq/blast/params.hpp"
#include "bloomseq/blast/pipeline.hpp"

namespace bloomseq {

struct TuneTrialCandidate {
  double build_s = 0;      // sub-query filters built and stage 1a prepared
  double sample_s = 0;     // stages 1a + 1b on the sample
  double predicted_s = 0;  // build + sample scaled to the whole database
};

struct TuneTrial {
  bool ran = false;
  uint64_t sample_bases = 0;
  TuneTrialCandidate plan, defaults;
  double plan_build_estimate_s = 0;  // the plan's build timed on a sixteenth of the query, scaled
  bool plan_skipped = false;  // the model's figure for the plan plus that estimate was above the defaults' cost
  bool kept_plan = true;
  double seconds = 0;  // the whole check
  // The kept candidate's search, restarted (BlastSearch::restart): its filters are not built twice.
  std::unique_ptr<BlastSearch> kept;
};

// Bases of the sample for a database of `db_bases` whose first batch holds `batch_bases` (codes included):
// 1/32 of the database, at least 64 kbases, at most 8 Mbases and the first batch.
uint64_t tune_trial_sample_bases(uint64_t db_bases, uint64_t batch_bases);

// The first `bases` codes of `batch` as one record (stage 1b's seeds are found in it the same way).
DbBatch tune_trial_sample(const DbBatch& batch, uint64_t bases);

// Times both parameter sets on `sample` and says which to keep. `make_backend` gives a fresh stage-1a backend
// for each search (as the real run would get).
// Both searches have run_stage2 = false on return.
// `plan_model_s`: the model's prediction for the plan's stages 1a and 1b (0: always time the plan).
TuneTrial run_tune_trial(const QuerySet& queries, const BlastParams& plan, double plan_model_s,
                         const BlastParams& defaults, const DbTotals& totals, const DbBatch& sample,
                         const std::function<std::unique_ptr<Stage1aBackend>()>& make_backend);

}  // namespace bloomseq
