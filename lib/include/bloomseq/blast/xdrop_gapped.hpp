// One-directional gapped X-drop alignment with affine gaps, as BLAST's semi-gapped extension computes it
// (Blast_SemiGappedAlign for the score, ALIGN_EX for the traceback): the best-scoring alignment of a prefix of A
// with a prefix of B, both read from the extension's start point outwards, where a gap of length L costs
// open + L * extend. Row a (letters of A) is computed over the window of B columns that has not yet dropped more
// than X below the best score seen; the window's bookkeeping (including which cells keep stale gap scores when
// they drop out) follows BLAST so that ties and borderline cells resolve as blastn resolves them.
// Plain C++: the DP core for the CPU stage 3; no I/O.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "bloomseq/blast/nucleotide_score.hpp"

namespace bloomseq {

// A strided view of letters: letter k (1-based, k = 1 is the letter next to the start point) is base[(k - 1) * step].
// step = -1 reads a sequence leftwards from the start point.
struct LetterRun {
  const uint8_t* base = nullptr;
  int64_t step = 1;
  int64_t length = 0;  // letters available
  bool iupac = false;  // may hold IUPAC codes other than N (16 + bits, nucleotide_score.hpp): a subject's true codes
  uint8_t at(int64_t k) const { return base[(k - 1) * step]; }
};

struct GappedScoring {
  int reward = 2;
  int penalty = -3;
  int ambiguous = -2;  // N against anything (BLAST's nucleotide matrix for a fully degenerate code); nucleotide_score.hpp
  int gap_open = 5;
  int gap_extend = 2;
  int pair(uint8_t a, uint8_t b) const { return nucleotide_score(a, b, reward, penalty, ambiguous); }
};

// Alignment operations, from the start point outwards.
enum class GapOp : uint8_t {
  substitution,  // one letter of A against one of B
  gap_in_a,      // a letter of B against a gap
  gap_in_b,      // a letter of A against a gap
};

struct XdropAlignment {
  int score = 0;
  int64_t a_end = 0;  // letters of A used
  int64_t b_end = 0;  // letters of B used
  std::vector<GapOp> ops;  // with traceback only: from the start point outwards
};

// Traced alignments that later ones may join. In a self-comparison a repeat a few dozen diagonals off the
// self-match has a final alignment that bridges onto it and follows it to its end: as long as the genome, and
// computed again for every such repeat (most of a 1-Mbase slice's traceback cells against its genome). The DP of
// an alignment whose window, relative to its best score, becomes at some row what an alignment already traced over
// the same letters had at that row evolves exactly as that one did from there on (the recurrence reads only the
// letters and the window's scores relative to the best), so its end, score and path from that row on are that one's,
// shifted: they are taken instead of computed, and the result is the same. Long traced alignments keep the window
// of every 64th row for this. Shared by the threads of one stage-3 work unit (thread-safe); an alignment may join
// only one that was registered complete, so the result does not depend on the threads' timing.
class AlignmentJoins {
 public:
  AlignmentJoins();
  ~AlignmentJoins();
  AlignmentJoins(const AlignmentJoins&) = delete;
  AlignmentJoins& operator=(const AlignmentJoins&) = delete;
  uint64_t joined() const;  // alignments that took another's end and path

  struct Impl;
  Impl& impl() { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

// Score-only (ops stay empty) or with traceback. x_dropoff below open + extend is raised to it, as BLAST does.
// With `joins` (traceback only), the alignment may join one registered there, and registers itself when long.
XdropAlignment xdrop_gapped_align(const LetterRun& a, const LetterRun& b, const GappedScoring& scoring, int x_dropoff,
                                  bool traceback, AlignmentJoins* joins = nullptr);

// Rows are computed in vectors where the CPU has AVX2, one cell at a time otherwise; both give the same
// alignments. For tests and benchmarks: false makes every row scalar; true restores the CPU's choice. Returns
// whether vector rows run now.
bool xdrop_vector_rows(bool enabled);

}  // namespace bloomseq
