// blastn's query splitting as it bears on seeding. A gapped search runs its preliminary stage chunk by chunk when a
// query batch holds two chunks or more (1,000,000 bases per chunk for -task blastn, 5,000,000 for megablast, 100 of
// overlap; CQuerySplitter), and gives each chunk the query's DUST masks cut to the chunk
// (TMaskedQueryRegions::RestrictToSeqInt). That cut ends each mask one base later than the mask itself (it stores
// an open end where an inclusive one is read), so in a split query a w-mer that starts right after a masked
// stretch is no seed either. Which w-mers seed then follows from the chunk layout below; this reproduces it.
//
// Batches: blastn reads its queries in batches of at most chunk - 1,000 bases (the first one of 5,000; a record
// that fills the batch ends it), so a batch holds two chunks only through a record of about a chunk or more, which
// ends its batch. Here each record is its own batch: exact for a record that starts its batch (a single query, the
// first record, one after another long one), not for a long record behind short ones in the same batch.
//
// Layout, as BLAST+ computes it for a batch of `total` bases: n = total / (chunk - overlap) chunks (integer
// division; not split when n <= 1), then chunk = (total + (n - 1) overlap) / n, plus one when n < chunk - overlap;
// chunk c spans [c (chunk - overlap), c (chunk - overlap) + chunk], both ends included, the last one to `total`.
// The record's part of chunk [S, E] is its bases [S, min(length, E)], and a mask [a, b] becomes [max(a, S),
// min(b + 1, to)] in it (to = min(length, E)) if max(a, S) <= min(b, to - 1). A w-mer seeds when it lies in some
// chunk's part and touches none of that chunk's masks.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "bloomseq/blast/dust.hpp"

namespace bloomseq {

constexpr uint64_t kBlastnQueryChunk = 1000000;     // -task blastn
constexpr uint64_t kMegablastQueryChunk = 5000000;  // -task megablast
constexpr uint64_t kQueryChunkOverlap = 100;

// The chunks [start, end] (both included) of queries of `total` bases, or one chunk [0, total] when not split.
std::vector<std::pair<uint64_t, uint64_t>> blastn_query_chunks(uint64_t total, uint64_t chunk_size,
                                                               uint64_t overlap = kQueryChunkOverlap);

// Which w-mer starts of a record of `length` bases with DUST `masks` may seed (bit p: the w-mer at p; cleared for
// the others) when it is searched in `chunks` (blastn_query_chunks of its length). With one chunk this is the plain
// rule: a w-mer seeds when it touches no mask.
std::vector<uint64_t> seeds_allowed_in_chunks(uint64_t length, const MaskIntervals& masks, int w,
                                              const std::vector<std::pair<uint64_t, uint64_t>>& chunks);

}  // namespace bloomseq
