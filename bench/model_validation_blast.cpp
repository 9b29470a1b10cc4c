// Validation of the performance model against blast-bloom's OWN stage 1a (docs/model-validation.md, part D): the
// vector and bit-sliced CPU layouts exactly as the pipeline runs them (SubqueryFilters built from the query,
// database cut into the pipeline's chunks, chunks spread over P threads with parallel_for), timed over a grid of
// k, n_sub and m, and compared with predict_stage1a (lib/src/model/cost_model.cpp).
//
// The model's CPU times are linear in its calibration constants (hash_ns, probe_ns, mispredict_ns, row_fixed_ns,
// row_byte_ns, row_miss_ns, hit_ns, a0), so predicting each configuration with one constant set to 1 and the others
// to 0 gives the model's own feature for that constant. A non-negative least-squares fit of the measured times on those features is the
// in-sample fit (the papers' Fig. 17 method); the same model with the constants of a calibration profile
// (--profile, from bloomseq-calibrate) is the out-of-sample prediction. R^2 is reported for both.
//
// Usage: model_validation_blast QUERY.fa DB.fa [--profile FILE] [--threads P] [--passes N] [--out DIR] [--quick]
//                               [--timings RAW.csv] [--db-bases N] [--train RAW.csv]
// Prints tables; writes DIR/validation_blast_grid.csv and DIR/validation_blast_raw.csv (the measured times and
// kernel counts). --timings refits the times recorded in such a file instead of measuring (same grid). --train
// fits the constants on the times recorded in such a file (e.g. of another database size, --db-bases) and reports
// the R^2 of this run's times predicted with them: out of sample across runs.
#include <ctime>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
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
  std::vector<double> features;  // the model's time per unit of each fitted constant (last one: a0)
  double pred_fit = 0, pred_cal = 0, pred_default = 0;
};

// The constants each layout's CPU time depends on, in the model's own terms.
std::vector<Calibration> basis(Layout l) {
  auto unit = [](double Calibration::*field) {
    Calibration c;
    c.a0 = 0;
    c.hash_ns = c.probe_ns = c.mispredict_ns = c.row_fixed_ns = c.row_byte_ns = c.row_miss_ns = 0;
    c.verify_ns = c.hit_ns = 0;
    if (field) c.*field = 1.0;
    else c.a0 = 1.0;
    return c;
  };
  if (l == Layout::Vector)
    return {unit(&Calibration::hash_ns), unit(&Calibration::probe_ns), unit(&Calibration::mispredict_ns),
            unit(&Calibration::hit_ns), unit(nullptr)};
  return {unit(&Calibration::hash_ns), unit(&Calibration::row_fixed_ns), unit(&Calibration::row_byte_ns),
          unit(&Calibration::row_miss_ns), unit(&Calibration::hit_ns), unit(nullptr)};
}

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

double predict(const Config& c, uint64_t qbases, uint64_t dbases, int w, int threads, uint64_t chunks,
               const DeviceProfile& dev, const Calibration& cal) {
  Stage1aConfig s;
  s.query_bases = qbases;
  s.db_bases = dbases;
  s.w = w;
  s.n_sub = c.n_sub;
  s.k = c.k;
  s.m_bits = c.m;
  s.layout = c.layout;
  s.threads = threads;
  s.work_units = int(chunks);  // the pipeline's work units are the database chunks
  return predict_stage1a(s, dev, cal).stage1a_s;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s QUERY.fa DB.fa [--profile FILE] [--threads P] [--passes N] [--out DIR] [--quick]\n",
                 argv[0]);
    return 64;
  }
  std::string ppath, out = ".", timings, train;
  uint64_t db_bases_opt = 0;
  int threads = 1, passes = 3;
  bool quick = false;
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
    else {
      std::fprintf(stderr, "unknown option %s\n", a.c_str());
      return 64;
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
  SplitMix64 shuffle(2024);
  std::vector<std::vector<Stage1aHit>> hits(chunks.size());
  for (int pass = 0; pass < passes; ++pass) {
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
        for (auto& h : hits) h.clear();
        const double c0 = thread_cpu_seconds();
        if (threads == 1) {
          for (size_t i = 0; i < chunks.size(); ++i)
            if (g.layout == Layout::Vector) stage1a_vector_layout(f.vectors(), chunks[i], hits[i]);
            else stage1a_bitsliced(f.bitsliced(), chunks[i], hits[i]);
          c.measured_s = std::min(c.measured_s, thread_cpu_seconds() - c0);
        } else {
          const double p0 = process_cpu_seconds();
          parallel_for(chunks.size(), threads, [&](size_t i) {
            if (g.layout == Layout::Vector) stage1a_vector_layout(f.vectors(), chunks[i], hits[i]);
            else stage1a_bitsliced(f.bitsliced(), chunks[i], hits[i]);
          });
          c.measured_s = std::min(c.measured_s, (process_cpu_seconds() - p0) / threads);
        }
      }
      if (pass == 0) {
        c.V = f.count();
        if (g.layout == Layout::BitSliced) c.words_per_row = f.bitsliced().words_per_row;
        for (uint32_t v = 0; v < c.V; ++v) c.distinct += double(f.inserted(v)) / c.V;
        for (const auto& h : hits) c.hits += h.size();
        for (const DbChunk& ch : chunks) c.wmers += ch.n_starts;
      }
      std::fprintf(stderr, "\rpass %d/%d: %zu/%zu configurations timed", pass + 1, passes, done + 1, all.size());
    }
  }
  std::fprintf(stderr, "\n");
  for (size_t i = 0; i < all.size(); ++i) {
    Config& c = all[i];
    const uint64_t qb = qbases[grid_of[i]];
    for (const Calibration& b : basis(c.layout))
      c.features.push_back(predict(c, qb, batch.codes.size(), w, threads, chunks.size(), dev, b));
    c.pred_cal = predict(c, qb, batch.codes.size(), w, threads, chunks.size(), dev, cal);
    c.pred_default = predict(c, qb, batch.codes.size(), w, threads, chunks.size(), dev, defaults);
  }

  {
    // Everything the kernels did, for fitting other cost terms offline.
    std::ofstream raw(out + "/validation_blast_raw.csv");
    raw << "# layout,k,n_sub,m_bits,subqueries,distinct,words_per_row,chunks,db_starts,hits,measured_s\n";
    for (const Config& c : all)
      raw << to_string(c.layout) << "," << c.k << "," << c.n_sub << "," << c.m << "," << c.V << "," << c.distinct << ","
          << c.words_per_row << "," << chunks.size() << "," << c.wmers << "," << c.hits << "," << c.measured_s << "\n";
  }
  std::ofstream csv(out + "/validation_blast_grid.csv");
  csv << "# layout,k,n_sub,m_bits,subqueries,measured_s,predicted_fit_s,predicted_calibration_s,predicted_default_s\n";
  std::printf("\n%-10s %6s %8s %8s %8s %10s  %s\n", "layout", "points", "R2 fit", "R2 k-out", "R2 train",
              "R2 profile", "fitted constants");
  for (Layout l : {Layout::Vector, Layout::BitSliced}) {
    std::vector<std::vector<double>> A;
    std::vector<double> y;
    std::vector<Config*> pts;
    for (Config& c : all)
      if (c.layout == l) {
        A.push_back(c.features);
        y.push_back(c.measured_s);
        pts.push_back(&c);
      }
    const std::vector<double> coef = least_squares(A, y, true);
    std::vector<double> fit, prof;
    for (Config* c : pts) {
      double s = 0;
      for (size_t j = 0; j < coef.size(); ++j) s += coef[j] * c->features[j];
      c->pred_fit = s;
      fit.push_back(s);
      prof.push_back(c->pred_cal);
    }
    const double r2 = coef.empty() ? 0 : r_squared(y, fit);
    // Out of sample within the grid: constants fitted on k in {4, 8} predict k in {6, 10} and vice versa.
    std::vector<double> held(y.size(), 0.0);
    for (int half = 0; half < 2; ++half) {
      std::vector<std::vector<double>> Ah;
      std::vector<double> yh;
      for (size_t i = 0; i < pts.size(); ++i)
        if ((pts[i]->k % 4 == 0) == (half == 0)) {
          Ah.push_back(A[i]);
          yh.push_back(y[i]);
        }
      const std::vector<double> ch = least_squares(Ah, yh, true);
      for (size_t i = 0; i < pts.size(); ++i)
        if ((pts[i]->k % 4 == 0) != (half == 0))
          for (size_t j = 0; j < ch.size(); ++j) held[i] += ch[j] * A[i][j];
    }
    const double r2_held = r_squared(y, held);
    // Out of sample across runs: constants fitted on another run's recorded times (its own database size).
    double r2_train = std::nan("");
    if (!train.empty()) {
      std::vector<std::vector<double>> At;
      std::vector<double> yt;
      for (const RawRow& r : read_raw(train)) {
        if (r.layout != to_string(l)) continue;
        Config c;
        c.layout = l;
        c.k = r.k;
        c.n_sub = r.n_sub;
        c.m = r.m;
        const uint64_t qb = qbases[l == Layout::Vector ? 0 : 1];
        std::vector<double> feat;
        for (const Calibration& b : basis(l))
          feat.push_back(predict(c, qb, r.db_starts + uint64_t(w) - 1, w, threads, r.chunks, dev, b));
        At.push_back(feat);
        yt.push_back(r.measured_s);
      }
      const std::vector<double> ct = least_squares(At, yt, true);
      std::vector<double> pred(y.size(), 0.0);
      for (size_t i = 0; i < pts.size(); ++i)
        for (size_t j = 0; j < ct.size(); ++j) pred[i] += ct[j] * A[i][j];
      if (!ct.empty()) r2_train = r_squared(y, pred);
    }
    const double r2p = r_squared(y, prof);
    const std::vector<const char*> names = l == Layout::Vector
                                               ? std::vector<const char*>{"hash_ns", "probe_ns", "mispredict_ns",
                                                                          "hit_ns", "a0_s"}
                                               : std::vector<const char*>{"hash_ns", "row_fixed_ns", "row_byte_ns",
                                                                          "row_miss_ns", "hit_ns", "a0_s"};
    std::printf("%-10s %6zu %8.4f %8.4f %8.4f %10.4f ", to_string(l), pts.size(), r2, r2_held, r2_train, r2p);
    for (size_t j = 0; j < coef.size() && j < names.size(); ++j)
      std::printf(" %s=%.3g", names[j], j + 1 == names.size() ? coef[j] : coef[j]);
    std::printf("\n");
    for (Config* c : pts)
      csv << to_string(l) << "," << c->k << "," << c->n_sub << "," << c->m << "," << c->V << "," << c->measured_s << ","
          << c->pred_fit << "," << c->pred_cal << "," << c->pred_default << "\n";
  }
  std::printf("(R2 fit: the model's features with constants fitted on this grid; R2 k-out: each configuration "
              "predicted with constants fitted on the other k values ({4,8} <-> {6,10}); R2 train: with constants fitted "
              "on the --train file's times; R2 profile: constants from "
              "%s)\n",
              have_cal ? ppath.c_str() : "the built-in defaults (no --profile given)");
  std::printf("CSV: %s/validation_blast_grid.csv\n", out.c_str());
  return 0;
}
