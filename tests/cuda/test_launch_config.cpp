// Launch configuration arithmetic (no GPU needed).
#include <catch2/catch.hpp>

#include "bloomseq/model/profiles.hpp"
#include "bloomseq/cuda/launch_config.hpp"
#include "bloomseq/error.hpp"

using namespace bloomseq;
using namespace bloomseq::cuda;

TEST_CASE("launch config: resident blocks follow the tightest limit", "[cuda][launch]") {
  const model::DeviceProfile g = model::h100();
  KernelAttributes a;
  a.regs_per_thread = 32;
  CHECK(blocks_per_sm(g, a, 256, 0) == 8);          // threads: 2048 / 256
  CHECK(blocks_per_sm(g, a, 64, 0) == 32);          // block limit
  a.regs_per_thread = 128;
  CHECK(blocks_per_sm(g, a, 256, 0) == 2);          // registers: 65536 / (128 * 256)
  a.regs_per_thread = 32;
  CHECK(blocks_per_sm(g, a, 256, 33 * 1024) == 6);  // shared: 228 KiB / (33 + 1 KiB)
  CHECK(blocks_per_sm(g, a, 256, 228 * 1024) == 0); // over the per-block maximum
  CHECK(blocks_per_sm(g, a, 2048, 0) == 0);         // over max threads per block
}

TEST_CASE("launch config: the paper's stage-1a setting on a GTX 480", "[cuda][launch]") {
  // m = 256 Kbit = 32 KiB per vector, k = 6, w = 11 (6 nibbles): one block per SM, 15 resident blocks.
  Stage1aShape s{5000, 8192, 6, 6, 1u << 22};
  const Stage1aPlan p = plan_stage1a_launch(model::gtx480(), KernelAttributes{}, s, 256);
  CHECK(p.vectors_in_shared);
  CHECK(p.vectors_per_group == 1);
  CHECK(p.launch.shared_bytes == 4 * (6 * 16 * 6 + 8192));
  CHECK(p.launch.blocks_per_sm == 1);
  CHECK(p.launch.blocks == 15);
  CHECK(p.slices == 1);
  CHECK(p.launch.passes == (5000 + 14) / 15);
}

TEST_CASE("launch config: few vectors are spread over chunk slices", "[cuda][launch]") {
  Stage1aShape s{3, 64, 4, 6, 1u << 20};
  const Stage1aPlan p = plan_stage1a_launch(model::h100(), KernelAttributes{}, s, 128);
  const uint64_t resident = uint64_t(p.launch.blocks_per_sm) * 132;
  CHECK(uint64_t(p.slices) * 3 >= 2 * resident);
  CHECK(p.launch.blocks == resident);
  // A tiny chunk is not cut below 4 tiles per slice.
  s.n_starts = 1000;
  CHECK(plan_stage1a_launch(model::h100(), KernelAttributes{}, s, 128).slices == 1);
}

TEST_CASE("launch config: several vectors per block only when they fit; otherwise global memory", "[cuda][launch]") {
  Stage1aShape s{100, 8192, 6, 6, 1u << 20};
  CHECK(plan_stage1a_launch(model::h100(), KernelAttributes{}, s, 256, 4).vectors_per_group == 4);
  CHECK(plan_stage1a_launch(model::h100(), KernelAttributes{}, s, 256, 50).vectors_per_group == 7);  // (227 KiB - tables) / 32 KiB
  CHECK(plan_stage1a_launch(model::gtx480(), KernelAttributes{}, s, 256, 4).vectors_per_group == 1);
  s.words_per_vector = 1u << 20;  // 4 MiB vectors
  const Stage1aPlan p = plan_stage1a_launch(model::h100(), KernelAttributes{}, s, 256);
  CHECK_FALSE(p.vectors_in_shared);
  CHECK(p.launch.shared_bytes == 4 * 6 * 16 * 6);
  CHECK_THROWS_AS(plan_stage1a_launch(model::h100(), KernelAttributes{}, s, 100), bloomseq::UsageError);
}

TEST_CASE("launch config: a short query's big exact filter is probed in global memory, not copied per slice",
          "[cuda][launch]") {
  // One exact filter of 10-mers (4^10 bits = 32 Ki words, it fits shared memory) against a 64-kbase chunk tested at
  // stride 2: 32 Ki tests spread over >= 264 slices would copy 32 Ki words per ~124 tests.
  Stage1aShape s{1, 32768, 1, 5, 32768};
  const Stage1aPlan p = plan_stage1a_launch(model::h100(), KernelAttributes{}, s, 256);
  CHECK_FALSE(p.vectors_in_shared);
  CHECK(p.launch.shared_bytes == 4 * 5 * 16 * 1);
  CHECK(p.slices > 1);
  // The same filter against a chunk large enough to pay for the copy in every slice is staged.
  s.n_starts = uint64_t(1) << 26;
  CHECK(plan_stage1a_launch(model::h100(), KernelAttributes{}, s, 256).vectors_in_shared);
  // The paper's shape (thousands of vectors, one slice each) is staged as before.
  CHECK(plan_stage1a_launch(model::h100(), KernelAttributes{}, Stage1aShape{5000, 8192, 6, 6, 65536}, 256)
            .vectors_in_shared);
}

TEST_CASE("launch config: classify uses one block per read up to the resident blocks", "[cuda][launch]") {
  const LaunchConfig c = plan_classify_launch(model::h100(), KernelAttributes{}, 1000000, 7, 10, 11, 128);
  CHECK(c.blocks == 132 * 16);
  CHECK(c.shared_bytes == 4 * (11 * 16 * 10 + 7));
  CHECK(plan_classify_launch(model::h100(), KernelAttributes{}, 5, 7, 10, 11, 128).blocks == 5);
  CHECK(plan_classify_launch(model::h100(), KernelAttributes{}, 0, 7, 10, 11, 128).blocks == 1);
  CHECK(hash_registers_for(6) == 8);
  CHECK(hash_registers_for(10) == 16);
  CHECK(hash_registers_for(32) == 32);
  CHECK_THROWS_AS(hash_registers_for(0), bloomseq::UsageError);
}

TEST_CASE("launch config: classify threads cover a typical read in one tile", "[cuda][launch]") {
  CHECK(classify_threads_for(0) == 32);
  CHECK(classify_threads_for(130) == 160);  // 150 bp reads, w = 21
  CHECK(classify_threads_for(52) == 64);    // 72 bp reads
  CHECK(classify_threads_for(1e6) == 256);
}

TEST_CASE("launch config: the runtime's occupancy replaces the computed one", "[cuda][launch]") {
  Stage1aShape s{5000, 8192, 6, 6, 1u << 22};
  const Stage1aPlan p = plan_stage1a_launch(model::h100(), KernelAttributes{}, s, 256, 1, 3);
  CHECK(p.launch.blocks_per_sm == 3);
  CHECK(p.launch.blocks == 3 * 132);
  CHECK(p.launch.passes == (5000 + 395) / 396);
  CHECK(plan_classify_launch(model::h100(), KernelAttributes{}, 1000000, 7, 10, 11, 128, 5).blocks == 5 * 132);
}
