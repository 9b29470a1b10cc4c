// Where a non-CPU stage-1a implementation plugs into the blast-bloom pipeline. The CUDA backend (compiled only
// with CUDA) registers a factory under "cuda"; the pipeline and the CLI see nothing but this plain C++ interface.
// A backend receives the same SubqueryVectors / DbChunk as the CPU layouts and must return the same hits, sorted
// by (db_pos, subquery), and the number of valid database w-mers it tested.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bloomseq/backend/stage1a.hpp"

namespace bloomseq {

class Backend;

class Stage1aBackend {
 public:
  virtual ~Stage1aBackend() = default;
  virtual std::string name() const = 0;  // e.g. "cuda (NVIDIA H100, device 0)"
  // The library backend underneath, if any (for its model profile: --auto-tune plans for that device).
  virtual const Backend* backend() const { return nullptr; }
  // Called once with the query's vectors before any chunk.
  virtual void prepare(const SubqueryVectors& vectors) = 0;
  virtual uint64_t run_chunk(const DbChunk& chunk, std::vector<Stage1aHit>& hits) = 0;
  // All chunks of a batch at once, so that a GPU backend overlaps their transfers and kernels; hits[i] and
  // wmers[i] are chunk i's. The default runs them one by one.
  virtual void run_chunks(const std::vector<DbChunk>& chunks, std::vector<std::vector<Stage1aHit>>& hits,
                          std::vector<uint64_t>& wmers) {
    for (size_t i = 0; i < chunks.size(); ++i) wmers[i] = run_chunk(chunks[i], hits[i]);
  }
};

// A Stage1aBackend over a library Backend (backend/backend.hpp), e.g. make_backend("cuda", device).
std::unique_ptr<Stage1aBackend> adapt_stage1a_backend(std::unique_ptr<Backend> backend);
// Valid w-mers (no invalid base, complete within the chunk) starting in the chunk: what the layouts count.
uint64_t count_chunk_wmers(const DbChunk& chunk);

struct Stage1aBackendFactory {
  std::string kind;                      // "cuda"
  std::function<bool(std::string& why)> available;  // false (with a reason) when no usable device answers
  std::function<std::unique_ptr<Stage1aBackend>(int device)> create;
};

// Registration (from a static initialiser in the backend's library, or explicitly by the app).
void register_stage1a_backend(const Stage1aBackendFactory& factory);
// nullptr when nothing of that kind was compiled in. "cuda" is built in whenever the CUDA backend is linked
// (backend/backend.hpp: cuda_compiled_in()).
const Stage1aBackendFactory* find_stage1a_backend(const std::string& kind);

}  // namespace bloomseq
