// Parameters of the blast-bloom pipeline. Plain values so that a planner (the performance model) or the CLI can
// choose them; nothing here is derived behind the caller's back except where a field says "0 = automatic".
#pragma once
#include <cstdint>
#include <string>

#include "bloomseq/hash/h3.hpp"

namespace bloomseq {

// How stage 1a tests database w-mers against the sub-query vectors.
enum class Stage1aLayout {
  automatic,  // bit-sliced when there are many vectors, vector-by-vector otherwise
  vector,     // the paper's layout: one m-bit vector per sub-query, hashes shared across vectors
  bitsliced,  // rows = bit positions, columns = sub-queries: k row reads answer all sub-queries at once
  paper_vector,  // the papers' kernel: k hashes recomputed for every (w-mer, vector) test (baseline only)
};

// "auto" | "vector" | "bitsliced" (or "bit-sliced") | "paper-vector" (or "paper"), the names the model's layouts
// take too (model::parse_layout); UsageError otherwise.
Stage1aLayout parse_layout(const std::string& name);
const char* layout_name(Stage1aLayout layout);

struct BlastParams {
  int w = 11;                    // word size (1..32)
  uint64_t n_sub = 1000;         // sub-query length in bases (sub-queries overlap by w-1)
  int k = 6;                     // hash functions per vector
  uint64_t m_bits = 256 * 1024;  // bits per sub-query vector
  uint64_t seed = kDefaultH3Seed;
  Stage1aLayout layout = Stage1aLayout::automatic;
  int threads = 1;
  uint64_t chunk_bases = uint64_t(1) << 16;  // stage-1a/1b work unit (database bases per chunk)
  uint64_t batch_bases = uint64_t(64) << 20; // database records held in memory at once (whole records)
  int reward = 1;
  int penalty = -2;
  double xdrop_bits = 20.0;  // ungapped X-drop in bits (blastn -xdrop_ungap); 0: the ungapped cut-off score, as
                             // BLAST takes it when none is set (megablast's default)
  double evalue = 10.0;
  // blastn -max_target_seqs: the subjects reported per query, the best ones (0: all). blastn keeps a query's best
  // min(2N, N + 50) subjects by their preliminary alignments before the traceback (N without gaps), then the best
  // N by the final ones; so does BlastSearch::finish.
  uint64_t max_target_seqs = 0;
  // blastn -perc_identity: alignments with fewer identities are dropped; in a gapped search right after their
  // traceback, so that one dropped does not hide the ones it contains (0: off).
  double percent_identity = 0;
  // blastn -max_hsps: a query-subject pair's best N alignments (0: all); then -qcov_hsp_perc: those covering less
  // of the query, in percent as blastn rounds it, dropped (0: off). As s_FilterBlastResults, before the subjects
  // are ranked and cut to max_target_seqs.
  uint64_t max_hsps = 0;
  double qcov_hsp_perc = 0;
  // blastn -dbsize: the database length the E-values and cut-offs take instead of the subjects' bases (0: those);
  // blastn -searchsp: the effective search space of every query strand instead of the computed one (0: computed).
  // Both make E-values comparable with a search of a larger database.
  uint64_t db_length = 0;
  double search_space = 0;
  // blastn -strand: the query strands searched (bit 0 plus, bit 1 minus; 3 both).
  int strands = 3;
  // Gapped extension (blastn -task blastn): ungapped HSPs that reach the gap trigger are extended with gaps
  // (gapped_extension.hpp). Off: the ungapped HSPs themselves are reported (blastn -ungapped -sum_stats false).
  bool gapped = false;
  int gap_open = 5;              // blastn -gapopen
  int gap_extend = 2;            // blastn -gapextend
  double xdrop_gap_bits = 30.0;  // preliminary gapped X-drop (blastn -xdrop_gap)
  double xdrop_final_bits = 100.0;  // X-drop of the final alignment with traceback (blastn -xdrop_gap_final)
  double gap_trigger_bits = 27.0;   // ungapped score in bits that triggers a gapped extension
  // blastn -task megablast's extension: greedy, with linear gaps (gap_open = gap_extend = 0; greedy_gapped.hpp).
  bool greedy = false;
  // blastn's DUST (dust.hpp) on each query record, for seeding only, as blastn's default soft masking: a seed's
  // w-mer must lie outside every masked interval; extensions run over the masked bases.
  bool dust = false;
  // blastn -lcase_masking: the query's lower-case letters are masked as DUST's stretches are (seeding only).
  bool lcase_masking = false;
  // Each HSP carries its aligned letters (Hsp::qseq, sseq), for --outfmt's qseq and sseq columns.
  bool aligned_sequences = false;
  // Stage 1a normally tests every database w-mer (the paper's scheme; what stage-1a/1b outputs report). When only
  // HSPs are wanted, a shorter probe word of probe_word bases tested at every s-th database position only, s = w -
  // probe_word + 1, finds every exact w-mer match too (each contains one such probe), s times fewer tests; stage 1b
  // then recovers exactly the same seeds by extending each probe match along its diagonal (strided_seeds.hpp).
  // 0 = off. The Bloom vectors, sub-queries and stage-1a/1b statistics are then those of the probe word.
  int probe_word = 0;
  // The filters hold their word (probe_word, or w without one) exactly: m_bits = 4^word, k = 1 and the injective
  // H3 function (H3Family::injective), one bit per key, so stage 1a has no false positives. For short words only
  // (3 <= word <= 16; short_word_plan.hpp decides when it pays).
  bool exact_filter = false;

  // The word the filters and the stage-1b index hold: the probe word, or w.
  int filter_word() const { return probe_word > 0 ? probe_word : w; }

  // Throws UsageError naming the offending value.
  void validate() const;
};

// The probe word blast-bloom uses for HSP-only searches with word size w (0: test every w-mer): 16-mers, which
// match by chance about once per 2^32 / (2 x query length) probes, when that gives a stride of at least 5.
int default_probe_word(int w);

// The sub-query length the CPU pipeline uses when none is given (BlastParams::n_sub stays the papers' 1000, which
// the GPU kernel keeps). Fewer, longer sub-queries mean fewer bit-sliced columns per database w-mer at a higher FPR;
// stage 1b checks a hit with one lookup in the direct query index, but with probe words (probe_word > 0) it scans
// the named sub-query, so there the hits' cost grows with n_sub. Measured: docs/benchmarks.md.
uint64_t default_cpu_sub_query(int probe_word);

// What the automatic layout choice looks at: the real filters of a search.
struct LayoutShape {
  uint64_t query_bases = 0;  // all query records
  uint64_t n_sub = 0;        // sub-query length (bases)
  uint64_t m_bits = 0;
  int k = 0;
  int w = 0;                 // the filters' word (BlastParams::filter_word)
};

// The CPU layout actually used when `requested` may be automatic, from the real bit-sliced matrix size and this
// machine's cache sizes (the cost model's CPU profile): bit-sliced unless its matrix outgrows the last-level cache
// while the V vectors (m / 8 bytes each) fit in L2. With few sub-queries a bit-sliced row is a whole word for a few
// bits, so the matrix is 8 bytes x m while V vectors take V x m / 8.
Stage1aLayout resolve_layout(Stage1aLayout requested, const LayoutShape& shape);

}  // namespace bloomseq
