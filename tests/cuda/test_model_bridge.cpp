// The backend's launch planning against the performance model's (when the model is built): same occupancy
// B_a for the same block, same number of blocks and passes for the paper's one-vector-per-block decomposition.
#include <catch2/catch.hpp>

#include "bloomseq/cuda/launch_config.hpp"
#include "bloomseq/cuda/model_bridge.hpp"

using namespace bloomseq;
using namespace bloomseq::cuda;

TEST_CASE("model bridge: backend and model agree on occupancy, blocks and passes", "[cuda][model]") {
  for (const GpuProfile& g : {gtx480_profile(), h100_profile()}) {
    for (uint64_t m_bits : {uint64_t(1) << 14, uint64_t(1) << 16, uint64_t(1) << 18}) {
      for (uint32_t threads : {128u, 256u, 512u}) {
        KernelAttributes attr;
        attr.regs_per_thread = 32;
        attr.static_shared = 0;
        const uint32_t V = 5000;
        const uint32_t wpv = uint32_t((m_bits + 31) / 32);
        // The model counts the vectors only; the backend adds the nibble tables, passed here as static shared memory.
        const uint64_t tables = 4 * uint64_t(6 * 16 * 6);
        KernelAttributes with_tables = attr;
        with_tables.static_shared = tables;
        const model::LaunchConfig mc = model::blast_launch_config(to_model_profile(g), m_bits, V,
                                                                  to_model_resources(with_tables), int(threads), 1);
        if (!mc.valid) continue;
        const Stage1aPlan p = plan_stage1a(g, attr, Stage1aShape{V, wpv, 6, 6, 1000}, threads, 1);
        INFO(g.name << " m=" << m_bits << " T=" << threads);
        CHECK(int(p.launch.blocks_per_sm) == mc.active_blocks);
        CHECK(int(p.launch.blocks) == mc.blocks);
        CHECK(int(p.launch.passes) == mc.passes);
      }
    }
  }
}
