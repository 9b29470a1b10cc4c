// Validation of the performance model against blast-bloom's OWN stage 1a (docs/model-validation.md, part D): the
// vector and bit-sliced CPU layouts exactly as the pipeline runs them (SubqueryFilters built from the query,
// database cut into the pipeline's chunks, chunks spread over P threads with parallel_for), timed over a grid of
// k, n_sub and m, and compared with predict_stage1a (lib/src/model/cost_model.cpp).
//
// The model's CPU times are linear in each layout's constants (model::kernel_terms), so predicting each
// configuration with one constant set to 1 and the others to 0 gives the model's own feature for that constant. A
// non-negative least-squares fit of the measured times on those features (model::fit_kernel, the same fit the
// calibration's kernel probe uses) is the in-sample fit (the papers' Fig. 17 method); the same model with the
// constants of a calibration profile (--profile, from bloomseq-calibrate) is the out-of-sample prediction.
//
// Usage: model_validation_blast QUERY.fa DB.fa [--profile FILE] [--threads P] [--passes N] [--out DIR] [--quick]
//                               [--timings RAW.csv] [--db-bases N] [--train RAW.csv] [--min-ms X] [--seed S]
//                               [--retest]
// Prints tables; writes DIR/validation_blast_grid.csv and DIR/validation_blast_raw.csv (the measured times and
// kernel counts). --timings refits the times recorded in such a file instead of measuring (same grid). --train
// fits the constants on the times recorded in such a file (e.g. of another database size, --db-bases) and reports
// the R^2 of this run's times predicted with them: out of sample across runs. --profile: the out-of-sample
// prediction from that profile alone (its kernel-probe coefficients when it has them; also reported without them).
// --min-ms: a timed run repeats the kernel over all chunks until it has used this much CPU time (the time per
// repetition counts). --seed: the order of the shuffled passes. --retest: measures the whole grid a second time
// (as many passes, in their own orders, alternating with the first measurement's) and reports the R^2 between the
// two measurements, the ceiling any model can reach. DIR/validation_blast_samples.csv keeps every timed run
// (layout, k, n_sub, m_bits, measurement 0 or retest 1, index, seconds, place in the order of all timed runs).
#include <ctime>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "bloomseq/blast/database.hpp"
#include "bloomseq/blast/pipeline.hpp"
#include "bloomseq/blast/stage1a_cpu.hpp"
#include "bloomseq/hash/h3.hpp"
#include "bloomseq/io/sequence_reader.hpp"
#include "bloomseq/model/cost_model.hpp"
#include "bloomseq/model/fit.hpp"
#include "bloomseq/model/kernel_fit.hpp"
#include "bloomseq/model/planner.hpp"
#include "bloomseq/model/profile_io.hpp"
#include "bloomseq/model/profiles.hpp"

using namespace bloomseq;
using namespace bloomseq::model;

namespace {

double thread_cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

double process_cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

// The first `max_bases` bases of a FASTA file's records, as sequences.
std::vector<std::string> read_prefix(const std::string& path, uint64_t max_bases) {
  std::vector<std::string> out;
  uint64_t have = 0;
  for (auto& r : read_all_sequences(path)) {
    if (have >= max_bases) break;
    if (r.seq.size() > max_bases - have) r.seq.resize(max_bases - have);
    have += r.seq.size();
    out.push_back(std::move(r.seq));
  }
  return out;
}

struct Config {
  Layout layout = Layout::Vector;
  int k = 0;
  uint64_t n_sub = 0, m = 0;
  uint32_t V = 0;
  uint64_t words_per_row = 0;  // bit-sliced row width (64-bit words, a multiple of 8)
  uint64_t wmers = 0, hits = 0;  // db w-mers tested and stage-1a hits of one pass (measured)
  double distinct = 0;           // mean distinct canonical w-mers per sub-query (the real n of eq. 2)
  double measured_s = 1e30;  // fastest run: the thread's CPU time (P = 1), else the process CPU time / P
  KernelSample sample;           // the configuration in the model's terms, with measured_s
  double pred_fit = 0, pred_cal = 0, pred_default = 0;
  double pred_cal_micro = 0;  // the profile without its kernel-probe coefficients (micro-benchmark constants only)
  double retest_s = 1e30;     // --retest: the second measurement
  std::vector<double> samples[2];  // every timed run (measurement, retest), for offline statistics
  std::vector<uint64_t> sample_seq[2];  // each run's place in the order of all timed runs
};

// One row of a validation_blast_raw.csv file.
struct RawRow {
  std::string layout;
  int k = 0;
  uint64_t n_sub = 0, m = 0, V = 0, words_per_row = 0, chunks = 0, db_starts = 0, hits = 0;
  double distinct = 0, measured_s = 0;
};

std::vector<RawRow> read_raw(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "cannot open %s\n", path.c_str());
    std::exit(66);
  }
  std::vector<RawRow> rows;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f;
    for (size_t a = 0, b; a <= line.size(); a = b + 1) {
      b = line.find(',', a);
      if (b == std::string::npos) b = line.size();
      f.push_back(line.substr(a, b - a));
    }
    if (f.size() < 11) continue;
    RawRow r;
    r.layout = f[0];
    r.k = std::atoi(f[1].c_str());
    r.n_sub = std::stoull(f[2]);
    r.m = std::stoull(f[3]);
    r.V = std::stoull(f[4]);
    r.distinct = std::atof(f[5].c_str());
    r.words_per_row = std::stoull(f[6]);
    r.chunks = std::stoull(f[7]);
    r.db_starts = std::stoull(f[8]);
    r.hits = std::stoull(f[9]);
    r.measured_s = std::atof(f[10].c_str());
    rows.push_back(r);
  }
  return rows;
}

KernelSample sample_of(const Config& c, uint64_t qbases, uint64_t dbases, int w, int threads, uint64_t chunks,
                       double measured_s) {
  KernelSample s;
  s.layout = c.layout;
  s.w = w;
  s.k = c.k;
  s.m_bits = c.m;
  s.n_sub = c.n_sub;
  s.query_bases = qbases;
  s.db_bases = dbases;
  s.work_units = int(chunks);  // the pipeline's work units are the database chunks
  s.threads = threads;
  s.measured_s = measured_s;
  return s;
}

// Each sample predicted with the coefficients fitted on `train` (0 where the fit is refused).
std::vector<double> fit_predict(const std::vector<KernelSample>& train, const std::vector<KernelSample>& test,
                                Layout l, const DeviceProfile& dev, KernelCoefficients* coef = nullptr) {
  const KernelFit f = fit_kernel(train, l, dev);
  if (coef) *coef = f.coefficients;
  if (!f.coefficients.fitted) std::fprintf(stderr, "%s: fit refused: %s\n", to_string(l), f.error.c_str());
  std::vector<double> out;
  for (const KernelSample& s : test) out.push_back(f.coefficients.fitted ? predict_kernel_sample(s, f.coefficients, dev) : 0.0);
  return out;
}

Stage1aConfig stage1a_config(const Config& c, uint64_t qbases, uint64_t dbases, int w, int threads, uint64_t chunks) {
  return model::stage1a_config(sample_of(c, qbases, dbases, w, threads, chunks, 0));
}

double predict(const Config& c, uint64_t qbases, uint64_t dbases, int w, int threads, uint64_t chunks,
               const DeviceProfile& dev, const Calibration& cal) {
  return predict_stage1a(stage1a_config(c, qbases, dbases, w, threads, chunks), dev, cal).stage1a_s;
}

// --auto-tune against the measured grid of one layout: plan_stage1a restricted to the grid's candidates (stage 1a
// only: verify_ns = 0), priced with `cal`. Minimum time under an FPR target: the plan's measured time over the
// fastest measured configuration whose FPR (eq. 2, as the planner computes it) meets the target. Minimum FPR under
// a throughput target (the quartiles of the measured throughputs): the plan's FPR over the lowest FPR among the
// configurations measured at or above the target. A quartile target is itself a measured throughput, so the best
// configuration often sits exactly on it and any under-estimate of its speed, however small, makes the plan miss it;
// "within 10%" therefore reads the tolerance in time, as for FPR targets (plan time <= 1.1 x best): the plan runs at
// no less than target / 1.1 and its FPR is no higher than that of any configuration measured at 1.1 x target or
// above. Returns the report's lines; counts the targets met within 10% in `*within` of `*targets`.
std::string autotune_vs_grid(Layout l, const std::vector<const Config*>& pts, uint64_t qbases, uint64_t dbases, int w,
                             int threads, uint64_t chunks, const DeviceProfile& dev, Calibration cal,
                             const std::string& cal_name, int* within, int* targets) {
  cal.verify_ns = 0;
  PlanRequest r;
  r.query_bases = qbases;
  r.db_bases = dbases;
  r.w = w;
  r.layouts = {l};
  r.threads = threads;
  std::vector<double> fpr, tput;
  for (const Config* c : pts) {
    if (std::find(r.n_sub_candidates.begin(), r.n_sub_candidates.end(), c->n_sub) == r.n_sub_candidates.end())
      r.n_sub_candidates.push_back(c->n_sub);
    if (std::find(r.k_candidates.begin(), r.k_candidates.end(), c->k) == r.k_candidates.end())
      r.k_candidates.push_back(c->k);
    if (std::find(r.m_candidates.begin(), r.m_candidates.end(), c->m) == r.m_candidates.end())
      r.m_candidates.push_back(c->m);
    fpr.push_back(predict_stage1a(stage1a_config(*c, qbases, dbases, w, threads, chunks), dev, cal).fpr);
    tput.push_back(double(c->wmers) / c->measured_s);
  }
  auto find = [&](const Plan& p) -> int {
    for (size_t i = 0; i < pts.size(); ++i)
      if (pts[i]->k == p.config.k && pts[i]->n_sub == p.config.n_sub && pts[i]->m == p.config.m_bits) return int(i);
    return -1;
  };
  std::string out;
  char line[512];
  for (double target : {1e-2, 1e-3, 1e-4}) {
    r.objective = Objective::MinTime;
    r.target_fpr = target;
    const int mine = find(plan_stage1a(r, dev, cal));
    int best = -1;
    for (size_t i = 0; i < pts.size(); ++i)
      if (fpr[i] <= target && (best < 0 || pts[i]->measured_s < pts[size_t(best)]->measured_s)) best = int(i);
    if (mine < 0 || best < 0) continue;
    const Config &a = *pts[size_t(mine)], &b = *pts[size_t(best)];
    std::snprintf(line, sizeof line,
                  "%-10s %-28s FPR <= %-8g plan n_sub=%llu k=%d m=%llu %.2f ms; best n_sub=%llu k=%d m=%llu %.2f ms; "
                  "plan/best time %.3f%s\n",
                  to_string(l), cal_name.c_str(), target, (unsigned long long)a.n_sub, a.k, (unsigned long long)a.m,
                  a.measured_s * 1e3, (unsigned long long)b.n_sub, b.k, (unsigned long long)b.m, b.measured_s * 1e3,
                  a.measured_s / b.measured_s, a.measured_s <= 1.1 * b.measured_s ? "" : " (not within 10%)");
    *within += a.measured_s <= 1.1 * b.measured_s;
    ++*targets;
    out += line;
  }
  std::vector<double> sorted = tput;
  std::sort(sorted.begin(), sorted.end());
  for (double q : {0.25, 0.5, 0.75}) {
    const double target = sorted[size_t(q * double(sorted.size() - 1))];
    r.objective = Objective::MinFpr;
    r.target_throughput = target;
    const int mine = find(plan_stage1a(r, dev, cal));
    int best = -1;
    for (size_t i = 0; i < pts.size(); ++i)
      if (tput[i] >= target && (best < 0 || fpr[i] < fpr[size_t(best)])) best = int(i);
    if (mine < 0 || best < 0) continue;
    double margin_fpr = 1e300;  // the lowest FPR measured with 10% to spare
    for (size_t i = 0; i < pts.size(); ++i)
      if (tput[i] >= 1.1 * target) margin_fpr = std::min(margin_fpr, fpr[i]);
    const bool ok = tput[size_t(mine)] * 1.1 >= target && fpr[size_t(mine)] <= margin_fpr;
    *within += ok;
    ++*targets;
    std::snprintf(line, sizeof line,
                  "%-10s %-28s w-mers/s >= %-8.3g plan FPR %.3g at %.3g w-mers/s%s; best FPR %.3g; plan/best FPR %.3f%s\n",
                  to_string(l), cal_name.c_str(), target, fpr[size_t(mine)], tput[size_t(mine)],
                  tput[size_t(mine)] >= target ? "" : " (below the target)", fpr[size_t(best)],
                  fpr[size_t(mine)] / fpr[size_t(best)], ok ? "" : " (not within 10%)");
    out += line;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s QUERY.fa DB.fa [--profile FILE] [--threads P] [--passes N] [--out DIR] [--quick]\n",
                 argv[0]);
    return 64;
  }
  std::string ppath, out = ".", timings, train;
  uint64_t db_bases_opt = 0, seed = 2024;
  int threads = 1, passes = 3;
  double min_ms = 0;
  bool quick = false, retest = false;
  for (int i = 3; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(64);
      }
      return argv[++i];
    };
    if (a == "--profile") ppath = value();
    else if (a == "--threads") threads = std::max(1, std::atoi(value().c_str()));
    else if (a == "--passes") passes = std::max(1, std::atoi(value().c_str()));
    else if (a == "--out") out = value();
    else if (a == "--quick") quick = true;
    else if (a == "--timings") timings = value();
    else if (a == "--train") train = value();
    else if (a == "--db-bases") db_bases_opt = std::stoull(value());
    else if (a == "--min-ms") min_ms = std::max(0.0, std::atof(value().c_str()));
    else if (a == "--seed") seed = std::stoull(value());
    else if (a == "--retest") retest = true;
    else {
      std::fprintf(stderr, "unknown option %s\n", a.c_str());
      return 64;
    }
  }
  // Made before the (minutes-long) measurements, so that their CSVs cannot fail to open at the end.
  {
    std::error_code ec;
    std::filesystem::create_directories(out, ec);
    if (ec) {
      std::fprintf(stderr, "cannot create %s: %s\n", out.c_str(), ec.message().c_str());
      return 73;
    }
  }
  const int w = 11;
  DeviceProfile dev = detect_cpu_profile();
  Calibration cal = default_calibration(dev);
  const Calibration defaults = cal;
  bool have_cal = false;
  if (!ppath.empty()) {
    const LoadedProfile L = load_profile(ppath);
    dev = L.device;
    cal = L.calibration;
    have_cal = L.calibration.calibrated;
  }
  std::printf("# model_validation_blast on %s\n# measured code: blast-bloom's stage 1a (stage1a_vector_layout, "
              "stage1a_bitsliced [%s]) over the pipeline's 64-Kbase chunks, %d thread(s)\n",
              describe(dev).c_str(), bitsliced_isa(), threads);
  auto print_load = [](const char* when) {
    double l[3] = {0, 0, 0};
    if (getloadavg(l, 3) == 3) std::printf("# load average %s: %.2f %.2f %.2f\n", when, l[0], l[1], l[2]);
  };
  print_load("at start");

  // Query: the vector layout is measured with few long sub-queries (it is the layout for those), the bit-sliced
  // layout with hundreds to thousands of short ones (its use case: V/8-byte rows).
  const uint64_t dbases = db_bases_opt ? db_bases_opt : quick ? 50000 : 200000;
  DbBatch batch;
  for (const auto& s : read_prefix(argv[2], dbases)) batch.add_record("db", s);
  const std::vector<DbChunk> chunks = chunk_batch(batch, uint64_t(1) << 16, w);
  struct Grid {
    Layout layout;
    uint64_t qbases;
    std::vector<uint64_t> nsubs;
  };
  const std::vector<Grid> grids = {
      {Layout::Vector, quick ? 80000u : 320000u, {5000, 10000, 20000, 40000}},
      {Layout::BitSliced, quick ? 250000u : 1000000u, {500, 1000, 2000, 4000}},
  };
  const std::vector<int> ks = {4, 6, 8, 10};
  const std::vector<uint64_t> ms = {65536, 131072, 262144};

  // Timing on a shared machine: every configuration is visited once per pass, in a new random order each pass, and
  // keeps the fastest of all its runs (two back to back per visit), so that its samples are spread over the whole
  // run instead of falling into one busy moment. The filters are rebuilt per visit (keeping every bit-sliced
  // matrix would take gigabytes); only the kernels are timed, by the thread's CPU time.
  std::vector<QuerySet> queries(grids.size());
  std::vector<uint64_t> qbases(grids.size(), 0);
  std::vector<Config> all;
  std::vector<size_t> grid_of;
  for (size_t gi = 0; gi < grids.size(); ++gi) {
    for (const auto& s : read_prefix(argv[1], grids[gi].qbases)) queries[gi].add("q", s);
    for (const auto& c : queries[gi].codes) qbases[gi] += c.size();
    for (uint64_t m : ms)
      for (int k : ks)
        for (uint64_t n : grids[gi].nsubs) {
          Config c;
          c.layout = grids[gi].layout;
          c.k = k;
          c.n_sub = n;
          c.m = m;
          all.push_back(c);
          grid_of.push_back(gi);
        }
  }
  if (!timings.empty()) {  // refit recorded times: no measuring
    size_t found = 0;
    for (const RawRow& r : read_raw(timings))
      for (Config& c : all)
        if (to_string(c.layout) == r.layout && c.k == r.k && c.n_sub == r.n_sub && c.m == r.m) {
          c.V = uint32_t(r.V);
          c.distinct = r.distinct;
          c.words_per_row = r.words_per_row;
          c.wmers = r.db_starts;
          c.hits = r.hits;
          c.measured_s = r.measured_s;
          ++found;
        }
    if (found != all.size()) {
      std::fprintf(stderr, "%s: %zu of %zu configurations found\n", timings.c_str(), found, all.size());
      return 65;
    }
    passes = 0;
  }
  std::vector<size_t> order(all.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  SplitMix64 shuffle(seed);
  std::vector<std::vector<Stage1aHit>> hits(chunks.size());
  uint64_t timed_runs = 0;
  // One pass over the whole grid into each configuration's `field` (the very first also records the counts).
  auto measure = [&](double Config::*field, bool first, int pass, const char* what) {
    for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[shuffle.next() % i]);
    for (size_t done = 0; done < order.size(); ++done) {
      Config& c = all[order[done]];
      const Grid& g = grids[grid_of[order[done]]];
      BlastParams p;
      p.w = w;
      p.k = c.k;
      p.m_bits = c.m;
      p.n_sub = c.n_sub;
      p.threads = threads;
      const SubqueryFilters f(queries[grid_of[order[done]]].codes, p, g.layout == Layout::Vector,
                              g.layout == Layout::BitSliced);
      for (int rep = 0; rep < 2; ++rep) {
        int rounds = 0;
        double t = 0;
        const double c0 = thread_cpu_seconds(), p0 = process_cpu_seconds();
        do {
          for (auto& h : hits) h.clear();
          if (threads == 1) {
            for (size_t i = 0; i < chunks.size(); ++i)
              if (g.layout == Layout::Vector) stage1a_vector_layout(f.vectors(), chunks[i], hits[i]);
              else stage1a_bitsliced(f.bitsliced(), chunks[i], hits[i]);
            t = thread_cpu_seconds() - c0;
          } else {
            parallel_for(chunks.size(), threads, [&](size_t i) {
              if (g.layout == Layout::Vector) stage1a_vector_layout(f.vectors(), chunks[i], hits[i]);
              else stage1a_bitsliced(f.bitsliced(), chunks[i], hits[i]);
            });
            t = (process_cpu_seconds() - p0) / threads;
          }
          ++rounds;
        } while (t * 1e3 < min_ms);
        c.*field = std::min(c.*field, t / rounds);
        c.samples[first ? 0 : 1].push_back(t / rounds);
        c.sample_seq[first ? 0 : 1].push_back(timed_runs++);
      }
      if (first && pass == 0) {
        c.V = f.count();
        if (g.layout == Layout::BitSliced) c.words_per_row = f.bitsliced().words_per_row;
        for (uint32_t v = 0; v < c.V; ++v) c.distinct += double(f.inserted(v)) / c.V;
        for (const auto& h : hits) c.hits += h.size();
        for (const DbChunk& ch : chunks) c.wmers += ch.n_starts;
      }
      std::fprintf(stderr, "\r%s pass %d/%d: %zu/%zu configurations timed", what, pass + 1, passes, done + 1,
                   all.size());
    }
  };
  // The retest's passes alternate with the measurement's: both then sample the same stretch of the machine's
  // varying state (its other tenants' use of the shared cache and memory), and the retest R^2 is the scatter of
  // a configuration's fastest run rather than the drift between two halves of the run.
  for (int pass = 0; pass < passes; ++pass) {
    measure(&Config::measured_s, true, pass, "measurement");
    if (retest) measure(&Config::retest_s, false, pass, "retest     ");
  }
  if (passes > 0) std::fprintf(stderr, "\n");
  for (size_t i = 0; i < all.size(); ++i) {
    Config& c = all[i];
    const uint64_t qb = qbases[grid_of[i]];
    c.sample = sample_of(c, qb, batch.codes.size(), w, threads, chunks.size(), c.measured_s);
    c.pred_cal = predict(c, qb, batch.codes.size(), w, threads, chunks.size(), dev, cal);
    Calibration micro = cal;
    micro.kernel_vector.fitted = micro.kernel_bitsliced.fitted = false;
    c.pred_cal_micro = predict(c, qb, batch.codes.size(), w, threads, chunks.size(), dev, micro);
    c.pred_default = predict(c, qb, batch.codes.size(), w, threads, chunks.size(), dev, defaults);
  }

  {
    // Everything the kernels did, for fitting other cost terms offline.
    std::ofstream raw(out + "/validation_blast_raw.csv");
    raw << "# layout,k,n_sub,m_bits,subqueries,distinct,words_per_row,chunks,db_starts,hits,measured_s"
        << (retest ? ",retest_s" : "") << "\n";
    for (const Config& c : all) {
      raw << to_string(c.layout) << "," << c.k << "," << c.n_sub << "," << c.m << "," << c.V << "," << c.distinct << ","
          << c.words_per_row << "," << chunks.size() << "," << c.wmers << "," << c.hits << "," << c.measured_s;
      if (retest) raw << "," << c.retest_s;
      raw << "\n";
    }
  }
  {
    std::ofstream smp(out + "/validation_blast_samples.csv");
    smp << "# layout,k,n_sub,m_bits,series,index,seconds,order\n";
    for (const Config& c : all)
      for (int f = 0; f < 2; ++f)
        for (size_t j = 0; j < c.samples[f].size(); ++j)
          smp << to_string(c.layout) << "," << c.k << "," << c.n_sub << "," << c.m << "," << f << "," << j << ","
              << c.samples[f][j] << "," << c.sample_seq[f][j] << "\n";
  }
  std::ofstream csv(out + "/validation_blast_grid.csv");
  csv << "# layout,k,n_sub,m_bits,subqueries,measured_s,predicted_fit_s,predicted_calibration_s,predicted_default_s,"
         "predicted_micro_s,retest_s\n";
  std::printf("\n%-10s %6s %8s %8s %8s %10s %8s %8s  %s\n", "layout", "points", "R2 fit", "R2 4-fold", "R2 train",
              "R2 profile", "R2 micro", "R2 retest", "fitted constants");
  std::string autotune, autotune_summary;
  char summary[160];
  for (Layout l : {Layout::Vector, Layout::BitSliced}) {
    std::vector<KernelSample> S;
    std::vector<double> y;
    std::vector<Config*> pts;
    for (Config& c : all)
      if (c.layout == l) {
        S.push_back(c.sample);
        y.push_back(c.measured_s);
        pts.push_back(&c);
      }
    KernelCoefficients coef;
    const std::vector<double> fit = fit_predict(S, S, l, dev, &coef);
    std::vector<double> prof, micro, again;
    for (size_t i = 0; i < pts.size(); ++i) {
      pts[i]->pred_fit = fit[i];
      prof.push_back(pts[i]->pred_cal);
      micro.push_back(pts[i]->pred_cal_micro);
      again.push_back(pts[i]->retest_s);
    }
    const double r2 = coef.fitted ? r_squared(y, fit) : std::nan("");
    // Out of sample within the grid: 4-fold cross-validation, each configuration predicted with constants fitted
    // on the three folds it is not in. Folds are a fixed shuffle of the grid, so each training set holds every k,
    // n_sub and m (holding out whole k values, or every 4th point of the grid's n_sub-minor order, would leave some
    // cost terms unseen).
    std::vector<double> held(y.size(), 0.0);
    constexpr size_t kFolds = 4;
    std::vector<size_t> fold_of(pts.size());
    for (size_t i = 0; i < fold_of.size(); ++i) fold_of[i] = i % kFolds;
    SplitMix64 fold_shuffle(12345);
    for (size_t i = fold_of.size(); i > 1; --i) std::swap(fold_of[i - 1], fold_of[fold_shuffle.next() % i]);
    for (size_t fold = 0; fold < kFolds; ++fold) {
      std::vector<KernelSample> tr, te;
      std::vector<size_t> idx;
      for (size_t i = 0; i < pts.size(); ++i) {
        if (fold_of[i] != fold) tr.push_back(S[i]);
        else {
          te.push_back(S[i]);
          idx.push_back(i);
        }
      }
      const std::vector<double> p = fit_predict(tr, te, l, dev);
      for (size_t j = 0; j < idx.size(); ++j) held[idx[j]] = p[j];
    }
    const double r2_held = r_squared(y, held);
    // Out of sample across runs: constants fitted on another run's recorded times (its own database size).
    double r2_train = std::nan("");
    if (!train.empty()) {
      std::vector<KernelSample> T;
      for (const RawRow& r : read_raw(train)) {
        if (r.layout != to_string(l)) continue;
        Config c;
        c.layout = l;
        c.k = r.k;
        c.n_sub = r.n_sub;
        c.m = r.m;
        const uint64_t qb = qbases[l == Layout::Vector ? 0 : 1];
        T.push_back(sample_of(c, qb, r.db_starts + uint64_t(w) - 1, w, threads, r.chunks, r.measured_s));
      }
      r2_train = r_squared(y, fit_predict(T, S, l, dev));
    }
    const double r2p = r_squared(y, prof), r2m = r_squared(y, micro);
    // Test-retest: the second measurement as the "prediction" of the first.
    const double r2r = retest && passes > 0 ? r_squared(y, again) : std::nan("");
    const std::vector<std::string> names = kernel_terms(l);
    const std::vector<double> values = kernel_values(l, coef);
    std::printf("%-10s %6zu %8.4f %8.4f %8.4f %10.4f %8.4f %8.4f ", to_string(l), pts.size(), r2, r2_held, r2_train,
                r2p, r2m, r2r);
    for (size_t j = 0; coef.fitted && j < names.size(); ++j) std::printf(" %s=%.3g", names[j].c_str(), values[j]);
    if (coef.llc_bytes) std::printf(" llc=%.2fMiB", double(coef.llc_bytes) / double(1 << 20));
    std::printf("\n");
    const std::vector<const Config*> cpts(pts.begin(), pts.end());
    const uint64_t qb = qbases[l == Layout::Vector ? 0 : 1];
    // --auto-tune against this layout's grid with one set of constants, and its count of targets met within 10%.
    auto tune = [&](const Calibration& with, const char* name) {
      int within = 0, targets = 0;
      autotune += autotune_vs_grid(l, cpts, qb, batch.codes.size(), w, threads, chunks.size(), dev, with, name,
                                   &within, &targets);
      std::snprintf(summary, sizeof summary, "%-10s %-28s within 10%% of the best for %d of %d targets\n", to_string(l),
                    name, within, targets);
      autotune_summary += summary;
    };
    if (have_cal) tune(cal, "calibration profile");
    if (coef.fitted) {
      Calibration fitted = cal;
      (l == Layout::Vector ? fitted.kernel_vector : fitted.kernel_bitsliced) = coef;
      tune(fitted, "constants fitted on the grid");
    }
    for (Config* c : pts)
      csv << to_string(l) << "," << c->k << "," << c->n_sub << "," << c->m << "," << c->V << "," << c->measured_s << ","
          << c->pred_fit << "," << c->pred_cal << "," << c->pred_default << "," << c->pred_cal_micro << ","
          << (retest ? c->retest_s : std::nan("")) << "\n";
  }
  std::printf("(R2 fit: the model's features with constants fitted on this grid; R2 4-fold: each configuration "
              "predicted with constants fitted on the other three quarters of the grid; R2 train: with constants fitted "
              "on the --train file's times; R2 profile: constants from "
              "%s, nothing fitted on this grid (kernel-probe coefficients: vector %s, bit-sliced %s); R2 micro: the same "
              "profile without its kernel-probe coefficients; R2 retest: the second measurement against the first)\n",
              have_cal ? ppath.c_str() : "the built-in defaults (no --profile given)",
              cal.kernel_vector.fitted ? "yes" : "no", cal.kernel_bitsliced.fitted ? "yes" : "no");
  std::printf("\n--auto-tune restricted to the grid (stage 1a only) against the measured best:\n%s%s", autotune.c_str(),
              autotune_summary.c_str());
  std::printf("# passes %d, min-ms %g, seed %llu%s\n", passes, min_ms, (unsigned long long)seed,
              retest ? ", retest" : "");
  print_load("at end");
  std::printf("CSV: %s/validation_blast_grid.csv\n", out.c_str());
  return 0;
}
