#include "bloomseq/blast/stage1a_backend.hpp"

#include <algorithm>
#include <cstring>
#include <ostream>

#include "bloomseq/backend/backend.hpp"
#include "bloomseq/blast/subquery_vectors.hpp"

namespace bloomseq {
namespace {
// Stage 1a through the library's backend interface (the CUDA backend, or any other Backend).
class BackendStage1a final : public Stage1aBackend {
 public:
  explicit BackendStage1a(std::unique_ptr<Backend> b) : backend_(std::move(b)) {}
  std::string name() const override { return backend_->description(); }
  // Probe words at a stride are the chunk's `stride` (every backend honours it); exact filters are vectors whose
  // hash is the injective key function, so the kernels need nothing else for the short-word scan. Not the default
  // here: measured slower than every w-mer on a GPU so far (Stage1aCapabilities::scan_by_default).
  Stage1aCapabilities capabilities() const override { return {false, true, true, false}; }
  const Backend* backend() const override { return backend_.get(); }
  void prepare(const SubqueryFilters& filters, const Stage1aSetup& setup) override {
    vectors_ = filters.vectors();
    stride_ = setup.stride;
    bitsliced_ = setup.requested == Stage1aLayout::bitsliced && setup.layout == Stage1aLayout::bitsliced &&
                 backend_->has_bitsliced();
    if (bitsliced_) matrix_ = filters.bitsliced();
  }
  uint64_t run_chunk(const DbChunk& chunk, std::vector<Stage1aHit>& hits) override {
    std::vector<std::vector<Stage1aHit>> one(1);
    std::vector<uint64_t> wmers(1);
    run_chunks({chunk}, one, wmers);
    hits.insert(hits.end(), one[0].begin(), one[0].end());
    return wmers[0];
  }
  void run_chunks(const std::vector<DbChunk>& chunks, std::vector<std::vector<Stage1aHit>>& hits,
                  std::vector<uint64_t>& wmers) override {
    size_t next = 0;
    const Backend::ChunkSource source = [&](DbChunk& c) {
      if (next == chunks.size()) return false;
      c = strided(chunks[next++]);
      return true;
    };
    const Backend::Stage1aSink sink = [&](uint64_t i, std::vector<Stage1aHit>& h) { hits[i].swap(h); };
    if (bitsliced_) backend_->stage1a_bitsliced_stream(matrix_, source, sink);
    else backend_->stage1a_stream(vectors_, source, sink);
    for (size_t i = 0; i < chunks.size(); ++i) wmers[i] = count_chunk_wmers(strided(chunks[i]));
  }

 private:
  DbChunk strided(DbChunk c) const {
    c.stride = stride_;
    return c;
  }
  std::unique_ptr<Backend> backend_;
  SubqueryVectors vectors_;
  BitslicedMatrix matrix_;
  bool bitsliced_ = false;
  uint64_t stride_ = 1;
};
}  // namespace

std::unique_ptr<Stage1aBackend> adapt_stage1a_backend(std::unique_ptr<Backend> backend) {
  return std::make_unique<BackendStage1a>(std::move(backend));
}

std::unique_ptr<Stage1aBackend> make_stage1a_backend(const std::string& name, int device, std::ostream* log) {
  if (name == "auto") {
    // Measured on an H200 against its 16 host cores (docs/cuda.md, "Measured on a GPU"): the CPU layouts beat the
    // paper's shared-memory kernel on every workload, genome pairs and short queries alike (its O(sub-queries x
    // database) tests lose to one bit-sliced row read per hash), so auto stays on the CPU until a device layout
    // wins. --backend cuda still runs the kernel.
    make_backend("cpu", device, nullptr);  // the same checks of --device
    if (log && cuda_devices() > device)
      *log << "backend: cpu (auto: the CPU stage 1a was faster than the CUDA kernel on every measured workload; "
              "--backend cuda runs it)\n";
    return make_cpu_stage1a();
  }
  std::unique_ptr<Backend> b = make_backend(name, device, log);
  return b ? adapt_stage1a_backend(std::move(b)) : make_cpu_stage1a();
}

uint64_t count_chunk_wmers(const DbChunk& chunk) {
  const uint64_t w = uint64_t(chunk.w), stride = chunk_stride(chunk);
  uint64_t count = 0, run = 0;
  const uint64_t end = std::min(chunk.n, chunk.n_starts + w - 1);
  // Usually no base is invalid: then every tested start whose w-mer ends by `end` counts, and one OR over the bytes
  // (8 at a time) replaces the walk below, which cost the device's host thread a few ns per database base.
  uint64_t any = 0;
  uint64_t i8 = 0;
  for (; i8 + 8 <= end; i8 += 8) {
    uint64_t x;
    std::memcpy(&x, chunk.codes + i8, 8);
    any |= x;
  }
  for (; i8 < end; ++i8) any |= chunk.codes[i8];
  if ((any & 0xFCFCFCFCFCFCFCFCULL) == 0) {
    const uint64_t limit = end >= w ? std::min(chunk.n_starts, end - w + 1) : 0;  // starts below it fit
    const uint64_t at = first_tested(chunk);
    return limit > at ? (limit - at + stride - 1) / stride : 0;
  }
  if (stride == 1) {
    for (uint64_t i = 0; i < end; ++i) {
      run = chunk.codes[i] < 4 ? run + 1 : 0;
      if (run >= w) ++count;  // the w-mer starting at i + 1 - w (< n_starts because i < n_starts + w - 1)
    }
    return count;
  }
  // The tested starts one after another (a division per base would cost more than the device's whole scan).
  uint64_t next = first_tested(chunk) + w - 1;  // the last base of the next tested w-mer
  for (uint64_t i = 0; i < end; ++i) {
    run = chunk.codes[i] < 4 ? run + 1 : 0;
    if (i == next) {
      count += run >= w;
      next += stride;
    }
  }
  return count;
}

}  // namespace bloomseq
