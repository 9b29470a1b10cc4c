// The performance-model commands (see model_commands.hpp): predictions as CSV without running anything, and the
// calibration that writes the profile the apps load for --auto-tune.
//   tradeoff  FPR vs predicted time over the sub-query size n_sub (Ma et al. 2011 Fig. 18)
//   blocks    predicted throughput vs requested blocks B_r for several T_r (Figs. 9-14 of the same paper)
//   units     CPU analogue: throughput vs work units over the cores
//   plan      the --auto-tune plan for a workload
//   profile   print a device profile and its calibration
#include "bloomseq/app/model_commands.hpp"

#include <cxxopts.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "bloomseq/app/argument_limits.hpp"
#include "bloomseq/error.hpp"
#include "bloomseq/model/calibrate.hpp"
#include "bloomseq/model/cost_model.hpp"
#include "bloomseq/model/equations.hpp"
#include "bloomseq/model/launch_config.hpp"
#include "bloomseq/model/planner.hpp"
#include "bloomseq/model/profile_io.hpp"
#include "bloomseq/model/profiles.hpp"

namespace bloomseq {

using namespace bloomseq::model;


namespace {

std::string usage(const std::string& prog) {
  return "usage: " + prog + " COMMAND [options]\n"
    "commands:\n"
    "  tradeoff   FPR and predicted time over n_sub (CSV)\n"
    "  blocks     predicted throughput vs B_r for several T_r on a GPU profile (CSV)\n"
    "  units      predicted time vs work units over CPU cores (CSV)\n"
    "  plan       the --auto-tune plan for a workload\n"
    "  profile    print a device profile and calibration (JSON)\n"
    "Run '" + prog + " COMMAND --help' for the options. Examples:\n"
    "  " + prog + " tradeoff --device gtx480 -k 6 -m 262144 > tradeoff.csv\n"
    "  " + prog + " blocks --device gtx480 -m 131072 --threads 128,256,512,1024 > blocks.csv\n"
    "  " + prog + " plan --device cpu --query-bases 4938920 --db-bases 2095898 --target-fpr 1e-4\n";
}

struct Ctx {
  DeviceProfile dev;
  Calibration cal;
  std::string note;
};

// --device NAME (built-in) or the calibrated profile (--profile FILE, or the default file for "cpu").
Ctx load_device(const ModelOptions& a) {
  Ctx c;
  const std::string& name = a.device;
  const std::string& file = a.profile;
  if (name == "cpu" || !file.empty()) {
    LoadedProfile L = load_profile(file);
    c.dev = L.device;
    c.cal = L.calibration;
    c.note = L.message;
    if (!file.empty() || name == "cpu") return c;
  }
  c.dev = builtin_profile(name);
  c.cal = default_calibration(c.dev);
  c.note = "device " + c.dev.name + ": " + c.cal.source;
  return c;
}

void common_options(cxxopts::Options& o) {
  o.add_options()
    ("device", "gtx480, c1060, a100, h100, h200 or cpu", cxxopts::value<std::string>()->default_value("gtx480"))
    ("profile", "calibrated profile file (default for --device cpu: the per-user profile)",
     cxxopts::value<std::string>()->default_value(""))
    ("query-bases", "Q: query bases", cxxopts::value<uint64_t>()->default_value("250000000"))
    ("db-bases", "D: database bases", cxxopts::value<uint64_t>()->default_value("50000000"))
    ("w,word-size", "w-mer length", cxxopts::value<int>()->default_value("11"))
    ("k,hashes", "hash functions", cxxopts::value<int>()->default_value("6"))
    ("m,bloom-bits", "Bloom vector bits", cxxopts::value<uint64_t>()->default_value("262144"))
    ("o,output", "output file (default stdout)", cxxopts::value<std::string>()->default_value("-"))
    ("h,help", "this help");
}

// Parses argv with `o` (common options included) into the common fields; false when --help was given (the
// help text is in m.help then).
bool parse_common(cxxopts::Options& o, int argc, const char* const* argv, ModelOptions& m, cxxopts::ParseResult& a) {
  a = o.parse(argc, argv);
  if (a.count("help")) {
    m.help = o.help() + "\n";
    return false;
  }
  m.device = a["device"].as<std::string>();
  m.profile = a["profile"].as<std::string>();
  m.query_bases = a["query-bases"].as<uint64_t>();
  m.db_bases = a["db-bases"].as<uint64_t>();
  m.w = a["w"].as<int>();
  m.k = a["k"].as<int>();
  m.m_bits = a["m"].as<uint64_t>();
  m.output = a["output"].as<std::string>();
  return true;
}

std::vector<int> parse_int_list(const std::string& s, const char* what) {
  std::vector<int> v;
  std::stringstream ss(s);
  std::string t;
  while (std::getline(ss, t, ',')) {
    try {
      size_t pos = 0;
      int x = std::stoi(t, &pos);
      if (pos != t.size() || x <= 0) throw 1;
      v.push_back(x);
    } catch (...) {
      throw UsageError(std::string("bad value '") + t + "' in " + what);
    }
  }
  if (v.empty()) throw UsageError(std::string(what) + " is empty");
  return v;
}

struct Out {
  std::ofstream file;
  std::ostream* os = &std::cout;
  explicit Out(const std::string& p) {
    if (p != "-") {
      file.open(p);
      if (!file) throw IoError(p + ": cannot write");
      os = &file;
    }
  }
};

void parse_tradeoff(int argc, const char* const* argv, ModelOptions& m) {
  cxxopts::Options o(m.program + " tradeoff", "FPR (eq. 2) and predicted stage-1a/1b time over n_sub (Fig. 18).");
  common_options(o);
  o.add_options()("layout", "paper-vector, vector or bitsliced (CPU)", cxxopts::value<std::string>()->default_value("paper-vector"))
    ("n-sub-min", "smallest n_sub", cxxopts::value<uint64_t>()->default_value("10000"))
    ("n-sub-max", "largest n_sub", cxxopts::value<uint64_t>()->default_value("300000"))
    ("steps", "points (geometric)", cxxopts::value<int>()->default_value("30"));
  cxxopts::ParseResult a;
  if (!parse_common(o, argc, argv, m, a)) return;
  m.layout = parse_layout(a["layout"].as<std::string>());
  m.n_sub_min = a["n-sub-min"].as<uint64_t>();
  m.n_sub_max = a["n-sub-max"].as<uint64_t>();
  m.steps = a["steps"].as<int>();
  if (m.w < 1 || m.w > 32 || m.k < 1 || m.k > 32 || m.m_bits == 0 || m.n_sub_min <= uint64_t(m.w) ||
      m.n_sub_max < m.n_sub_min || m.steps < 2)
    throw UsageError("need 1 <= w <= 32, 1 <= k <= 32, m > 0, w < n-sub-min <= n-sub-max, steps >= 2");
}

int cmd_tradeoff(const ModelOptions& m) {
  Ctx c = load_device(m);
  std::cerr << c.note << "\n";
  Stage1aConfig s;
  s.query_bases = m.query_bases;
  s.db_bases = m.db_bases;
  s.w = m.w;
  s.k = m.k;
  s.m_bits = m.m_bits;
  s.layout = m.layout;
  const uint64_t lo = m.n_sub_min, hi = m.n_sub_max;
  const int steps = m.steps;
  Out out(m.output);
  *out.os << "# device=" << c.dev.name << " Q=" << s.query_bases << " D=" << s.db_bases << " w=" << s.w << " k=" << s.k
          << " m=" << s.m_bits << " layout=" << to_string(s.layout) << "\n";
  *out.os << "# n_sub,n_e,subqueries,fpr,false_hits,stage1a_s,stage1b_s,total_s,wmers_per_s,B_r,T_r,B_a\n";
  for (int i = 0; i < steps; ++i) {
    s.n_sub = uint64_t(double(lo) * std::pow(double(hi) / double(lo), double(i) / (steps - 1)) + 0.5);
    if (c.dev.kind == DeviceKind::Gpu)
      s.launch = blast_launch_config(c.dev, s.m_bits, subquery_count(s.query_bases, s.n_sub, s.w));
    Prediction p = predict_stage1a(s, c.dev, c.cal);
    *out.os << s.n_sub << "," << keys_per_subquery(s.n_sub, s.w) << "," << p.subqueries << "," << p.fpr << ","
            << p.false_hits << "," << p.stage1a_s << "," << p.stage1b_s << "," << p.total_s << "," << p.wmers_per_s
            << "," << s.launch.blocks << "," << s.launch.threads << "," << s.launch.active_blocks << "\n";
  }
  return 0;
}

void parse_blocks(int argc, const char* const* argv, ModelOptions& m) {
  cxxopts::Options o(m.program + " blocks", "Predicted throughput vs requested blocks B_r (Figs. 9-14): eq. 1 for "
                                               "B_a, eq. 12 for f_sched, eq. 19 for the time.");
  common_options(o);
  o.add_options()("threads", "T_r values, comma separated", cxxopts::value<std::string>()->default_value("128,256,512,1024"))
    ("max-blocks", "largest B_r", cxxopts::value<int>()->default_value("90"))
    ("n-sub", "sub-query length", cxxopts::value<uint64_t>()->default_value("50000"))
    ("registers", "registers per thread R_T", cxxopts::value<int>()->default_value("32"))
    ("static-shared", "kernel shared memory besides the vector (bytes)", cxxopts::value<uint64_t>()->default_value("256"));
  cxxopts::ParseResult a;
  if (!parse_common(o, argc, argv, m, a)) return;
  m.block_threads = parse_int_list(a["threads"].as<std::string>(), "--threads");
  m.max_blocks = a["max-blocks"].as<int>();
  if (m.max_blocks < 1) throw UsageError("--max-blocks must be >= 1");
  m.registers = a["registers"].as<int>();
  m.static_shared = a["static-shared"].as<uint64_t>();
  m.n_sub = a["n-sub"].as<uint64_t>();
  if (m.n_sub <= uint64_t(m.w)) throw UsageError("--n-sub must exceed w");
}

int cmd_blocks(const ModelOptions& m) {
  Ctx c = load_device(m);
  if (c.dev.kind != DeviceKind::Gpu) throw UsageError("'blocks' needs a GPU profile (use 'units' for a CPU)");
  std::cerr << c.note << "\n";
  const std::vector<int>& ts = m.block_threads;
  const int maxb = m.max_blocks;
  KernelResources kr{m.registers, m.static_shared};
  Stage1aConfig s;
  s.query_bases = m.query_bases;
  s.db_bases = m.db_bases;
  s.w = m.w;
  s.k = m.k;
  s.m_bits = m.m_bits;
  s.n_sub = m.n_sub;
  s.layout = Layout::PaperVector;
  Out out(m.output);
  *out.os << "# device=" << c.dev.name << " m=" << s.m_bits << " k=" << s.k << " n_sub=" << s.n_sub
          << " R_T=" << kr.registers_per_thread << " static_shared=" << kr.static_shared_bytes << "\n";
  *out.os << "# T_r,B_r,B_a,limit,f_sched,in_B_opt,A_T,predicted_wmers_per_s,relative_throughput\n";
  uint64_t sb = vector_shared_bytes(s.m_bits);
  for (int t : ts) {
    for (int b = 1; b <= maxb; ++b) {
      s.launch = evaluate_launch(c.dev, b, t, sb, kr, double(sb), true);
      if (s.launch.active_blocks <= 0) {
        *out.os << t << "," << b << ",0,invalid,,,,0,0\n";
        continue;
      }
      Prediction p = predict_stage1a(s, c.dev, c.cal);
      *out.os << t << "," << b << "," << s.launch.active_blocks << "," << to_string(s.launch.limit) << ","
              << s.launch.f_sched << "," << (s.launch.a_b ? 1 : 0) << "," << (s.launch.a_t ? 1 : 0) << ","
              << throughput(p.db_wmers, p.stage1a_s) << "," << 1.0 / s.launch.f_sched << "\n";
    }
  }
  return 0;
}

void parse_units(int argc, const char* const* argv, ModelOptions& m) {
  cxxopts::Options o(m.program + " units", "CPU analogue of Figs. 9-12: work units over P cores (f_sched).");
  common_options(o);
  o.add_options()("cores", "P (default: the profile's cores)", cxxopts::value<int>()->default_value("0"))
    ("max-units", "largest number of work units", cxxopts::value<int>()->default_value("32"));
  cxxopts::ParseResult a;
  if (!parse_common(o, argc, argv, m, a)) return;
  m.cores = a["cores"].as<int>();
  m.max_units = a["max-units"].as<int>();
  if (m.max_units < 1) throw UsageError("--max-units must be >= 1");
}

int cmd_units(const ModelOptions& m) {
  Ctx c = load_device(m);
  int P = m.cores > 0 ? m.cores : (c.dev.kind == DeviceKind::Cpu ? c.dev.parallel_units() : 2);
  int maxu = m.max_units;
  Out out(m.output);
  *out.os << "# cores=" << P << "\n# units,f_sched,relative_throughput\n";
  for (int u = 1; u <= maxu; ++u) *out.os << u << "," << f_sched_cpu(u, P) << "," << 1.0 / f_sched_cpu(u, P) << "\n";
  return 0;
}

void parse_plan(int argc, const char* const* argv, ModelOptions& m) {
  cxxopts::Options o(m.program + " plan", "Print the --auto-tune plan for a workload (no run).");
  common_options(o);
  o.add_options()("target-fpr", "minimise time with FPR <= X", cxxopts::value<double>())
    ("target-throughput", "minimise FPR with db w-mers/s >= Y", cxxopts::value<double>())
    ("t,cpu-threads", "CPU threads (0 = all)", cxxopts::value<int>()->default_value("0"))
    ("json", "print the plan as JSON");
  cxxopts::ParseResult a;
  if (!parse_common(o, argc, argv, m, a)) return;
  m.cpu_threads = a["cpu-threads"].as<int>();
  m.json = a.count("json") > 0;
  if (a.count("target-fpr") && a.count("target-throughput"))
    throw UsageError("give --target-fpr or --target-throughput, not both");
  if (a.count("target-throughput")) {
    m.target_throughput_given = true;
    m.target_throughput = a["target-throughput"].as<double>();
  } else if (a.count("target-fpr")) {
    m.target_fpr_given = true;
    m.target_fpr = a["target-fpr"].as<double>();
    if (!(m.target_fpr > 0 && m.target_fpr < 1)) throw UsageError("--target-fpr must be in (0, 1)");
  }
}

int cmd_plan(const ModelOptions& m) {
  Ctx c = load_device(m);
  std::cerr << c.note << "\n";
  PlanRequest r;
  r.query_bases = m.query_bases;
  r.db_bases = m.db_bases;
  r.w = m.w;
  r.threads = m.cpu_threads;
  if (m.target_throughput_given) {
    r.objective = Objective::MinFpr;
    r.target_throughput = m.target_throughput;
  } else if (m.target_fpr_given) {
    r.target_fpr = m.target_fpr;
  }
  Plan p = plan_stage1a(r, c.dev, c.cal);
  Out out(m.output);
  if (m.json) *out.os << plan_json(p) << "\n";
  else *out.os << describe(p);
  return p.feasible ? 0 : int(ExitCode::data);
}

void parse_profile(int argc, const char* const* argv, ModelOptions& m) {
  cxxopts::Options o(m.program + " profile", "Print a device profile and its calibration as JSON.");
  common_options(o);
  cxxopts::ParseResult a;
  parse_common(o, argc, argv, m, a);
}

int cmd_profile(const ModelOptions& m) {
  Ctx c = load_device(m);
  std::cerr << c.note << "\n";
  Out out(m.output);
  *out.os << profile_to_json(c.dev, c.cal);
  return 0;
}

}  // namespace

ModelOptions parse_model_options(const std::string& program, int argc, const char* const* argv) {
  check_argument_lengths(argc, argv);
  ModelOptions m;
  m.program = program;
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
    m.help = usage(program);
    m.usage_error = argc < 2;
    return m;
  }
  const std::string cmd = argv[1];
  struct Sub {
    const char* name;
    ModelCommand command;
    void (*parse)(int, const char* const*, ModelOptions&);
  };
  static const Sub subs[] = {{"tradeoff", ModelCommand::tradeoff, parse_tradeoff},
                             {"blocks", ModelCommand::blocks, parse_blocks},
                             {"units", ModelCommand::units, parse_units},
                             {"plan", ModelCommand::plan, parse_plan},
                             {"profile", ModelCommand::profile, parse_profile}};
  for (const Sub& sub : subs) {
    if (cmd != sub.name) continue;
    m.command = sub.command;
    try {
      sub.parse(argc - 1, argv + 1, m);
    } catch (const cxxopts::exceptions::exception& e) {
      throw UsageError(e.what());
    }
    return m;
  }
  throw UsageError("unknown command '" + cmd + "' (tradeoff, blocks, units, plan, profile)");
}

int run_model_command(const ModelOptions& m) {
  if (!m.help.empty()) {
    (m.usage_error ? std::cerr : std::cout) << m.help;
    if (!m.usage_error) std::cout.flush();
    return m.usage_error ? int(ExitCode::usage) : 0;
  }
  switch (m.command) {
    case ModelCommand::tradeoff: return cmd_tradeoff(m);
    case ModelCommand::blocks: return cmd_blocks(m);
    case ModelCommand::units: return cmd_units(m);
    case ModelCommand::plan: return cmd_plan(m);
    case ModelCommand::profile: return cmd_profile(m);
    case ModelCommand::usage: break;
  }
  throw UsageError("no command (tradeoff, blocks, units, plan, profile)");
}

int model_command(const std::string& program, int argc, char** argv) {
  return run_model_command(parse_model_options(program, argc, argv));
}

CalibrateOptions parse_calibrate_options(const std::string& program, int argc, const char* const* argv) {
  check_argument_lengths(argc, argv);
  try {
    cxxopts::Options opts(program,
                          std::string("Measure this CPU for the performance model (P-chase latency sweep, random-read hashing "
                          "micro-benchmark, work units over cores, stage-1a kernel fit) and write a profile.\n\n"
                          "Examples:\n") +
                          "  " + program + "                      # writes ~/.cache/bloomseq/profile.json\n"
                          "  " + program + " --profile my.json --csv calib/\n"
                          "  " + program + " --show               # print the profile the apps would use\n");
    opts.add_options()
      ("profile", "profile file to write (default ${XDG_CACHE_HOME:-~/.cache}/bloomseq/profile.json)",
       cxxopts::value<std::string>()->default_value(""))
      ("t,threads", "threads (0 = all cores)", cxxopts::value<int>()->default_value("0"))
      ("quick", "smaller sweeps (a few seconds; less accurate)")
      ("csv", "also write the sweeps as CSV files into this directory (made if missing)", cxxopts::value<std::string>()->default_value(""))
      ("show", "print the current profile (or the built-in defaults) and exit")
      ("no-kernel-probe", "do not time blast-bloom's own stage-1a kernels (the layouts are then priced by the "
       "micro-benchmark constants alone)")
      ("h,help", "this help");
    auto a = opts.parse(argc, argv);
    CalibrateOptions c;
    if (a.count("help")) {
      c.help = opts.help() + "\n";
      return c;
    }
    c.profile = a["profile"].as<std::string>();
    c.show = a.count("show") > 0;
    c.threads = a["threads"].as<int>();
    c.quick = a.count("quick") > 0;
    c.csv = a["csv"].as<std::string>();
    c.kernel_probe = a.count("no-kernel-probe") == 0;
    // --show ignores the calibration options (as it always has).
    if (!c.show && c.threads < 0) throw UsageError("--threads must be >= 0");
    return c;
  } catch (const cxxopts::exceptions::exception& e) {
    throw UsageError(e.what());
  }
}

int run_calibrate(const std::string& program, const CalibrateOptions& a) {
  if (!a.help.empty()) {
    std::cout << a.help;
    std::cout.flush();
    return 0;
  }
  const std::string& path = a.profile;
  if (a.show) {
    LoadedProfile L = load_profile(path);
    std::cerr << L.message << "\n";
    std::cout << profile_to_json(L.device, L.calibration);
    return 0;
  }
  if (!a.csv.empty()) {  // made (or refused) before the sweeps, not after half a minute of measuring
    std::error_code ec;
    std::filesystem::create_directories(a.csv, ec);
    if (ec || !std::filesystem::is_directory(a.csv, ec))
      throw IoError("--csv " + a.csv + ": cannot create the directory" + (ec ? ": " + ec.message() : ""));
  }
  CalibrationOptions o;
  o.threads = a.threads;
  o.quick = a.quick;
  o.log = &std::cerr;
  CalibrationReport R = calibrate_cpu(o);
  const auto& d = R.device;
  auto& c = R.calibration;
  std::vector<KernelSample> probe;
  if (a.kernel_probe && a.run_kernel_probe) {
    const auto t0 = std::chrono::steady_clock::now();
    probe = a.run_kernel_probe(a.quick, &std::cerr);
    for (Layout l : {Layout::Vector, Layout::BitSliced}) {
      // The probe's hits are nearly proportional to its w-mers, so the bit-sliced fit cannot tell their cost from
      // the per-w-mer terms (it fits ~0); the hit micro-benchmark's cost matches the kernel's (~8 ns per extra
      // hit at high FPR, docs/model-validation.md D3) and is used instead, so that plans at high FPR see it.
      KernelFit f = fit_kernel(probe, l, d, l == Layout::BitSliced ? c.hit_ns : -1.0);
      if (f.coefficients.fitted) (l == Layout::Vector ? c.kernel_vector : c.kernel_bitsliced) = f.coefficients;
      else std::cerr << "kernel probe: " << to_string(l) << " layout not fitted: " << f.error << "\n";
    }
    const double probe_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    R.seconds += probe_s;
    char note[64];
    std::snprintf(note, sizeof note, " + kernel probe %.0f s", probe_s);
    c.source += note;
  }
  std::printf("# %s: %s\n", program.c_str(), describe(d).c_str());
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
  std::printf("# fitted: a1=%.4g s a0=%.4g s G=%.3g hash_ns=%.3g probe_ns=%.3g mispredict_ns=%.3g row_byte_ns=%.3g "
              "row_miss_ns=%.3g row_fixed_ns=%.3g hit_ns=%.3g verify_ns=%.3g\n",
              c.a1, c.a0, c.G, c.hash_ns, c.probe_ns, c.mispredict_ns, c.row_byte_ns, c.row_miss_ns, c.row_fixed_ns,
              c.hit_ns, c.verify_ns);
  if (!probe.empty()) {
    std::printf("# kernel probe (blast-bloom's stage 1a on random DNA, 1 thread): layout,k,m_bits,n_sub,query_bases,"
                "db_bases,measured_s,model_s\n");
    for (const KernelSample& s : probe) {
      const KernelCoefficients& k = s.layout == Layout::Vector ? c.kernel_vector : c.kernel_bitsliced;
      std::printf("kernel,%s,%d,%llu,%llu,%llu,%llu,%.6f,%.6f\n", to_string(s.layout), s.k,
                  (unsigned long long)s.m_bits, (unsigned long long)s.n_sub, (unsigned long long)s.query_bases,
                  (unsigned long long)s.db_bases, s.measured_s, k.fitted ? predict_kernel_sample(s, k, d) : 0.0);
    }
    if (c.kernel_vector.fitted)
      std::printf("# kernel vector: hash_ns=%.3g probe_ns=%.3g mispredict_ns=%.3g hit_ns=%.3g a0=%.3g s (R^2 = %.4f, %d points)\n",
                  c.kernel_vector.hash_ns, c.kernel_vector.probe_ns, c.kernel_vector.mispredict_ns,
                  c.kernel_vector.hit_ns, c.kernel_vector.a0, c.kernel_vector.r2, c.kernel_vector.points);
    if (c.kernel_bitsliced.fitted)
      std::printf("# kernel bitsliced: hash_ns=%.3g hash_generic_ns=%.3g row_fixed_ns=%.3g narrow_fixed_ns=%.3g "
                  "narrow_row_ns=%.3g row_byte_ns=%.3g row_miss_ns=%.3g row_miss_single_ns=%.3g "
                  "mispredict_ns=%.3g hit_ns=%.3g a0=%.3g s llc=%.2fMiB "
                  "(R^2 = %.4f, %d points)\n",
                  c.kernel_bitsliced.hash_ns, c.kernel_bitsliced.hash_generic_ns, c.kernel_bitsliced.row_fixed_ns,
                  c.kernel_bitsliced.narrow_fixed_ns, c.kernel_bitsliced.narrow_row_ns,
                  c.kernel_bitsliced.row_byte_ns, c.kernel_bitsliced.row_miss_ns,
                  c.kernel_bitsliced.row_miss_single_ns, c.kernel_bitsliced.mispredict_ns, c.kernel_bitsliced.hit_ns,
                  c.kernel_bitsliced.a0,
                  double(c.kernel_bitsliced.llc_bytes) / double(1 << 20),
                  c.kernel_bitsliced.r2, c.kernel_bitsliced.points);
  }
  const std::string& csv = a.csv;
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
}

int calibrate_command(const std::string& program, int argc, char** argv) {
  return run_calibrate(program, parse_calibrate_options(program, argc, argv));
}

}  // namespace bloomseq
