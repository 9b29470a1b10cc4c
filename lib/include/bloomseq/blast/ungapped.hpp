// Stage 2: ungapped X-drop extension of exact seeds, as blastn does it (na_ungapped.c, exact form):
// extend left from the seed start one base at a time, keeping the best left end; then right from the seed start,
// keeping the best right end; a run stops when the running score falls X below the best seen since the last
// improvement. One extension per diagonal region: a seed that starts before the end of the previous extension on
// its diagonal is skipped.
#pragma once
#include <cstdint>
#include <vector>

namespace bloomseq {

struct UngappedScoring {
  int reward = 1;
  int penalty = -2;
  int xdrop = 11;  // raw score units, positive
};

struct UngappedExtension {
  uint64_t q_start = 0;  // 0-based, in the (possibly reverse-complemented) query strand
  uint64_t s_start = 0;  // 0-based, in the subject record
  uint64_t length = 0;
  int64_t score = 0;
};

// Extends the seed whose first base is q[q_pos] ~ s[s_pos]. Codes >= 4 (N) score as mismatches.
UngappedExtension extend_ungapped(const uint8_t* q, uint64_t q_len, const uint8_t* s, uint64_t s_len, uint64_t q_pos,
                                  uint64_t s_pos, const UngappedScoring& scoring);

// BLAST+ re-scores every ungapped HSP once all are found (Blast_HSPReevaluateWithAmbiguitiesUngapped): a left-to-
// right scan that restarts where the running sum turns negative (dropping the front part unless it already
// reached `cutoff`) and ends at the FIRST position where the best score is reached. The X-drop right extension
// only looks right of the seed, so a later seed on a diagonal can end where an equal score was already reached
// further left; the rescan trims it. Returns false when the rescored HSP falls below `cutoff` (BLAST deletes it).
bool reevaluate_ungapped(const uint8_t* q, const uint8_t* s, const UngappedScoring& scoring, int64_t cutoff,
                         UngappedExtension& ext);

// A seed on one strand of one query against one subject record (positions of the w-mer's first base).
struct DiagonalSeed {
  uint64_t q_pos;  // in the strand's coordinates
  uint64_t s_pos;
};

// Applies the one-extension-per-diagonal rule to seeds of one (query strand, subject) pair, in BLAST's order
// (increasing subject position along each diagonal). `seeds` is reordered. Calls keep(ext) for every extension.
template <class Keep>
void extend_diagonals(std::vector<DiagonalSeed>& seeds, const uint8_t* q, uint64_t q_len, const uint8_t* s,
                      uint64_t s_len, const UngappedScoring& scoring, Keep&& keep);

}  // namespace bloomseq

#include "bloomseq/blast/ungapped_impl.hpp"
