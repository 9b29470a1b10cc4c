#include "bloomseq/model/equations.hpp"

#include <algorithm>
#include <cmath>

namespace bloomseq::model {

double bloom_fill(double m_bits, int k, double n_e) {
  if (m_bits <= 0) return 1.0;
  if (n_e <= 0 || k <= 0) return 0.0;
  if (m_bits <= 1) return 1.0;
  // (1 - 1/m)^(k n) = exp(k n log1p(-1/m)); 1 - that = -expm1(...)
  return -std::expm1(double(k) * n_e * std::log1p(-1.0 / m_bits));
}

double bloom_fpr(double m_bits, int k, double n_e) {
  if (k <= 0) return 1.0;
  return std::pow(bloom_fill(m_bits, k, n_e), k);
}

double bloom_fpr_finite_universe(double m_bits, int k, double n_e, int key_bits) {
  if (k <= 0) return 1.0;
  const double rho = bloom_fill(m_bits, k, n_e);
  if (key_bits <= 0 || key_bits >= 64 || n_e <= 0) return std::pow(rho, k);
  const double U = std::ldexp(1.0, key_bits);
  if (U <= n_e) return 0.0;  // every key is a member: nothing is left to be a false positive
  const double pass = std::clamp(rho - (1.0 - rho) * n_e / (U - n_e), 0.0, 1.0);
  return std::pow(pass, k);
}

SubqueryShape subquery_shape(uint64_t query_bases, uint64_t n_sub, int w) {
  SubqueryShape s;
  s.count = subquery_count(query_bases, n_sub, w);
  if (s.count == 0) return s;
  s.keys = keys_per_subquery(n_sub, w);
  const uint64_t total = query_bases - uint64_t(w) + 1;
  s.last_keys = total - (s.count - 1) * s.keys;
  if (s.count == 1) s.keys = s.last_keys;
  return s;
}

uint64_t keys_per_subquery(uint64_t n_sub, int w) { return n_sub >= uint64_t(w) && w > 0 ? n_sub - w + 1 : 0; }

uint64_t subquery_count(uint64_t query_bases, uint64_t n_sub, int w) {
  if (w <= 0 || query_bases < uint64_t(w)) return 0;
  uint64_t step = keys_per_subquery(n_sub, w);
  if (step == 0) return 0;
  uint64_t keys = query_bases - w + 1;
  return (keys + step - 1) / step;
}

uint64_t wmer_count(uint64_t bases, int w) { return w > 0 && bases >= uint64_t(w) ? bases - w + 1 : 0; }

const char* to_string(OccupancyLimit l) {
  switch (l) {
    case OccupancyLimit::SharedMemory: return "shared-memory";
    case OccupancyLimit::Registers: return "registers";
    case OccupancyLimit::Blocks: return "blocks";
    case OccupancyLimit::Threads: return "threads";
    default: return "invalid";
  }
}

ActiveBlocks active_blocks(const DeviceProfile& g, uint64_t shared_per_block, int regs, int threads) {
  ActiveBlocks r;
  if (g.mp <= 0 || threads <= 0 || threads > g.max_threads_per_block) return r;
  uint64_t sb = shared_per_block + g.reserved_shared_per_block;
  if (g.shared_per_block_max && shared_per_block > g.shared_per_block_max) return r;
  const long long big = 1LL << 40;
  long long by_smem = sb ? (long long)(g.shared_per_mp / sb) : big;
  long long by_regs = regs > 0 ? (long long)(g.registers_per_mp / (uint64_t(regs) * uint64_t(threads))) : big;
  long long by_blocks = g.max_blocks_total / g.mp;
  long long by_threads = g.max_threads_per_mp / threads;
  long long v[4] = {by_smem, by_regs, by_blocks, by_threads};
  OccupancyLimit names[4] = {OccupancyLimit::SharedMemory, OccupancyLimit::Registers, OccupancyLimit::Blocks,
                             OccupancyLimit::Threads};
  int best = 0;
  for (int i = 1; i < 4; ++i)
    if (v[i] < v[best]) best = i;
  if (v[best] <= 0) return r;
  r.blocks = int(v[best]);
  r.limit = names[best];
  return r;
}

int block_period(int ba, int mp) { return ba * mp; }

bool in_b_opt(int br, int ba, int mp) { return br > 0 && ba > 0 && mp > 0 && br % (ba * mp) == 0; }

bool in_t_opt(int tr, int w) { return tr > 0 && w > 0 && tr % w == 0; }

bool indicator_ab(const DeviceProfile& g, int br, int ba) { return in_b_opt(br, ba, g.mp) && br <= g.max_blocks_total; }

bool indicator_at(const DeviceProfile& g, int tr, int br, int ba, int regs) {
  if (!in_t_opt(tr, g.warp_size) || ba <= 0 || br <= 0) return false;
  if (tr < g.min_warps * g.warp_size) return false;
  if (double(tr) > std::min<double>(g.max_threads_per_block, double(g.max_threads_per_mp) / ba)) return false;
  // Enough threads that the register file is used: T_r >= (R / R_T) / (B_r / MP + 1).
  if (regs > 0 && double(tr) < (double(g.registers_per_mp) / regs) / (double(br) / g.mp + 1.0)) return false;
  return true;
}

bool indicator_ac(double ws, double cap) { return ws < cap; }

double hit_rate(double c, double m) {
  if (m <= 0) return 1.0;
  return std::min(1.0, std::max(0.0, c) / m);
}

double f_cache(double ws, double c, double G) {
  if (indicator_ac(ws, c)) return 1.0;
  double rh = hit_rate(c, ws);
  return rh + (1.0 - rh) * G;
}

double f_sched(int br, int ba, int mp) {
  if (br <= 0 || ba <= 0 || mp <= 0) return 0.0;
  long long wave = (long long)ba * mp;
  long long waves = (br + wave - 1) / wave;
  return double(waves * wave) / double(br);
}

double f_sched_split(uint64_t items, int units, int cores) {
  if (items == 0 || units <= 0 || cores <= 0) return 0.0;
  std::vector<uint64_t> load(size_t(cores), 0);
  for (int u = 0; u < units; ++u)
    load[size_t(u % cores)] += items * uint64_t(u + 1) / uint64_t(units) - items * uint64_t(u) / uint64_t(units);
  uint64_t mx = *std::max_element(load.begin(), load.end());
  return double(cores) * double(mx) / double(items);
}

double f_app_blast(int k, double q, double n_sub, double d) { return n_sub > 0 ? double(k) * (q / n_sub) * d : 0.0; }

double f_app_facs(int k, double reads, int ba, int mp) { return ba > 0 && mp > 0 ? double(k) * reads / (double(ba) * mp) : 0.0; }

double model_time(double a1, double a0, double fapp, double fcache, double fsched) {
  return a1 * fapp * fcache * fsched + a0;
}

double throughput(double d, double t) { return t > 0 ? d / t : 0.0; }

double latency_bound_work(double work, double refs, double latency, double tpc) {
  if (tpc <= 0) return work;
  return std::max(work, refs * latency / tpc);
}

double expected_probes(double rho, int k) {
  if (k <= 0) return 0.0;
  rho = std::clamp(rho, 0.0, 1.0);
  if (rho >= 1.0) return double(k);
  return (1.0 - std::pow(rho, k)) / (1.0 - rho);
}

double expected_mispredicts(double rho, int k) {
  rho = std::clamp(rho, 0.0, 1.0);
  return std::min(rho, 1.0 - rho) * expected_probes(rho, k);
}

double bitsliced_block_alive(double rho, double columns, double last_rho, double last_columns, int rows) {
  rho = std::clamp(rho, 0.0, 1.0);
  last_rho = std::clamp(last_rho, 0.0, 1.0);
  return 1.0 - std::pow(1.0 - std::pow(rho, rows), columns) * std::pow(1.0 - std::pow(last_rho, rows), last_columns);
}

double bitsliced_rows_per_block(double rho, double columns, double last_rho, double last_columns, int k,
                                bool all_rows_after_two) {
  if (k <= 0) return 0.0;
  if (k == 1) return 1.0;
  auto alive = [&](int j) { return bitsliced_block_alive(rho, columns, last_rho, last_columns, j); };
  if (all_rows_after_two) return 2.0 + double(k - 2) * alive(2);
  double rows = 2.0;
  for (int j = 2; j < k; ++j) rows += alive(j);
  return rows;
}

double bitsliced_block_mispredicts(double rho, double columns, double last_rho, double last_columns, int k,
                                   bool all_rows_after_two) {
  // The test after row j is reached with probability alive(j - 1) (the first, after two rows, always) and passes
  // with probability alive(j): the more likely outcome is mispredicted min(alive(j), reached - alive(j)).
  double n = 0, reached = 1.0;
  for (int j = 2; j < k; ++j) {
    const double a = bitsliced_block_alive(rho, columns, last_rho, last_columns, j);
    n += std::min(a, reached - a);
    if (all_rows_after_two) break;
    reached = a;
  }
  return n;
}

double expected_probes_warp(double rho, int k, int wsz) {
  rho = std::clamp(rho, 0.0, 1.0);
  double s = 0, p = 1;  // p = rho^i
  for (int i = 0; i < k; ++i) {
    s += 1.0 - std::pow(1.0 - p, wsz);
    p *= rho;
  }
  return s;
}

std::vector<double> level_fractions(double ws, const std::vector<CacheLevel>& lv) {
  std::vector<double> f(lv.size(), 0.0);
  double prev = 0;
  for (size_t i = 0; i < lv.size(); ++i) {
    bool last = i + 1 == lv.size() || lv[i].level == 0;
    double h = last ? 1.0 : hit_rate(double(lv[i].size_bytes), ws);
    h = std::max(h, prev);  // capacities ascend; a smaller later level never lowers the cumulative hit rate
    f[i] = h - prev;
    prev = h;
    if (last) break;
  }
  return f;
}

double f_cache_levels(double ws, const std::vector<CacheLevel>& lv, bool use_random) {
  if (lv.empty()) return 1.0;
  auto cost = [&](const CacheLevel& c) { return use_random && c.random_ns > 0 ? c.random_ns : c.latency_ns; };
  double c1 = cost(lv[0]);
  if (c1 <= 0) return 1.0;
  std::vector<double> f = level_fractions(ws, lv);
  double s = 0;
  for (size_t i = 0; i < lv.size(); ++i) s += f[i] * cost(lv[i]);
  return s / c1;
}

}  // namespace bloomseq::model
