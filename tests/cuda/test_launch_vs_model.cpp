// The backend's launch planning against the performance model's, on the one device description both take: same
// occupancy B_a for the same block, same number of blocks and passes for the paper's one-vector-per-block
// decomposition.
#include <catch2/catch.hpp>

#include "bloomseq/app/tuning_profile.hpp"
#include "bloomseq/backend/backend.hpp"
#include "bloomseq/cuda/emu_backend.hpp"
#include "bloomseq/cuda/launch_config.hpp"
#include "bloomseq/model/planner.hpp"
#include "bloomseq/model/profiles.hpp"

using namespace bloomseq;
using namespace bloomseq::cuda;

TEST_CASE("launch planner and model agree on occupancy, blocks and passes", "[cuda][model]") {
  int compared = 0;
  for (const model::DeviceProfile& g : {model::gtx480(), model::h100()}) {
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
        const model::KernelResources resources{with_tables.regs_per_thread, with_tables.static_shared};
        const model::LaunchConfig mc = model::blast_launch_config(g, m_bits, V, resources, int(threads), 1);
        REQUIRE(mc.valid);  // every shape here fits both GPUs' shared memory
        ++compared;
        // A default 64-kbase chunk: enough tests per block to pay for copying its vector (the planner's rule).
        const Stage1aPlan p = plan_stage1a_launch(g, attr, Stage1aShape{V, wpv, 6, 6, 65536}, threads, 1);
        INFO(g.name << " m=" << m_bits << " T=" << threads);
        CHECK(int(p.launch.blocks_per_sm) == mc.active_blocks);
        CHECK(int(p.launch.blocks) == mc.blocks);
        CHECK(int(p.launch.passes) == mc.passes);
      }
    }
  }
  CHECK(compared == 18);
}

TEST_CASE("auto-tune plans for the GPU the work runs on, not the CPU profile", "[cuda][model]") {
  EmuOptions o;
  o.profile = model::h100();
  const std::unique_ptr<Backend> gpu = make_emulated_backend(o);
  model::LoadedProfile cpu;
  cpu.device = model::detect_cpu_profile("/nonexistent", 2);
  cpu.calibration = model::default_calibration(cpu.device);
  cpu.message = "cpu";

  // The CPU backend (or none) keeps the loaded profile.
  CHECK(profile_for_backend(cpu, nullptr).device.kind == model::DeviceKind::Cpu);
  CHECK(profile_for_backend(cpu, make_reference_backend().get()).device.kind == model::DeviceKind::Cpu);

  const model::LoadedProfile p = profile_for_backend(cpu, gpu.get());
  REQUIRE(p.device.kind == model::DeviceKind::Gpu);
  CHECK(p.device.mp == 132);
  CHECK(p.device.shared_per_block_max == o.profile.shared_per_block_max);
  CHECK_FALSE(p.calibration.calibrated);
  CHECK(p.message.find(o.profile.name) != std::string::npos);

  // A plan made with it respects the device: the vectors fit the shared memory of a block, the launch is valid.
  model::PlanRequest req;
  req.query_bases = 5000000;
  req.db_bases = 2000000;
  req.w = 11;
  req.target_fpr = 1e-3;
  const model::Plan plan = model::plan_stage1a(req, p.device, p.calibration);
  REQUIRE(plan.feasible);
  CHECK(plan.config.layout == model::Layout::PaperVector);
  CHECK(plan.config.launch.valid);
  CHECK(plan.config.m_bits / 8 <= o.profile.shared_per_block_max);
  CHECK(plan.prediction.fpr <= 1e-3);

  // A profile calibrated on this very GPU is used as loaded.
  model::LoadedProfile calibrated = p;
  calibrated.from_file = true;
  calibrated.calibration.calibrated = true;
  calibrated.calibration.a1 = 1.5e-12;
  CHECK(profile_for_backend(calibrated, gpu.get()).calibration.a1 == 1.5e-12);
}
