// Karlin-Altschul parameters of gapped blastn scores: the values BLAST+ tabulates (blast_stat.c) for each
// reward/penalty pair and its supported gap costs, with BLAST's rules around the table: reward and penalty are
// reduced by their gcd (gap costs scaled and lambda divided to match), gap costs at least as stringent as the
// largest tabulated ones use the ungapped values, anything else is refused as blastn refuses it.
#pragma once

#include <string>

#include "bloomseq/blast/karlin.hpp"

namespace bloomseq {

struct GappedKarlin {
  KarlinParams params;      // lambda, K, log K, H, alpha, beta (alpha and beta: BLAST's length adjustment)
  bool round_down = false;  // E-values of odd scores use the next lower even score (the 2/-n tables)
};

// Throws UsageError naming the supported gap costs when the combination is not supported. `ungapped` supplies
// the values used beyond the table.
// Whether blastn accepts the reward/penalty pair at all (s_GetNuclValuesArray: the pair reduced by its gcd has a
// table), and those pairs as text ("1/-1 1/-2 ...").
bool blastn_supports_scores(int reward, int penalty);
std::string blastn_supported_scores();

GappedKarlin gapped_karlin(int reward, int penalty, int gap_open, int gap_extend, const KarlinParams& ungapped);

}  // namespace bloomseq
