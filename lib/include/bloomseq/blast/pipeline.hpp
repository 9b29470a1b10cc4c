// The blast-bloom pipeline on the CPU: query -> sub-query Bloom vectors; for every database batch: stage 1a
// (all db w-mers x all vectors, chunks over threads), stage 1b (exact verification -> seeds, TP/FP per
// sub-query), stage 2 (ungapped X-drop extension, Karlin-Altschul E-values with BLAST's length adjustment).
#pragma once
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "bloomseq/blast/database.hpp"
#include "bloomseq/blast/gapped_extension.hpp"
#include "bloomseq/blast/gapped_karlin.hpp"
#include "bloomseq/blast/karlin.hpp"
#include "bloomseq/blast/params.hpp"
#include "bloomseq/blast/record_spill.hpp"
#include "bloomseq/blast/stage1a_backend.hpp"
#include "bloomseq/blast/stage1b.hpp"
#include "bloomseq/blast/subquery_vectors.hpp"
#include "bloomseq/blast/tabular.hpp"
#include "bloomseq/blast/ungapped.hpp"
#include "bloomseq/blast/word_presence.hpp"

namespace bloomseq {

struct QuerySet {
  std::vector<std::string> names;
  std::vector<std::vector<uint8_t>> codes;     // plus strand, 2-bit codes (kInvalidBase for N/IUPAC)
  std::vector<std::vector<uint8_t>> rc_codes;  // reverse complement
  // What the extensions score, as blastn scores its query's BLASTNA letters: empty for a record without IUPAC codes
  // other than N (codes and rc_codes serve), else its codes with each such code as 16 + the bases it allows
  // (nucleotide_score.hpp), and their reverse complement. Such codes never seed (codes holds kInvalidBase there).
  std::vector<std::vector<uint8_t>> true_codes, true_rc_codes;
  // The runs of lower-case letters of each record, [first, last] (for --lcase-masking; empty when none).
  std::vector<std::vector<std::pair<uint64_t, uint64_t>>> lowercase;
  void add(const std::string& name, const std::string& seq);
  size_t size() const { return names.size(); }
  bool has_iupac(size_t record) const { return !true_codes[record].empty(); }
  // Strand g = 2 * record + (minus ? 1 : 0) as the extensions read it.
  const std::vector<uint8_t>& scored_strand(size_t g) const {
    const size_t r = g / 2;
    if (has_iupac(r)) return (g & 1) ? true_rc_codes[r] : true_codes[r];
    return (g & 1) ? rc_codes[r] : codes[r];
  }
};

// One HSP (ungapped, or gapped with --gapped). Coordinates are 0-based half-open on the plus strands of query and
// subject.
struct Hsp {
  uint32_t query = 0;
  uint32_t subject = 0;
  uint8_t strand = 0;  // 1: the query's reverse complement aligns to the subject's plus strand
  uint64_t q_start = 0, q_end = 0, s_start = 0, s_end = 0;
  int64_t score = 0;
  uint64_t identities = 0;
  uint64_t align_length = 0;  // columns (gaps included)
  uint64_t gaps = 0;          // gap columns
  uint64_t gap_opens = 0;
  double evalue = 0;
  double bits = 0;
  // The aligned letters, '-' for gaps, as blastn's qseq and sseq show them (the query's plus strand against the
  // subject's strand that aligns to it): only with BlastParams::aligned_sequences.
  std::string qseq, sseq;
};

struct BlastStats {
  uint64_t db_bases = 0, db_records = 0;
  uint64_t db_wmers = 0;          // valid database w-mers tested in stage 1a
  uint64_t membership_tests = 0;  // db_wmers x sub-query vectors
  uint64_t stage1a_hits = 0;
  uint64_t true_positives = 0, false_positives = 0;
  uint64_t seeds = 0, extensions = 0, hsps = 0;
  uint64_t gap_triggers = 0;  // ungapped HSPs handed to stage 3
  // Gapped extensions (preliminary and final) run in stage 3; of those, extensions on several threads whose
  // results an earlier alignment turned out to contain (computed in vain: see in_order_speculation.hpp).
  uint64_t gapped_extensions = 0, gapped_extensions_wasted = 0;
  uint64_t gapped_alignments_joined = 0;  // final alignments that took an earlier one's end and path
  uint64_t gapped_extensions_postponed = 0;  // not computed ahead beside a long alignment (threads > 1)
  uint64_t query_chunks = 1;  // with --dust: the most chunks blastn splits a query record into, masks or not
                              // (query_chunks.hpp)
  uint64_t dust_masked_wmers = 0;  // query w-mers (plus strand) that touch a DUST interval: no seeds there
  bool batches_in_parallel = false;  // threads took whole batches (search_batches), not chunks of each batch
  double seconds_build = 0, seconds_stage1a = 0, seconds_stage1b = 0, seconds_stage2 = 0, seconds_stage3 = 0;
  std::vector<uint64_t> tp, fp;  // per sub-query
};

// The query records a search looks for (a query shard): [begin, end). The others stay in the QuerySet, as
// blastn's ungapped pre-screen reads the concatenated query across record ends; they get no sub-queries.
struct QueryScope {
  size_t begin = 0, end = SIZE_MAX;
};

class BlastSearch {
 public:
  // `totals`: the whole database's size (for the E-values); batches must come in stream order. Stage 1a runs on
  // `stage1a` (stage1a_backend.hpp), the CPU layouts when null.
  BlastSearch(QuerySet queries, const BlastParams& params, DbTotals totals,
              std::unique_ptr<Stage1aBackend> stage1a = nullptr, QueryScope scope = {});

  // Optional observers of the intermediate stages (called once per batch, hits/seeds in stream order).
  std::function<void(const DbBatch&, const std::vector<Stage1aHit>&)> on_stage1a;
  // Called with the database positions (w-mer starts) each chunk covers once stages 1a and 1b are done with it,
  // from the worker threads (it must be thread-safe): progress inside a batch.
  std::function<void(uint64_t)> on_chunk_done;
  std::function<void(const DbBatch&, const std::vector<Seed>&)> on_seeds;
  bool run_stage2 = true;

  // A batch, or the next window of a record searched in windows (DbBatch::window): a record's windows come one
  // after the other, in order, and give the output of the whole record in one batch. Stages 1a, 1b and 2 run on
  // each window's owned w-mer starts (the seeds are the whole record's, in the same order, as stage 1a's stride and
  // stream coordinates are the record's); stage 2 extends a seed no further than window_margin() bases either way,
  // so every extension reads the same bases as in the whole record. Stage 3 runs once the last window is through
  // stage 2, on all of the record's gap triggers, over the whole record read back from a file (record_spill.hpp).
  void search(const DbBatch& batch);
  // Whole batches on each of the search's threads, every thread with its stage-2 state of its own, instead of all
  // threads inside each batch: no thread waits for the others between the loops of a batch (a dozen per 2-Mbase
  // batch of a short query's scan), so a thread slowed by another process holds up only its own batches. The
  // output is search()'s: batches hold whole records, an extension never ends past its record, and a diagonal
  // table's entries from earlier records never stop a later seed, so any record may go to any thread as long as
  // each thread sees its batches in stream order. `next(batch)` reads the next batch (false at the end); it is
  // called under a lock, in stream order. Only when batches_in_parallel(batch_bases).
  void search_batches(const std::function<bool(DbBatch&)>& next);
  // True when search_batches may read batches of `batch_bases`: several threads on the CPU backend, HSPs wanted
  // and no observer, no record searched in windows, and at least four batches per thread.
  bool batches_in_parallel(uint64_t batch_bases) const;
  // The context a window needs on either side of its owned w-mer starts (DbBatch::window): stage 2 reads a
  // subject only within a query's reach of the seed (extend_ungapped: the seed's query offset to the left, the rest
  // of the query strand to the right; blastn's pre-screen likewise in the concatenated query, all records and both
  // strands, from the next multiple of 4), and stage 1b reads at most w bases either side of a probe or w-mer.
  uint64_t window_margin() const;
  // Forgets the batches searched so far (their subjects, seeds, extensions and statistics) and keeps the filters:
  // --auto-tune's check searches a sample with the search it then runs (tune_trial.hpp).
  void restart();
  // Hands the filters to the stage-1a backend (a bit-sliced matrix, device uploads); the first search() does it
  // when not done before.
  void prepare_stage1a();
  // A query strand's preliminary alignments against one subject, by their best: what blastn ranks subjects by
  // before its traceback (max_target_seqs).
  struct SubjectRank {
    uint32_t query = 0, subject = 0;  // subject: the global record index
    double evalue = 0;
    int64_t score = 0;
  };
  // All HSPs with E <= cutoff, in BLAST's report order: queries in input order, subjects by best E-value,
  // HSPs by score.
  std::vector<Hsp> finish();
  // Sorts HSPs into that order.
  void order_for_report(std::vector<Hsp>& hsps) const;

  TabularHit tabular(const Hsp& h) const;
  // For the qcovs column: per HSP of `hsps` (report order), the query bases that its subject's alignments cover
  // together (the union of their query ranges).
  static std::vector<uint64_t> subject_coverage(const std::vector<Hsp>& hsps);
  const BlastStats& stats() const { return lane_.stats; }
  const SubqueryFilters& filters() const { return filters_; }
  const QuerySet& queries() const { return queries_; }
  Stage1aLayout layout() const { return layout_; }
  const Stage1aBackend& stage1a() const { return *stage1a_; }
  const BlastParams& params() const { return params_; }
  const std::vector<std::string>& subject_names() const { return subject_names_; }
  // Query strand g's (2 * query + strand) statistics as blastn reports them: the ungapped Karlin-Altschul values
  // from its composition, those of its E-values (the gapped table's with gaps) and its effective search space.
  const KarlinParams& strand_ungapped_params(size_t g) const { return strand_ungapped_params_[g]; }
  const KarlinParams& strand_evalue_params(size_t g) const { return strand_evalue_params_[g]; }
  double strand_search_space(size_t g) const { return strand_search_space_[g]; }
  // Query record q's masked bases ([first, last], plus strand; DUST and, with --lcase-masking, its lower case),
  // kept when the HSPs carry their aligned letters (the pairwise report shows them in lower case).
  const std::vector<std::pair<uint64_t, uint64_t>>& query_masks(size_t q) const {
    static const std::vector<std::pair<uint64_t, uint64_t>> none;
    return q < query_masks_.size() ? query_masks_[q] : none;
  }
  // Modeled FPR (eq. 2) of sub-query v: expected_fpr(distinct w-mers inserted, m, k).
  double modeled_fpr(uint32_t v) const;
  // Empirical FPR of sub-query v: FP / (DB - TP) (Ma et al. 2011, eq. 3).
  double empirical_fpr(uint32_t v) const;

 private:
  struct Lane;
  // The batch's subjects (names, lengths) added to the output's, in stream order.
  void note_subjects(const DbBatch& batch);
  // search() into `lane`, on its threads.
  void search_in(const DbBatch& batch, Lane& lane);
  // Stages 1a, 1b and 2 on some consecutive chunks of `batch` (all of them, or a group: see search()).
  void search_chunks(const DbBatch& batch, const std::vector<DbChunk>& chunks, Lane& lane);
  // Stage 2 on the seeds of those chunks (seeds[i]: chunk i's, in stream order; total_seeds in all).
  // Seeds of later calls for the same batch start at or after later_seeds_from (stream coordinate; UINT64_MAX:
  // none come).
  void extend_seeds(const DbBatch& batch, const std::vector<std::vector<Seed>>& seeds, uint64_t total_seeds,
                    uint64_t later_seeds_from, Lane& lane);
  // --dust: which query w-mers may seed (seed_allowed_), and the seeds of the others dropped after stage 1b.
  void mask_low_complexity();
  void drop_masked_seeds(std::vector<Seed>& seeds) const;
  // Stage 3 on the gap triggers found in `batch` (its subject records are still in memory).
  void extend_gapped_batch(const DbBatch& batch, Lane& lane);
  // Stage 3 on the gap triggers found since the last call; trigger subject i (within the batch) is record
  // first_record + i, whose codes are subjects[i][0, lengths[i]) as seeded (blastn's bases at ambiguity codes), and
  // true_subjects[i][0, lengths[i]) with the true codes, for the final alignments (true_iupac[i]: those hold IUPAC
  // codes other than N).
  void extend_gapped_triggers(uint32_t first_record, const std::vector<const uint8_t*>& subjects,
                              const std::vector<const uint8_t*>& true_subjects, const std::vector<bool>& true_iupac,
                              const std::vector<uint64_t>& lengths, Lane& lane);
  struct Trigger {
    uint32_t subject = 0;  // within the batch
    uint32_t strand_index = 0;  // 2 * query + strand
    GapTrigger hit;
  };
  // What searching batches accumulates. The search has one (lane_), whose loops run on the search's threads;
  // search_batches gives each of its threads one of its own.
  struct Lane {
    int threads = 1;  // for the loops inside one batch
    BlastStats stats;
    std::vector<Hsp> hsps;
    std::vector<std::unique_ptr<DiagonalTable>> diagonals;  // per query strand, kept across batches (windows)
    std::vector<DiagonalRegion> regions;  // per stage-2 thread, for batches of whole records
    std::vector<std::vector<DiagonalRegion::Carried>> carried;  // per bucket: ends for the batch's later groups
    uint64_t carried_from = UINT64_MAX;  // the batch (its first stream coordinate) they belong to
    std::vector<std::vector<Trigger>> triggers;  // per stage-2 thread, for the current batch (or windowed record)
    std::vector<SubjectRank> preliminary_ranks;  // with max_target_seqs: each (query, subject) group's best
  };

  QuerySet queries_;
  BlastParams params_;
  DbTotals totals_;
  Stage1aLayout layout_;
  SubqueryFilters filters_;
  WordPresence presence_;  // the query's w-mers, for probes of an exact short word (strided_seeds.hpp)
  KarlinParams karlin_;     // ungapped: the ungapped X-drop and gap trigger, and E-values without --gapped
  GappedKarlin gapped_;     // with --gapped: E-values, bit scores and cut-offs
  GappedExtensionParams gapped_params_;
  std::unique_ptr<RecordSpill> spill_;          // the windowed record's codes so far, for stage 3
  std::vector<AmbiguousRun> spill_ambiguous_;   // and where its ambiguity codes are (record coordinates)
  std::vector<ExtensionCutoffs> cutoffs_;  // per query strand (index 2 * query + strand)
  std::unique_ptr<Stage1aBackend> stage1a_;
  Stage1aCapabilities caps_;
  bool stage1a_prepared_ = false;
  // E-values and bit scores per query strand (index 2 * query + strand), as blastn computes them per context: the
  // ungapped values from the strand's composition (ungapped_karlin_for_composition), the gapped ones from the
  // table, or those ungapped ones beyond it; and the search space from them.
  std::vector<KarlinParams> strand_ungapped_params_, strand_evalue_params_;
  std::vector<double> strand_search_space_;
  ConcatenatedQuery concatenated_;     // what blastn's ungapped pre-screen reads
  std::vector<std::string> subject_names_;  // of the batches searched; subject_base_ is the first one's index
  uint32_t subject_base_ = 0;
  std::vector<uint64_t> subject_lengths_;   // of the same records
  // --dust: per query record, bit i set when the plus-strand w-mer at i may seed; empty for a record without masked
  // bases (and for all of them without --dust).
  std::vector<std::vector<uint64_t>> seed_allowed_;
  std::vector<std::vector<std::pair<uint64_t, uint64_t>>> query_masks_;  // query_masks()
  Lane lane_;
};

// Runs f(i) for i in [0, n) on `threads` threads (work units handed out in order; f must be thread-safe).
void parallel_for(size_t n, int threads, const std::function<void(size_t)>& f);

// Runs f on a thread of its own beside the caller's work (or at once, on the caller's, when no thread can be
// started) until join(), which rethrows what f threw; the destructor joins too (on the way out of an exception).
class RunBeside {
 public:
  explicit RunBeside(std::function<void()> f);
  ~RunBeside();
  RunBeside(const RunBeside&) = delete;
  RunBeside& operator=(const RunBeside&) = delete;
  void join();

 private:
  std::function<void()> f_;
  std::exception_ptr error_;
  std::thread thread_;
};

}  // namespace bloomseq
