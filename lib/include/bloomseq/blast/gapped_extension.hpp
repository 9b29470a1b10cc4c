// Stage 3: gapped extension of one query strand against one subject record, as blastn -task blastn does it.
// Preliminary pass (BLAST_GetGappedScore): ungapped HSPs that reached the gap trigger, best first; one inside a
// gapped HSP already found (both ends in its query and subject ranges, score not higher) is skipped; the others
// are extended with gaps both ways from a point 3 bases into the seed, rounded up to a multiple of 4 in the
// subject, with X = min(xdrop_gap, ungapped score); results reaching `cutoff` are kept, and of those sharing a
// start or an end only the best. Final pass (Blast_TracebackFromHSPList): best first, skipping those inside a
// final alignment, each is aligned again with traceback and X = xdrop_final from a start point inside a run of
// matches (BlastGetStartForGappedAlignmentNucl); again one per start or end, then best first, one not inside a
// better one. E-values and the E-value cut-off are the caller's. With `greedy`, megablast's extension instead.
#pragma once
#include <cstdint>
#include <vector>

#include "bloomseq/blast/xdrop_gapped.hpp"

namespace bloomseq {

class SpeculationCrew;  // in_order_speculation.hpp

// An ungapped HSP that triggers a gapped extension. Coordinates on the query strand and subject record, 0-based.
struct GapTrigger {
  uint64_t q_seed = 0, s_seed = 0;  // the seed's first base (where the ungapped extension started)
  uint64_t q_start = 0, s_start = 0, length = 0;
  int64_t score = 0;
};

struct GappedHsp {
  uint64_t q_start = 0, q_end = 0, s_start = 0, s_end = 0;  // half-open, on the query strand and subject record
  int64_t score = 0;
  uint64_t align_length = 0;  // columns, gaps included
  uint64_t identities = 0;
  uint64_t mismatches = 0;
  uint64_t gap_opens = 0;
  std::vector<GapOp> ops;  // the alignment's columns, first to last: only with GappedExtensionParams::keep_ops
};

struct GappedExtensionParams {
  GappedScoring scoring;
  int xdrop_gap = 0;    // raw
  int xdrop_final = 0;  // raw
  int64_t cutoff = 0;   // preliminary gapped score needed to keep an alignment
  bool round_down = false;  // E-values count an odd score as the even one below (the 2/-n tables)
  // blastn -task megablast: both passes extend greedily with linear gaps (greedy_gapped.hpp; gap costs in `scoring`
  // unused), from the middle of the ungapped HSP and then from the start point the preliminary pass estimated;
  // every final alignment is rescored with BLAST's matrix (its greedy score ignores ambiguity codes), and the
  // containment tests use megablast's 6 diagonals instead of 50.
  bool greedy = false;
  // blastn -perc_identity (0: off): a final alignment with identities * 100 < columns * percent_identity is
  // dropped where blastn's traceback drops it (Blast_HSPTest): right after it is traced (before it can contain
  // later ones), and among the rescored ones after the common-endpoint cuts.
  double percent_identity = 0;
  bool keep_ops = false;  // the results carry their columns (GappedHsp::ops), for the qseq and sseq columns
};

// How many extensions ran, and how many of them on several threads were found covered by an earlier result
// when their turn came (in_order_speculation.hpp).
struct GappedExtensionStats {
  uint64_t preliminary = 0, preliminary_wasted = 0;
  uint64_t final = 0, final_wasted = 0;
  uint64_t final_joined = 0;  // final alignments that took an earlier one's end and path (AlignmentJoins)
  uint64_t postponed = 0;     // candidates not computed ahead beside a long alignment (in_order_speculation.hpp)
  // The best score of the preliminary alignments kept for the traceback (-1: none): what blastn ranks the subject by
  // when it keeps the best subjects of a query before the traceback (max_target_seqs).
  int64_t best_preliminary_score = -1;
};

// `triggers` in any order. Results ordered best first (BLAST's score order). With several threads both passes
// extend later candidates while earlier ones are still being extended and decide them in order: the result is
// the one-thread result, whatever the thread count. `s_true` (default: s): the subject's true codes where s holds
// blastn's bases for its ambiguity codes (subject_bases.hpp); the preliminary pass reads s, the final one s_true.
// `s_true_iupac`: s_true holds IUPAC codes other than N; `q_iupac`: q does (QuerySet::true_codes;
// nucleotide_score.hpp). `crew`: both passes run on the calling thread and on the crew's idle threads (`threads`
// is then unused; in_order_speculation.hpp).
std::vector<GappedHsp> extend_gapped(const uint8_t* q, uint64_t q_len, const uint8_t* s, uint64_t s_len,
                                     std::vector<GapTrigger> triggers, const GappedExtensionParams& params,
                                     int threads = 1, GappedExtensionStats* stats = nullptr,
                                     const uint8_t* s_true = nullptr, bool s_true_iupac = false,
                                     bool q_iupac = false, SpeculationCrew* crew = nullptr);

}  // namespace bloomseq
