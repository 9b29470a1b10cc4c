#include "bloomseq/backend/backend.hpp"

#include "bloomseq/backend/cpu_reference.hpp"

namespace bloomseq {

void Backend::stage1a_stream(const SubqueryVectors& vectors, const ChunkSource& next, const Stage1aSink& emit) {
  DbChunk chunk;
  std::vector<Stage1aHit> hits;
  for (uint64_t i = 0; next(chunk); ++i) {
    hits.clear();
    stage1a(vectors, chunk, hits);
    emit(i, hits);
  }
}

void Backend::classify_stream(const FilterBank& bank, const BatchSource& next, const ClassifySink& emit) {
  ReadBatchView batch;
  ClassifyHits hits;
  for (uint64_t i = 0; next(batch); ++i) {
    classify(bank, batch, hits);
    emit(i, hits);
  }
}

namespace {

class CpuBackend final : public Backend {
 public:
  explicit CpuBackend(int threads) : threads_(threads) {}
  std::string name() const override { return "cpu"; }
  std::string description() const override { return "cpu (reference, " + std::to_string(threads_) + " thread(s))"; }
  void stage1a(const SubqueryVectors& vectors, const DbChunk& chunk, std::vector<Stage1aHit>& hits) override {
    stage1a_reference(vectors, chunk, hits);
  }
  void classify(const FilterBank& bank, const ReadBatchView& reads, ClassifyHits& out) override {
    classify_reference(bank, reads, out);
  }

 private:
  int threads_;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend(int threads) { return std::make_unique<CpuBackend>(threads < 1 ? 1 : threads); }

}  // namespace bloomseq
