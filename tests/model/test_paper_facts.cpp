// The papers' observations reproduced from the built-in profiles and the model's equations
// (Ma et al. 2011 §III-B, Figs. 9-14; Ma & Chamberlain 2012 §III-IV; Ma 2014 Fig. 5.12).
#include <catch2/catch.hpp>

#include "bloomseq/model/equations.hpp"
#include "bloomseq/model/launch_config.hpp"
#include "bloomseq/model/profiles.hpp"

using namespace bloomseq::model;

namespace {
int ba_for(const DeviceProfile& g, uint64_t m_bits, int threads) {
  KernelResources kr = paper_blast_kernel();
  return active_blocks(g, vector_shared_bytes(m_bits) + kr.static_shared_bytes, kr.registers_per_thread, threads).blocks;
}
// Peaks of throughput (= minima of f_sched = 1) for B_r in 1..max.
std::vector<int> peaks(int ba, int mp, int max) {
  std::vector<int> v;
  for (int b = 1; b <= max; ++b)
    if (f_sched(b, ba, mp) == 1.0) v.push_back(b);
  return v;
}
}  // namespace

TEST_CASE("GTX 480, m = 256 Kbit: B_a = 1 (shared memory) and peaks every 15 blocks", "[paper]") {
  DeviceProfile g = gtx480();
  for (int t : {128, 256, 512, 1024}) {
    KernelResources kr = paper_blast_kernel();
    ActiveBlocks ab = active_blocks(g, vector_shared_bytes(256 * 1024) + kr.static_shared_bytes, kr.registers_per_thread, t);
    CHECK(ab.blocks == 1);
    if (t < 1024) CHECK(ab.limit == OccupancyLimit::SharedMemory);
  }
  CHECK(peaks(1, g.mp, 90) == std::vector<int>{15, 30, 45, 60, 75, 90});
  CHECK(block_period(1, g.mp) == 15);
}

TEST_CASE("GTX 480, m = 128 Kbit: B_a = 2 for T_r = 128..512, 1 at T_r = 1024 (registers)", "[paper]") {
  DeviceProfile g = gtx480();
  KernelResources kr = paper_blast_kernel();
  for (int t : {128, 256, 512}) CHECK(ba_for(g, 128 * 1024, t) == 2);
  ActiveBlocks ab = active_blocks(g, vector_shared_bytes(128 * 1024) + kr.static_shared_bytes, kr.registers_per_thread, 1024);
  CHECK(ab.blocks == 1);
  CHECK(ab.limit == OccupancyLimit::Registers);
  CHECK(peaks(2, g.mp, 90) == std::vector<int>{30, 60, 90});
}

TEST_CASE("GTX 480, m = 64 Kbit: B_a = 5 at T_r = 128 (peaks 75, 150), peaks every 30 at T_r = 512", "[paper]") {
  DeviceProfile g = gtx480();
  CHECK(ba_for(g, 64 * 1024, 128) == 5);
  CHECK(peaks(5, g.mp, 150) == std::vector<int>{75, 150});
  CHECK(ba_for(g, 64 * 1024, 512) == 2);
}

TEST_CASE("GTX 480, m = 32 Kbit, T_r = 128: B_a = 8 (block limit), one peak at 120", "[paper]") {
  DeviceProfile g = gtx480();
  KernelResources kr = paper_blast_kernel();
  ActiveBlocks ab = active_blocks(g, vector_shared_bytes(32 * 1024) + kr.static_shared_bytes, kr.registers_per_thread, 128);
  CHECK(ab.blocks == 8);
  // floor(B_max / MP) = 8 and, with R_T = 32, floor(R / (R_T T_r)) = 8 too: a tie; shared memory allows 11.
  CHECK((ab.limit == OccupancyLimit::Blocks || ab.limit == OccupancyLimit::Registers));
  CHECK(block_period(8, g.mp) == 120);
  CHECK(peaks(8, g.mp, 120) == std::vector<int>{120});
}

TEST_CASE("Tesla C1060: peaks every 30 blocks", "[paper]") {
  DeviceProfile c = tesla_c1060();
  CHECK(c.mp == 30);
  // m = 64 Kbit (Fig. 13) fills the 16 KB shared memory: one block per MP.
  for (int t : {128, 256, 512}) CHECK(ba_for(c, 64 * 1024, t) == 1);
  CHECK(peaks(1, c.mp, 90) == std::vector<int>{30, 60, 90});
  // 256 Kbit does not fit C1060 shared memory at all.
  CHECK(ba_for(c, 256 * 1024, 256) == 0);
}

TEST_CASE("micro-benchmark: B_r = 15..90 are the peaks for T_r in {960, 1024} (Fig. 3)", "[paper]") {
  DeviceProfile g = gtx480();
  for (int t : {960, 1024}) {
    ActiveBlocks ab = active_blocks(g, 8 * 1024, 16, t);  // m = 8 KB table, light kernel
    REQUIRE(ab.blocks == 1);                             // T_maxMP / T_r = 1
    CHECK(peaks(ab.blocks, g.mp, 90) == std::vector<int>{15, 30, 45, 60, 75, 90});
  }
}

TEST_CASE("f_sched zigzag values (eq. 12)", "[paper]") {
  // B_a = 1, MP = 15 (GTX 480 at m = 256 Kbit).
  CHECK(f_sched(1, 1, 15) == Approx(15.0));
  CHECK(f_sched(7, 1, 15) == Approx(15.0 / 7));
  CHECK(f_sched(14, 1, 15) == Approx(15.0 / 14));
  CHECK(f_sched(15, 1, 15) == 1.0);
  CHECK(f_sched(16, 1, 15) == Approx(30.0 / 16));
  CHECK(f_sched(29, 1, 15) == Approx(30.0 / 29));
  CHECK(f_sched(30, 1, 15) == 1.0);
  CHECK(f_sched(31, 1, 15) == Approx(45.0 / 31));
  // Zigzag: within each period f_sched falls monotonically, then jumps up right after a peak.
  for (int b = 1; b < 90; ++b) {
    if (b % 15 == 0) CHECK(f_sched(b + 1, 1, 15) > f_sched(b, 1, 15));
    else CHECK(f_sched(b + 1, 1, 15) < f_sched(b, 1, 15));
  }
  // The jumps shrink as B_r grows (the influence of B_r fades, dissertation Fig. 6.1).
  CHECK(f_sched(16, 1, 15) > f_sched(31, 1, 15));
  CHECK(f_sched(31, 1, 15) > f_sched(46, 1, 15));
  // B_a = 2, MP = 15: period 30.
  CHECK(f_sched(45, 2, 15) == Approx(60.0 / 45));
}

TEST_CASE("A_B, A_T for the papers' configurations (eqs. 4, 5)", "[paper]") {
  DeviceProfile g = gtx480();
  CHECK(indicator_ab(g, 15, 1));
  CHECK(indicator_ab(g, 90, 1));
  CHECK_FALSE(indicator_ab(g, 16, 1));
  CHECK_FALSE(indicator_ab(g, 135, 1));  // beyond B_max = 120
  // T_r = 1024 with B_a = 1 is in T_opt and within limits.
  CHECK(indicator_at(g, 1024, 15, 1, 32));
  CHECK_FALSE(indicator_at(g, 1000, 15, 1, 32));  // not a multiple of W
  CHECK_FALSE(indicator_at(g, 160, 15, 1, 32));   // fewer than N_W = 6 warps
  CHECK_FALSE(indicator_at(g, 1024, 30, 2, 32));  // T_maxMP / B_a = 768 < 1024
}

TEST_CASE("FACS eq. 22 and the 512 KB working set never fits the cache (eq. 23)", "[paper]") {
  DeviceProfile g = gtx480();
  CHECK(f_app_facs(10, 1e5, 8, 15) == Approx(10 * 1e5 / 120));
  for (uint64_t c : {uint64_t(16) * 1024, uint64_t(48) * 1024}) {
    double ws = 512.0 * 1024;
    CHECK_FALSE(indicator_ac(ws, double(c)));
    double rh = double(c) / ws;
    CHECK(f_cache(ws, double(c), 5.0) == Approx(rh + (1 - rh) * 5.0));
  }
}
