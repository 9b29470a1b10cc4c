#include "bloomseq/blast/tune_trial.hpp"

#include <algorithm>
#include <chrono>
#include <string>
#include <utility>

namespace bloomseq {

namespace {

constexpr double kPlanGainNeeded = 0.8;

double seconds_between(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// The sample's two halves (alternate pieces, tune_trial_sample), the second after the first in the stream.
std::pair<DbBatch, DbBatch> halves(const DbBatch& sample) {
  DbBatch h[2];
  for (size_t r = 0; r < sample.size(); ++r) {
    const uint8_t* at = sample.codes.data() + sample.local_starts[r];
    h[r % 2].add_record_codes(sample.names[r], sample.lengths[r],
                              [&](uint8_t* out) { std::copy(at, at + sample.lengths[r], out); });
  }
  h[1].first_pos = h[0].end_pos();
  h[1].first_record = uint32_t(h[0].size());
  return {std::move(h[0]), std::move(h[1])};
}

// A cost measured on both halves, the second on a search the first has warmed up: per base from the second (no
// first touches of the tables and buffers), and what the first cost beyond that as a cost paid once.
struct Split {
  double once = 0, per_base = 0;
  double scaled(double bases) const { return once + per_base * bases; }
};
Split split_cost(double first_s, uint64_t first_bases, double second_s, uint64_t second_bases) {
  Split c;
  c.per_base = second_bases ? second_s / double(second_bases) : 0.0;
  c.once = std::max(0.0, first_s - c.per_base * double(first_bases));
  return c;
}

// The candidate timed on both halves of the sample. With `later`, stages 2 and 3 run on it too and their cost goes
// there (their work is the same for both candidates: the same seeds), apart from stages 1a + 1b.
TuneTrialCandidate time_candidate(const QuerySet& queries, const BlastParams& p, const DbTotals& totals,
                                  const DbBatch& sample, std::unique_ptr<Stage1aBackend> backend,
                                  std::unique_ptr<BlastSearch>& search, Split* later = nullptr) {
  TuneTrialCandidate c;
  const auto parts = halves(sample);
  const auto t0 = std::chrono::steady_clock::now();
  search = std::make_unique<BlastSearch>(queries, p, totals, std::move(backend));
  search->run_stage2 = later != nullptr;
  search->prepare_stage1a();  // once per run: part of the build, not of the per-base cost
  const auto t1 = std::chrono::steady_clock::now();
  search->search(parts.first);
  const auto t2 = std::chrono::steady_clock::now();
  const double later1 = search->stats().seconds_stage2 + search->stats().seconds_stage3;
  search->search(parts.second);
  const auto t3 = std::chrono::steady_clock::now();
  const double later2 = search->stats().seconds_stage2 + search->stats().seconds_stage3 - later1;
  search->run_stage2 = false;
  c.build_s = seconds_between(t0, t1);
  const double s1 = std::max(0.0, seconds_between(t1, t2) - later1), s2 = std::max(0.0, seconds_between(t2, t3) - later2);
  c.sample_s = s1 + s2;
  const uint64_t n1 = parts.first.codes.size(), n2 = parts.second.codes.size();
  c.predicted_s = c.build_s + split_cost(s1, n1, s2, n2).scaled(double(totals.bases));
  if (later) *later = split_cost(later1, n1, later2, n2);
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
    p.true_codes.emplace_back(), p.true_rc_codes.emplace_back();
    p.lowercase.emplace_back();
    if (i < q.lowercase.size())
      for (const auto& run : q.lowercase[i])
        if (run.first < take) p.lowercase.back().emplace_back(run.first, std::min<uint64_t>(run.second, take - 1));
    if (q.has_iupac(i)) {
      p.true_codes.back().assign(q.true_codes[i].begin(), q.true_codes[i].begin() + long(take));
      p.true_rc_codes.back().assign(q.true_rc_codes[i].end() - long(take), q.true_rc_codes[i].end());
    }
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
  // Pieces spread evenly over the batch, each a record of its own: the first bases alone over-sample whatever the
  // database starts with (the query itself, in a search of a genome's slice against the genome).
  DbBatch s;
  const uint64_t n = batch.codes.size();
  bases = std::min<uint64_t>(bases, n);
  constexpr uint64_t kPieces = 16;
  const uint64_t pieces = bases >= kPieces * 1024 ? kPieces : 1, piece = bases / pieces;
  for (uint64_t i = 0; i < pieces; ++i) {
    const uint64_t from = i * (n / pieces), len = i + 1 == pieces ? bases - piece * (pieces - 1) : piece;
    s.add_record_codes("sample" + std::to_string(i + 1), len, [&](uint8_t* out) {
      std::copy(batch.codes.begin() + long(from), batch.codes.begin() + long(from + len), out);
    });
  }
  return s;
}

TuneTrial run_tune_trial(const QuerySet& queries, const BlastParams& plan, double plan_model_s,
                         const BlastParams& defaults, const DbTotals& totals, const DbBatch& sample,
                         const std::function<std::unique_ptr<Stage1aBackend>()>& make_backend, bool later,
                         bool same) {
  TuneTrial t;
  const auto t0 = std::chrono::steady_clock::now();
  t.ran = true;
  t.sample_bases = sample.codes.size();
  std::unique_ptr<BlastSearch> planned, plain;
  // The defaults first. Their build is needed anyway if they are kept; the plan's is saved whenever the model's
  // own figure for it (stages 1a/1b) plus its build estimated on a part of the query already exceeds what the
  // defaults are measured to cost. A warm-up
  // effect (page cache, clock) then favours the plan, the second, so a plan kept is not kept by luck.
  Split later_cost;
  t.defaults = time_candidate(queries, defaults, totals, sample, make_backend(), plain, later ? &later_cost : nullptr);
  t.later_once_s = later_cost.once;
  t.later_per_base_s = later_cost.per_base;
  if (same) {
    t.plan = t.defaults;
    t.plan_timed = false;
    t.kept_plan = false;
    t.kept = std::move(plain);
    t.kept->restart();
    t.seconds = seconds_between(t0, std::chrono::steady_clock::now());
    return t;
  }
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
