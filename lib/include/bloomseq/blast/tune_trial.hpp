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
  // build + stages 1a + 1b for the whole database: the sample is searched in two halves, the second's cost per base
  // scaled to the database, and what the first cost beyond that added once
  double predicted_s = 0;
};

// The whole run predicted from the check: what it has cost so far, and the rest from the sample (the kept
// candidate's stages 1a + 1b, the later stages of the defaults' search on the same seeds, the database's reading
// from the first batch's), each scaled to the whole database.
struct RunPrediction {
  double before_s = 0;   // from the start of the run to the end of the check
  double search_s = 0;   // stages 1a and 1b, scaled
  double later_s = 0;    // stages 2 and 3, scaled
  double reading_s = 0;  // reading the database's batches, scaled
  double total() const { return before_s + search_s + later_s + reading_s; }
};

struct TuneTrial {
  bool ran = false;
  uint64_t sample_bases = 0;
  TuneTrialCandidate plan, defaults;
  double plan_build_estimate_s = 0;  // the plan's build timed on a sixteenth of the query, scaled
  bool plan_skipped = false;  // the model's figure for the plan plus that estimate was above the defaults' cost
  bool kept_plan = true;
  bool plan_timed = true;  // false when the plan is the defaults: only they are timed
  // Stages 2 and 3 on the sample (the defaults' search; both find the same seeds): what they cost once (first
  // touches of the diagonal tables) and per database base.
  double later_once_s = 0, later_per_base_s = 0;
  RunPrediction run;           // filled in by the caller, who knows what the run cost before the check
  double seconds = 0;  // the whole check
  // The kept candidate's search, restarted (BlastSearch::restart): its filters are not built twice.
  std::unique_ptr<BlastSearch> kept;
};

// Bases of the sample for a database of `db_bases` whose first batch holds `batch_bases` (codes included):
// 1/32 of the database, at least 64 kbases, at most 8 Mbases and the first batch.
uint64_t tune_trial_sample_bases(uint64_t db_bases, uint64_t batch_bases);

// `bases` codes of `batch` in 16 pieces spread evenly over it, each a record (one piece under 16 kbases).
DbBatch tune_trial_sample(const DbBatch& batch, uint64_t bases);

// Times both parameter sets on `sample` and says which to keep. `make_backend` gives a fresh stage-1a backend
// for each search (as the real run would get).
// Both searches have run_stage2 = false on return.
// `plan_model_s`: the model's prediction for the plan's stages 1a and 1b (0: always time the plan).
// `later`: the run extends its seeds (stages 2 and 3): they are timed too, on the defaults' search of the sample.
// When the plan is the defaults (`same`), only they are timed, and kept.
TuneTrial run_tune_trial(const QuerySet& queries, const BlastParams& plan, double plan_model_s,
                         const BlastParams& defaults, const DbTotals& totals, const DbBatch& sample,
                         const std::function<std::unique_ptr<Stage1aBackend>()>& make_backend, bool later = false,
                         bool same = false);

}  // namespace bloomseq
