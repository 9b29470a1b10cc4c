// Where the two problems run when not on the host CPU: a CUDA device, chosen at run time.
//
// The CPU backend of each pipeline is its own threaded, SIMD code (BlastSearch's stage-1a layouts, Classifier's
// scoring paths), used whenever no device backend is given. make_backend("cpu") therefore returns nullptr;
// make_backend("auto") returns the CUDA backend only when it was compiled in AND a device answers, else nullptr
// with one informative line; "cuda" without a usable device is an error. make_reference_backend() is the
// single-threaded oracle that the tests check every backend against. Nothing here depends on CUDA: the CUDA
// backend lives in the separate bloomseq_cuda library, found at link time through a weak hook (see registry.cpp).
#pragma once
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "bloomseq/backend/classify.hpp"
#include "bloomseq/backend/stage1a.hpp"
#include "bloomseq/model/device_profile.hpp"

namespace bloomseq {

class Backend {
 public:
  virtual ~Backend() = default;

  // "reference" or "cuda".
  virtual std::string name() const = 0;
  // One line for logs and --stats: e.g. "cuda:0 NVIDIA H100 80GB HBM3 (132 SMs, 79.1 GiB)".
  virtual std::string description() const = 0;

  // The device as the performance model sees it, so that --auto-tune plans for where the work runs (a GPU
  // backend fills `out` from its device properties and returns true; the CPU backend returns false and the
  // caller uses the CPU profile).
  virtual bool model_profile(model::DeviceProfile& out) const {
    (void)out;
    return false;
  }
  // Stage 1a of one chunk: appends its hits sorted by (db_pos, subquery).
  virtual void stage1a(const SubqueryVectors& vectors, const DbChunk& chunk, std::vector<Stage1aHit>& hits) = 0;

  // Streamed stage 1a: pulls chunks with next(chunk) until it returns false (a chunk's memory only needs to stay
  // valid until the following call to next) and hands each chunk's sorted hits to emit(chunk_index, hits), in
  // input order. A GPU backend keeps several chunks in flight; the default runs them one by one.
  using ChunkSource = std::function<bool(DbChunk&)>;
  using Stage1aSink = std::function<void(uint64_t chunk_index, std::vector<Stage1aHit>& hits)>;
  virtual void stage1a_stream(const SubqueryVectors& vectors, const ChunkSource& next, const Stage1aSink& emit);

  // Stage 1a on the bit-sliced matrix (k row reads per w-mer answer every sub-query at once), when the backend has
  // a kernel for it; the same contract and the same hits as stage1a_stream on the matrix's vectors.
  virtual bool has_bitsliced() const { return false; }
  virtual void stage1a_bitsliced_stream(const BitslicedMatrix& matrix, const ChunkSource& next,
                                        const Stage1aSink& emit);

  // Classification of one batch of reads against all filters.
  virtual void classify(const FilterBank& bank, const ReadBatchView& reads, ClassifyHits& out) = 0;

  // Streamed classification, same contract as stage1a_stream.
  using BatchSource = std::function<bool(ReadBatchView&)>;
  using ClassifySink = std::function<void(uint64_t batch_index, ClassifyHits& hits)>;
  virtual void classify_stream(const FilterBank& bank, const BatchSource& next, const ClassifySink& emit);
};

// The reference oracle (cpu_reference.hpp) behind the Backend interface: single-threaded and straightforward, the
// definition every other backend must reproduce bit for bit. For tests and benchmarks, not for production runs.
std::unique_ptr<Backend> make_reference_backend();

// True when this binary contains the CUDA backend.
bool cuda_compiled_in();
// CUDA devices that answer (0 when CUDA is not compiled in, or no driver/device). Never throws.
int cuda_devices();
// What this binary can run on, for --version: "cpu, cuda (2 devices)", "cpu (CUDA built, no usable device)" or
// "cpu (CUDA not built)".
std::string backends_available();

// name: "auto", "cpu" or "cuda"; device: CUDA device ordinal. nullptr means the host CPU (the pipelines' own CPU
// code). `log` receives the one informative line when "auto" falls back to the CPU (nullptr: silent). Throws
// UsageError for an unknown name, a bad device number, or "cuda" when CUDA is not compiled in or no device answers.
std::unique_ptr<Backend> make_backend(const std::string& name, int device = 0, std::ostream* log = nullptr);

}  // namespace bloomseq
