#include "bloomseq/model/calibrate.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <functional>
#include <unordered_set>

#include "bloomseq/bloom/bloom_view.hpp"
#include "bloomseq/error.hpp"
#include "bloomseq/hash/h3.hpp"
#include "bloomseq/model/cost_model.hpp"
#include "bloomseq/model/equations.hpp"
#include "bloomseq/model/fit.hpp"
#include "bloomseq/model/microkernel.hpp"
#include "bloomseq/model/profiles.hpp"

namespace bloomseq::model {

namespace {
using Clock = std::chrono::steady_clock;

// One mispredicted branch: a loop whose branch follows random bits (mispredicted half the time: min(p, 1 - p) with
// p = 1/2) against the same loop over bits that are all set. Both arms have a side effect the compiler cannot
// turn into a conditional move.
double mispredict_cost_ns(uint64_t n) {
  std::vector<uint8_t> random_bits(n), ones(n, 1);
  SplitMix64 r(5);
  for (auto& b : random_bits) b = uint8_t(r.next() & 1);
  auto run = [&](const std::vector<uint8_t>& bits) {
    double best = 1e30;
    for (int rep = 0; rep < 3; ++rep) {
      uint64_t a = 0, b = 0;
      const auto t0 = Clock::now();
      for (uint64_t i = 0; i < n; ++i) {
        if (bits[i]) {
          a += i;
          asm volatile("" : "+r"(a));
        } else {
          b ^= i;
          asm volatile("" : "+r"(b));
        }
      }
      best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
      volatile uint64_t keep = a + b;
      (void)keep;
    }
    return best;
  };
  const double t_random = run(random_bits), t_ones = run(ones);
  return std::max(0.0, (t_random - t_ones) / (0.5 * double(n)) * 1e9);
}

std::vector<CacheLevel> levels_for(const std::vector<uint64_t>& caps) {
  std::vector<CacheLevel> lv;
  for (size_t i = 0; i < caps.size(); ++i) lv.push_back(CacheLevel{int(i + 1), caps[i], 1, 1, false});
  lv.push_back(CacheLevel{0, 0, 1, 1, true});
  return lv;
}

}  // namespace

std::vector<double> fit_level_costs(const std::vector<SweepPoint>& pts, const std::vector<uint64_t>& caps, double* r2) {
  auto lv = levels_for(caps);
  std::vector<std::vector<double>> A;
  std::vector<double> y;
  for (const auto& p : pts) {
    A.push_back(level_fractions(p.x, lv));
    y.push_back(p.measured);
  }
  std::vector<double> c = least_squares(A, y, true);
  if (c.empty()) return c;
  if (r2) {
    std::vector<double> pred;
    for (const auto& row : A) {
      double s = 0;
      for (size_t j = 0; j < row.size(); ++j) s += row[j] * c[j];
      pred.push_back(s);
    }
    *r2 = r_squared(y, pred);
  }
  return c;
}

namespace {
size_t step_segment(double x, const std::vector<uint64_t>& caps) {
  size_t i = 0;
  while (i < caps.size() && x > double(caps[i])) ++i;
  return i;
}
double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
}  // namespace

std::vector<double> fit_step_latencies(const std::vector<SweepPoint>& pts, const std::vector<uint64_t>& caps, double* r2) {
  std::vector<std::vector<double>> seg(caps.size() + 1);
  for (const auto& p : pts) seg[step_segment(p.x, caps)].push_back(p.measured);
  std::vector<double> lat(seg.size());
  for (size_t i = 0; i < seg.size(); ++i) lat[i] = median_of(seg[i]);
  // Empty segments inherit the previous level's latency (no measurement there).
  for (size_t i = 1; i < lat.size(); ++i)
    if (seg[i].empty()) lat[i] = lat[i - 1];
  if (r2) {
    std::vector<double> y, p;
    for (const auto& q : pts) {
      y.push_back(q.measured);
      p.push_back(lat[step_segment(q.x, caps)]);
    }
    *r2 = r_squared(y, p);
  }
  return lat;
}

std::vector<uint64_t> fit_cache_sizes(const std::vector<SweepPoint>& pts, int levels, double* r2_out) {
  std::vector<uint64_t> cand;
  for (const auto& p : pts) cand.push_back(uint64_t(std::ceil(p.x)));  // a point must fall inside its own capacity
  std::sort(cand.begin(), cand.end());
  std::vector<SweepPoint> logpts = pts;
  for (auto& p : logpts) p.measured = std::log(std::max(1e-3, p.measured));
  std::vector<uint64_t> best;
  double best_r2 = -1e300;
  std::vector<uint64_t> cur(levels);
  // Increasing tuples of candidate sizes (a ~30-point sweep: a few thousand step fits).
  std::function<void(int, size_t)> rec = [&](int lvl, size_t from) {
    if (lvl == levels) {
      double r2 = 0;
      fit_step_latencies(logpts, cur, &r2);
      if (r2 > best_r2) {
        best_r2 = r2;
        best = cur;
      }
      return;
    }
    for (size_t i = from; i + 1 < cand.size(); ++i) {
      cur[lvl] = cand[i];
      rec(lvl + 1, i + 1);
    }
  };
  rec(0, 0);
  if (r2_out) fit_step_latencies(pts, best, r2_out);
  return best;
}

namespace {
void model_terms(std::vector<Stage1aPoint>& pts, const DeviceProfile& d, int w, int P, double G) {
  for (auto& p : pts) {
    p.f_app = double(p.k) * p.vectors * double(p.keys);
    p.f_cache = cpu_paper_vector_fcache(p.m_bits, p.k, w, d, G);
    p.f_sched = f_sched_split(p.vectors, p.units, P);
  }
}
}  // namespace

Stage1aFit fit_paper_vector(std::vector<Stage1aPoint>& pts, const DeviceProfile& d, int w, int P) {
  Stage1aFit best;
  best.r2 = -1e300;
  std::vector<double> y;
  for (const auto& p : pts) y.push_back(p.measured_s);
  for (double G = 1.0; G <= 3.0001; G += 0.01) {
    model_terms(pts, d, w, P, G);
    std::vector<double> x;
    for (const auto& p : pts) x.push_back(p.f_app / P * p.f_cache * p.f_sched);
    LinearFit f = fit_linear(x, y);
    if (f.ok && f.a1 > 0 && f.r2 > best.r2) {
      best.a1 = f.a1;
      best.a0 = f.a0;
      best.G_l1 = G;
      best.r2 = f.r2;
      best.ok = true;
    }
  }
  model_terms(pts, d, w, P, best.G_l1);
  for (auto& p : pts) p.predicted_s = best.a1 * p.f_app / P * p.f_cache * p.f_sched + best.a0;
  return best;
}

double score_paper_vector(std::vector<Stage1aPoint>& pts, const DeviceProfile& d, int w, int P, const Calibration& c) {
  model_terms(pts, d, w, P, c.G_l1);
  std::vector<double> y, p;
  for (auto& q : pts) {
    q.predicted_s = c.a1 * q.f_app / P * q.f_cache * q.f_sched + c.a0;
    y.push_back(q.measured_s);
    p.push_back(q.predicted_s);
  }
  return r_squared(y, p);
}

void write_sweep_csv(const std::string& path, const std::string& header, const std::vector<SweepPoint>& pts) {
  std::ofstream o(path);
  if (!o) throw IoError(path + ": cannot write");
  o << "# " << header << "\n";
  for (const auto& p : pts) o << p.x << "," << p.measured << "," << p.predicted << "\n";
}

void write_stage1a_csv(const std::string& path, const std::vector<Stage1aPoint>& pts) {
  std::ofstream o(path);
  if (!o) throw IoError(path + ": cannot write");
  o << "# k,vectors,m_bits,keys,units,f_app,f_cache,f_sched,measured_s,predicted_s\n";
  for (const auto& p : pts)
    o << p.k << "," << p.vectors << "," << p.m_bits << "," << p.keys << "," << p.units << "," << p.f_app << ","
      << p.f_cache << "," << p.f_sched << "," << p.measured_s << "," << p.predicted_s << "\n";
}

namespace {

using Log = std::function<void(const std::string&)>;

// Phases 1 and 2: the P-chase latency sweep and the random-read sweep, fitted to the cache levels (capacities from
// sysfs or the P-chase), stored in R.device.caches.
void measure_memory_hierarchy(CalibrationReport& R, bool q, const Log& log) {
  DeviceProfile& d = R.device;
  // ---- 1. P-chase latency sweep ----
  const uint64_t max_bytes = q ? (uint64_t(16) << 20) : (uint64_t(128) << 20);
  for (double s = 4096; s <= double(max_bytes) * 1.001; s *= std::sqrt(2.0)) {
    uint64_t b = uint64_t(s) / 64 * 64;
    uint64_t loads = q ? 100000 : 400000;
    // Minimum of three chases: other processes only ever add time.
    double a = pchase_ns(b, loads, 1), bb = pchase_ns(b, loads, 2), c = pchase_ns(b, loads, 3);
    R.pchase.push_back({double(b), std::min(a, std::min(bb, c)), 0});
  }
  int nlev = 0;
  for (int l = 1; l <= 3; ++l) {
    R.sysfs_sizes.push_back(d.cache_size(l));
    if (d.cache_size(l)) ++nlev;
  }
  R.fitted_sizes = fit_cache_sizes(R.pchase, std::max(1, nlev));
  // Latencies per level: with the sysfs capacities when known (they are exact), else with the fitted ones.
  std::vector<uint64_t> caps;
  for (int l = 1; l <= 3; ++l)
    if (d.cache_size(l)) caps.push_back(d.cache_size(l));
  if (caps.empty()) caps = R.fitted_sizes;
  std::vector<double> lat = fit_step_latencies(R.pchase, caps, &R.pchase_r2);
  for (auto& p : R.pchase) p.predicted = lat[step_segment(p.x, caps)];

  // ---- 2. random-read micro-benchmark ([2012] §III) ----
  log("random-read micro-benchmark (table size sweep)...");
  const uint64_t reads = q ? (uint64_t(1) << 20) : (uint64_t(4) << 20);
  for (uint64_t b = 4096; b <= max_bytes; b *= 2) {
    double a = random_read_ns(b, reads, 1, 1, 1), c = random_read_ns(b, reads, 1, 1, 2), e = random_read_ns(b, reads, 1, 1, 3);
    R.random_read.push_back({double(b), std::min(a, std::min(c, e)), 0});
  }
  // The capacities for random probes: sysfs or the P-chase's, whichever explains the random-read sweep better (a
  // virtual machine's share of a shared L3 is often much smaller than the L3 sysfs reports).
  std::vector<double> rnd = fit_level_costs(R.random_read, caps, &R.random_r2);
  // Only the last (shared) level is replaced: sysfs knows the private L1/L2 exactly, while the P-chase fit of small
  // levels is the first victim of a noisy machine.
  std::vector<uint64_t> alt_caps = caps;
  if (!alt_caps.empty() && R.fitted_sizes.size() == caps.size()) alt_caps.back() = R.fitted_sizes.back();
  if (alt_caps != caps) {
    double r2b = 0;
    std::vector<double> alt = fit_level_costs(R.random_read, alt_caps, &r2b);
    if (!alt.empty() && r2b > R.random_r2) {
      caps = alt_caps;
      rnd = alt;
      R.random_r2 = r2b;
      lat = fit_step_latencies(R.pchase, caps, &R.pchase_r2);
      for (auto& p : R.pchase) p.predicted = lat[step_segment(p.x, caps)];
      log("  using the measured last-level capacity (it explains the random-read sweep better than sysfs)");
    }
  }
  auto lv = levels_for(caps);
  for (auto& p : R.random_read) {
    auto f = level_fractions(p.x, lv);
    p.predicted = 0;
    for (size_t j = 0; j < f.size() && j < rnd.size(); ++j) p.predicted += f[j] * rnd[j];
  }
  // Store per-level costs in the profile (levels in caps order, then DRAM).
  {
    std::vector<CacheLevel> nl;
    for (size_t i = 0; i < caps.size(); ++i) {
      CacheLevel c;
      const CacheLevel* old = d.find_cache(int(i + 1));
      c.level = int(i + 1);
      c.size_bytes = caps[i];
      c.shared = old ? old->shared : i == 2;
      c.latency_ns = i < lat.size() && lat[i] > 0 ? lat[i] : (old ? old->latency_ns : 1);
      c.random_ns = i < rnd.size() && rnd[i] > 0 ? rnd[i] : (old ? old->random_ns : 1);
      nl.push_back(c);
    }
    CacheLevel mem{0, 0, lat.size() > caps.size() ? lat[caps.size()] : 100,
                   rnd.size() > caps.size() ? rnd[caps.size()] : 10, true};
    nl.push_back(mem);
    // Monotone costs (noise on a shared machine can invert neighbours).
    for (size_t i = 1; i < nl.size(); ++i) {
      nl[i].latency_ns = std::max(nl[i].latency_ns, nl[i - 1].latency_ns);
      nl[i].random_ns = std::max(nl[i].random_ns, nl[i - 1].random_ns);
    }
    d.caches = nl;
    d.cache_bytes = d.cache_size(1);
    if (d.cache_size(2)) d.shared_per_mp = d.cache_size(2);  // the private cache that holds the vectors ("S")
  }
}

// Phase 3a: the cost of the work units over P cores, fitted to f_sched.
void measure_work_units(CalibrationReport& R, int P, bool q) {
  // Each U is timed in several passes in shuffled order, keeping its minimum (the machine's load drifts).
  const uint64_t total = q ? (uint64_t(8) << 20) : (uint64_t(32) << 20);
  const int maxU = 3 * P + 1, passes = q ? 2 : 5;
  std::vector<double> best(size_t(maxU) + 1, 1e30);
  std::vector<int> order;
  for (int U = 1; U <= maxU; ++U) order.push_back(U);
  SplitMix64 shuf(5);
  for (int pass = 0; pass < passes; ++pass) {
    for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[shuf.next() % i]);
    for (int U : order) best[size_t(U)] = std::min(best[size_t(U)], random_read_seconds(16 * 1024, total, U, P, 3).critical_cpu_s);
  }
  std::vector<double> x, y;
  for (int U = 1; U <= maxU; ++U) {
    R.work_units.push_back({double(U), best[size_t(U)], 0});
    x.push_back(f_sched_cpu(U, P));
    y.push_back(best[size_t(U)]);
  }
  LinearFit f = fit_linear(x, y);
  if (f.ok) {
    for (size_t i = 0; i < R.work_units.size(); ++i) R.work_units[i].predicted = f.a1 * x[i] + f.a0;
    R.units_r2 = f.r2;
  } else {  // one core: f_sched is 1 for every U, nothing to fit
    double mean = 0;
    for (double v : y) mean += v / double(y.size());
    for (auto& p : R.work_units) p.predicted = mean;
    R.units_r2 = std::nan("");
  }
}

// Phase 3b: the stage-1a kernel (eq. 7) timed over a grid of k, vectors and m, fitted to a1, a0 and G_l1.
void fit_stage1a_kernel(CalibrationReport& R, int P, bool q) {
  const DeviceProfile& d = R.device;
  Calibration& cal = R.calibration;
  const int w = 11;
  const uint64_t nkeys = q ? 20000 : 200000;
  SplitMix64 rng(7);
  std::vector<uint64_t> keys(nkeys);
  const uint64_t mask = (uint64_t(1) << (2 * w)) - 1;
  for (auto& x : keys) x = rng.next() & mask;
  for (int k : {4, 10})
    for (uint32_t V : {uint32_t(2 * P), uint32_t(8 * P)})
      for (uint64_t m : {uint64_t(65536), uint64_t(262144)}) {
        H3Family fam(k, w, kDefaultH3Seed);
        uint64_t wpv = bloom_words(m);
        std::vector<uint32_t> words(wpv * V, 0);
        // Fill each vector with n_e = 20,000 random keys (as a sub-query of ~20 kbases would).
        uint32_t h[kMaxHashes];
        for (uint32_t v = 0; v < V; ++v) {
          BloomView bv{words.data() + v * wpv, m};
          for (int i = 0; i < 20000; ++i) {
            fam.byte_view().hash_all(rng.next() & mask, h);
            bv.insert(h, k);
          }
        }
        SubqueryVectors sv{words.data(), V, m, wpv, k, fam.byte_view()};
        double t = 1e30;
        for (int rep = 0; rep < 3; ++rep)
          t = std::min(t, time_paper_vector_stage1a(sv, keys.data(), nkeys, int(V), P).critical_cpu_s);
        Stage1aPoint pt;
        pt.k = k;
        pt.vectors = V;
        pt.m_bits = m;
        pt.keys = nkeys;
        pt.units = int(V);
        pt.measured_s = t;
        R.stage1a.push_back(pt);
      }
  Stage1aFit f = fit_paper_vector(R.stage1a, d, w, P);
  cal.a1 = f.ok ? f.a1 : 0.35e-9;
  cal.a0 = f.ok ? std::max(0.0, f.a0) : 0;
  cal.G_l1 = f.ok ? f.G_l1 : 1.3;
  R.stage1a_r2 = f.r2;
}

// Phase 4: per-operation costs used by the extensions of the model (hashing, row bytes, verification, hits).
void measure_operation_costs(CalibrationReport& R, bool q) {
  const DeviceProfile& d = R.device;
  Calibration& cal = R.calibration;
  const int k = 8, w = 11;
  H3Family fam(k, w, kDefaultH3Seed);
  auto hv = fam.byte_view();
  SplitMix64 rng(11);
  const uint64_t n = q ? 200000 : 2000000;
  std::vector<uint64_t> keys(n);
  for (auto& x : keys) x = rng.next() & ((uint64_t(1) << 22) - 1);
  uint32_t h[kMaxHashes];
  uint32_t acc = 0;
  auto t0 = Clock::now();
  for (uint64_t i = 0; i < n; ++i) {
    hv.hash_all(keys[i], h);
    acc ^= h[0] ^ h[k - 1];
  }
  double s = std::chrono::duration<double>(Clock::now() - t0).count();
  volatile uint32_t keep = acc;
  (void)keep;
  cal.hash_ns = s * 1e9 / double(n) / k;
  cal.row_byte_ns = stream_ns_per_byte(q ? (uint64_t(16) << 20) : (uint64_t(64) << 20));
  // Bit-sliced kernel: the first two rows of a block are prefetched 8 w-mers ahead, so by Little's law a block
  // costs at least the memory latency / 8; a row line from DRAM costs its independent random read beyond the
  // streamed bytes.
  if (!d.caches.empty()) {
    cal.row_fixed_ns = d.caches.back().latency_ns / 8.0;
    cal.row_miss_ns = std::max(0.0, d.caches.back().random_ns - 64.0 * cal.row_byte_ns);
  }
  cal.mispredict_ns = mispredict_cost_ns(q ? 2000000 : 20000000);
  // Stage 1b: random lookups in a hash set of 1M query w-mers.
  std::unordered_set<uint64_t> set;
  const uint64_t nq = q ? 100000 : 1000000;
  set.reserve(nq);
  for (uint64_t i = 0; i < nq; ++i) set.insert(rng.next());
  uint64_t found = 0;
  t0 = Clock::now();
  for (uint64_t i = 0; i < n; ++i) found += set.count(keys[i] * 0x9E3779B97F4A7C15ULL);
  s = std::chrono::duration<double>(Clock::now() - t0).count();
  volatile uint64_t keep2 = found;
  (void)keep2;
  cal.verify_ns = s * 1e9 / double(n);
  // Stage-1a hits: appended as (w-mer index, sub-query) pairs vector by vector (16 runs ascending in position,
  // ~100k hits per 64-Kbase chunk at high FPR) and put in (position, sub-query) order by a counting sort on the
  // w-mer index, as the vector layout does.
  struct Hit {
    uint64_t pos;
    uint32_t sub;
  };
  const size_t per_chunk = 100000;
  const uint32_t block = 32768;
  std::vector<uint32_t> hit_wmer, hit_sub, start(block + 1);
  std::vector<Hit> hits;
  uint64_t checksum = 0;
  t0 = Clock::now();
  for (uint64_t done = 0; done < n; done += per_chunk) {
    hit_wmer.clear();
    hit_sub.clear();
    const size_t run = per_chunk / 16;
    for (size_t i = 0; i < per_chunk; ++i) {
      hit_wmer.push_back(uint32_t((uint64_t(i % run) * block / run + (keys[(done + i) % n] & 3)) % block));
      hit_sub.push_back(uint32_t(i / run));
    }
    std::fill(start.begin(), start.end(), 0u);
    for (uint32_t x : hit_wmer) ++start[x + 1];
    for (uint32_t i = 0; i < block; ++i) start[i + 1] += start[i];
    hits.resize(per_chunk);
    for (size_t x = 0; x < per_chunk; ++x) hits[start[hit_wmer[x]]++] = {hit_wmer[x], hit_sub[x]};
    checksum += hits[per_chunk / 2].pos;
  }
  s = std::chrono::duration<double>(Clock::now() - t0).count();
  volatile uint64_t keep3 = checksum;
  (void)keep3;
  cal.hit_ns = s * 1e9 / double((n + per_chunk - 1) / per_chunk * per_chunk);
}

}  // namespace

CalibrationReport calibrate_cpu(const CalibrationOptions& opt) {
  auto t_start = Clock::now();
  CalibrationReport R;
  R.device = detect_cpu_profile();
  DeviceProfile& d = R.device;
  const int P = opt.threads > 0 ? std::min(opt.threads, d.parallel_units()) : d.parallel_units();
  auto log = [&](const std::string& s) {
    if (opt.log) *opt.log << s << std::endl;
  };
  const bool q = opt.quick;

  log("P-chase latency sweep (Mei et al. 2014)...");
  measure_memory_hierarchy(R, q, log);
  Calibration& cal = R.calibration;
  cal.G = d.caches.back().random_ns / std::max(1e-3, d.caches.front().random_ns);
  cal.probe_ns = d.caches.front().random_ns;

  log("work units over " + std::to_string(P) + " cores (f_sched)...");
  measure_work_units(R, P, q);

  log("stage-1a kernel grid (a1, a0)...");
  fit_stage1a_kernel(R, P, q);

  log("per-operation costs (hash, row bytes, verification, hits)...");
  measure_operation_costs(R, q);
  cal.calibrated = true;
  R.seconds = std::chrono::duration<double>(Clock::now() - t_start).count();
  cal.source = "bloomseq-calibrate on " + std::to_string(P) + " thread(s), " + std::to_string(int(R.seconds)) + " s";
  d.source += "; caches and latencies calibrated";
  return R;
}

}  // namespace bloomseq::model
