// The bases blastn reads where a subject sequence has ambiguity codes. blastn packs a subject given as FASTA
// (-subject) two bits a base, each ambiguity code replaced by a pseudo-random base that the code allows, and it
// seeds, extends without gaps and computes its preliminary gapped alignments on those bases; only the final
// (traceback) alignment, its rescoring and the identities read the true codes. The random bases come from the NCBI
// toolkit's lagged Fibonacci generator (lags 33 and 13, modulus 2^32, the low bit dropped) seeded with the record's
// length, one draw per ambiguous position from the record's start: N (or any code allowing all four bases) takes the
// draw's two low bits, a code allowing two or three bases the (draw mod count)-th of them in the order A, C, G, T.
// blast-bloom does the same when it reads a database for HSPs (DatabaseReader::blastn_subject_bases), so its
// seeds and extensions are blastn's, and keeps where the ambiguity codes were and which (DbBatch::ambiguous) for the
// final stage, whose true codes are kInvalidBase for N and 16 + the allowed bases for the other IUPAC codes
// (nucleotide_score.hpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace bloomseq {

// Positions [begin, end) whose true code is `code` (kInvalidBase: N; 16 + bits: another IUPAC code).
struct AmbiguousRun {
  uint64_t begin = 0, end = 0;
  uint8_t code = 4;
};

// The NCBI toolkit's CRandom (LFG) with a seed: the same sequence of 31-bit draws.
class LaggedFibonacci {
 public:
  explicit LaggedFibonacci(uint32_t seed);
  uint32_t next();

 private:
  uint32_t state_[33];
  int j_ = 12, k_ = 32;
};

// The bases of one subject record's ambiguous positions, in order from its start.
class SubjectBaseResolver {
 public:
  explicit SubjectBaseResolver(uint64_t record_length) : random_(uint32_t(record_length)) {}
  // The base (code 0..3) for the next ambiguous position, whose character is `c` (any IUPAC code, either case;
  // anything else counts as N).
  uint8_t base_for(char c);

 private:
  LaggedFibonacci random_;
};

// The true code of a character that is not a base (either case): kInvalidBase for N (and anything else that
// allows all four bases), 16 + the allowed bases for the other IUPAC codes.
uint8_t true_ambiguity_code(char c);

// Encodes n characters of record text into out[0, n): bases as base_code; each other character replaced by the
// resolver's base, its position (`at` + its index) and true code added to `runs` (sorted; adjacent positions with the
// same code join a run).
void encode_subject_text(const char* s, size_t n, uint8_t* out, SubjectBaseResolver& resolver, uint64_t at,
                         std::vector<AmbiguousRun>& runs);
// The same for codes already decoded (a .2bit record's N blocks are kInvalidBase): each kInvalidBase is an N.
void resolve_subject_codes(uint8_t* codes, size_t n, SubjectBaseResolver& resolver, uint64_t at,
                           std::vector<AmbiguousRun>& runs);

// Whether runs meeting [from, to) hold IUPAC codes other than N.
bool any_iupac(const std::vector<AmbiguousRun>& runs, uint64_t from, uint64_t to);

// The true codes of [from, from + n) of a code array whose ambiguous positions are `runs` (sorted, same
// coordinates): a pointer into `codes` where no run meets the range, else into `buffer`, a copy with the runs' true
// codes at those positions.
const uint8_t* true_subject_codes(const uint8_t* codes, uint64_t from, uint64_t n,
                                  const std::vector<AmbiguousRun>& runs, std::vector<uint8_t>& buffer);

}  // namespace bloomseq
