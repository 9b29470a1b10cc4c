// The CPU backend of stage 1a: the layout chosen by the search, one chunk per call from its worker threads.
#include "bloomseq/blast/stage1a_backend.hpp"
#include "bloomseq/blast/stage1a_cpu.hpp"
#include "bloomseq/blast/subquery_vectors.hpp"

namespace bloomseq {
namespace {

class CpuStage1a final : public Stage1aBackend {
 public:
  std::string name() const override { return "cpu"; }
  Stage1aCapabilities capabilities() const override { return {true, true, false}; }
  void prepare(const SubqueryFilters& filters, const Stage1aSetup& setup) override {
    vectors_ = filters.vectors();
    matrix_ = filters.bitsliced();
    setup_ = setup;
  }
  uint64_t run_chunk(const DbChunk& chunk, std::vector<Stage1aHit>& hits) override {
    const uint64_t stride = setup_.stride;
    switch (setup_.layout) {
      case Stage1aLayout::bitsliced: return stage1a_bitsliced(matrix_, chunk, hits, stride);
      case Stage1aLayout::paper_vector: return stage1a_paper_vector(vectors_, chunk, hits, stride);
      default:
        return setup_.exact_filter ? stage1a_exact(vectors_, chunk, hits, stride)
                                   : stage1a_vector_layout(vectors_, chunk, hits, stride);
    }
  }

 private:
  SubqueryVectors vectors_;
  BitslicedMatrix matrix_;
  Stage1aSetup setup_;
};

}  // namespace

std::unique_ptr<Stage1aBackend> make_cpu_stage1a() { return std::make_unique<CpuStage1a>(); }

}  // namespace bloomseq
