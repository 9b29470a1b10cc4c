#include "bloomseq/model/planner.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "bloomseq/model/equations.hpp"

namespace bloomseq::model {

namespace {

std::vector<uint64_t> default_n_sub(int w) {
  std::vector<uint64_t> v;
  for (double x = 256; x <= double(1 << 20) * 1.01; x *= std::sqrt(2.0)) {
    uint64_t n = uint64_t(std::llround(x));
    if (n > uint64_t(w)) v.push_back(n);
  }
  return v;
}

std::vector<uint64_t> default_m(const DeviceProfile& d, const KernelResources& kr) {
  std::vector<uint64_t> v;
  // On a CPU the calibration and the validation sweep cover vectors up to 256 Kbit (one L1 data cache); larger
  // vectors spill every probe to L2/DRAM, where the fitted constants under-predict by an order of magnitude.
  const uint64_t max_m = d.kind == DeviceKind::Gpu ? (uint64_t(1) << 22) : (uint64_t(1) << 18);
  for (uint64_t m = 8192; m <= max_m; m *= 2) {
    if (d.kind == DeviceKind::Gpu &&
        vector_shared_bytes(m) + kr.static_shared_bytes + d.reserved_shared_per_block > d.shared_per_mp)
      break;
    v.push_back(m);
  }
  return v;
}

// Does `a` (meeting the target or not) rank before `b`? Configurations that meet the target come first; among them
// the objective decides; among the others the one closest to the target.
bool ranks_before(Objective obj, bool am, const Prediction& a, bool bm, const Prediction& b) {
  if (am != bm) return am;
  if (obj == Objective::MinTime) {
    if (am) return a.total_s < b.total_s;
    return a.fpr < b.fpr || (a.fpr == b.fpr && a.total_s < b.total_s);
  }
  if (am) return a.fpr < b.fpr || (a.fpr == b.fpr && a.total_s < b.total_s);
  return a.wmers_per_s > b.wmers_per_s;
}

}  // namespace

Plan plan_stage1a(const PlanRequest& req, const DeviceProfile& dev, const Calibration& cal) {
  Plan best;
  best.objective = req.objective;
  best.device = dev.name;
  best.calibration_source = cal.source;
  const bool gpu = dev.kind == DeviceKind::Gpu;
  std::vector<uint64_t> ns = req.n_sub ? std::vector<uint64_t>{req.n_sub}
                             : !req.n_sub_candidates.empty() ? req.n_sub_candidates : default_n_sub(req.w);
  // A sub-query longer than the query is the query itself.
  for (auto& n : ns) n = std::min<uint64_t>(n, std::max<uint64_t>(req.query_bases, uint64_t(req.w)));
  std::sort(ns.begin(), ns.end());
  ns.erase(std::unique(ns.begin(), ns.end()), ns.end());
  std::vector<int> ks = req.k ? std::vector<int>{req.k} : !req.k_candidates.empty() ? req.k_candidates
                                                                                     : std::vector<int>{};
  if (ks.empty())
    for (int k = 1; k <= 12; ++k) ks.push_back(k);
  std::vector<uint64_t> ms = req.m_bits ? std::vector<uint64_t>{req.m_bits}
                             : !req.m_candidates.empty() ? req.m_candidates : default_m(dev, req.kernel);
  std::vector<Layout> layouts = req.layouts;
  if (layouts.empty()) layouts = gpu ? std::vector<Layout>{Layout::PaperVector}
                                     : std::vector<Layout>{Layout::Vector, Layout::BitSliced};

  const int P = gpu ? dev.mp : std::max(1, req.threads > 0 ? std::min(req.threads, dev.parallel_units())
                                                              : dev.parallel_units());
  bool have = false;
  for (Layout lay : layouts)
    for (uint64_t m : ms)
      for (uint64_t n : ns)
        for (int k : ks) {
          Stage1aConfig c;
          c.query_bases = req.query_bases;
          c.db_bases = req.db_bases;
          c.w = req.w;
          c.n_sub = n;
          c.k = k;
          c.m_bits = m;
          c.layout = lay;
          c.threads = gpu ? 0 : P;
          uint64_t V = subquery_count(req.query_bases, n, req.w);
          if (gpu) {
            c.launch = blast_launch_config(dev, m, V, req.kernel);
            if (!c.launch.valid) continue;
            c.batch_bases = std::min<uint64_t>(req.db_bases, uint64_t(64) << 20);  // 64 Mbases (16 MB) per chunk
            c.streams = dev.copy_engines >= 2 ? 3 : 2;
          } else {
            // Work units: a multiple of P (f_sched = 1); vector layout tiles sub-queries, bit-sliced tiles the db.
            c.work_units = P * std::max<int>(1, int(std::min<uint64_t>(V ? V / P : 1, 4)));
            c.batch_bases = std::min<uint64_t>(req.db_bases, uint64_t(4) << 20);
          }
          Prediction pr = predict_stage1a(c, dev, cal);
          if (!pr.valid) continue;
          ++best.evaluated;
          bool meets = req.objective == Objective::MinTime ? pr.fpr <= req.target_fpr
                                                           : pr.wmers_per_s >= req.target_throughput;
          if (!have || ranks_before(req.objective, meets, pr, best.target_met, best.prediction)) {
            best.config = c;
            best.prediction = pr;
            best.target_met = meets;
            have = true;
          }
        }
  best.feasible = have;
  if (!have) best.note = "no configuration fits the device";
  else if (!best.target_met) best.note = "target not reachable; closest configuration shown";
  return best;
}

std::string describe(const Plan& p) {
  std::ostringstream o;
  const auto& c = p.config;
  const auto& r = p.prediction;
  o << "# plan (" << (p.objective == Objective::MinTime ? "min time under FPR target" : "min FPR under throughput target")
    << ") on " << p.device << ": " << (p.feasible ? (p.target_met ? "target met" : "TARGET NOT MET") : "infeasible")
    << "\n";
  if (!p.feasible) return o.str();
  o << "#   n_sub=" << c.n_sub << " k=" << c.k << " m=" << c.m_bits << " bits layout=" << to_string(c.layout);
  if (c.launch.valid)
    o << " B_r=" << c.launch.blocks << " T_r=" << c.launch.threads << " S_B=" << c.launch.shared_bytes
      << " B_a=" << c.launch.active_blocks << " (" << to_string(c.launch.limit) << ") streams=" << c.streams;
  else
    o << " threads=" << c.threads << " work_units=" << c.work_units;
  o << " batch=" << c.batch_bases << " bases\n";
  o << "#   predicted: FPR=" << r.fpr << " sub-queries=" << r.subqueries << " stage1a=" << r.stage1a_s
    << " s stage1b=" << r.stage1b_s << " s total=" << r.total_s << " s throughput=" << r.wmers_per_s
    << " w-mers/s (" << r.tests_per_s << " tests/s)\n";
  o << "#   evaluated " << p.evaluated << " configurations; calibration: " << p.calibration_source << "\n";
  if (!p.note.empty()) o << "#   note: " << p.note << "\n";
  return o.str();
}

std::string plan_json(const Plan& p) {
  std::ostringstream o;
  const auto& c = p.config;
  const auto& r = p.prediction;
  o.precision(6);
  o << "{\"device\":\"" << p.device << "\",\"objective\":\""
    << (p.objective == Objective::MinTime ? "min-time" : "min-fpr") << "\",\"feasible\":" << (p.feasible ? "true" : "false")
    << ",\"target_met\":" << (p.target_met ? "true" : "false") << ",\"n_sub\":" << c.n_sub << ",\"k\":" << c.k
    << ",\"m_bits\":" << c.m_bits << ",\"layout\":\"" << to_string(c.layout) << "\",\"threads\":" << c.threads
    << ",\"work_units\":" << c.work_units << ",\"blocks\":" << c.launch.blocks << ",\"threads_per_block\":"
    << c.launch.threads << ",\"shared_bytes\":" << c.launch.shared_bytes << ",\"batch_bases\":" << c.batch_bases
    << ",\"streams\":" << c.streams << ",\"predicted_fpr\":" << r.fpr << ",\"predicted_stage1a_s\":" << r.stage1a_s
    << ",\"predicted_stage1b_s\":" << r.stage1b_s << ",\"predicted_total_s\":" << r.total_s
    << ",\"predicted_wmers_per_s\":" << r.wmers_per_s << ",\"predicted_tests_per_s\":" << r.tests_per_s << "}";
  return o.str();
}

FacsPlan plan_facs(uint64_t n_keys, double target_fpr, uint64_t reads, uint64_t read_len, int w,
                   const DeviceProfile& dev, const Calibration& cal, int threads) {
  FacsPlan fp;
  if (n_keys == 0 || !(target_fpr > 0 && target_fpr < 1)) return fp;
  const double ln2 = std::log(2.0);
  fp.m_bits = std::max<uint64_t>(64, uint64_t(std::ceil(-double(n_keys) * std::log(target_fpr) / (ln2 * ln2))));
  fp.k = std::clamp(int(std::lround(double(fp.m_bits) / double(n_keys) * ln2)), 1, 32);
  // Rounding k to an integer leaves the FPR slightly above the target; grow m (same k) to the smallest size that
  // meets it: (1 - e^(-kn/m))^k = p  =>  m = -k n / ln(1 - p^(1/k)).
  if (bloom_fpr(double(fp.m_bits), fp.k, double(n_keys)) > target_fpr)
    fp.m_bits = std::max<uint64_t>(
        fp.m_bits, uint64_t(std::ceil(-double(fp.k) * double(n_keys) / std::log1p(-std::pow(target_fpr, 1.0 / fp.k)))));
  // (eq. 2 uses (1 - 1/m)^(kn), a hair above e^(-kn/m): step up the last few bits)
  while (bloom_fpr(double(fp.m_bits), fp.k, double(n_keys)) > target_fpr) fp.m_bits += 1 + fp.m_bits / 1000000;
  fp.config.reads = reads;
  fp.config.read_len = read_len;
  fp.config.w = w;
  fp.config.k = fp.k;
  fp.config.m_bits = fp.m_bits;
  fp.config.threads = threads;
  if (dev.kind == DeviceKind::Gpu) fp.config.launch = facs_launch_config(dev, reads, fp.m_bits);
  fp.prediction = predict_facs(fp.config, n_keys, dev, cal);
  fp.feasible = fp.prediction.valid;
  return fp;
}

}  // namespace bloomseq::model
