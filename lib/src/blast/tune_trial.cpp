#include "bloomseq/blast/tune_trial.hpp"

#include <algorithm>
#include <chrono>

namespace bloomseq {

namespace {

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
  const auto t1 = std::chrono::steady_clock::now();
  search->search(sample);
  const auto t2 = std::chrono::steady_clock::now();
  c.build_s = seconds_between(t0, t1);
  c.sample_s = seconds_between(t1, t2);
  const double scale = sample.codes.empty() ? 0.0 : double(totals.bases) / double(sample.codes.size());
  c.predicted_s = c.build_s + c.sample_s * scale;
  return c;
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

TuneTrial run_tune_trial(const QuerySet& queries, const BlastParams& plan, const BlastParams& defaults,
                         const DbTotals& totals, const DbBatch& sample,
                         const std::function<std::unique_ptr<Stage1aBackend>()>& make_backend) {
  TuneTrial t;
  const auto t0 = std::chrono::steady_clock::now();
  t.ran = true;
  t.sample_bases = sample.codes.size();
  // The plan first, then the defaults: a page-cache or frequency warm-up would favour the second, the defaults,
  // so a plan kept under this order is not kept by luck.
  std::unique_ptr<BlastSearch> planned, plain;
  t.plan = time_candidate(queries, plan, totals, sample, make_backend(), planned);
  t.defaults = time_candidate(queries, defaults, totals, sample, make_backend(), plain);
  t.kept_plan = t.plan.predicted_s <= t.defaults.predicted_s;
  t.kept = std::move(t.kept_plan ? planned : plain);
  t.kept->restart();
  t.seconds = seconds_between(t0, std::chrono::steady_clock::now());
  return t;
}

}  // namespace bloomseq
