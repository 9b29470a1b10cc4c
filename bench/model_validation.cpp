// Validation of the performance model on this CPU (docs/model-validation.md).
//
//  A. Time: the papers' stage-1a kernel (vector by vector, k hashes and k probes per test; bloomseq::model::
//     paper_vector_stage1a on the core headers H3ByteView + ConstBloomView + SubqueryVectors) over the grid of Ma et
//     al. 2011 Fig. 17 — k in {4,6,8,10}, several n_sub, m in {64,128,256} Kbit — and several work-unit counts;
//     least-squares fit of Time = a1 f_app f_cache f_sched + a0 (eq. 7 with the CPU mapping), R^2 in sample, and R^2
//     of the predictions made with an independent calibration profile (--profile) out of sample.
//  B. FPR: empirical FPR = FP / (DB - TP) per sub-query (eq. 3) on real DNA vs eq. 2; histogram of relative errors
//     (Fig. 6) and the share within 10%.
//  C. Auto-tune: the planner's choice vs the best configuration of the measured sweep, for both target modes.
//
// Usage: model_validation [--query FASTA[.gz]] [--db FASTA[.gz]] [--profile FILE] [--out DIR] [--threads P] [--quick]
//                         [--fpr-only]   (part B alone)
// Without --query/--db it uses random DNA. Prints tables; writes CSVs into --out (default: current directory).
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <unordered_set>
#include <vector>

#include "bloomseq/backend/stage1a.hpp"
#include "bloomseq/bloom/bloom_view.hpp"
#include "bloomseq/encode/sequence.hpp"
#include "bloomseq/hash/h3.hpp"
#include "bloomseq/model/calibrate.hpp"
#include "bloomseq/model/cost_model.hpp"
#include "bloomseq/model/equations.hpp"
#include "bloomseq/model/fit.hpp"
#include "bloomseq/model/microkernel.hpp"
#include "bloomseq/model/planner.hpp"
#include "bloomseq/model/profile_io.hpp"
#include "bloomseq/model/profiles.hpp"
#include "bloomseq/split/subquery.hpp"

using namespace bloomseq;
using namespace bloomseq::model;

namespace {

// All records of a (gzipped) FASTA file concatenated with an 'N' between records (so no w-mer spans two).
std::string read_fasta(const std::string& path, uint64_t max_bases) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) {
    std::fprintf(stderr, "model_validation: cannot open %s\n", path.c_str());
    std::exit(66);
  }
  std::string seq, line;
  char buf[1 << 16];
  while (gzgets(f, buf, sizeof buf) && seq.size() < max_bases) {
    size_t n = std::strlen(buf);
    while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r')) --n;
    if (n && buf[0] == '>') {
      if (!seq.empty()) seq += 'N';
      continue;
    }
    seq.append(buf, n);
  }
  gzclose(f);
  if (seq.size() > max_bases) seq.resize(max_bases);
  return seq;
}

std::string random_dna(uint64_t n, uint64_t seed) {
  SplitMix64 r(seed);
  std::string s(n, 'A');
  for (auto& c : s) c = "ACGT"[r.next() & 3];
  return s;
}

struct Vectors {
  std::vector<uint32_t> words;
  uint64_t wpv = 0;
  uint32_t count = 0;
  std::vector<std::unordered_set<uint64_t>> keys;  // distinct canonical keys per sub-query (for TP and n_distinct)
};

// One Bloom vector per sub-query of `query` (canonical w-mers, k shared H3 functions).
Vectors build_vectors(const std::string& query, uint64_t n_sub, int w, const H3Family& fam, uint64_t m,
                      bool keep_keys) {
  Vectors v;
  auto subs = split_subqueries({query.size()}, n_sub, w);
  v.count = uint32_t(subs.size());
  v.wpv = bloom_words(m);
  v.words.assign(v.wpv * v.count, 0);
  if (keep_keys) v.keys.resize(v.count);
  uint32_t h[kMaxHashes];
  auto hv = fam.byte_view();
  for (uint32_t i = 0; i < v.count; ++i) {
    BloomView bv{v.words.data() + i * v.wpv, m};
    for (uint64_t key : canonical_wmers(std::string_view(query).substr(subs[i].offset, subs[i].length), w)) {
      hv.hash_all(key, h);
      bv.insert(h, fam.k());
      if (keep_keys) v.keys[i].insert(key);
    }
  }
  return v;
}

struct GridPoint {
  int k;
  uint64_t n_sub, m;
  uint32_t V;
  int units;
  double f_app, f_cache, f_sched, fpr;
  double cpu_s, wall_s, norm_s = 0;
  double pred_fit = 0, pred_cal = 0, pred_norm = 0;
};

// Rank over GF(2) of function j's slot map (the top log2(m) bits of the affine H3 value; m a power of two): the
// finite-universe extension of eq. 2 assumes full rank (every slot has U/m pre-images).
int slot_map_rank(const H3Family& fam, int j, uint64_t m) {
  const int L = 63 - __builtin_clzll(m);
  uint32_t basis[32] = {};
  int r = 0;
  for (int b = 0; b < fam.key_bits(); ++b) {
    uint32_t v = L ? fam.row(j, b) >> (32 - L) : 0;
    for (int i = L - 1; i >= 0 && v; --i) {
      if (!((v >> i) & 1)) continue;
      if (!basis[i]) {
        basis[i] = v;
        ++r;
        break;
      }
      v ^= basis[i];
    }
  }
  return r;
}

// B. FPR per sub-query on real DNA (eq. 3) against eq. 2 with n_e = n_sub - w + 1, with the distinct canonical
// w-mers, with the measured fill, and against the finite-universe extension (bloom_fpr_finite_universe).
void run_fpr_validation(const std::string& qpath, const std::string& dpath, const std::string& out, bool quick) {
  for (int wb : {11, 16}) {
    const uint64_t qb = quick ? 200000 : 1000000, db_b = quick ? 200000 : 1000000, n_sub = 20000;
    const int k = 6;
    const uint64_t m = 262144;
    std::string q2 = qpath.empty() ? random_dna(qb, 3) : read_fasta(qpath, qb);
    std::string d2 = dpath.empty() ? random_dna(db_b, 4) : read_fasta(dpath, db_b);
    std::vector<uint64_t> dk = canonical_wmers(d2, wb);
    H3Family fam(k, wb, kDefaultH3Seed);
    std::fprintf(stderr, "B: FPR per sub-query...\n");
    Vectors vs = build_vectors(q2, n_sub, wb, fam, m, true);
    SubqueryVectors sv{vs.words.data(), vs.count, m, vs.wpv, k, fam.byte_view()};
    std::ofstream o(out + (wb == 11 ? std::string("/validation_fpr.csv") : "/validation_fpr_w" + std::to_string(wb) + ".csv"));
    o << "# subquery,n_e,distinct,tp,fp,empirical_fpr,model_fpr_ne,model_fpr_distinct,fill_fpr,rel_err_ne,rel_err_distinct,"
         "rel_err_fill,model_fpr_finite,rel_err_finite\n";
    std::vector<double> rel_ne, rel_d, rel_f, rel_u;
    int full_rank = 0;
    for (int j = 0; j < k; ++j) full_rank += slot_map_rank(fam, j, m) == 63 - __builtin_clzll(m);
    uint64_t fn = 0;
    auto subs = split_subqueries({q2.size()}, n_sub, wb);
    for (uint32_t v = 0; v < vs.count; ++v) {
      uint64_t hits = paper_vector_stage1a(sv, dk.data(), dk.size(), v, v + 1);
      uint64_t tp = 0;
      ConstBloomView bv{vs.words.data() + v * vs.wpv, m};
      uint32_t h[kMaxHashes];
      for (uint64_t key : dk)
        if (vs.keys[v].count(key)) {
          ++tp;
          fam.byte_view().hash_all(key, h);
          if (!bv.contains(h, k)) ++fn;
        }
      double emp = double(hits - tp) / double(dk.size() - tp);
      double ne = double(keys_per_subquery(subs[v].length, wb));
      double f_ne = bloom_fpr(double(m), k, ne), f_d = bloom_fpr(double(m), k, double(vs.keys[v].size()));
      // The same with the fill actually reached (rho^k): separates eq. 2's expected fill from hashing effects.
      uint64_t ones = 0;
      for (uint64_t j = 0; j < vs.wpv; ++j) ones += uint64_t(__builtin_popcount(bv.words[j]));
      double f_fill = std::pow(double(ones) / double(m), k);
      rel_ne.push_back((emp - f_ne) / f_ne);
      rel_d.push_back((emp - f_d) / f_d);
      rel_f.push_back((emp - f_fill) / f_fill);
      // Extension for the finite universe of 4^w keys, with the distinct count.
      const double f_u = bloom_fpr_finite_universe(double(m), k, double(vs.keys[v].size()), 2 * wb);
      rel_u.push_back((emp - f_u) / f_u);
      o << v << "," << ne << "," << vs.keys[v].size() << "," << tp << "," << hits - tp << "," << emp << "," << f_ne << ","
        << f_d << "," << f_fill << "," << rel_ne.back() << "," << rel_d.back() << "," << rel_f.back() << "," << f_u << ","
        << rel_u.back() << "\n";
    }
    auto within = [](const std::vector<double>& r) {
      size_t c = 0;
      for (double x : r) c += std::fabs(x) <= 0.10;
      return r.empty() ? 0.0 : double(c) / r.size();
    };
    std::printf("\n## B. FPR on %s, w = %d: %u sub-queries of %llu bases, k = %d, m = %llu, %zu db w-mers, false "
                "negatives: %llu\n",
                qpath.empty() ? "random DNA" : "real DNA", wb, vs.count, (unsigned long long)n_sub, k,
                (unsigned long long)m, dk.size(), (unsigned long long)fn);
    std::printf("within 10%% of eq. 2 with n_e = n_sub - w + 1: %.1f%% of sub-queries; with n_e = distinct keys: %.1f%%; "
                "of rho^k with the measured fill: %.1f%%\n",
                100 * within(rel_ne), 100 * within(rel_d), 100 * within(rel_f));
    auto mean = [](const std::vector<double>& r) {
      double s = 0;
      for (double x : r) s += x;
      return r.empty() ? 0.0 : s / r.size();
    };
    std::printf("mean relative error: n_e %+.2f%%, distinct %+.2f%%, measured fill %+.2f%%\n", 100 * mean(rel_ne),
                100 * mean(rel_d), 100 * mean(rel_f));
    std::printf("finite-universe extension (U = 4^%d keys, n = distinct; %d of %d slot maps full rank): within 10%%: "
                "%.1f%% of sub-queries, mean relative error %+.2f%%\n",
                wb, full_rank, k, 100 * within(rel_u), 100 * mean(rel_u));
    std::printf("histogram of relative error (n_e = distinct keys), bins of 2%%:\n");
    int bins[21] = {0};
    for (double x : rel_d) bins[std::clamp(int(std::floor(x / 0.02)) + 10, 0, 20)]++;
    for (int b = 0; b < 21; ++b)
      if (bins[b]) std::printf("  [%+5.0f%%, %+5.0f%%): %d\n", (b - 10) * 2.0, (b - 9) * 2.0, bins[b]);
  }

}

}  // namespace

int main(int argc, char** argv) {
  std::string qpath, dpath, ppath, out = ".";
  bool quick = false, fpr_only = false;
  int threads_opt = 0;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "model_validation: %s needs a value\n", a.c_str());
        std::exit(64);
      }
      return argv[++i];
    };
    if (a == "--query") qpath = next();
    else if (a == "--db") dpath = next();
    else if (a == "--profile") ppath = next();
    else if (a == "--out") out = next();
    else if (a == "--quick") quick = true;
    else if (a == "--fpr-only") fpr_only = true;
    else if (a == "--threads") threads_opt = std::atoi(next().c_str());
    else {
      std::fprintf(stderr, "usage: model_validation [--query FASTA] [--db FASTA] [--profile FILE] [--out DIR] [--threads P] "
                           "[--quick] [--fpr-only]\n");
      return a == "--help" || a == "-h" ? 0 : 64;
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
  if (fpr_only) {
    run_fpr_validation(qpath, dpath, out, quick);
    return 0;
  }
  const int w = 11;
  DeviceProfile dev = detect_cpu_profile();
  Calibration cal = default_calibration(dev);
  bool have_cal = false;
  if (!ppath.empty()) {
    LoadedProfile L = load_profile(ppath);
    dev = L.device;
    cal = L.calibration;
    have_cal = L.calibration.calibrated;
  }
  const int P = threads_opt > 0 ? std::min(threads_opt, dev.parallel_units()) : dev.parallel_units();
  std::printf("# model_validation on %s\n", describe(dev).c_str());
  std::printf("# measured code: bloomseq::model::paper_vector_stage1a (paper's vector-by-vector kernel on the core "
              "headers)\n");

  // ---------------- A. timing grid ----------------
  const uint64_t qbases = quick ? 80000 : 160000, dbases = quick ? 20000 : 200000;
  std::string query = qpath.empty() ? random_dna(qbases, 1) : read_fasta(qpath, qbases);
  std::string db = dpath.empty() ? random_dna(dbases, 2) : read_fasta(dpath, dbases);
  std::vector<uint64_t> dbkeys = canonical_wmers(db, w);
  std::vector<GridPoint> grid;
  std::vector<uint64_t> nsubs = {5000, 10000, 20000, 40000};
  std::vector<int> ks = {4, 6, 8, 10};
  std::vector<uint64_t> ms = {65536, 131072, 262144};
  // Build every configuration first, then time them in several passes in shuffled order and keep each one's
  // minimum: on a shared machine the load drifts, and spreading a configuration's samples over the whole run keeps
  // one busy moment from biasing it.
  struct Config {
    int k;
    uint64_t n, m;
    int units;
    size_t set;  // index into sets
  };
  struct Set {
    H3Family fam;
    Vectors vs;
    uint64_t m;
    int k;
  };
  std::vector<Set> sets;
  std::vector<Config> configs;
  for (uint64_t m : ms)
    for (int k : ks)
      for (uint64_t n : nsubs) {
        H3Family fam(k, w, kDefaultH3Seed);
        Vectors vs = build_vectors(query, n, w, fam, m, false);
        sets.push_back(Set{std::move(fam), std::move(vs), m, k});
        for (int units : {P, P + 1})
          if (uint32_t(units) <= sets.back().vs.count) configs.push_back(Config{k, n, m, units, sets.size() - 1});
      }
  // Each timing is paired with a reference configuration timed just before it (k = 6, n_sub = 20000, m = 128 Kbit,
  // units = P): the ratio cancels the machine's load drift. "normalised" time = median ratio x median reference time;
  // "raw" time = the minimum over the passes. Both are fitted and reported.
  const int passes = quick ? 3 : 5;
  size_t ref = 0;
  for (size_t ci = 0; ci < configs.size(); ++ci)
    if (configs[ci].k == 6 && configs[ci].n == 20000 && configs[ci].m == 131072 && configs[ci].units == P) ref = ci;
  std::fprintf(stderr, "A: timing grid (%zu configurations x %d passes, each paired with a reference run)...\n",
               configs.size(), passes);
  std::vector<UnitTiming> fastest(configs.size(), UnitTiming{1e30, 1e30});
  std::vector<std::vector<double>> ratios(configs.size());
  std::vector<double> ref_times;
  std::vector<size_t> order(configs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  SplitMix64 shuf(99);
  auto time_config = [&](size_t ci) {
    const Config& c = configs[ci];
    Set& st = sets[c.set];
    SubqueryVectors sv{st.vs.words.data(), st.vs.count, st.m, st.vs.wpv, st.k, st.fam.byte_view()};
    return time_paper_vector_stage1a(sv, dbkeys.data(), dbkeys.size(), c.units, P);
  };
  for (int pass = 0; pass < passes; ++pass) {
    for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[shuf.next() % i]);
    for (size_t ci : order) {
      UnitTiming r = time_config(ref);
      UnitTiming t = time_config(ci);
      ref_times.push_back(r.critical_cpu_s);
      ratios[ci].push_back(t.critical_cpu_s / r.critical_cpu_s);
      fastest[ci].wall_s = std::min(fastest[ci].wall_s, t.wall_s);
      fastest[ci].critical_cpu_s = std::min(fastest[ci].critical_cpu_s, t.critical_cpu_s);
    }
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
  };
  const double ref_median = median(ref_times);
  for (size_t ci = 0; ci < configs.size(); ++ci) {
    const Config& c = configs[ci];
    const Set& st = sets[c.set];
    GridPoint g;
    g.k = c.k;
    g.n_sub = c.n;
    g.m = c.m;
    g.V = st.vs.count;
    g.units = c.units;
    g.f_app = double(c.k) * st.vs.count * double(dbkeys.size());
    g.f_cache = 1;
    g.f_sched = 1;
    g.fpr = bloom_fpr(double(c.m), c.k, double(keys_per_subquery(c.n, w)));
    g.cpu_s = fastest[ci].critical_cpu_s;
    g.wall_s = fastest[ci].wall_s;
    g.norm_s = median(ratios[ci]) * ref_median;
    grid.push_back(g);
  }
  // Fit (in sample, the papers' Fig. 17 method) and score with the independent calibration (out of sample).
  std::vector<Stage1aPoint> pts, pts_wall, pts_cal, pts_norm;
  for (const auto& g : grid) {
    Stage1aPoint p;
    p.k = g.k;
    p.vectors = g.V;
    p.m_bits = g.m;
    p.keys = dbkeys.size();
    p.units = g.units;
    p.measured_s = g.cpu_s;
    pts.push_back(p);
    p.measured_s = g.wall_s;
    pts_wall.push_back(p);
    p.measured_s = g.norm_s;
    pts_norm.push_back(p);
  }
  pts_cal = pts;
  Stage1aFit fit = fit_paper_vector(pts, dev, w, P);
  Stage1aFit fitw = fit_paper_vector(pts_wall, dev, w, P);
  Stage1aFit fitn = fit_paper_vector(pts_norm, dev, w, P);
  double r2_cal = score_paper_vector(pts_cal, dev, w, P, cal);
  for (size_t i = 0; i < grid.size(); ++i) {
    grid[i].f_cache = pts[i].f_cache;
    grid[i].f_sched = pts[i].f_sched;
    grid[i].pred_fit = pts[i].predicted_s;
    grid[i].pred_cal = pts_cal[i].predicted_s;
    grid[i].pred_norm = pts_norm[i].predicted_s;
  }
  // The papers' form without the CPU refinements (f_cache = 1, f_sched of equal units): what they add.
  std::vector<double> Xp, Y;
  for (const auto& g : grid) {
    Xp.push_back(g.f_app / P * f_sched_cpu(g.units, P));
    Y.push_back(g.cpu_s);
  }
  LinearFit fitp = fit_linear(Xp, Y);
  {
    std::ofstream o(out + "/validation_grid.csv");
    o << "# k,n_sub,m_bits,subqueries,units,f_app,f_cache,f_sched,fpr,measured_cpu_s,measured_wall_s,predicted_fit_s,"
         "predicted_calibration_s,normalised_s,predicted_normalised_s\n";
    for (const auto& g : grid)
      o << g.k << "," << g.n_sub << "," << g.m << "," << g.V << "," << g.units << "," << g.f_app << "," << g.f_cache << ","
        << g.f_sched << "," << g.fpr << "," << g.cpu_s << "," << g.wall_s << "," << g.pred_fit << "," << g.pred_cal << ","
        << g.norm_s << "," << g.pred_norm << "\n";
  }
  std::printf("\n## A. stage-1a time: %zu configurations, P = %d\n", grid.size(), P);
  std::printf("fit (critical-path CPU time):  a1 = %.4g s, a0 = %.4g s, G_l1 = %.2f, R^2 = %.4f\n", fit.a1, fit.a0,
              fit.G_l1, fit.r2);
  std::printf("fit (load-normalised CPU time): a1 = %.4g s, a0 = %.4g s, G_l1 = %.2f, R^2 = %.4f\n", fitn.a1, fitn.a0,
              fitn.G_l1, fitn.r2);
  std::printf("fit (wall time):               a1 = %.4g s, a0 = %.4g s, G_l1 = %.2f, R^2 = %.4f\n", fitw.a1, fitw.a0,
              fitw.G_l1, fitw.r2);
  std::printf("papers' form (f_cache = 1, f_sched of equal units): R^2 = %.4f\n", fitp.r2);
  if (have_cal)
    std::printf("prediction with the calibration profile (a1 = %.4g, a0 = %.4g, G_l1 = %.2f): R^2 = %.4f (out of "
                "sample)\n", cal.a1, cal.a0, cal.G_l1, r2_cal);
  else
    std::printf("no calibrated --profile given: out-of-sample check skipped\n");

  run_fpr_validation(qpath, dpath, out, quick);

  // ---------------- C. auto-tune vs the sweep ----------------
  {
    std::printf("\n## C. auto-tune vs the measured sweep (stage 1a, paper-vector layout, units = P)\n");
    Calibration fitted;
    fitted.a1 = fit.a1;
    fitted.a0 = fit.a0;
    fitted.G_l1 = fit.G_l1;
    std::vector<std::pair<const char*, Calibration>> cals = {{"constants fitted on this sweep", fitted}};
    if (have_cal) cals.insert(cals.begin(), {"calibration profile", cal});
    for (auto& [cal_name, c2] : cals) {
    std::printf("-- with the %s (a1 = %.4g, a0 = %.4g):\n", cal_name, c2.a1, c2.a0);
    c2.verify_ns = 0;  // the sweep measures stage 1a only
    PlanRequest r;
    r.query_bases = query.size();
    r.db_bases = db.size();
    r.w = w;
    r.n_sub_candidates = nsubs;
    r.k_candidates = ks;
    r.m_candidates = ms;
    r.layouts = {Layout::PaperVector};
    r.threads = P;
    std::vector<const GridPoint*> base;
    for (const auto& g : grid)
      if (g.units == P) base.push_back(&g);
    auto find = [&](const Plan& p) -> const GridPoint* {
      for (auto* g : base)
        if (g->k == p.config.k && g->n_sub == p.config.n_sub && g->m == p.config.m_bits) return g;
      return nullptr;
    };
    for (double target : {1e-2, 1e-3, 1e-4}) {
      r.objective = Objective::MinTime;
      r.target_fpr = target;
      Plan p = plan_stage1a(r, dev, c2);
      const GridPoint* best = nullptr;
      for (auto* g : base)
        if (g->fpr <= target && (!best || g->cpu_s < best->cpu_s)) best = g;
      const GridPoint* mine = find(p);
      if (best && mine)
        std::printf("target FPR <= %g: plan n_sub=%llu k=%d m=%llu measured %.4f s; best measured n_sub=%llu k=%d m=%llu "
                    "%.4f s; plan/best = %.3f\n",
                    target, (unsigned long long)mine->n_sub, mine->k, (unsigned long long)mine->m, mine->cpu_s,
                    (unsigned long long)best->n_sub, best->k, (unsigned long long)best->m, best->cpu_s,
                    mine->cpu_s / best->cpu_s);
      else
        std::printf("target FPR <= %g: no configuration in the sweep meets it\n", target);
    }
    std::vector<double> tputs;
    for (auto* g : base) tputs.push_back(double(dbkeys.size()) / g->cpu_s);
    std::sort(tputs.begin(), tputs.end());
    for (double qtl : {0.25, 0.5, 0.75}) {
      double target = tputs[size_t(qtl * (tputs.size() - 1))];
      r.objective = Objective::MinFpr;
      r.target_throughput = target;
      Plan p = plan_stage1a(r, dev, c2);
      const GridPoint* best = nullptr;
      for (auto* g : base)
        if (double(dbkeys.size()) / g->cpu_s >= target && (!best || g->fpr < best->fpr)) best = g;
      const GridPoint* mine = find(p);
      if (best && mine)
        std::printf("target >= %.3g w-mers/s: plan FPR %.3g (measured %.3g w-mers/s%s); best measured FPR %.3g; "
                    "plan/best FPR = %.3f\n",
                    target, mine->fpr, double(dbkeys.size()) / mine->cpu_s,
                    double(dbkeys.size()) / mine->cpu_s >= target * 0.9 ? "" : ", BELOW target", best->fpr,
                    mine->fpr / best->fpr);
    }
    }
  }
  return 0;
}
