// The CPU reference for both problems: straightforward, single-threaded, the definition the other backends
// (CPU layouts, CUDA kernels, their emulation) must reproduce bit for bit.
#pragma once
#include <vector>

#include "bloomseq/backend/classify.hpp"
#include "bloomseq/backend/stage1a.hpp"

namespace bloomseq {

// Appends the chunk's hits, sorted by (db_pos, subquery). A w-mer is complete only inside codes[0 .. n).
void stage1a_reference(const SubqueryVectors& vectors, const DbChunk& chunk, std::vector<Stage1aHit>& hits);

// Fills `out` (reset to the batch's layout) with every (read, filter) frame hit.
void classify_reference(const FilterBank& bank, const ReadBatchView& reads, ClassifyHits& out);

}  // namespace bloomseq
