// Stage 1b for a strided probe (BlastParams::probe_word): stage 1a tested only the probe words (p bases) that start
// at database stream coordinates t with t % s == 0, s = w - p + 1. Every exact w-mer match contains exactly one such
// probe (its start t(x) = the first multiple of s at or after the match start x lies in [x, x + s - 1], and the
// probe [t, t + p) then lies inside [x, x + w)). So each verified probe match at t is extended base by base along
// its diagonal, up to s - 1 bases to the left and w bases to the right, and yields exactly the w-mer matches x in
// (t - s, t] that contain it: every seed is found once, from t(x). Seeds come out in the order verify_hits gives:
// by database position, then query record, query position and strand; t(x) grows with x, so taking the probes in
// order keeps it.
#pragma once
#include <cstdint>
#include <vector>

#include "bloomseq/backend/stage1a.hpp"
#include "bloomseq/blast/database.hpp"
#include "bloomseq/blast/stage1b.hpp"
#include "bloomseq/blast/subquery_vectors.hpp"
#include "bloomseq/blast/word_presence.hpp"

namespace bloomseq {

// `hits`: the stage-1a hits of one chunk (probes, sorted by (db_pos, sub-query)); `probe_filters`: the filters and
// index of the probe words; `queries`: the plus-strand codes of every query record. Appends the w-mer seeds and
// counts true/false positives of the probes per (probe) sub-query. With `presence` (the query's w-mers, not empty; only
// with exact probe filters), probes that lie in no query w-mer are counted and dropped before the index is read: the seeds are the same.
void seeds_from_probes(const std::vector<Stage1aHit>& hits, const DbBatch& batch,
                       const std::vector<std::vector<uint8_t>>& queries, int w, int probe_word,
                       const SubqueryFilters& probe_filters, std::vector<Seed>& seeds, std::vector<uint64_t>& tp,
                       std::vector<uint64_t>& fp, const WordPresence* presence = nullptr);

}  // namespace bloomseq
