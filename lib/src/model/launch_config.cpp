#include "bloomseq/model/launch_config.hpp"

#include <algorithm>

namespace bloomseq::model {

KernelResources paper_blast_kernel() { return KernelResources{32, 256}; }

uint64_t vector_shared_bytes(uint64_t m_bits, int vectors) { return uint64_t(std::max(vectors, 0)) * ((m_bits + 31) / 32) * 4; }

LaunchConfig evaluate_launch(const DeviceProfile& g, int blocks, int threads, uint64_t sb, const KernelResources& kr,
                             double ws, bool in_shared) {
  LaunchConfig c;
  c.blocks = blocks;
  c.threads = threads;
  c.shared_bytes = sb;
  ActiveBlocks ab = active_blocks(g, sb + kr.static_shared_bytes, kr.registers_per_thread, threads);
  c.active_blocks = ab.blocks;
  c.limit = ab.limit;
  if (ab.blocks <= 0) {
    c.reason = "a block does not fit on a multiprocessor (shared memory, registers or threads)";
    return c;
  }
  c.f_sched = f_sched(blocks, ab.blocks, g.mp);
  int resident = std::min(blocks, ab.blocks * g.mp);
  double warps_per_mp = double(resident) / g.mp * ((threads + g.warp_size - 1) / g.warp_size);
  double max_warps = double(g.max_threads_per_mp) / g.warp_size;
  c.occupancy = max_warps > 0 ? std::min(1.0, warps_per_mp / max_warps) : 0;
  c.a_b = indicator_ab(g, blocks, ab.blocks);
  c.a_t = indicator_at(g, threads, blocks, ab.blocks, kr.registers_per_thread);
  c.a_c = indicator_ac(ws, in_shared ? double(g.shared_per_mp) : double(g.cache_bytes));
  c.valid = blocks > 0;
  return c;
}

namespace {
// T_r in T_opt maximising resident warps B_a x T_r (ties: the larger T_r, fewer blocks to schedule).
int pick_threads(const DeviceProfile& g, uint64_t sb, const KernelResources& kr) {
  int best_t = 0;
  long best_w = -1;
  int tmin = std::max(g.warp_size, g.min_warps * g.warp_size);
  for (int t = tmin; t <= g.max_threads_per_block; t += g.warp_size) {
    ActiveBlocks ab = active_blocks(g, sb + kr.static_shared_bytes, kr.registers_per_thread, t);
    if (ab.blocks <= 0) continue;
    long w = long(ab.blocks) * t;
    if (w >= best_w) {
      best_w = w;
      best_t = t;
    }
  }
  return best_t;
}
}  // namespace

LaunchConfig blast_launch_config(const DeviceProfile& g, uint64_t m_bits, uint64_t subqueries,
                                 const KernelResources& kr, int threads, int vpb) {
  LaunchConfig bad;
  if (g.kind != DeviceKind::Gpu || g.mp <= 0) {
    bad.reason = "not a GPU profile";
    return bad;
  }
  if (vpb <= 0) vpb = 1;
  uint64_t sb = vector_shared_bytes(m_bits, vpb);
  if (sb + kr.static_shared_bytes > g.shared_per_block_max ||
      sb + kr.static_shared_bytes + g.reserved_shared_per_block > g.shared_per_mp) {
    bad.reason = "Bloom vector(s) of " + std::to_string(sb) + " bytes do not fit in shared memory";
    return bad;
  }
  if (threads <= 0) threads = pick_threads(g, sb, kr);
  if (threads <= 0) {
    bad.reason = "no thread count fits";
    return bad;
  }
  ActiveBlocks ab = active_blocks(g, sb + kr.static_shared_bytes, kr.registers_per_thread, threads);
  if (ab.blocks <= 0) {
    bad.reason = "block does not fit";
    return bad;
  }
  int wave = ab.blocks * g.mp;
  uint64_t groups = (subqueries + vpb - 1) / uint64_t(vpb);  // blocks' worth of vector groups
  if (groups == 0) groups = 1;
  // One full wave when there is at least a wave of work (blocks then loop over vector groups in passes); otherwise
  // the smallest multiple of MP... that covers the groups is not in B_opt, so use all groups (single partial wave).
  int blocks = groups >= uint64_t(wave) ? wave : int(groups);
  LaunchConfig c = evaluate_launch(g, blocks, threads, sb, kr, double(sb), true);
  c.vectors_per_block = vpb;
  c.passes = int((groups + blocks - 1) / blocks);
  if (groups < uint64_t(wave)) c.reason = "fewer vector groups than one wave of resident blocks";
  return c;
}

LaunchConfig facs_launch_config(const DeviceProfile& g, uint64_t reads, uint64_t filter_bits, const KernelResources& kr,
                                int threads) {
  LaunchConfig bad;
  if (g.kind != DeviceKind::Gpu || g.mp <= 0) {
    bad.reason = "not a GPU profile";
    return bad;
  }
  if (threads <= 0) threads = pick_threads(g, 0, kr);
  ActiveBlocks ab = active_blocks(g, kr.static_shared_bytes, kr.registers_per_thread, threads);
  if (ab.blocks <= 0) {
    bad.reason = "block does not fit";
    return bad;
  }
  int wave = ab.blocks * g.mp;
  if (reads == 0) reads = 1;
  // Blocks loop over reads (grid-stride), so B_r = one wave, or all reads if fewer.
  int blocks = reads >= uint64_t(wave) ? wave : int(reads);
  LaunchConfig c = evaluate_launch(g, blocks, threads, 0, kr, double(filter_bits) / 8.0, false);
  c.passes = int((reads + blocks - 1) / blocks);
  return c;
}

DeviceProfile profile_from_device_properties(const GpuProperties& gp) {
  DeviceProfile p;
  p.name = gp.name.empty() ? "cuda-device" : gp.name;
  p.kind = DeviceKind::Gpu;
  p.source = "CUDA device properties";
  p.mp = gp.multiprocessors;
  p.shared_per_mp = gp.shared_per_multiprocessor;
  p.shared_per_block_max = std::max(gp.shared_per_block_optin, gp.shared_per_block);
  p.shared_per_block_default = gp.shared_per_block ? gp.shared_per_block : p.shared_per_block_max;
  p.reserved_shared_per_block = gp.reserved_shared_per_block;
  p.registers_per_mp = uint64_t(gp.registers_per_multiprocessor);
  p.warp_size = gp.warp_size;
  p.min_warps = 4;
  p.max_blocks_total = gp.max_blocks_per_multiprocessor * gp.multiprocessors;
  p.max_threads_per_block = gp.max_threads_per_block;
  p.max_threads_per_mp = gp.max_threads_per_multiprocessor;
  p.l2_bytes = gp.l2_bytes;
  p.cache_bytes = 0;  // L1 left over depends on the carve-out; the model treats L2 as the global-memory cache
  p.clock_ghz = gp.clock_ghz;
  p.mem_bandwidth_gbs = gp.mem_bandwidth_gbs;
  p.copy_engines = std::max(1, gp.async_engines);
  p.global_mem_bytes = gp.global_mem;
  p.cc_major = gp.cc_major;
  p.cc_minor = gp.cc_minor;
  return p;
}

}  // namespace bloomseq::model
