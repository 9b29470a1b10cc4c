#include "bloomseq/backend/backend.hpp"

#include "bloomseq/backend/cpu_reference.hpp"

#include <stdexcept>

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

void Backend::stage1a_bitsliced_stream(const BitslicedMatrix&, const ChunkSource&, const Stage1aSink&) {
  throw std::logic_error(name() + " backend has no bit-sliced stage 1a (ask has_bitsliced() first)");
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

class ReferenceBackend final : public Backend {
 public:
  std::string name() const override { return "reference"; }
  std::string description() const override { return "reference (single-threaded CPU oracle)"; }
  void stage1a(const SubqueryVectors& vectors, const DbChunk& chunk, std::vector<Stage1aHit>& hits) override {
    stage1a_reference(vectors, chunk, hits);
  }
  void classify(const FilterBank& bank, const ReadBatchView& reads, ClassifyHits& out) override {
    classify_reference(bank, reads, out);
  }
};

}  // namespace

std::unique_ptr<Backend> make_reference_backend() { return std::make_unique<ReferenceBackend>(); }

}  // namespace bloomseq
