// Profiles (built-in, sysfs, JSON round trip), launch configurations and plans within device limits.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "bloomseq/error.hpp"
#include "bloomseq/model/calibrate.hpp"
#include "bloomseq/model/cost_model.hpp"
#include "bloomseq/model/fit.hpp"
#include "bloomseq/model/equations.hpp"
#include "bloomseq/model/planner.hpp"
#include "bloomseq/model/profile_io.hpp"
#include "bloomseq/model/profiles.hpp"

using namespace bloomseq::model;
namespace fs = std::filesystem;

namespace {
fs::path temp_dir(const char* tag) {
  fs::path p = fs::temp_directory_path() / (std::string("bloomseq_model_") + tag + "_" + std::to_string(::getpid()));
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}
void write(const fs::path& p, const std::string& s) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << s << "\n";
}
// A launch must respect every device limit.
void check_launch_within_limits(const DeviceProfile& g, const LaunchConfig& L, const KernelResources& kr) {
  REQUIRE(L.valid);
  CHECK(L.threads > 0);
  CHECK(L.threads <= g.max_threads_per_block);
  CHECK(L.threads % g.warp_size == 0);
  CHECK(L.blocks >= 1);
  CHECK(L.shared_bytes + kr.static_shared_bytes <= g.shared_per_block_max);
  CHECK(uint64_t(L.active_blocks) * (L.shared_bytes + kr.static_shared_bytes + g.reserved_shared_per_block) <= g.shared_per_mp);
  CHECK(uint64_t(L.active_blocks) * L.threads * kr.registers_per_thread <= g.registers_per_mp);
  CHECK(L.active_blocks * L.threads <= g.max_threads_per_mp);
  CHECK(L.active_blocks * g.mp <= g.max_blocks_total);
}
}  // namespace

TEST_CASE("built-in profiles are consistent", "[profiles]") {
  for (const auto& name : {"gtx480", "c1060", "a100", "h100", "h200"}) {
    DeviceProfile p = builtin_profile(name);
    INFO(name);
    CHECK(p.kind == DeviceKind::Gpu);
    CHECK(p.mp > 0);
    CHECK(p.max_blocks_total % p.mp == 0);
    CHECK(p.shared_per_block_max <= p.shared_per_mp);
    CHECK(p.max_threads_per_block <= p.max_threads_per_mp);
    CHECK(!p.source.empty());
    Calibration c = default_calibration(p);
    CHECK_FALSE(c.calibrated);
    CHECK(c.a1 > 0);
  }
  CHECK(h200().mp == h100().mp);
  CHECK(h200().mem_bandwidth_gbs > h100().mem_bandwidth_gbs);
  CHECK_THROWS_AS(builtin_profile("gtx9999"), bloomseq::UsageError);
}

TEST_CASE("CPU profile from a fake sysfs tree", "[profiles]") {
  fs::path root = temp_dir("sysfs");
  auto idx = [&](int i, const char* level, const char* type, const char* size, const char* shared) {
    fs::path d = root / "cpu0/cache" / ("index" + std::to_string(i));
    write(d / "level", level);
    write(d / "type", type);
    write(d / "size", size);
    write(d / "shared_cpu_list", shared);
  };
  idx(0, "1", "Data", "48K", "0");
  idx(1, "1", "Instruction", "32K", "0");
  idx(2, "2", "Unified", "2048K", "0");
  idx(3, "3", "Unified", "32768K", "0-7");
  DeviceProfile p = detect_cpu_profile(root.string(), 8);
  CHECK(p.kind == DeviceKind::Cpu);
  CHECK(p.cores == 8);
  REQUIRE(p.caches.size() == 4);  // L1d, L2, L3, DRAM
  CHECK(p.cache_size(1) == 48 * 1024);
  CHECK(p.cache_size(2) == 2048 * 1024);
  CHECK(p.cache_size(3) == 32ull << 20);
  CHECK(p.caches[2].shared);
  CHECK_FALSE(p.caches[0].shared);
  CHECK(p.caches.back().level == 0);
  // No sysfs at all: generic hierarchy, still usable.
  DeviceProfile g = detect_cpu_profile((root / "missing").string(), 2);
  CHECK(g.caches.size() == 4);
  CHECK(parse_size_string("32K") == 32768);
  CHECK(parse_size_string("1M") == 1 << 20);
  CHECK(parse_size_string("512") == 512);
  CHECK(parse_size_string("abc") == 0);
  fs::remove_all(root);
}

TEST_CASE("the running machine's CPU profile", "[profiles]") {
  DeviceProfile p = detect_cpu_profile();
  CHECK(p.cores >= 1);
  CHECK(p.caches.size() >= 2);
  CHECK(p.cache_size(1) > 0);
}

TEST_CASE("profile JSON round trip, default path, malformed files", "[profiles][io]") {
  fs::path dir = temp_dir("json");
  DeviceProfile d = detect_cpu_profile();
  Calibration c;
  c.calibrated = true;
  c.source = "test \"quoted\"";
  c.a1 = 3.25e-10;
  c.a0 = 0.0125;
  c.G = 7.5;
  c.hit_ns = 17.5;
  std::string path = (dir / "sub" / "profile.json").string();
  save_profile(path, d, c);
  LoadedProfile L = load_profile(path);
  CHECK(L.from_file);
  CHECK(L.calibration.calibrated);
  CHECK(L.calibration.source == c.source);
  CHECK(L.calibration.a1 == Approx(c.a1));
  CHECK(L.calibration.a0 == Approx(c.a0));
  CHECK(L.calibration.G == Approx(7.5));
  CHECK(L.calibration.hit_ns == Approx(17.5));
  CHECK(L.device.cores == d.cores);
  CHECK(L.device.caches.size() == d.caches.size());
  CHECK(L.device.cache_size(1) == d.cache_size(1));
  // Malformed and foreign files are data errors naming the file.
  write(dir / "bad.json", "{\"format\": \"bloomseq-profile\", \"a1\": }");
  CHECK_THROWS_AS(load_profile((dir / "bad.json").string()), bloomseq::DataError);
  write(dir / "other.json", "{\"x\": 1}");
  CHECK_THROWS_AS(load_profile((dir / "other.json").string()), bloomseq::DataError);
  write(dir / "nan.json", "{\"format\": \"bloomseq-profile\", \"a1\": \"fast\"}");
  CHECK_THROWS_AS(load_profile((dir / "nan.json").string()), bloomseq::DataError);
  CHECK_THROWS_AS(load_profile((dir / "missing.json").string()), bloomseq::NoInputError);
  // No file at the default location: built-in defaults, and the message says so.
  setenv("XDG_CACHE_HOME", (dir / "empty_cache").c_str(), 1);
  CHECK(default_profile_path() == (dir / "empty_cache" / "bloomseq" / "profile.json").string());
  LoadedProfile D = load_profile();
  CHECK_FALSE(D.from_file);
  CHECK_FALSE(D.calibration.calibrated);
  CHECK(D.message.find("built-in defaults") != std::string::npos);
  unsetenv("XDG_CACHE_HOME");
  fs::remove_all(dir);
}

TEST_CASE("launch configurations stay within device limits", "[launch]") {
  KernelResources kr = paper_blast_kernel();
  for (const auto& name : {"gtx480", "c1060", "a100", "h100", "h200"}) {
    DeviceProfile g = builtin_profile(name);
    for (uint64_t m : {8192ull, 32768ull, 65536ull, 131072ull, 262144ull, 1048576ull})
      for (uint64_t V : {1ull, 7ull, 100ull, 5000ull}) {
        INFO(name << " m=" << m << " V=" << V);
        LaunchConfig L = blast_launch_config(g, m, V, kr);
        if (vector_shared_bytes(m) + kr.static_shared_bytes > g.shared_per_block_max) {
          CHECK_FALSE(L.valid);
          continue;
        }
        check_launch_within_limits(g, L, kr);
        if (V >= uint64_t(L.active_blocks * g.mp)) {
          CHECK(L.a_b);               // B_r in B_opt -> f_sched = 1
          CHECK(L.f_sched == 1.0);
        }
        CHECK(uint64_t(L.passes) * L.blocks >= V);
      }
    LaunchConfig F = facs_launch_config(g, 100000, 8ull << 30);
    check_launch_within_limits(g, F, KernelResources{});
    CHECK_FALSE(F.a_c);
  }
  // GTX 480, m = 256 Kbit, 5000 sub-queries: one block per MP, 15 blocks, 334 passes.
  LaunchConfig L = blast_launch_config(gtx480(), 262144, 5000, kr);
  CHECK(L.active_blocks == 1);
  CHECK(L.blocks == 15);
  CHECK(L.passes == 334);
  // Device properties -> profile.
  GpuProperties gp;
  gp.name = "x";
  gp.multiprocessors = 132;
  gp.shared_per_multiprocessor = 233472;
  gp.shared_per_block_optin = 232448;
  gp.reserved_shared_per_block = 1024;
  gp.registers_per_multiprocessor = 65536;
  gp.max_blocks_per_multiprocessor = 32;
  gp.max_threads_per_block = 1024;
  gp.max_threads_per_multiprocessor = 2048;
  DeviceProfile p = profile_from_device_properties(gp);
  CHECK(p.max_blocks_total == 32 * 132);
  check_launch_within_limits(p, blast_launch_config(p, 262144, 5000, kr), kr);
}

// Within the Bloom-filter regime (FPR < 1/2) stage 1a falls and stage 1b rises with n_sub, so the sum has an interior
// optimum. (At n_sub -> Q the filter degenerates: FPR -> 1 and stage 1b verifies every db w-mer directly, which the
// planner also considers.)
TEST_CASE("pipeline view: total time has an interior optimum in n_sub", "[planner][extension]") {
  DeviceProfile cpu = detect_cpu_profile("/nonexistent", 2);
  Calibration cal = default_calibration(cpu);
  Stage1aConfig c;
  c.query_bases = 5000000;
  c.db_bases = 2000000;
  c.w = 11;
  c.k = 6;
  c.m_bits = 262144;
  c.layout = Layout::Vector;
  std::vector<double> t;
  std::vector<uint64_t> ns;
  for (uint64_t n = 1000; n <= 64000; n *= 2) {
    c.n_sub = n;
    Prediction p = predict_stage1a(c, cpu, cal);
    REQUIRE(p.valid);
    CHECK(p.fpr < 0.5);
    t.push_back(p.total_s);
    ns.push_back(n);
  }
  size_t best = size_t(std::min_element(t.begin(), t.end()) - t.begin());
  CHECK(best > 0);
  CHECK(best + 1 < t.size());
  // Stage 1a alone falls with n_sub (fewer sub-queries); the false hits rise.
  c.n_sub = 1000;
  Prediction a = predict_stage1a(c, cpu, cal);
  c.n_sub = 64000;
  Prediction b = predict_stage1a(c, cpu, cal);
  CHECK(b.stage1a_s < a.stage1a_s);
  CHECK(b.false_hits > a.false_hits);
}

TEST_CASE("CPU layouts pay per stage-1a hit; the papers' kernel only counts hits", "[extension]") {
  DeviceProfile cpu = detect_cpu_profile("/nonexistent", 2);
  Calibration cal = default_calibration(cpu);
  Stage1aConfig c;
  c.query_bases = 320000;
  c.db_bases = 200000;
  c.w = 11;
  c.k = 4;
  c.m_bits = 65536;
  c.n_sub = 40000;  // fill ~0.9: most tests are (false) hits
  c.threads = 2;
  for (Layout l : {Layout::Vector, Layout::BitSliced, Layout::PaperVector}) {
    c.layout = l;
    Calibration none = cal, some = cal;
    none.hit_ns = 0;
    some.hit_ns = 25;
    const Prediction a = predict_stage1a(c, cpu, none), b = predict_stage1a(c, cpu, some);
    REQUIRE(a.valid);
    REQUIRE(b.valid);
    const double hits = a.false_hits + a.true_hits;
    CHECK(hits > 0.5 * a.tests);
    // The stage-1b prediction does not change; stage 1a grows by hits x hit_ns over P cores (not for the paper form).
    CHECK(b.stage1b_s == Approx(a.stage1b_s));
    const double expected = l == Layout::PaperVector ? 0.0 : hits * 25e-9 / 2;
    CHECK(b.stage1a_s - a.stage1a_s == Approx(expected).margin(1e-12));
  }
}

TEST_CASE("planner: targets, limits and objectives", "[planner]") {
  PlanRequest r;
  r.query_bases = 5000000;
  r.db_bases = 2000000;
  r.w = 11;
  r.target_fpr = 1e-3;
  for (const auto& name : {"gtx480", "a100", "h100"}) {
    DeviceProfile g = builtin_profile(name);
    Plan p = plan_stage1a(r, g, default_calibration(g));
    INFO(name);
    REQUIRE(p.feasible);
    CHECK(p.target_met);
    CHECK(p.prediction.fpr <= r.target_fpr);
    check_launch_within_limits(g, p.config.launch, r.kernel);
    CHECK(p.config.launch.f_sched == 1.0);
    CHECK(describe(p).find("n_sub=") != std::string::npos);
    CHECK(plan_json(p).front() == '{');
  }
  DeviceProfile cpu = detect_cpu_profile("/nonexistent", 2);
  Calibration cal = default_calibration(cpu);
  Plan p = plan_stage1a(r, cpu, cal);
  REQUIRE(p.feasible);
  CHECK(p.target_met);
  CHECK(p.prediction.fpr <= 1e-3);
  CHECK(p.config.threads == 2);
  CHECK(p.config.work_units % 2 == 0);
  // Brute force over the same space: nothing feasible is faster.
  for (uint64_t n : {1000ull, 4000ull, 16000ull, 64000ull})
    for (int k = 1; k <= 12; ++k)
      for (uint64_t m = 8192; m <= (1u << 18); m *= 2)  // the CPU search space (vectors up to one L1 cache)
        for (Layout lay : {Layout::Vector, Layout::BitSliced}) {
          Stage1aConfig c = p.config;
          c.n_sub = n;
          c.k = k;
          c.m_bits = m;
          c.layout = lay;
          Prediction q = predict_stage1a(c, cpu, cal);
          if (q.valid && q.fpr <= 1e-3) CHECK(q.total_s >= p.prediction.total_s * (1 - 1e-9) - 1e-3 * 0);
        }
  // A stricter FPR target never gives a faster plan.
  PlanRequest strict = r;
  strict.target_fpr = 1e-6;
  Plan s = plan_stage1a(strict, cpu, cal);
  REQUIRE(s.target_met);
  CHECK(s.prediction.total_s >= p.prediction.total_s);
  // Min FPR under a throughput target: meets the throughput, and a lower target allows a lower FPR.
  PlanRequest tp = r;
  tp.objective = Objective::MinFpr;
  tp.target_throughput = p.prediction.wmers_per_s / 2;
  Plan f = plan_stage1a(tp, cpu, cal);
  REQUIRE(f.target_met);
  CHECK(f.prediction.wmers_per_s >= tp.target_throughput);
  tp.target_throughput /= 4;
  Plan f2 = plan_stage1a(tp, cpu, cal);
  CHECK(f2.prediction.fpr <= f.prediction.fpr);
  // Unreachable throughput: closest plan, flagged.
  tp.target_throughput = 1e30;
  Plan u = plan_stage1a(tp, cpu, cal);
  CHECK(u.feasible);
  CHECK_FALSE(u.target_met);
}

TEST_CASE("FACS plan: m and k from the target FPR", "[planner]") {
  DeviceProfile g = a100();
  FacsPlan fp = plan_facs(5000000, 5e-4, 100000, 100, 25, g, default_calibration(g));
  REQUIRE(fp.feasible);
  CHECK(fp.prediction.fpr_per_kmer <= 5e-4);  // the target itself, after rounding k
  CHECK(fp.prediction.fpr_per_kmer >= 4.9e-4);  // and not much below it: m stays near -n ln p / ln^2 2
  CHECK(fp.k == 11);
  for (double target : {1e-1, 3e-2, 1e-4, 1e-6})
    for (uint64_t n : {uint64_t(1000), uint64_t(48482), uint64_t(199634)}) {
      FacsPlan q = plan_facs(n, target, 1000, 100, 21, g, default_calibration(g));
      CHECK(q.prediction.fpr_per_kmer <= target);
    }
  CHECK(fp.prediction.reads_per_s > 0);
  DeviceProfile cpu = detect_cpu_profile("/nonexistent", 2);
  FacsPlan fc = plan_facs(5000000, 5e-4, 100000, 100, 25, cpu, default_calibration(cpu));
  CHECK(fc.feasible);
}

TEST_CASE("fit_paper_vector recovers a1, a0 and G_l1 from model-generated times", "[calibration]") {
  DeviceProfile cpu = detect_cpu_profile("/nonexistent", 2);  // generic: L1 32 KiB, L2 256 KiB
  Calibration truth;
  truth.a1 = 5e-9;
  truth.a0 = 2e-3;
  truth.G_l1 = 1.4;
  std::vector<Stage1aPoint> pts;
  for (int k : {4, 6, 8, 10})
    for (uint32_t V : {5u, 9u, 17u, 33u})
      for (uint64_t m : {65536ull, 131072ull, 262144ull})
        for (int units : {2, 3}) {
          Stage1aPoint p;
          p.k = k;
          p.vectors = V;
          p.m_bits = m;
          p.keys = 200000;
          p.units = units;
          pts.push_back(p);
        }
  score_paper_vector(pts, cpu, 11, 2, truth);  // fills predicted_s from the true constants
  for (auto& p : pts) p.measured_s = p.predicted_s;
  Stage1aFit f = fit_paper_vector(pts, cpu, 11, 2);
  REQUIRE(f.ok);
  CHECK(f.a1 == Approx(truth.a1).epsilon(0.01));
  CHECK(f.a0 == Approx(truth.a0).epsilon(0.01).margin(1e-5));
  CHECK(f.G_l1 == Approx(truth.G_l1).margin(0.011));
  CHECK(f.r2 > 0.99999);
}

TEST_CASE("least squares and linear fit", "[calibration]") {
  LinearFit f = fit_linear({1, 2, 3, 4}, {3, 5, 7, 9});
  CHECK(f.a1 == Approx(2));
  CHECK(f.a0 == Approx(1));
  CHECK(f.r2 == Approx(1));
  auto c = least_squares({{1, 0}, {0, 1}, {1, 1}}, {1, 2, 3});
  REQUIRE(c.size() == 2);
  CHECK(c[0] == Approx(1));
  CHECK(c[1] == Approx(2));
  // Non-negative: the negative coefficient is dropped and the rest refitted.
  auto n = least_squares({{1, 1}, {1, 2}, {1, 3}}, {3, 2, 1}, true);
  REQUIRE(n.size() == 2);
  CHECK(n[1] == 0.0);
  CHECK(n[0] == Approx(2));
  // P-chase step model: capacities found where the latency jumps.
  std::vector<SweepPoint> pts;
  for (double s = 4096; s <= 64e6; s *= 1.41421356) {
    double lat = s <= 32768 ? 1.0 : s <= 524288 ? 4.0 : s <= 4e6 ? 15.0 : 100.0;
    pts.push_back({s, lat, 0});
  }
  double r2 = 0;
  auto caps = fit_cache_sizes(pts, 3, &r2);
  REQUIRE(caps.size() == 3);
  CHECK(caps[0] <= 32768);
  CHECK(caps[0] > 32768 / 1.5);
  CHECK(caps[1] <= 524288);
  CHECK(caps[1] > 524288 / 1.5);
  CHECK(caps[2] <= 4000000);
  CHECK(caps[2] > 4000000 / 1.5);
  CHECK(r2 > 0.999);
}
