#include "bloomseq/blast/tune_trial.hpp"

#include <algorithm>
#include <chrono>

namespace bloomseq {

namespace {

constexpr double kPlanGainNeeded = 0.8;

double seconds_between(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

TuneTrialCandidate time_candidate(const QuerySet& queries, const BlastParams& p, const DbTotals& totals,
                                  const DbBatch& sample, std::unique_ptr<Stage1aBackend> backend,
                                  std::unique_ptr<BlastSearch>& search) {
  TuneTrialCandidate c;
  const auto t0 = std::chrono::steady_clock::now();
  search = std::make_unique<BlastSearch>(queries, p, totals, std::move(backend));
  search->run_stage2 = false;  // stage 2/3 work is the same for both: the same seeds
  search->prepare_stage1a();   // once per run: part of the build, not of the per-base cost
  const auto t1 = std::chrono::steady_clock::now();
  search->search(sample);
  const auto t2 = std::chrono::steady_clock::now();
  c.build_s = seconds_between(t0, t1);
  c.sample_s = seconds_between(t1, t2);
  const double scale = sample.codes.empty() ? 0.0 : double(totals.bases) / double(sample.codes.size());
  c.predicted_s = c.build_s + c.sample_s * scale;
  return c;
}

// The first `bases` bases of the query records, in order (the last one cut).
QuerySet query_prefix(const QuerySet& q, uint64_t bases) {
  QuerySet p;
  for (size_t i = 0; i < q.size() && bases > 0; ++i) {
    const size_t n = q.codes[i].size(), take = size_t(std::min<uint64_t>(bases, n));
    p.names.push_back(q.names[i]);
    p.codes.emplace_back(q.codes[i].begin(), q.codes[i].begin() + long(take));
    p.rc_codes.emplace_back(q.rc_codes[i].end() - long(take), q.rc_codes[i].end());
    bases -= take;
  }
  return p;
}

// The plan's build from a sixteenth of the query (at least 64 kbases): filters, index and stage-1a setup grow
// with the query's length, so a plan whose build alone loses is not built whole.
double estimate_build(const QuerySet& queries, const BlastParams& p, const DbTotals& totals,
                      std::unique_ptr<Stage1aBackend> backend) {
  uint64_t total = 0;
  for (const auto& c : queries.codes) total += c.size();
  const uint64_t part = std::min(total, std::max<uint64_t>(total / 16, uint64_t(64) << 10));
  if (part == 0) return 0;
  const auto t0 = std::chrono::steady_clock::now();
  BlastSearch search(query_prefix(queries, part), p, totals, std::move(backend));
  search.prepare_stage1a();
  return seconds_between(t0, std::chrono::steady_clock::now()) * double(total) / double(part);
}

}  // namespace

uint64_t tune_trial_sample_bases(uint64_t db_bases, uint64_t batch_bases) {
  const uint64_t want = std::clamp<uint64_t>(db_bases / 32, uint64_t(64) << 10, uint64_t(8) << 20);
  return std::min(want, batch_bases);
}

DbBatch tune_trial_sample(const DbBatch& batch, uint64_t bases) {
  DbBatch s;
  bases = std::min<uint64_t>(bases, batch.codes.size());
  s.add_record_codes("sample", bases,
                     [&](uint8_t* out) { std::copy(batch.codes.begin(), batch.codes.begin() + long(bases), out); });
  return s;
}

TuneTrial run_tune_trial(const QuerySet& queries, const BlastParams& plan, double plan_model_s,
                         const BlastParams& defaults, const DbTotals& totals, const DbBatch& sample,
                         const std::function<std::unique_ptr<Stage1aBackend>()>& make_backend) {
  TuneTrial t;
  const auto t0 = std::chrono::steady_clock::now();
  t.ran = true;
  t.sample_bases = sample.codes.size();
  std::unique_ptr<BlastSearch> planned, plain;
  // The defaults first. Their build is needed anyway if they are kept; the plan's is saved whenever the model's
  // own figure for it (stages 1a/1b) plus its build estimated on a part of the query already exceeds what the
  // defaults are measured to cost. A warm-up
  // effect (page cache, clock) then favours the plan, the second, so a plan kept is not kept by luck.
  t.defaults = time_candidate(queries, defaults, totals, sample, make_backend(), plain);
  if (plan_model_s < kPlanGainNeeded * t.defaults.predicted_s) t.plan_build_estimate_s = estimate_build(queries, plan, totals, make_backend());
  // The defaults are the safe choice: the plan is built only for a predicted gain of 20% or more (the partial
  // build underestimates a large plan's, whose filters leave the caches).
  if (plan_model_s + t.plan_build_estimate_s >= kPlanGainNeeded * t.defaults.predicted_s) {
    t.plan_skipped = true;
    t.plan.build_s = t.plan_build_estimate_s;
    t.plan.predicted_s = plan_model_s + t.plan_build_estimate_s;
    t.kept_plan = false;
  } else {
    t.plan = time_candidate(queries, plan, totals, sample, make_backend(), planned);
    t.kept_plan = t.plan.predicted_s < t.defaults.predicted_s;
  }
  t.kept = std::move(t.kept_plan ? planned : plain);
  t.kept->restart();
  t.seconds = seconds_between(t0, std::chrono::steady_clock::now());
  return t;
}

}  // namespace bloomseq
