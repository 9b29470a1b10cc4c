// Validation of the performance model against blast-bloom's OWN stage 1a (docs/model-validation.md, part D): the
// vector and bit-sliced CPU layouts exactly as the pipeline runs them (SubqueryFilters built from the query,
// database cut into the pipeline's chunks, chunks spread over P threads with parallel_for), timed over a grid of
// k, n_sub and m, and compared with predict_stage1a (lib/src/model/cost_model.cpp).
//
// The model's CPU times are linear in its calibration constants (hash_ns, probe_ns, row_fixed_ns, row_byte_ns,
// a0), so predicting each configuration with one constant set to 1 and the others to 0 gives the model's own
// feature for that constant. A non-negative least-squares fit of the measured times on those features is the
// in-sample fit (the papers' Fig. 17 method); the same model with the constants of a calibration profile
// (--profile, from bloomseq-calibrate) is the out-of-sample prediction. R^2 is reported for both.
//
// Usage: model_validation_blast QUERY.fa DB.fa [--profile FILE] [--threads P] [--passes N] [--out DIR] [--quick]
// Prints tables; writes DIR/validation_blast_grid.csv.
#include <ctime>

#include <algorithm>
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
  double measured_s = 1e30;  // minimum over the passes of the process CPU time / P (critical path for equal chunks)
  std::vector<double> features;  // the model's time per unit of each fitted constant (last one: a0)
  double pred_fit = 0, pred_cal = 0, pred_default = 0;
};

// The constants each layout's CPU time depends on, in the model's own terms.
std::vector<Calibration> basis(Layout l) {
  auto unit = [](double Calibration::*field) {
    Calibration c;
    c.a0 = 0;
    c.hash_ns = c.probe_ns = c.row_fixed_ns = c.row_byte_ns = 0;
    c.verify_ns = c.hit_ns = 0;
    if (field) c.*field = 1.0;
    else c.a0 = 1.0;
    return c;
  };
  if (l == Layout::Vector)
    return {unit(&Calibration::hash_ns), unit(&Calibration::probe_ns), unit(&Calibration::hit_ns), unit(nullptr)};
  return {unit(&Calibration::hash_ns), unit(&Calibration::row_fixed_ns), unit(&Calibration::row_byte_ns),
          unit(&Calibration::hit_ns), unit(nullptr)};
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
  std::string ppath, out = ".";
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
  const uint64_t dbases = quick ? 50000 : 200000;
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

  std::vector<Config> all;
  std::vector<uint64_t> qbases_of;
  for (const Grid& g : grids) {
    QuerySet q;
    for (const auto& s : read_prefix(argv[1], g.qbases)) q.add("q", s);
    uint64_t qb = 0;
    for (const auto& c : q.codes) qb += c.size();
    for (uint64_t m : ms)
      for (int k : ks)
        for (uint64_t n : g.nsubs) {
          BlastParams p;
          p.w = w;
          p.k = k;
          p.m_bits = m;
          p.n_sub = n;
          p.threads = threads;
          const SubqueryFilters f(q.codes, p, g.layout == Layout::Vector, g.layout == Layout::BitSliced);
          Config c;
          c.layout = g.layout;
          c.k = k;
          c.n_sub = n;
          c.m = m;
          c.V = f.count();
          if (g.layout == Layout::BitSliced) c.words_per_row = f.bitsliced().words_per_row;
          for (uint32_t v = 0; v < c.V; ++v) c.distinct += double(f.inserted(v)) / c.V;
          // Time it now (building every matrix first would not fit in memory): `passes` runs, keep the fastest.
          std::vector<std::vector<Stage1aHit>> hits(chunks.size());
          for (int pass = 0; pass < passes; ++pass) {
            for (auto& h : hits) h.clear();
            const double c0 = process_cpu_seconds();
            parallel_for(chunks.size(), threads, [&](size_t i) {
              if (g.layout == Layout::Vector) stage1a_vector_layout(f.vectors(), chunks[i], hits[i]);
              else stage1a_bitsliced(f.bitsliced(), chunks[i], hits[i]);
            });
            c.measured_s = std::min(c.measured_s, (process_cpu_seconds() - c0) / threads);
          }
          c.hits = 0;
          for (const auto& h : hits) c.hits += h.size();
          for (const DbChunk& ch : chunks) c.wmers += ch.n_starts;
          for (const Calibration& b : basis(g.layout))
            c.features.push_back(predict(c, qb, batch.codes.size(), w, threads, chunks.size(), dev, b));
          c.pred_cal = predict(c, qb, batch.codes.size(), w, threads, chunks.size(), dev, cal);
          c.pred_default = predict(c, qb, batch.codes.size(), w, threads, chunks.size(), dev, defaults);
          all.push_back(std::move(c));
          qbases_of.push_back(qb);
          std::fprintf(stderr, "\r%zu configurations timed", all.size());
        }
  }
  std::fprintf(stderr, "\n");

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
  std::printf("\n%-10s %6s %8s %10s  %s\n", "layout", "points", "R2 fit", "R2 profile", "fitted constants");
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
    const double r2p = r_squared(y, prof);
    const std::vector<const char*> names = l == Layout::Vector
                                               ? std::vector<const char*>{"hash_ns", "probe_ns", "hit_ns", "a0_s"}
                                               : std::vector<const char*>{"hash_ns", "row_fixed_ns", "row_byte_ns",
                                                                          "hit_ns", "a0_s"};
    std::printf("%-10s %6zu %8.4f %10.4f ", to_string(l), pts.size(), r2, r2p);
    for (size_t j = 0; j < coef.size() && j < names.size(); ++j)
      std::printf(" %s=%.3g", names[j], j + 1 == names.size() ? coef[j] : coef[j]);
    std::printf("\n");
    for (Config* c : pts)
      csv << to_string(l) << "," << c->k << "," << c->n_sub << "," << c->m << "," << c->V << "," << c->measured_s << ","
          << c->pred_fit << "," << c->pred_cal << "," << c->pred_default << "\n";
  }
  std::printf("(R2 fit: the model's features with constants fitted on this grid; R2 profile: constants from %s)\n",
              have_cal ? ppath.c_str() : "the built-in defaults (no --profile given)");
  std::printf("CSV: %s/validation_blast_grid.csv\n", out.c_str());
  return 0;
}
