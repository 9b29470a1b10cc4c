// bloomseq-calibrate: measure this machine once and write the performance profile the apps load for --auto-tune.
#include <cxxopts.hpp>

#include <cstdio>
#include <iostream>

#include "bloomseq/app/run_app.hpp"
#include "bloomseq/error.hpp"
#include "bloomseq/model/calibrate.hpp"
#include "bloomseq/model/profile_io.hpp"
#include "bloomseq/model/profiles.hpp"

using namespace bloomseq;
using namespace bloomseq::model;

int main(int argc, char** argv) {
  return run_app("bloomseq-calibrate", [&]() -> int {
  try {
    cxxopts::Options opts("bloomseq-calibrate",
                          "Measure this CPU for the performance model (P-chase latency sweep, random-read hashing "
                          "micro-benchmark, work units over cores, stage-1a kernel fit) and write a profile.\n\n"
                          "Examples:\n"
                          "  bloomseq-calibrate                      # writes ~/.cache/bloomseq/profile.json\n"
                          "  bloomseq-calibrate --profile my.json --csv calib/\n"
                          "  bloomseq-calibrate --show               # print the profile the apps would use\n");
    opts.add_options()
      ("profile", "profile file to write (default ${XDG_CACHE_HOME:-~/.cache}/bloomseq/profile.json)",
       cxxopts::value<std::string>()->default_value(""))
      ("t,threads", "threads (0 = all cores)", cxxopts::value<int>()->default_value("0"))
      ("quick", "smaller sweeps (a few seconds; less accurate)")
      ("csv", "also write the sweeps as CSV files into this directory", cxxopts::value<std::string>()->default_value(""))
      ("show", "print the current profile (or the built-in defaults) and exit")
      ("h,help", "this help");
    auto a = opts.parse(argc, argv);
    if (a.count("help")) {
      std::cout << opts.help() << std::endl;
      return 0;
    }
    std::string path = a["profile"].as<std::string>();
    if (a.count("show")) {
      LoadedProfile L = load_profile(path);
      std::cerr << L.message << "\n";
      std::cout << profile_to_json(L.device, L.calibration);
      return 0;
    }
    if (a["threads"].as<int>() < 0) throw UsageError("--threads must be >= 0");
    CalibrationOptions o;
    o.threads = a["threads"].as<int>();
    o.quick = a.count("quick") > 0;
    o.log = &std::cerr;
    CalibrationReport R = calibrate_cpu(o);
    const auto& d = R.device;
    const auto& c = R.calibration;
    std::printf("# bloomseq-calibrate: %s\n", describe(d).c_str());
    std::printf("# P-chase latency sweep: bytes,ns_measured,ns_model  (R^2 = %.4f)\n", R.pchase_r2);
    for (const auto& p : R.pchase) std::printf("pchase,%.0f,%.3f,%.3f\n", p.x, p.measured, p.predicted);
    std::printf("# cache sizes: sysfs vs fitted from the P-chase\n");
    for (size_t i = 0; i < R.sysfs_sizes.size(); ++i)
      std::printf("cache,L%zu,%llu,%llu\n", i + 1, (unsigned long long)R.sysfs_sizes[i],
                  (unsigned long long)(i < R.fitted_sizes.size() ? R.fitted_sizes[i] : 0));
    std::printf("# random-read micro-benchmark: bytes,ns_per_read,model  (R^2 = %.4f)\n", R.random_r2);
    for (const auto& p : R.random_read) std::printf("random,%.0f,%.3f,%.3f\n", p.x, p.measured, p.predicted);
    std::printf("# work units over cores: units,critical-path CPU seconds,model a1*f_sched+a0  (R^2 = %.4f)\n", R.units_r2);
    for (const auto& p : R.work_units) std::printf("units,%.0f,%.5f,%.5f\n", p.x, p.measured, p.predicted);
    std::printf("# stage-1a kernel: k,vectors,m_bits,measured_s,model_s  (R^2 = %.4f)\n", R.stage1a_r2);
    for (const auto& p : R.stage1a)
      std::printf("stage1a,%d,%u,%llu,%.5f,%.5f\n", p.k, p.vectors, (unsigned long long)p.m_bits, p.measured_s,
                  p.predicted_s);
    std::printf("# fitted: a1=%.4g s a0=%.4g s G=%.3g hash_ns=%.3g probe_ns=%.3g row_byte_ns=%.3g verify_ns=%.3g\n",
                c.a1, c.a0, c.G, c.hash_ns, c.probe_ns, c.row_byte_ns, c.verify_ns);
    std::string csv = a["csv"].as<std::string>();
    if (!csv.empty()) {
      write_sweep_csv(csv + "/pchase.csv", "bytes,ns_measured,ns_model", R.pchase);
      write_sweep_csv(csv + "/random_read.csv", "bytes,ns_measured,ns_model", R.random_read);
      write_sweep_csv(csv + "/work_units.csv", "units,seconds_measured,seconds_model", R.work_units);
      write_stage1a_csv(csv + "/stage1a_fit.csv", R.stage1a);
    }
    std::string out = path.empty() ? default_profile_path() : path;
    save_profile(out, d, c);
    std::fprintf(stderr, "wrote %s (%.1f s)\n", out.c_str(), R.seconds);
    return 0;
  } catch (const cxxopts::exceptions::exception& e) {
    throw UsageError(e.what());
  }
  });
}
