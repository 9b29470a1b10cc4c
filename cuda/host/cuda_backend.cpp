// The CUDA backend's host side, written once against the Device interface: uploads, pinned staging slots,
// streams, the launch plan with the runtime's occupancy, the stage-1a overflow rerun and the upload cache. The
// real device (cuda/src/runtime_device.cpp) and the fake device of the tests run this same code.
//
// Ordering rules the code keeps (the fake device checks every one):
//  - shared inputs (vectors, filters, tables) are uploaded on stream 0, and every other stream waits for an
//    event recorded after them before its first kernel of the call;
//  - a slot's pinned buffers are touched by the host only after its stream was synchronised (run_in_order);
//  - memory is freed only when no stream is working: grown buffers are retired and freed at the end of a call,
//    and the destructor synchronises every stream before any buffer goes.
#include <algorithm>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "bloomseq/cuda/cuda_backend.hpp"
#include "bloomseq/cuda/device.hpp"
#include "bloomseq/cuda/device_buffers.hpp"
#include "bloomseq/cuda/fingerprint.hpp"
#include "bloomseq/cuda/host_side.hpp"
#include "bloomseq/cuda/packed_seq.hpp"
#include "bloomseq/cuda/pipeline.hpp"
#include "bloomseq/error.hpp"

namespace bloomseq::cuda {
namespace {

// The dynamic shared memory a kernel may use is an attribute of the kernel for the whole process, so what has
// been allowed is remembered process-wide and only ever raised: two backends never undo each other's opt-in.
void allow_dynamic_shared(Device& device, KernelKind kind, int hash_registers, uint64_t bytes) {
  static std::mutex m;
  static std::map<std::tuple<uint64_t, int, int>, uint64_t> allowed;
  std::lock_guard<std::mutex> lock(m);
  uint64_t& now = allowed[{device.attribute_domain(), int(kind), hash_registers}];
  if (bytes <= std::max(now, device.profile().shared_per_block_default)) return;
  device.set_max_dynamic_shared(kind, hash_registers, bytes);
  now = bytes;
}

// A source of exactly one item: the one-call forms of the streamed calls.
template <class Item>
std::function<bool(Item&)> just(const Item& item) {
  return [&item, done = false](Item& out) mutable {
    if (done) return false;
    out = item;
    return done = true;
  };
}

Fingerprint fingerprint_of(const H3ByteView& h) {
  Fingerprint f;
  f.add(h.tables).add(uint64_t(h.k)).add(uint64_t(h.key_bytes));
  return f.add_words(h.tables, size_t(h.key_bytes) * 256 * size_t(h.k));
}

Fingerprint fingerprint_of(const SubqueryVectors& v) {
  Fingerprint f = fingerprint_of(v.hash);
  f.add(v.words).add(uint64_t(v.count)).add(v.m_bits).add(uint64_t(v.words_per_vector)).add(uint64_t(v.k));
  return f.add_words(v.words, size_t(v.count) * v.words_per_vector);
}

Fingerprint fingerprint_of(const BitslicedMatrix& m) {
  Fingerprint f = fingerprint_of(m.hash);
  f.add(m.rows).add(uint64_t(m.count)).add(m.m_bits).add(m.full_blocks).add(m.tail_words).add(uint64_t(m.k));
  return f.add_words(reinterpret_cast<const uint32_t*>(m.rows), size_t(2 * m.words_per_row * m.m_bits));
}

// The bank's own words (not a flattened copy, which would be new for every call).
Fingerprint fingerprint_of(const FilterBank& bank) {
  Fingerprint f = fingerprint_of(bank.family->byte_view());
  f.add(uint64_t(bank.count)).add(uint64_t(bank.family->w()));
  for (uint32_t i = 0; i < bank.count; ++i) {
    const ClassifyFilter& c = bank.filters[i];
    f.add(c.bits.words).add(c.bits.m_bits).add(uint64_t(c.k)).add(uint64_t(c.layout));
    f.add_words(c.bits.words, bloom_words(c.bits.m_bits));
    f.add(uint64_t(int64_t(c.group))).add(uint64_t(c.bin));
  }
  f.add(uint64_t(bank.group_count));
  for (uint32_t g = 0; g < bank.group_count; ++g) {
    const ClassifyGroup& grp = bank.groups[g];
    f.add(grp.rows.rows).add(grp.rows.m_bits).add(uint64_t(grp.rows.bins)).add(uint64_t(grp.k));
    f.add_words(reinterpret_cast<const uint32_t*>(grp.rows.rows), 2 * grp.rows.m_bits * grp.rows.words_per_row);
  }
  return f;
}

struct Stage1aSlot {
  Stage1aSlot(Device& d, Retired& r)
      : packed(d, r), invalid(d, r), d_packed(d, r), d_invalid(d, r), d_pos(d, r), d_sub(d, r), d_count(d, r),
        pos(d, r), sub(d, r), count(d, r) {}
  PinnedArray<uint64_t> packed, invalid;
  DeviceArray<uint64_t> d_packed, d_invalid;
  DeviceArray<uint32_t> d_pos, d_sub;
  DeviceArray<HitCounter> d_count;
  PinnedArray<uint32_t> pos, sub;
  PinnedArray<HitCounter> count;
  uint64_t capacity = 0;  // hits d_pos, d_sub, pos and sub all hold
  uint64_t first_pos = 0;
  bool launched = false;
  Stage1aPlan plan;
  LaunchConfig launch;
  Stage1aKernelParams params{};
};

struct ClassifySlot {
  ClassifySlot(Device& d, Retired& r)
      : packed(d, r), invalid(d, r), offsets(d, r), bitmap_offset(d, r), d_packed(d, r), d_invalid(d, r),
        d_offsets(d, r), d_bitmap_offset(d, r), d_bitmaps(d, r), d_hit_frames(d, r), bitmaps(d, r), hit_frames(d, r) {}
  PinnedArray<uint64_t> packed, invalid, offsets, bitmap_offset;
  DeviceArray<uint64_t> d_packed, d_invalid, d_offsets, d_bitmap_offset;
  DeviceArray<uint32_t> d_bitmaps, d_hit_frames;
  PinnedArray<uint32_t> bitmaps, hit_frames;
  ClassifyHits hits;
};

class CudaBackend final : public Backend {
 public:
  CudaBackend(std::shared_ptr<Device> device, const CudaOptions& options, std::string name, PipelineCounters* counters)
      : device_(std::move(device)), dev_(*device_), options_(options), name_(std::move(name)),
        counters_(counters ? counters : &own_counters_), retired_(dev_), uploaded_(dev_), d_vectors_(dev_, retired_),
        d_tables_(dev_, retired_), d_rows_(dev_, retired_), d_filter_words_(dev_, retired_), d_filter_tables_(dev_, retired_),
        d_filter_desc_(dev_, retired_), d_group_desc_(dev_, retired_) {
    if (options_.stage1a_threads == 0 || options_.stage1a_threads % 32 != 0 ||
        (options_.classify_threads != 0 && options_.classify_threads % 32 != 0))
      throw UsageError("CUDA threads per block must be a multiple of 32");
    if (options_.initial_hit_capacity == 0) throw UsageError("CUDA hit capacity must be at least 1");
    dev_.make_current();
    profile_ = dev_.profile();
    description_ = dev_.label() + " " + describe_gpu(profile_);
    const size_t n = std::max<size_t>(options.streams, 1);
    for (size_t i = 0; i < n; ++i) {
      streams_.emplace_back(dev_);
      stage1a_slots_.emplace_back(dev_, retired_);
      classify_slots_.emplace_back(dev_, retired_);
    }
  }
  // Nothing may be freed while a stream still uses it (after an exception, work is left in flight).
  ~CudaBackend() override { drain(); }

  std::string name() const override { return name_; }
  std::string description() const override { return description_; }
  bool model_profile(model::DeviceProfile& out) const override {
    out = profile_;
    return true;
  }

  void stage1a(const SubqueryVectors& vectors, const DbChunk& chunk, std::vector<Stage1aHit>& hits) override {
    stage1a_stream(vectors, just(chunk),
                   [&](uint64_t, std::vector<Stage1aHit>& h) { hits.insert(hits.end(), h.begin(), h.end()); });
  }

  void stage1a_stream(const SubqueryVectors& vectors, const ChunkSource& next, const Stage1aSink& emit) override {
    run_stage1a(&vectors, nullptr, next, emit);
  }
  bool has_bitsliced() const override { return true; }
  void stage1a_bitsliced_stream(const BitslicedMatrix& matrix, const ChunkSource& next,
                                const Stage1aSink& emit) override {
    run_stage1a(nullptr, &matrix, next, emit);
  }

 private:
  // Stage 1a on the vectors (the paper's kernel) or on the bit-sliced matrix: the same slots, packing, streams,
  // overflow reruns and hit collection; only the uploaded filter data, the launch plan and the body differ.
  void run_stage1a(const SubqueryVectors* vectors, const BitslicedMatrix* matrix, const ChunkSource& next,
                   const Stage1aSink& emit) {
    begin_call();
    std::vector<Stage1aHit> hits;
    const uint32_t columns = matrix ? matrix->count : vectors->count;  // sub-queries
    const int k = matrix ? matrix->k : vectors->k;
    const H3ByteView& hash = matrix ? matrix->hash : vectors->hash;
    if (columns == 0) {
      DbChunk c;
      for (uint64_t i = 0; next(c); ++i) emit(i, hits);
      return;
    }
    const int regs = hash_registers_for(k);
    const KernelAttributes attr = dev_.kernel_attributes(KernelKind::stage1a, regs);
    // The vectors (or the matrix) stay on the device between calls (apps that call stage1a() once per batch
    // upload them once).
    const Fingerprint fp = matrix ? fingerprint_of(*matrix) : fingerprint_of(*vectors);
    if (!vectors_valid_ || fp != vectors_fp_) {
      vectors_valid_ = false;
      if (matrix) upload(d_rows_, matrix->rows, size_t(matrix->words_per_row * matrix->m_bits));
      else upload(d_vectors_, vectors->words, size_t(vectors->count) * vectors->words_per_vector);
      vectors_fp_ = fp;
      vectors_valid_ = true;
    }
    int w = 0;
    Stage1aKernelParams base{};
    base.vector_count = columns;
    base.k = k;
    if (matrix) {
      base.rows = d_rows_.data();
      base.row_full_blocks = matrix->full_blocks;
      base.row_tail_words = uint32_t(matrix->tail_words);
      base.m_bits = matrix->m_bits;
    } else {
      base.vector_words = d_vectors_.data();
      base.words_per_vector = uint32_t(vectors->words_per_vector);
      base.m_bits = vectors->m_bits;
    }

    auto launch = [&](Stage1aSlot& s, Stream& st) {
      s.params.hit_pos = s.d_pos.data();
      s.params.hit_sub = s.d_sub.data();
      s.params.capacity = s.capacity;
      s.params.hit_count = s.d_count.data();
      dev_.memset_async(s.d_count.data(), 0, sizeof(HitCounter), st.get());
      dev_.launch_stage1a(regs, s.launch, s.params, st.get());
      dev_.copy_async(s.count.data(), s.d_count.data(), sizeof(HitCounter), CopyKind::device_to_host, st.get());
      count_launch(s.launch.blocks, s.launch.passes);
      counters_->vectors_in_shared = s.plan.vectors_in_shared;
    };
    // The capacity is recorded only once every buffer holds it: after a failed allocation the slot claims none.
    auto reserve_hits = [&](Stage1aSlot& s, uint64_t n) {
      s.capacity = 0;
      s.d_pos.reserve(n);
      s.d_sub.reserve(n);
      s.pos.reserve(n);
      s.sub.reserve(n);
      s.capacity = n;
    };

    run_in_order(
        streams_,
        [&](Stream& st, size_t slot, uint64_t) {
          DbChunk c;
          if (!next(c)) return false;
          if (w == 0) {
            if (c.w < 1 || c.w > 32) throw UsageError("stage 1a: word size must be 1..32");
            w = c.w;
            Fingerprint tables_fp = fingerprint_of(hash);
            tables_fp.add(uint64_t(k)).add(uint64_t(w));
            if (!tables_valid_ || tables_fp != tables_fp_) {
              tables_valid_ = false;
              tables_host_ = nibble_tables_from(hash, k, w);
              upload(d_tables_, tables_host_.data(), tables_host_.size());
              tables_fp_ = tables_fp;
              tables_valid_ = true;
            }
            publish_uploads();
            base.nibble_tables = d_tables_.data();
            base.key_nibbles = key_nibbles_for(w);
            base.w = w;
          } else if (c.w != w) {
            throw UsageError("stage 1a: all chunks of a stream must have the same word size");
          }
          const uint64_t bases = chunk_bases(c);
          if (bases >= (uint64_t(1) << 32)) throw UsageError("stage 1a: database chunks must be below 4 Gbases");
          Stage1aSlot& s = stage1a_slots_[slot];
          s.first_pos = c.first_pos;
          s.launched = false;
          s.count.reserve(1);
          s.d_count.reserve(1);
          if (s.capacity < options_.initial_hit_capacity) reserve_hits(s, options_.initial_hit_capacity);
          if (tested_starts(c) == 0) {
            s.count.host(1, true)[0] = 0;
            return true;
          }
          // Pack into the slot's pinned buffers (host work that overlaps the other slots' device work).
          const size_t pw = packed_words(bases), iw = invalid_words(bases);
          s.packed.reserve(pw);
          s.invalid.reserve(iw);
          uint64_t* packed = s.packed.host(pw, true);
          uint64_t* invalid = s.invalid.host(iw, true);
          std::memset(packed, 0, pw * sizeof(uint64_t));
          std::memset(invalid, 0xFF, iw * sizeof(uint64_t));
          pack_into(c.codes, bases, 0, packed, invalid);
          s.d_packed.reserve(pw);
          s.d_invalid.reserve(iw);
          dev_.copy_async(s.d_packed.data(), packed, pw * sizeof(uint64_t), CopyKind::host_to_device, st.get());
          dev_.copy_async(s.d_invalid.data(), invalid, iw * sizeof(uint64_t), CopyKind::host_to_device, st.get());

          // The runtime's occupancy is the truth (register allocation granularity, carve-out): the plan is made
          // again with it when it differs.
          auto runtime_resident = [&](const LaunchConfig& l) {
            allow_dynamic_shared(dev_, KernelKind::stage1a, regs, l.shared_bytes);
            const uint32_t r = dev_.blocks_per_sm(KernelKind::stage1a, regs, l.threads, l.shared_bytes);
            if (r == 0) throw UsageError("stage-1a kernel: the planned block cannot run on this device");
            return r;
          };
          uint64_t items = 0;  // work items of the grid-stride loop (bit-sliced: tiles of threads)
          if (matrix) {
            const BitslicedShape shape{k, key_nibbles_for(w), tested_starts(c) * (matrix->words_per_row)};
            s.plan.launch = plan_bitsliced_launch(profile_, attr, shape, options_.stage1a_threads);
            const uint32_t resident = runtime_resident(s.plan.launch);
            if (resident != s.plan.launch.blocks_per_sm)
              s.plan.launch = plan_bitsliced_launch(profile_, attr, shape, options_.stage1a_threads, resident);
            s.plan.vectors_per_group = 1;
            s.plan.slices = 1;
            s.plan.vectors_in_shared = false;
            items = (shape.items + s.plan.launch.threads - 1) / s.plan.launch.threads;
          } else {
            const Stage1aShape shape{columns, uint32_t(vectors->words_per_vector), k, key_nibbles_for(w),
                                     tested_starts(c)};
            s.plan = plan_stage1a_launch(profile_, attr, shape, options_.stage1a_threads, options_.vectors_per_block);
            const uint32_t resident = runtime_resident(s.plan.launch);
            if (resident != s.plan.launch.blocks_per_sm)
              s.plan = plan_stage1a_launch(profile_, attr, shape, options_.stage1a_threads, options_.vectors_per_block,
                                           resident);
            if (options_.slices) s.plan.slices = options_.slices;
            items = (uint64_t(columns) + s.plan.vectors_per_group - 1) / s.plan.vectors_per_group * s.plan.slices;
          }
          s.launch = s.plan.launch;
          s.launch.blocks = uint32_t(std::min<uint64_t>(items, std::max<uint32_t>(s.launch.blocks, 1)));
          if (options_.max_blocks) s.launch.blocks = std::min(s.launch.blocks, options_.max_blocks);
          s.launch.passes = uint32_t((items + s.launch.blocks - 1) / s.launch.blocks);
          Stage1aKernelParams& p = s.params;
          p = base;
          p.vectors_per_group = s.plan.vectors_per_group;
          p.slices = s.plan.slices;
          p.vectors_in_shared = s.plan.vectors_in_shared ? 1 : 0;
          p.packed = s.d_packed.data();
          p.invalid = s.d_invalid.data();
          p.n_starts = c.n_starts;
          p.stride = chunk_stride(c);
          p.first_tested = first_tested(c);
          launch(s, st);
          s.launched = true;
          return true;
        },
        [&](Stream& st, size_t slot, uint64_t index) {
          Stage1aSlot& s = stage1a_slots_[slot];
          uint64_t count = s.count.host(1, false)[0];
          if (s.launched && count > s.capacity) {
            // Overflow: grow to the counted size and rerun this chunk (its inputs are still on the device).
            ++counters_->overflow_reruns;
            reserve_hits(s, count + count / 8);
            launch(s, st);
            st.synchronize();
            count = s.count.host(1, false)[0];
            if (count > s.capacity) throw Error(ExitCode::internal, "stage 1a: hit count changed on rerun");
          }
          if (count) {
            dev_.copy_async(s.pos.data(), s.d_pos.data(), count * sizeof(uint32_t), CopyKind::device_to_host, st.get());
            dev_.copy_async(s.sub.data(), s.d_sub.data(), count * sizeof(uint32_t), CopyKind::device_to_host, st.get());
            st.synchronize();
          }
          hits.clear();
          const uint32_t* pos = count ? s.pos.host(count, false) : nullptr;
          const uint32_t* sub = count ? s.sub.host(count, false) : nullptr;
          collect_stage1a_hits(pos, sub, count, s.first_pos, hits);
          emit(index, hits);
        });
    end_call();
  }

 public:
  void classify(const FilterBank& bank, const ReadBatchView& reads, ClassifyHits& out) override {
    classify_stream(bank, just(reads), [&](uint64_t, ClassifyHits& h) { out = h; });
  }

  void classify_stream(const FilterBank& bank, const BatchSource& next, const ClassifySink& emit) override {
    begin_call();
    check_bank(bank);
    const int w = bank.family->w();
    // The filters stay on the device between calls (one classify() per read batch uploads them once).
    const Fingerprint fp = fingerprint_of(bank);
    if (!filters_valid_ || fp != filters_fp_) {
      filters_valid_ = false;
      flat_ = flatten_filters(bank);
      upload(d_filter_words_, flat_.words.data(), flat_.words.size());
      upload(d_filter_desc_, flat_.desc.data(), flat_.desc.size());
      if (!flat_.groups.empty()) upload(d_group_desc_, flat_.groups.data(), flat_.groups.size());
      if (flat_.k_max) {
        filter_tables_host_ = nibble_tables_from(bank.family->byte_view(), flat_.k_max, w);
        upload(d_filter_tables_, filter_tables_host_.data(), filter_tables_host_.size());
      }
      filters_fp_ = fp;
      filters_valid_ = true;
    }
    publish_uploads();
    const int regs = flat_.k_max ? hash_registers_for(flat_.k_max) : 8;
    const KernelKind kind = flat_.groups.empty() ? KernelKind::classify : KernelKind::classify_interleaved;
    const KernelAttributes attr = dev_.kernel_attributes(kind, regs);

    run_in_order(
        streams_,
        [&](Stream& st, size_t slot, uint64_t) {
          ReadBatchView reads;
          if (!next(reads)) return false;
          ClassifySlot& s = classify_slots_[slot];
          s.hits.reset(reads, bank.count, w);
          if (reads.count == 0 || bank.count == 0) return true;
          double mean_frames = 0;
          for (uint32_t r = 0; r < reads.count; ++r) mean_frames += s.hits.frames[r];
          mean_frames /= reads.count;
          const uint32_t threads =
              options_.classify_threads ? options_.classify_threads : classify_threads_for(mean_frames);
          LaunchConfig c =
              plan_classify_launch(profile_, attr, reads.count, bank.count, flat_.k_max, key_nibbles_for(w), threads, 0,
                                   !flat_.groups.empty());
          allow_dynamic_shared(dev_, kind, regs, c.shared_bytes);
          const uint32_t resident = dev_.blocks_per_sm(kind, regs, c.threads, c.shared_bytes);
          if (resident == 0) throw UsageError("classify kernel: the planned block cannot run on this device");
          if (resident != c.blocks_per_sm)
            c = plan_classify_launch(profile_, attr, reads.count, bank.count, flat_.k_max, key_nibbles_for(w), threads,
                              resident, !flat_.groups.empty());
          if (options_.max_blocks) c.blocks = std::min(c.blocks, options_.max_blocks);
          c.passes = (reads.count + c.blocks - 1) / c.blocks;

          const uint64_t first = reads.offsets[0];
          const uint64_t bases = reads.offsets[reads.count] - first;
          const size_t pw = packed_words(bases), iw = invalid_words(bases);
          s.packed.reserve(pw);
          s.invalid.reserve(iw);
          s.offsets.reserve(reads.count + 1);
          s.bitmap_offset.reserve(reads.count + 1);
          uint64_t* packed = s.packed.host(pw, true);
          uint64_t* invalid = s.invalid.host(iw, true);
          uint64_t* offsets = s.offsets.host(reads.count + 1, true);
          uint64_t* bitmap_offset = s.bitmap_offset.host(reads.count + 1, true);
          std::memset(packed, 0, pw * sizeof(uint64_t));
          std::memset(invalid, 0xFF, iw * sizeof(uint64_t));
          pack_into(reads.codes + first, bases, 0, packed, invalid);
          for (uint32_t r = 0; r <= reads.count; ++r) {
            offsets[r] = reads.offsets[r] - first;
            bitmap_offset[r] = s.hits.bitmap_offset[r];
          }
          const size_t n_bitmap = std::max<size_t>(s.hits.bitmaps.size(), 1);
          const size_t n_hits = s.hits.hit_frames.size();
          s.d_packed.reserve(pw);
          s.d_invalid.reserve(iw);
          s.d_offsets.reserve(reads.count + 1);
          s.d_bitmap_offset.reserve(reads.count + 1);
          s.d_bitmaps.reserve(n_bitmap);
          s.d_hit_frames.reserve(n_hits);
          s.bitmaps.reserve(n_bitmap);
          s.hit_frames.reserve(n_hits);
          auto h2d = [&](auto* d, const auto* h, size_t n) {
            dev_.copy_async(d, h, n * sizeof(h[0]), CopyKind::host_to_device, st.get());
          };
          h2d(s.d_packed.data(), packed, pw);
          h2d(s.d_invalid.data(), invalid, iw);
          h2d(s.d_offsets.data(), offsets, reads.count + 1);
          h2d(s.d_bitmap_offset.data(), bitmap_offset, reads.count + 1);

          ClassifyKernelParams p{};
          p.filter_words = d_filter_words_.data();
          p.filters = d_filter_desc_.data();
          p.n_filters = bank.count;
          p.groups = d_group_desc_.data();
          p.n_groups = uint32_t(flat_.groups.size());
          p.k_max = flat_.k_max;
          p.nibble_tables = d_filter_tables_.data();
          p.key_nibbles = key_nibbles_for(w);
          p.w = w;
          p.packed = s.d_packed.data();
          p.invalid = s.d_invalid.data();
          p.read_offset = s.d_offsets.data();
          p.n_reads = reads.count;
          p.bitmap_offset = s.d_bitmap_offset.data();
          p.bitmaps = s.d_bitmaps.data();
          p.hit_frames = s.d_hit_frames.data();
          dev_.launch_classify(regs, c, p, st.get());
          count_launch(c.blocks, c.passes);
          if (!s.hits.bitmaps.empty())
            dev_.copy_async(s.bitmaps.data(), s.d_bitmaps.data(), s.hits.bitmaps.size() * sizeof(uint32_t),
                            CopyKind::device_to_host, st.get());
          dev_.copy_async(s.hit_frames.data(), s.d_hit_frames.data(), n_hits * sizeof(uint32_t),
                          CopyKind::device_to_host, st.get());
          return true;
        },
        [&](Stream&, size_t slot, uint64_t index) {
          ClassifySlot& s = classify_slots_[slot];
          if (s.hits.n_reads && s.hits.n_filters) {
            const size_t nb = s.hits.bitmaps.size(), nh = s.hits.hit_frames.size();
            if (nb) std::copy_n(s.bitmaps.host(nb, false), nb, s.hits.bitmaps.begin());
            std::copy_n(s.hit_frames.host(nh, false), nh, s.hits.hit_frames.begin());
          }
          emit(index, s.hits);
        });
    end_call();
  }

 private:
  // Device current, and anything a previous call left in flight (after an exception) finished, so the slots'
  // buffers are free and retired memory can go.
  void begin_call() {
    dev_.make_current();
    drain();
  }
  void end_call() { drain(); }
  void drain() noexcept {
    bool idle = true;
    for (Stream& st : streams_) {
      try {
        st.synchronize();
      } catch (...) {
        idle = false;  // a stream that cannot be waited for may still use retired memory: keep it
      }
    }
    if (idle) retired_.free_all();
  }

  // Stream-ordered upload on stream 0; publish_uploads() orders the other streams after it.
  template <class T>
  void upload(DeviceArray<T>& d, const T* h, size_t n) {
    d.reserve(std::max<size_t>(n, 1));
    if (n) dev_.copy_async(d.data(), h, n * sizeof(T), CopyKind::host_to_device, streams_[0].get());
    ++counters_->uploads;
  }
  void publish_uploads() {
    dev_.record(uploaded_.get(), streams_[0].get());
    for (size_t i = 1; i < streams_.size(); ++i) dev_.wait(streams_[i].get(), uploaded_.get());
  }

  void count_launch(uint32_t blocks, uint64_t passes) {
    ++counters_->launches;
    counters_->max_blocks = std::max<uint64_t>(counters_->max_blocks, blocks);
    counters_->max_passes = std::max<uint64_t>(counters_->max_passes, passes);
  }

  std::shared_ptr<Device> device_;
  Device& dev_;
  CudaOptions options_;
  std::string name_;
  PipelineCounters own_counters_;
  PipelineCounters* counters_;
  model::DeviceProfile profile_;
  std::string description_;
  // Declared before every buffer, so it is destroyed after them (buffers retire into it).
  Retired retired_;
  // Kept between calls: streams and their slots, and the device copies of the last vectors, filters and hash
  // tables (re-uploaded when their fingerprint changes; the host copies the uploads read live here).
  std::vector<Stream> streams_;
  Event uploaded_;
  std::vector<Stage1aSlot> stage1a_slots_;
  std::vector<ClassifySlot> classify_slots_;
  DeviceArray<uint32_t> d_vectors_, d_tables_;
  DeviceArray<uint64_t> d_rows_;
  Fingerprint vectors_fp_, tables_fp_;  // vectors_fp_: of the vectors or the matrix, whichever was uploaded last
  bool vectors_valid_ = false, tables_valid_ = false;
  std::vector<uint32_t> tables_host_;
  DeviceArray<uint32_t> d_filter_words_, d_filter_tables_;
  DeviceArray<FilterDesc> d_filter_desc_;
  DeviceArray<GroupDesc> d_group_desc_;
  Fingerprint filters_fp_;
  bool filters_valid_ = false;
  FlatFilters flat_;
  std::vector<uint32_t> filter_tables_host_;
};

}  // namespace

std::unique_ptr<Backend> make_backend_on(std::shared_ptr<Device> device, const CudaOptions& options,
                                         const std::string& name, PipelineCounters* counters) {
  return std::make_unique<CudaBackend>(std::move(device), options, name, counters);
}

}  // namespace bloomseq::cuda
