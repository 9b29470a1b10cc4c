// Where stage 1a runs inside the blast-bloom pipeline. BlastSearch takes one Stage1aBackend at construction: the
// CPU backend (make_cpu_stage1a: the bit-sliced, vector, paper-vector and exact layouts, run chunk by chunk in the
// search's worker threads) unless a device backend is given (make_stage1a_backend("cuda"), over the library's
// Backend interface in backend/backend.hpp). Every backend receives the same sub-query filters and DbChunk and
// must return the same hits, sorted by (db_pos, subquery), and the number of valid database w-mers it tested.
#pragma once
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "bloomseq/backend/stage1a.hpp"
#include "bloomseq/blast/params.hpp"

namespace bloomseq {

class Backend;
class SubqueryFilters;

// What a backend can do; the search adapts to it instead of asking which backend it is.
struct Stage1aCapabilities {
  // run_chunk is called from the search's worker threads (it must be thread-safe), each chunk's stage 1b right
  // after it; otherwise the search hands over a batch's chunks at once (run_chunks), which a device overlaps.
  bool host_threads = false;
  // Tests probe words at a stride (BlastParams::probe_word) instead of every w-mer.
  bool probe_words = false;
  // Reads the per-sub-query vectors, which are then built even when the bit-sliced layout is chosen.
  bool needs_vectors = true;
  // The defaults of an HSP search test probe words (the short-word scan, BlastParams::probe_word) where that was
  // measured faster: on the CPU. Elsewhere only --scan-word asks for them (on an H200 the scan's stage 1a took
  // 2.3 s against 0.9 s for every w-mer: docs/cuda.md).
  bool scan_by_default = false;
};

// How the search has set stage 1a up: the resolved layout, exact filters, the stride of the tested words.
struct Stage1aSetup {
  Stage1aLayout layout = Stage1aLayout::vector;
  bool exact_filter = false;
  uint64_t stride = 1;
  // The layout as given (--layout), before the automatic choice: a device backend runs its bit-sliced kernel only
  // when it was asked for by name (not yet measured on a GPU: docs/cuda.md).
  Stage1aLayout requested = Stage1aLayout::automatic;
};

class Stage1aBackend {
 public:
  virtual ~Stage1aBackend() = default;
  virtual std::string name() const = 0;  // "cpu", or e.g. "cuda:0 NVIDIA H100 80GB HBM3 (132 SMs, 79.1 GiB)"
  virtual Stage1aCapabilities capabilities() const = 0;
  // The library backend underneath, if any (for its model profile: --auto-tune plans for that device).
  virtual const Backend* backend() const { return nullptr; }
  // Called once with the query's filters before any chunk; `filters` outlives the backend's use of them.
  virtual void prepare(const SubqueryFilters& filters, const Stage1aSetup& setup) = 0;
  virtual uint64_t run_chunk(const DbChunk& chunk, std::vector<Stage1aHit>& hits) = 0;
  // All chunks of a batch at once, so that a GPU backend overlaps their transfers and kernels; hits[i] and
  // wmers[i] are chunk i's. The default runs them one by one.
  virtual void run_chunks(const std::vector<DbChunk>& chunks, std::vector<std::vector<Stage1aHit>>& hits,
                          std::vector<uint64_t>& wmers) {
    for (size_t i = 0; i < chunks.size(); ++i) wmers[i] = run_chunk(chunks[i], hits[i]);
  }
};

// The production CPU stage 1a: the layouts of stage1a_cpu.hpp.
std::unique_ptr<Stage1aBackend> make_cpu_stage1a();
// A Stage1aBackend over a library Backend (backend/backend.hpp), e.g. make_backend("cuda", device).
std::unique_ptr<Stage1aBackend> adapt_stage1a_backend(std::unique_ptr<Backend> backend);
// name: "cpu", "auto" or "cuda" as for make_backend (backend/backend.hpp), whose errors it throws; the CPU
// backend when that gives none. `log` receives the line saying why "auto" stays on the CPU (nullptr: silent).
std::unique_ptr<Stage1aBackend> make_stage1a_backend(const std::string& name, int device, std::ostream* log);
// Valid w-mers (no invalid base, complete within the chunk) starting in the chunk at its stride: what the layouts
// count.
uint64_t count_chunk_wmers(const DbChunk& chunk);

}  // namespace bloomseq
