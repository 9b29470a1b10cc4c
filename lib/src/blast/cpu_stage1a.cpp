// The CPU backend of stage 1a: the layout chosen by the search, one chunk per call from its worker threads.
#include "bloomseq/blast/stage1a_backend.hpp"
#include "bloomseq/blast/stage1a_cpu.hpp"
#include "bloomseq/blast/subquery_vectors.hpp"

namespace bloomseq {
namespace {

class CpuStage1a final : public Stage1aBackend {
 public:
  std::string name() const override { return "cpu"; }
  Stage1aCapabilities capabilities() const override { return {true, true, false, true}; }
  void prepare(const SubqueryFilters& filters, const Stage1aSetup& setup) override {
    vectors_ = filters.vectors();
    matrix_ = filters.bitsliced();
    setup_ = setup;
    // The exact filters' key is the word itself: their scan tables are built once here, not per chunk.
    if (setup.exact_filter && setup.layout != Stage1aLayout::bitsliced && setup.layout != Stage1aLayout::paper_vector)
      tables_ = make_exact_scan_tables(vectors_, __builtin_ctzll(vectors_.m_bits) / 2);  // m = 4^p
  }
  uint64_t run_chunk(const DbChunk& chunk, std::vector<Stage1aHit>& hits) override {
    const uint64_t stride = setup_.stride;
    switch (setup_.layout) {
      case Stage1aLayout::bitsliced: return stage1a_bitsliced(matrix_, chunk, hits, stride);
      case Stage1aLayout::paper_vector: return stage1a_paper_vector(vectors_, chunk, hits, stride);
      default:
        return setup_.exact_filter ? stage1a_exact(tables_, chunk, hits, stride)
                                   : stage1a_vector_layout(vectors_, chunk, hits, stride);
    }
  }

 private:
  SubqueryVectors vectors_;
  BitslicedMatrix matrix_;
  Stage1aSetup setup_;
  ExactScanTables tables_;
};

}  // namespace

std::unique_ptr<Stage1aBackend> make_cpu_stage1a() { return std::make_unique<CpuStage1a>(); }

}  // namespace bloomseq
