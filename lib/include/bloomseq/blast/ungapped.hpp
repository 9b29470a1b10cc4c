// Stage 2: ungapped X-drop extension of exact seeds, as blastn does it (na_ungapped.c, exact form):
// extend left from the seed start one base at a time, keeping the best left end; then right from the seed start,
// keeping the best right end; a run stops when the running score falls X below the best seen since the last
// improvement. One extension per diagonal region: a seed that starts before the end of the previous extension on
// its diagonal is skipped.
#pragma once
#include <cstdint>
#include <vector>

#include "bloomseq/blast/huge_buffer.hpp"
#include "bloomseq/blast/nucleotide_score.hpp"

namespace bloomseq {

struct UngappedScoring {
  int reward = 1;
  int penalty = -2;
  int xdrop = 11;  // raw score units, positive
  // An ambiguity code (N) against anything: BLAST's nucleotide matrix gives a fully degenerate code
  // round((3 * penalty + reward) / 4), half away from zero: -1 for 1/-2, -2 for 2/-3.
  int ambiguous = -1;

  int pair(uint8_t a, uint8_t b) const { return nucleotide_score(a, b, reward, penalty, ambiguous); }
};

// The `ambiguous` score for a reward/penalty pair.
int ambiguous_score(int reward, int penalty);

struct UngappedExtension {
  uint64_t q_start = 0;  // 0-based, in the (possibly reverse-complemented) query strand
  uint64_t s_start = 0;  // 0-based, in the subject record
  uint64_t length = 0;
  int64_t score = 0;
};

// Extends the seed whose first base is q[q_pos] ~ s[s_pos]. Codes >= 4 (N) score as mismatches.
UngappedExtension extend_ungapped(const uint8_t* q, uint64_t q_len, const uint8_t* s, uint64_t s_len, uint64_t q_pos,
                                  uint64_t s_pos, const UngappedScoring& scoring);

// blastn's quick pre-screen (word size >= 11): the same X-drop extension, 4 bases at a time, starting at the first
// multiple of 4 (in subject-record coordinates) at or after the seed start; bases beyond the last whole group of 4
// on either side are not looked at. blastn extends base by base only when this score reaches 80% of the word-level
// cutoff, so a few borderline HSPs are never reported by blastn; reproducing the screen keeps the outputs equal.
// blastn runs the screen on its concatenated query (ConcatenatedQuery), not on one strand of one record: `q` may
// be that buffer, `q_pos` the seed's offset in it. Query codes above 3 are blastn's (14 = N, 15 = the sentinel
// between strands) and enter the 4-base group exactly as blastn packs them.
int64_t approximate_ungapped_score(const uint8_t* q, uint64_t q_len, const uint8_t* s, uint64_t s_len, uint64_t q_pos,
                                   uint64_t s_pos, const UngappedScoring& scoring);

// The query as blastn's ungapped pre-screen sees it: every record's plus strand, a sentinel, its reverse
// complement, a sentinel, records in input order. The 4-base screen does not stop at record or strand ends, so a
// seed near an end scores bases of the other strand (or the next record) there; base-by-base extensions do stop
// at the sentinel. Reproducing the layout keeps the screen's verdicts equal to blastn's.
// Neighbouring records are adjacent only within one of blastn's query batches, whose sizes blastn adapts to the
// hit counts of earlier batches; across records this layout assumes one batch (docs/blast-bloom.md).
struct ConcatenatedQuery {
  static constexpr uint8_t kN = 14;         // blastn's code for N; other IUPAC codes have theirs (blastna_of_code)
  static constexpr uint8_t kSentinel = 15;  // between strands
  std::vector<uint8_t> codes;    // ends with a sentinel; blastn's query length excludes it
  std::vector<uint64_t> offset;  // per query strand g = 2 * record + (minus ? 1 : 0)
  // A strand not searched (blastn -strand) is left out, as blastn leaves its context empty.
  void add(const std::vector<uint8_t>& plus, const std::vector<uint8_t>& minus, bool with_plus = true,
           bool with_minus = true);
};

// The cutoffs blastn applies while extending (BlastInitialWordParametersUpdate / BlastHitSavingParametersUpdate):
// hit = smallest score with E <= evalue in the query's effective search space; word = min(hit, smallest score
// with E <= 0.05 in a space of min(subject, 2 x query) x subject, subject = mean subject length);
// reduced = (int)(0.8 * word).
struct ExtensionCutoffs {
  int64_t hit = 1;
  int64_t word = 1;
  int64_t reduced = 0;
  int xdrop = 0;  // the ungapped X-drop in raw score (x_dropoff_init)
};
struct KarlinParams;
ExtensionCutoffs extension_cutoffs(const KarlinParams& kp, uint64_t query_length, double search_space,
                                   uint64_t mean_subject_length, double evalue);

// BLAST+ re-scores every ungapped HSP once all are found (Blast_HSPReevaluateWithAmbiguitiesUngapped): a left-to-
// right scan that restarts where the running sum turns negative (dropping the front part unless it already
// reached `cutoff`) and ends at the FIRST position where the best score is reached. The X-drop right extension
// only looks right of the seed, so a later seed on a diagonal can end where an equal score was already reached
// further left; the rescan trims it. Returns false when the rescored HSP falls below `cutoff` (BLAST deletes it).
bool reevaluate_ungapped(const uint8_t* q, const uint8_t* s, const UngappedScoring& scoring, int64_t cutoff,
                         UngappedExtension& ext);

// One extension per diagonal region (BLAST's diagonal table): seeds met in increasing subject position; a seed
// whose start lies before the end of the last extension on its diagonal is not extended. Positions are stream
// coordinates (increasing across subject records), so the table never needs clearing. Indexed by diagonal modulo a
// power of two larger than the query: diagonals that share a slot are more than a query length apart and cannot
// interfere when seeds arrive in subject order.
// Ends are stored as 32-bit offsets from `base_` (half the memory and cache misses of 64-bit positions); when an
// end would not fit, the table is rebased to the current seed, which keeps every comparison with later seeds.
class DiagonalTable {
 public:
  explicit DiagonalTable(uint64_t query_length);
  // slots() of a table for a query of this length.
  static uint64_t slots_for(uint64_t query_length);
  bool should_extend(uint64_t s_stream, uint64_t q_pos) const {
    return s_stream >= base_ + last_end_[(s_stream - q_pos) & mask_];
  }
  void record(uint64_t s_stream, uint64_t q_pos, uint64_t end_stream) {
    if (end_stream - base_ > UINT32_MAX) rebase(s_stream);
    last_end_[(s_stream - q_pos) & mask_] = uint32_t(end_stream - base_);
  }
  void prefetch(uint64_t s_stream, uint64_t q_pos) const { __builtin_prefetch(&last_end_[(s_stream - q_pos) & mask_]); }
  // The slot of a diagonal among slots() (a power of two). Seeds in different slots never interact: they may be
  // processed in any order as long as each slot sees its own seeds in subject order.
  uint64_t slot(uint64_t s_stream, uint64_t q_pos) const { return (s_stream - q_pos) & mask_; }
  uint64_t slots() const { return mask_ + 1; }
  // Faults in the pages of slots [first, first + count) (their contents unchanged).
  void touch(uint64_t first, uint64_t count);
  // Promises that every later seed lies at or after `first` and every later end at or before `last_end`, so that
  // seeds in [first, last_end) may come in any subject order per the rule above. Rebases now if needed; returns
  // false (nothing changed) when the range is too long for 32-bit ends, and then seeds must come in subject order.
  bool reserve_range(uint64_t first, uint64_t last_end);

 private:
  void rebase(uint64_t new_base);  // new_base <= every later seed position
  HugeBuffer<uint32_t> last_end_;
  uint64_t mask_ = 0;
  uint64_t base_ = 0;
};

// One region of a diagonal table (DiagonalTable's rule, the same slots) for a batch of whole records. Stage 2
// extends a region's seeds together, so each thread keeps one region's ends at a time, in a small array that stays
// in cache, instead of a table as long as the query (64 MB for both strands of E. coli, a DRAM miss per seed).
// Ends cannot stop seeds of later batches (those lie in later records, past every end); within a batch, stage 2
// runs on groups of chunks in stream order, and the ends later groups' seeds may meet are carried from one group
// to the next (`carry`, `restore`); every other slot is cleared after its region.
class DiagonalRegion {
 public:
  static constexpr unsigned kShift = 16;  // slots per region: 2^16 (256 KB of ends)
  // Ends are kept as offsets from `base`, the stream coordinate of the batch's first base (the batch must be shorter
  // than 2^32 bases); slots as in a DiagonalTable of slots_for(query length) = slot_mask + 1 slots.
  void start(uint64_t base, uint64_t slot_mask) {
    if (ends_.empty()) ends_.assign(size_t(1) << kShift, 0);
    base_ = base;
    mask_ = slot_mask & ((uint64_t(1) << kShift) - 1);
  }
  bool should_extend(uint64_t s_stream, uint64_t q_pos) const { return s_stream >= base_ + ends_[index(s_stream, q_pos)]; }
  void record(uint64_t s_stream, uint64_t q_pos, uint64_t end_stream) {
    ends_[index(s_stream, q_pos)] = uint32_t(end_stream - base_);
  }
  // Between calls of stage 2 on one batch (groups of chunks, in stream order), a region is set up again from the
  // ends that later seeds may still meet. `carry` clears a slot and keeps its end in `out` when it lies past
  // `later_from` (the first position a later seed may have); `restore` sets the slots kept.
  struct Carried {
    uint32_t slot, end;
  };
  void restore(const std::vector<Carried>& kept) {
    for (const Carried& c : kept) ends_[c.slot] = c.end;
  }
  void carry(uint64_t s_stream, uint64_t q_pos, uint64_t later_from, std::vector<Carried>& out) {
    carry_slot(index(s_stream, q_pos), later_from, out);
  }
  void carry(const std::vector<Carried>& kept, uint64_t later_from, std::vector<Carried>& out) {
    for (const Carried& c : kept) carry_slot(c.slot, later_from, out);
  }

 private:
  size_t index(uint64_t s_stream, uint64_t q_pos) const { return size_t((s_stream - q_pos) & mask_); }
  void carry_slot(size_t slot, uint64_t later_from, std::vector<Carried>& out) {
    const uint32_t end = ends_[slot];
    if (end == 0) return;  // cleared already (slots are shared by seeds)
    if (base_ + end > later_from) out.push_back(Carried{uint32_t(slot), end});
    ends_[slot] = 0;
  }
  std::vector<uint32_t> ends_;  // all 0 (no extension yet) between regions
  uint64_t base_ = 0, mask_ = 0;
};

}  // namespace bloomseq
