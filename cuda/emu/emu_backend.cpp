#include "bloomseq/cuda/emu_backend.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "bloomseq/cuda/emu_ctx.hpp"
#include "bloomseq/cuda/host_side.hpp"
#include "bloomseq/cuda/kernels/classify_kernel.hpp"
#include "bloomseq/cuda/kernels/stage1a_kernel.hpp"
#include "bloomseq/cuda/model_bridge.hpp"
#include "bloomseq/cuda/packed_seq.hpp"
#include "bloomseq/cuda/pipeline.hpp"
#include "bloomseq/error.hpp"

namespace bloomseq::cuda {
namespace {

// The emulator's "stream": work runs when enqueued, so synchronize has nothing to wait for.
struct HostStream {
  void synchronize() {}
};

// One slot's buffers (the pinned host + device buffers of the real backend).
struct Stage1aSlot {
  PackedSeq seq;
  uint64_t first_pos = 0;
  uint64_t n_starts = 0;
  std::vector<uint32_t> hit_pos, hit_sub;
  HitCounter hit_count = 0;
};

class EmulatedBackend final : public Backend {
 public:
  EmulatedBackend(const EmuOptions& o, EmuStats* stats) : o_(o), stats_(stats ? stats : &own_stats_) {
    if (o_.shared_limit) o_.profile.shared_per_block_optin = std::min(o_.profile.shared_per_block_optin, o_.shared_limit);
    if (o_.streams == 0) o_.streams = 1;
  }
  std::string name() const override { return "cuda-emulated"; }
  std::string description() const override { return "cuda kernels emulated on the host for " + describe(o_.profile); }
  bool model_profile(model::DeviceProfile& out) const override {
    out = to_model_profile(o_.profile);
    return true;
  }

  void stage1a(const SubqueryVectors& vectors, const DbChunk& chunk, std::vector<Stage1aHit>& hits) override {
    bool done = false;
    stage1a_stream(
        vectors,
        [&](DbChunk& c) {
          if (done) return false;
          c = chunk;
          done = true;
          return true;
        },
        [&](uint64_t, std::vector<Stage1aHit>& h) { hits.insert(hits.end(), h.begin(), h.end()); });
  }

  void stage1a_stream(const SubqueryVectors& vectors, const ChunkSource& next, const Stage1aSink& emit) override {
    if (vectors.count == 0) {
      std::vector<Stage1aHit> none;
      DbChunk c;
      for (uint64_t i = 0; next(c); ++i) emit(i, none);
      return;
    }
    int w = 0;
    std::vector<uint32_t> tables;
    std::vector<Stage1aSlot> slots(o_.streams);
    std::vector<HostStream> streams(o_.streams);
    std::vector<Stage1aHit> hits;
    for (auto& s : slots) {
      s.hit_pos.resize(o_.initial_capacity);
      s.hit_sub.resize(o_.initial_capacity);
    }
    auto run = [&](Stage1aSlot& s) {
      Stage1aShape shape{vectors.count, uint32_t(vectors.words_per_vector), vectors.k, key_nibbles_for(w), s.n_starts};
      Stage1aPlan plan = plan_stage1a(o_.profile, KernelAttributes{}, shape, o_.stage1a_threads, o_.vectors_per_group);
      if (o_.slices) plan.slices = o_.slices;
      const uint64_t items = (vectors.count + plan.vectors_per_group - 1) / plan.vectors_per_group * uint64_t(plan.slices);
      uint32_t blocks = uint32_t(std::min<uint64_t>(items, std::max<uint32_t>(plan.launch.blocks, 1)));
      if (o_.max_blocks) blocks = std::min(blocks, o_.max_blocks);
      Stage1aKernelParams p{};
      p.vector_words = vectors.words;
      p.vector_count = vectors.count;
      p.words_per_vector = uint32_t(vectors.words_per_vector);
      p.m_bits = vectors.m_bits;
      p.k = vectors.k;
      p.nibble_tables = tables.data();
      p.key_nibbles = key_nibbles_for(w);
      p.vectors_per_group = plan.vectors_per_group;
      p.slices = plan.slices;
      p.vectors_in_shared = plan.vectors_in_shared ? 1 : 0;
      p.packed = s.seq.packed.data();
      p.invalid = s.seq.invalid.data();
      p.n_starts = s.n_starts;
      p.w = w;
      for (;;) {
        s.hit_count = 0;
        p.hit_pos = s.hit_pos.data();
        p.hit_sub = s.hit_sub.data();
        p.capacity = s.hit_pos.size();
        p.hit_count = &s.hit_count;
        with_hash_registers(vectors.k, [&](auto regs) {
          emulate_launch(blocks, plan.launch.threads, plan.launch.shared_bytes,
                         [&](HostCtx& ctx) { stage1a_body<decltype(regs)::value>(ctx, p); });
        });
        ++stats_->launches;
        stats_->max_passes = std::max<uint64_t>(stats_->max_passes, (items + blocks - 1) / blocks);
        stats_->max_blocks = std::max<uint64_t>(stats_->max_blocks, blocks);
        stats_->vectors_in_shared = plan.vectors_in_shared;
        if (s.hit_count <= p.capacity) break;
        // Overflow: grow to what the kernel counted and rerun the chunk; no hit is dropped.
        ++stats_->overflow_reruns;
        s.hit_pos.resize(s.hit_count);
        s.hit_sub.resize(s.hit_count);
      }
    };
    run_in_order(
        streams,
        [&](HostStream&, size_t slot, uint64_t) {
          DbChunk c;
          if (!next(c)) return false;
          if (w == 0) {
            w = c.w;
            if (w < 1 || w > 32) throw UsageError("stage 1a: word size must be 1..32");
            tables = nibble_tables_from(vectors.hash, vectors.k, w);
          } else if (c.w != w) {
            throw UsageError("stage 1a: all chunks of a stream must have the same word size");
          }
          if (chunk_bases(c) >= (uint64_t(1) << 32)) throw UsageError("stage 1a: database chunks must be below 4 Gbases");
          Stage1aSlot& s = slots[slot];
          s.seq = pack_sequence(c.codes, chunk_bases(c));
          s.first_pos = c.first_pos;
          s.n_starts = c.n_starts;
          if (s.n_starts) run(s);
          else s.hit_count = 0;
          return true;
        },
        [&](HostStream&, size_t slot, uint64_t index) {
          Stage1aSlot& s = slots[slot];
          hits.clear();
          collect_stage1a_hits(s.hit_pos.data(), s.hit_sub.data(), s.hit_count, s.first_pos, hits);
          emit(index, hits);
        });
  }

  void classify(const FilterBank& bank, const ReadBatchView& reads, ClassifyHits& out) override {
    check_bank(bank);
    const int w = bank.family->w();
    out.reset(reads, bank.count, w);
    if (reads.count == 0 || bank.count == 0) return;
    const FlatFilters flat = flatten_filters(bank);
    const std::vector<uint32_t> tables = nibble_tables_from(bank.family->byte_view(), flat.k_max, w);
    // Reads as one packed stream; offsets relative to the batch.
    const uint64_t total = reads.offsets[reads.count] - reads.offsets[0];
    const PackedSeq seq = pack_sequence(reads.codes + reads.offsets[0], total);
    std::vector<uint64_t> offsets(reads.count + 1);
    for (uint32_t r = 0; r <= reads.count; ++r) offsets[r] = reads.offsets[r] - reads.offsets[0];

    LaunchConfig c = plan_classify(o_.profile, KernelAttributes{}, reads.count, bank.count, flat.k_max,
                                   key_nibbles_for(w), o_.classify_threads);
    if (o_.max_blocks) c.blocks = std::min(c.blocks, o_.max_blocks);
    ClassifyKernelParams p{};
    p.filter_words = flat.words.data();
    p.filters = flat.desc.data();
    p.n_filters = bank.count;
    p.k_max = flat.k_max;
    p.nibble_tables = tables.data();
    p.key_nibbles = key_nibbles_for(w);
    p.w = w;
    p.packed = seq.packed.data();
    p.invalid = seq.invalid.data();
    p.read_offset = offsets.data();
    p.n_reads = reads.count;
    p.bitmap_offset = out.bitmap_offset.data();
    p.bitmaps = out.bitmaps.data();
    p.hit_frames = out.hit_frames.data();
    with_hash_registers(flat.k_max, [&](auto regs) {
      emulate_launch(c.blocks, c.threads, c.shared_bytes,
                     [&](HostCtx& ctx) { classify_body<decltype(regs)::value>(ctx, p); });
    });
    ++stats_->launches;
    stats_->max_passes = std::max<uint64_t>(stats_->max_passes, (reads.count + c.blocks - 1) / c.blocks);
    stats_->max_blocks = std::max<uint64_t>(stats_->max_blocks, c.blocks);
  }

 private:
  EmuOptions o_;
  EmuStats own_stats_;
  EmuStats* stats_;
};

}  // namespace

std::unique_ptr<Backend> make_emulated_backend(const EmuOptions& options, EmuStats* stats) {
  return std::make_unique<EmulatedBackend>(options, stats);
}

}  // namespace bloomseq::cuda
