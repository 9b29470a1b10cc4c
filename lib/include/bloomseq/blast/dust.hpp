// blastn's low-complexity filter (-dust, on by default): the symmetric DUST of Morgulis et al. (J. Comput. Biol.
// 2006), as BLAST+ runs it on each query record (level 20, window 64, linker 1).
//
// Score of a stretch of l triplets (overlapping 3-mers): sum over triplet values t of c_t (c_t - 1) / 2, c_t the
// count of t. A stretch is low-complexity when 10 x score > level x (l - 1); a "perfect" interval is one whose
// score per (l - 1) is at least that of every perfect interval inside it. Every window of `window` bases is
// searched for perfect intervals that end at its last triplet (skipping suffixes that Proposition 2 of the paper
// rules out: those where no triplet occurs more than level / 5 times); the perfect intervals that leave the window
// become masked, and masked intervals at most `linker` bases apart are merged. A window holding a single triplet
// value (a homopolymer run) is masked whole and slid without searching, and the search starts afresh behind such a
// run and after the end of the record, as in BLAST+, whose output this reproduces interval for interval (E. coli,
// S. suis, Klebsiella, lambda, the bee viruses: dustmasker's intervals). An N is read as BLAST+ reads it, a base
// drawn from the toolkit's fixed-seed generator each time the letter is read (DustN::blast_draw), so a stretch with
// Ns is masked as blastn masks it; other ambiguity codes count as A, as in BLAST+.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

namespace bloomseq {

// How an N (kInvalidBase) is read: as BLAST+ reads it, or as A (the symmetric DUST definition on a fixed sequence,
// which the brute-force tests check).
enum class DustN { blast_draw, as_a };

struct DustParams {
  int level = 20;
  int window = 64;
  int linker = 1;
  DustN n_bases = DustN::blast_draw;
};

using MaskIntervals = std::vector<std::pair<uint64_t, uint64_t>>;  // [first, last], inclusive, increasing

// Masked intervals of one record's codes[0, n) (0..3 bases, kInvalidBase an N, anything else counts as A):
// [first, last], 0-based, inclusive, increasing and disjoint.
MaskIntervals dust_intervals(const uint8_t* codes, uint64_t n, const DustParams& p = {});

}  // namespace bloomseq
