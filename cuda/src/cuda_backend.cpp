// The CUDA backend: device memory, pinned staging buffers, streams and the launch plan around the kernels.
// Ordering and overlap come from run_in_order (pipeline.hpp); packing and result collection are shared with the
// emulated backend (host_side.hpp), so what the tests exercise on the host is what runs here.
#include "bloomseq/cuda/cuda_backend.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "bloomseq/cuda/host_side.hpp"
#include "bloomseq/cuda/model_bridge.hpp"
#include "bloomseq/cuda/packed_seq.hpp"
#include "bloomseq/cuda/pipeline.hpp"
#include "bloomseq/error.hpp"
#include "cuda_check.hpp"
#include "device_memory.hpp"
#include "kernels.hpp"

namespace bloomseq {
namespace cuda {
namespace {

constexpr uint64_t kInitialHitCapacity = uint64_t(1) << 20;
constexpr uint64_t kDefaultSharedBytes = 48 * 1024;

GpuProfile profile_of(const cudaDeviceProp& d, int device) {
  GpuProfile g;
  g.name = d.name;
  g.sm_count = d.multiProcessorCount;
  g.max_threads_per_sm = d.maxThreadsPerMultiProcessor;
  g.max_blocks_per_sm = d.maxBlocksPerMultiProcessor;
  g.max_threads_per_block = d.maxThreadsPerBlock;
  g.regs_per_sm = d.regsPerMultiprocessor;
  g.shared_per_sm = d.sharedMemPerMultiprocessor;
  g.shared_per_block = d.sharedMemPerBlock;
  g.shared_per_block_optin = std::max<uint64_t>(d.sharedMemPerBlockOptin, d.sharedMemPerBlock);
  g.shared_reserved_per_block = d.reservedSharedMemPerBlock;
  g.global_mem = d.totalGlobalMem;
  g.l2_bytes = uint64_t(d.l2CacheSize);
  g.async_engines = d.asyncEngineCount;
  g.cc_major = d.major;
  g.cc_minor = d.minor;
  int clock_khz = 0, mem_khz = 0, bus_bits = 0;
  if (cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, device) == cudaSuccess) g.clock_ghz = clock_khz / 1e6;
  if (cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, device) == cudaSuccess &&
      cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device) == cudaSuccess)
    g.mem_bandwidth_gbs = 2.0 * mem_khz * 1e3 * (bus_bits / 8.0) / 1e9;
  return g;
}

// Identity of host data the backend keeps on the device between calls: address, size and a sample of the words
// (every 4096th plus the last), so a caller that rebuilds its vectors in place is noticed without hashing them all.
struct Fingerprint {
  const void* address = nullptr;
  uint64_t words = 0;
  uint64_t sample = 0;
  uint64_t shape = 0;
  bool operator==(const Fingerprint& o) const {
    return address == o.address && words == o.words && sample == o.sample && shape == o.shape;
  }
};

Fingerprint fingerprint(const uint32_t* p, uint64_t n, uint64_t shape) {
  Fingerprint f{p, n, 0, shape};
  for (uint64_t i = 0; i < n; i += 4096) f.sample = f.sample * 0x100000001B3ULL + p[i] + i;
  if (n) f.sample = f.sample * 0x100000001B3ULL + p[n - 1];
  return f;
}

template <class T>
void copy_to_device(DeviceArray<T>& d, const T* h, size_t n) {
  d.reserve(std::max<size_t>(n, 1));
  if (n) BLOOMSEQ_CUDA_CHECK(cudaMemcpy(d.data(), h, n * sizeof(T), cudaMemcpyHostToDevice));
}

struct Stage1aSlot {
  PinnedArray<uint64_t> packed, invalid;
  DeviceArray<uint64_t> d_packed, d_invalid;
  DeviceArray<uint32_t> d_pos, d_sub;
  DeviceArray<HitCounter> d_count;
  PinnedArray<uint32_t> pos, sub;
  PinnedArray<HitCounter> count;
  uint64_t capacity = 0;
  uint64_t first_pos = 0;
  Stage1aPlan plan;
  Stage1aKernelParams params{};
};

struct ClassifySlot {
  PinnedArray<uint64_t> packed, invalid, offsets, bitmap_offset;
  DeviceArray<uint64_t> d_packed, d_invalid, d_offsets, d_bitmap_offset;
  DeviceArray<uint32_t> d_bitmaps, d_hit_frames;
  PinnedArray<uint32_t> bitmaps, hit_frames;
  ClassifyHits hits;
};

class CudaBackend final : public Backend {
 public:
  CudaBackend(int device, const CudaOptions& options)
      : device_(device), options_(options), stage1a_slots_(std::max<size_t>(options.streams, 1)),
        classify_slots_(std::max<size_t>(options.streams, 1)) {
    if (options_.stage1a_threads == 0 || options_.stage1a_threads % 32 != 0 ||
        (options_.classify_threads != 0 && options_.classify_threads % 32 != 0))
      throw UsageError("CUDA threads per block must be a multiple of 32");
    select();
    cudaDeviceProp prop{};
    BLOOMSEQ_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    profile_ = profile_of(prop, device);
    description_ = "cuda:" + std::to_string(device) + " " + describe(profile_);
    for (size_t i = 0; i < stage1a_slots_.size(); ++i) streams_.emplace_back();
  }
  std::string name() const override { return "cuda"; }
  std::string description() const override { return description_; }
  bool model_profile(model::DeviceProfile& out) const override {
    out = to_model_profile(profile_);
    return true;
  }

  void stage1a(const SubqueryVectors& vectors, const DbChunk& chunk, std::vector<Stage1aHit>& hits) override {
    bool done = false;
    stage1a_stream(
        vectors,
        [&](DbChunk& c) {
          if (done) return false;
          c = chunk;
          return done = true;
        },
        [&](uint64_t, std::vector<Stage1aHit>& h) { hits.insert(hits.end(), h.begin(), h.end()); });
  }

  void stage1a_stream(const SubqueryVectors& vectors, const ChunkSource& next, const Stage1aSink& emit) override {
    select();
    std::vector<Stage1aHit> hits;
    if (vectors.count == 0) {
      DbChunk c;
      for (uint64_t i = 0; next(c); ++i) emit(i, hits);
      return;
    }
    const int regs = hash_registers_for(vectors.k);
    const KernelAttributes attr = kernel_attributes(KernelKind::stage1a, regs);
    // The vectors stay on the device between calls (apps that call stage1a() once per batch upload them once).
    const uint64_t n_words = uint64_t(vectors.count) * vectors.words_per_vector;
    const Fingerprint fp = fingerprint(vectors.words, n_words, vectors.m_bits * 64 + uint64_t(vectors.k));
    if (!(fp == vectors_fp_)) {
      vectors_fp_ = Fingerprint{};
      copy_to_device(d_vectors_, vectors.words, n_words);
      vectors_fp_ = fp;
      tables_w_ = 0;
    }
    if (vectors_hash_ != vectors.hash.tables) tables_w_ = 0;
    vectors_hash_ = vectors.hash.tables;
    DeviceArray<uint32_t>& d_vectors = d_vectors_;
    DeviceArray<uint32_t>& d_tables = d_tables_;
    int w = 0;
    uint64_t& allowed_shared = allowed_shared_[0][regs / 8 - 1];
    std::vector<Stream>& streams = streams_;
    std::vector<Stage1aSlot>& slots = stage1a_slots_;

    auto launch = [&](Stage1aSlot& s, Stream& st) {
      BLOOMSEQ_CUDA_CHECK(cudaMemsetAsync(s.d_count.data(), 0, sizeof(HitCounter), st.get()));
      s.params.hit_pos = s.d_pos.data();
      s.params.hit_sub = s.d_sub.data();
      s.params.capacity = s.capacity;
      s.params.hit_count = s.d_count.data();
      launch_stage1a(regs, s.plan.launch, s.params, st.get());
      BLOOMSEQ_CUDA_CHECK(
          cudaMemcpyAsync(s.count.data(), s.d_count.data(), sizeof(HitCounter), cudaMemcpyDeviceToHost, st.get()));
    };
    auto reserve_hits = [&](Stage1aSlot& s, uint64_t n) {
      s.capacity = n;
      s.d_pos.reserve(n);
      s.d_sub.reserve(n);
      s.pos.reserve(n);
      s.sub.reserve(n);
    };

    run_in_order(
        streams,
        [&](Stream& st, size_t slot, uint64_t) {
          DbChunk c;
          if (!next(c)) return false;
          if (w == 0) {
            if (c.w < 1 || c.w > 32) throw UsageError("stage 1a: word size must be 1..32");
            w = c.w;
            if (tables_w_ != w) {
              const std::vector<uint32_t> tables = nibble_tables_from(vectors.hash, vectors.k, w);
              copy_to_device(d_tables, tables.data(), tables.size());
              tables_w_ = w;
            }
          } else if (c.w != w) {
            throw UsageError("stage 1a: all chunks of a stream must have the same word size");
          }
          const uint64_t bases = chunk_bases(c);
          if (bases >= (uint64_t(1) << 32)) throw UsageError("stage 1a: database chunks must be below 4 Gbases");
          Stage1aSlot& s = slots[slot];
          s.first_pos = c.first_pos;
          s.count.reserve(1);
          s.d_count.reserve(1);
          if (s.capacity == 0) reserve_hits(s, kInitialHitCapacity);
          if (c.n_starts == 0) {
            s.count[0] = 0;
            return true;
          }
          // Pack into the slot's pinned buffers (host work that overlaps the other slots' device work).
          const size_t pw = packed_words(bases), iw = invalid_words(bases);
          s.packed.reserve(pw);
          s.invalid.reserve(iw);
          std::memset(s.packed.data(), 0, pw * sizeof(uint64_t));
          std::memset(s.invalid.data(), 0xFF, iw * sizeof(uint64_t));
          pack_into(c.codes, bases, 0, s.packed.data(), s.invalid.data());
          s.d_packed.reserve(pw);
          s.d_invalid.reserve(iw);
          BLOOMSEQ_CUDA_CHECK(cudaMemcpyAsync(s.d_packed.data(), s.packed.data(), pw * sizeof(uint64_t),
                                              cudaMemcpyHostToDevice, st.get()));
          BLOOMSEQ_CUDA_CHECK(cudaMemcpyAsync(s.d_invalid.data(), s.invalid.data(), iw * sizeof(uint64_t),
                                              cudaMemcpyHostToDevice, st.get()));

          const Stage1aShape shape{vectors.count, uint32_t(vectors.words_per_vector), vectors.k, key_nibbles_for(w),
                                   c.n_starts};
          s.plan = plan_stage1a(profile_, attr, shape, options_.stage1a_threads, options_.vectors_per_block);
          if (s.plan.launch.shared_bytes > allowed_shared) {
            allow_shared_bytes(KernelKind::stage1a, regs, s.plan.launch.shared_bytes);
            allowed_shared = s.plan.launch.shared_bytes;
          }
          // The runtime's occupancy is the truth (register allocation granularity, carve-out); replan with it.
          const uint32_t resident = runtime_blocks_per_sm(KernelKind::stage1a, regs, s.plan.launch.threads,
                                                          s.plan.launch.shared_bytes);
          if (resident == 0) throw UsageError("stage-1a kernel: the planned block cannot run on this device");
          if (resident != s.plan.launch.blocks_per_sm)
            s.plan = plan_stage1a(profile_, attr, shape, options_.stage1a_threads, options_.vectors_per_block, resident);
          Stage1aKernelParams& p = s.params;
          p = Stage1aKernelParams{};
          p.vector_words = d_vectors.data();
          p.vector_count = vectors.count;
          p.words_per_vector = uint32_t(vectors.words_per_vector);
          p.m_bits = vectors.m_bits;
          p.k = vectors.k;
          p.nibble_tables = d_tables.data();
          p.key_nibbles = key_nibbles_for(w);
          p.vectors_per_group = s.plan.vectors_per_group;
          p.slices = s.plan.slices;
          p.vectors_in_shared = s.plan.vectors_in_shared ? 1 : 0;
          p.packed = s.d_packed.data();
          p.invalid = s.d_invalid.data();
          p.n_starts = c.n_starts;
          p.w = w;
          launch(s, st);
          return true;
        },
        [&](Stream& st, size_t slot, uint64_t index) {
          Stage1aSlot& s = slots[slot];
          uint64_t count = s.count[0];
          if (count > s.capacity) {
            // Overflow: grow to the counted size and rerun this chunk (its inputs are still on the device).
            reserve_hits(s, count + count / 8);
            launch(s, st);
            st.synchronize();
            count = s.count[0];
            if (count > s.capacity) throw Error(ExitCode::internal, "stage 1a: hit count changed on rerun");
          }
          if (count) {
            BLOOMSEQ_CUDA_CHECK(cudaMemcpyAsync(s.pos.data(), s.d_pos.data(), count * sizeof(uint32_t),
                                                cudaMemcpyDeviceToHost, st.get()));
            BLOOMSEQ_CUDA_CHECK(cudaMemcpyAsync(s.sub.data(), s.d_sub.data(), count * sizeof(uint32_t),
                                                cudaMemcpyDeviceToHost, st.get()));
            st.synchronize();
          }
          hits.clear();
          collect_stage1a_hits(s.pos.data(), s.sub.data(), count, s.first_pos, hits);
          emit(index, hits);
        });
  }

  void classify(const FilterBank& bank, const ReadBatchView& reads, ClassifyHits& out) override {
    bool done = false;
    classify_stream(
        bank,
        [&](ReadBatchView& v) {
          if (done) return false;
          v = reads;
          return done = true;
        },
        [&](uint64_t, ClassifyHits& h) { out = h; });
  }

  void classify_stream(const FilterBank& bank, const BatchSource& next, const ClassifySink& emit) override {
    select();
    check_bank(bank);
    const int w = bank.family->w();
    const FlatFilters flat = flatten_filters(bank);
    const int regs = flat.k_max ? hash_registers_for(flat.k_max) : 8;
    const KernelAttributes attr = kernel_attributes(KernelKind::classify, regs);
    // The filters stay on the device between calls (one classify() per read batch uploads them once).
    const Fingerprint fp = fingerprint(flat.words.data(), flat.words.size(),
                                       uint64_t(bank.count) * 4096 + uint64_t(flat.k_max) * 64 + uint64_t(w));
    if (!(fp == filters_fp_) || bank_family_ != bank.family) {
      filters_fp_ = Fingerprint{};
      copy_to_device(d_filter_words_, flat.words.data(), flat.words.size());
      copy_to_device(d_filter_desc_, flat.desc.data(), flat.desc.size());
      if (flat.k_max) {
        const std::vector<uint32_t> tables = nibble_tables_from(bank.family->byte_view(), flat.k_max, w);
        copy_to_device(d_filter_tables_, tables.data(), tables.size());
      }
      filters_fp_ = fp;
      bank_family_ = bank.family;
    }
    DeviceArray<uint32_t>& d_words = d_filter_words_;
    DeviceArray<uint32_t>& d_tables = d_filter_tables_;
    DeviceArray<FilterDesc>& d_desc = d_filter_desc_;
    uint64_t& allowed_shared = allowed_shared_[1][regs / 8 - 1];
    std::vector<Stream>& streams = streams_;
    std::vector<ClassifySlot>& slots = classify_slots_;

    run_in_order(
        streams,
        [&](Stream& st, size_t slot, uint64_t) {
          ReadBatchView reads;
          if (!next(reads)) return false;
          ClassifySlot& s = slots[slot];
          s.hits.reset(reads, bank.count, w);
          if (reads.count == 0 || bank.count == 0) return true;
          const uint64_t first = reads.offsets[0];
          const uint64_t bases = reads.offsets[reads.count] - first;
          const size_t pw = packed_words(bases), iw = invalid_words(bases);
          s.packed.reserve(pw);
          s.invalid.reserve(iw);
          s.offsets.reserve(reads.count + 1);
          s.bitmap_offset.reserve(reads.count + 1);
          std::memset(s.packed.data(), 0, pw * sizeof(uint64_t));
          std::memset(s.invalid.data(), 0xFF, iw * sizeof(uint64_t));
          pack_into(reads.codes + first, bases, 0, s.packed.data(), s.invalid.data());
          for (uint32_t r = 0; r <= reads.count; ++r) {
            s.offsets[r] = reads.offsets[r] - first;
            s.bitmap_offset[r] = s.hits.bitmap_offset[r];
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
          auto h2d = [&](auto& d, auto& h, size_t n) {
            BLOOMSEQ_CUDA_CHECK(
                cudaMemcpyAsync(d.data(), h.data(), n * sizeof(h[0]), cudaMemcpyHostToDevice, st.get()));
          };
          h2d(s.d_packed, s.packed, pw);
          h2d(s.d_invalid, s.invalid, iw);
          h2d(s.d_offsets, s.offsets, reads.count + 1);
          h2d(s.d_bitmap_offset, s.bitmap_offset, reads.count + 1);

          double mean_frames = 0;
          for (uint32_t r = 0; r < reads.count; ++r) mean_frames += s.hits.frames[r];
          mean_frames /= reads.count;
          const uint32_t threads =
              options_.classify_threads ? options_.classify_threads : classify_threads_for(mean_frames);
          LaunchConfig c = plan_classify(profile_, attr, reads.count, bank.count, flat.k_max, key_nibbles_for(w), threads);
          if (c.shared_bytes > allowed_shared) {
            allow_shared_bytes(KernelKind::classify, regs, c.shared_bytes);
            allowed_shared = c.shared_bytes;
          }
          const uint32_t resident = runtime_blocks_per_sm(KernelKind::classify, regs, c.threads, c.shared_bytes);
          if (resident == 0) throw UsageError("classify kernel: the planned block cannot run on this device");
          if (resident != c.blocks_per_sm)
            c = plan_classify(profile_, attr, reads.count, bank.count, flat.k_max, key_nibbles_for(w), threads, resident);
          ClassifyKernelParams p{};
          p.filter_words = d_words.data();
          p.filters = d_desc.data();
          p.n_filters = bank.count;
          p.k_max = flat.k_max;
          p.nibble_tables = d_tables.data();
          p.key_nibbles = key_nibbles_for(w);
          p.w = w;
          p.packed = s.d_packed.data();
          p.invalid = s.d_invalid.data();
          p.read_offset = s.d_offsets.data();
          p.n_reads = reads.count;
          p.bitmap_offset = s.d_bitmap_offset.data();
          p.bitmaps = s.d_bitmaps.data();
          p.hit_frames = s.d_hit_frames.data();
          launch_classify(regs, c, p, st.get());
          if (!s.hits.bitmaps.empty())
            BLOOMSEQ_CUDA_CHECK(cudaMemcpyAsync(s.bitmaps.data(), s.d_bitmaps.data(),
                                                s.hits.bitmaps.size() * sizeof(uint32_t), cudaMemcpyDeviceToHost,
                                                st.get()));
          BLOOMSEQ_CUDA_CHECK(cudaMemcpyAsync(s.hit_frames.data(), s.d_hit_frames.data(), n_hits * sizeof(uint32_t),
                                              cudaMemcpyDeviceToHost, st.get()));
          return true;
        },
        [&](Stream&, size_t slot, uint64_t index) {
          ClassifySlot& s = slots[slot];
          if (s.hits.n_reads && s.hits.n_filters) {
            std::copy(s.bitmaps.data(), s.bitmaps.data() + s.hits.bitmaps.size(), s.hits.bitmaps.begin());
            std::copy(s.hit_frames.data(), s.hit_frames.data() + s.hits.hit_frames.size(), s.hits.hit_frames.begin());
          }
          emit(index, s.hits);
        });
  }

 private:
  // Makes the device current and waits for anything a previous call left in flight (after an exception), so the
  // slots' buffers are free.
  void select() {
    BLOOMSEQ_CUDA_CHECK(cudaSetDevice(device_));
    for (Stream& st : streams_) st.synchronize();
  }

  int device_;
  CudaOptions options_;
  GpuProfile profile_;
  std::string description_;
  // Kept between calls: streams and their pinned/device buffers, and the device copies of the last vectors,
  // filters and hash tables (re-uploaded when their fingerprint changes).
  std::vector<Stream> streams_;
  std::vector<Stage1aSlot> stage1a_slots_;
  std::vector<ClassifySlot> classify_slots_;
  DeviceArray<uint32_t> d_vectors_, d_tables_;
  Fingerprint vectors_fp_;
  const uint32_t* vectors_hash_ = nullptr;
  int tables_w_ = 0;
  DeviceArray<uint32_t> d_filter_words_, d_filter_tables_;
  DeviceArray<FilterDesc> d_filter_desc_;
  Fingerprint filters_fp_;
  const H3Family* bank_family_ = nullptr;
  uint64_t allowed_shared_[2][4] = {{kDefaultSharedBytes, kDefaultSharedBytes, kDefaultSharedBytes, kDefaultSharedBytes},
                                    {kDefaultSharedBytes, kDefaultSharedBytes, kDefaultSharedBytes, kDefaultSharedBytes}};
};

}  // namespace
}  // namespace cuda

int cuda_device_count() {
  int n = 0;
  // No driver, an old driver or no device: all mean "no usable device", never an exception.
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return n;
}

bool cuda_device_profile(int device, cuda::GpuProfile& out) {
  if (device < 0 || device >= cuda_device_count()) return false;
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, device) != cudaSuccess) return false;
  if (cudaSetDevice(device) != cudaSuccess) return false;
  out = cuda::profile_of(prop, device);
  return true;
}

bool cuda_device_profile(int device, model::DeviceProfile& out) {
  cuda::GpuProfile g;
  if (!cuda_device_profile(device, g)) return false;
  out = cuda::to_model_profile(g);
  return true;
}

std::unique_ptr<Backend> make_cuda_backend(int device) { return make_cuda_backend(device, CudaOptions{}); }

std::unique_ptr<Backend> make_cuda_backend(int device, const CudaOptions& options) {
  const int n = cuda_device_count();
  if (device < 0 || device >= n)
    throw UsageError("CUDA device " + std::to_string(device) + " not available (" + std::to_string(n) +
                     " device(s) found)");
  return std::make_unique<cuda::CudaBackend>(device, options);
}

}  // namespace bloomseq
