// Greedy gapped extension, as blastn -task megablast computes its alignments (Zhang, Schwartz,
// Wagner and Miller 2000; BLAST's BLAST_GreedyAlign and BLAST_GreedyGappedAlignment). Instead of scores it tracks
// the distance (mismatches + gap columns) and, for each distance d, the furthest-reaching point on every diagonal;
// with linear gaps of cost reward/2 - penalty per column an alignment's score is (columns of both sequences) x
// reward/2 - d x (reward - penalty), so the furthest-reaching point of each distance is the best-scoring one. The
// X-drop test compares each distance's best score with the best of the distance X/(reward - penalty) back.
// Odd rewards are doubled inside (with the penalty and X) so that reward/2 stays whole, as BLAST does. With affine
// gap costs the same scheme runs on distances that are costs (BLAST_AffineGreedyAlign).
// Plain C++, no I/O: the CPU stage 3 of `--task megablast`.
#pragma once
#include <cstdint>
#include <vector>

#include "bloomseq/blast/xdrop_gapped.hpp"

namespace bloomseq {

// Which pairs of letters match. Preliminary pass: the subject's blastn bases (always 0..3), so a query letter of
// 4 or more (N, other IUPAC codes) never matches. Final pass: true codes on both sides; only unambiguous equal
// bases match (BLAST's s_FindFirstMismatch on an unpacked subject).
struct GreedyAlignment {
  int64_t q_start = 0, q_end = 0, s_start = 0, s_end = 0;  // half-open, on the sequences given
  int64_t score = 0;  // in the caller's (undoubled) units
  int64_t distance = 0;
  // Score-only: BLAST's estimate of where the final alignment should start (the middle of the longest run of
  // matches the aligner met inside the alignment's box); with traceback: the start point itself.
  int64_t q_seed = 0, s_seed = 0;
  std::vector<GapOp> ops;  // traceback only: first column to last; gap_in_a = a subject letter against a gap
};

// Extends from (q_off, s_off) rightwards (that pair included) and leftwards (the letters before it), with X in
// raw score units of reward/penalty. With traceback the columns are those of BLAST's edit script after its gap
// reduction (s_ReduceGaps). Distances grow without a cap (BLAST doubles its cap until the extension converges,
// which gives the same alignment).
// Gap costs 0/0: linear gaps (BLAST_GreedyAlign); others: affine gaps, open + length x extend
// (BLAST_AffineGreedyAlign: the same scheme with distances that are costs).
GreedyAlignment greedy_gapped_align(const uint8_t* q, int64_t q_len, const uint8_t* s, int64_t s_len, int64_t q_off,
                                    int64_t s_off, int reward, int penalty, int gap_open, int gap_extend,
                                    int x_dropoff, bool traceback);

// One direction (BLAST_GreedyAlign, or BLAST_AffineGreedyAlign when a gap cost is not 0), for tests: the best
// distance (affine: its score too), letters used of each sequence, and with traceback the columns from the start
// point outwards, before any gap reduction. `reverse` reads both sequences leftwards from their ends. Costs in the
// greedy's own units (an odd reward already doubled, with everything else).
struct GreedyHalf {
  int64_t distance = 0;
  int64_t score = 0;  // affine only
  int64_t a_len = 0, b_len = 0;
  int64_t seed_a = 0, seed_b = 0, seed_len = 0;  // longest run of matches met (offsets from the start point)
  std::vector<GapOp> ops;                        // from the start point outwards (gap_in_a: a letter of b only)
};
GreedyHalf greedy_align_one_way(const uint8_t* a, int64_t a_len, const uint8_t* b, int64_t b_len, bool reverse,
                                int x_dropoff, int match_cost, int mismatch_cost, bool traceback, int gap_open = 0,
                                int gap_extend = 0);

}  // namespace bloomseq
