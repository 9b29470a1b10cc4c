#include "bloomseq/blast/pipeline.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <tuple>
#include <type_traits>

#include "bloomseq/blast/dust.hpp"
#include "bloomseq/blast/in_order_speculation.hpp"
#include "bloomseq/blast/query_chunks.hpp"
#include "bloomseq/blast/stage1a_cpu.hpp"
#include "bloomseq/blast/nucleotide_score.hpp"
#include "bloomseq/blast/strided_seeds.hpp"
#include "bloomseq/blast/subject_bases.hpp"
#include "bloomseq/blast/ungapped.hpp"
#include "bloomseq/bloom/bloom_vector.hpp"
#include "bloomseq/encode/sequence.hpp"
#include "bloomseq/error.hpp"

namespace bloomseq {

void QuerySet::add(const std::string& name, const std::string& seq) {
  if (seq.size() >= (uint64_t(1) << 31))
    throw DataError("query record '" + name + "': " + std::to_string(seq.size()) +
                    " bases; query records are limited to 2^31 - 1 bases");
  names.push_back(name);
  codes.push_back(encode_codes(seq));
  std::vector<std::pair<uint64_t, uint64_t>> lower;
  for (uint64_t i = 0; i < seq.size(); ++i) {
    if (seq[i] < 'a' || seq[i] > 'z') continue;
    if (!lower.empty() && lower.back().second + 1 == i) ++lower.back().second;
    else lower.emplace_back(i, i);
  }
  lowercase.push_back(std::move(lower));
  std::vector<uint8_t> rc;
  reserve_populated(rc, codes.back().size());
  rc.assign(codes.back().rbegin(), codes.back().rend());
  for (auto& c : rc) c = complement_code(c);
  rc_codes.push_back(std::move(rc));
  std::vector<uint8_t> scored, scored_rc;
  const std::vector<uint8_t>& plus = codes.back();
  for (size_t i = 0; i < plus.size(); ++i) {
    if (plus[i] < 4) continue;
    const uint8_t code = true_ambiguity_code(seq[i]);
    if (code < kIupacCodeBase) continue;
    if (scored.empty()) scored = plus;
    scored[i] = code;
  }
  if (!scored.empty()) {
    scored_rc.assign(scored.rbegin(), scored.rend());
    for (auto& c : scored_rc) c = complement_extension_code(c);
  }
  true_codes.push_back(std::move(scored));
  true_rc_codes.push_back(std::move(scored_rc));
}

namespace {
// The letter of a code as the extensions read it: 0-3 bases, kInvalidBase N, kIupacCodeBase + bits an IUPAC code.
char letter_of_code(uint8_t c) {
  if (c < 4) return "ACGT"[c];
  if (c >= kIupacCodeBase) return "NACMGRSVTWYHKDBN"[(c - kIupacCodeBase) & 15];
  return 'N';
}
// qseq and sseq of an alignment of q (the strand extended) against s from q_start / s_start by `ops` (all
// substitutions when empty: an ungapped HSP of `length` columns); for a minus-strand one, turned round to show
// the query's plus strand, as blastn does.
void set_aligned_letters(Hsp& h, const uint8_t* q, uint64_t q_start, const uint8_t* s, uint64_t s_start,
                         const std::vector<GapOp>& ops, uint64_t length) {
  h.qseq.clear(), h.sseq.clear();
  uint64_t qi = q_start, si = s_start;
  const auto column = [&](GapOp op) {
    h.qseq += op == GapOp::gap_in_a ? '-' : letter_of_code(q[qi++]);
    h.sseq += op == GapOp::gap_in_b ? '-' : letter_of_code(s[si++]);
  };
  if (ops.empty())
    for (uint64_t k = 0; k < length; ++k) column(GapOp::substitution);
  else
    for (const GapOp op : ops) column(op);
  if (h.strand) {  // reverse_complement keeps '-' and complements IUPAC codes
    h.qseq = reverse_complement(h.qseq);
    h.sseq = reverse_complement(h.sseq);
  }
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

BlastSearch::BlastSearch(QuerySet queries, const BlastParams& params, DbTotals totals,
                         std::unique_ptr<Stage1aBackend> stage1a, QueryScope scope)
    : queries_(std::move(queries)),
      params_(params),
      totals_(totals),
      stage1a_(stage1a ? std::move(stage1a) : make_cpu_stage1a()),
      caps_(stage1a_->capabilities()) {
  params_.validate();
  lane_.threads = params_.threads;
  karlin_ = ungapped_karlin(params_.reward, params_.penalty);
  if (params_.gapped) {
    gapped_ = gapped_karlin(params_.reward, params_.penalty, params_.gap_open, params_.gap_extend, karlin_);
    GappedScoring& g = gapped_params_.scoring;
    g.reward = params_.reward;
    g.penalty = params_.penalty;
    g.ambiguous = ambiguous_score(params_.reward, params_.penalty);
    g.gap_open = params_.gap_open;
    g.gap_extend = params_.gap_extend;
    gapped_params_.round_down = gapped_.round_down;
    gapped_params_.greedy = params_.greedy;
    gapped_params_.percent_identity = params_.percent_identity;
    gapped_params_.keep_ops = params_.aligned_sequences;
    // BlastExtensionParametersNew: truncated, the final X-drop at least the preliminary one.
    const double ln2 = 0.69314718055994530941723212145818;
    gapped_params_.xdrop_gap = int(params_.xdrop_gap_bits * ln2 / gapped_.params.lambda);
    gapped_params_.xdrop_final =
        int(std::max(params_.xdrop_final_bits * ln2 / gapped_.params.lambda, double(gapped_params_.xdrop_gap)));
  }
  const auto t0 = std::chrono::steady_clock::now();
  // DUST runs record by record on the search's threads; with fewer records than threads (a genome as query) it
  // runs beside the filters' build instead, which it does not touch.
  std::unique_ptr<RunBeside> dust;
  const bool masking = params_.dust || params_.lcase_masking;
  if (masking && queries_.size() < size_t(params_.threads))
    dust = std::make_unique<RunBeside>([this] { mask_low_complexity(); });
  else if (masking)
    mask_low_complexity();
  // With a probe word the filters and the index hold the probe words (see BlastParams::probe_word).
  BlastParams filter_params = params_;
  if (params_.probe_word > 0) filter_params.w = params_.probe_word, filter_params.probe_word = 0;
  uint64_t query_bases = 0;
  for (const auto& q : queries_.codes) query_bases += q.size();
  // Exact filters are read without hashing, vector by vector (stage1a_exact): few sub-queries of 4^w bits each.
  layout_ = params_.exact_filter && params_.layout == Stage1aLayout::automatic
                ? Stage1aLayout::vector
                : resolve_layout(params_.layout,
                                 LayoutShape{query_bases, params_.n_sub, params_.m_bits, params_.k, filter_params.w});
  // Probe words of a Bloom filter are rare hits (16-mers): stage 1b then scans the named sub-query instead of
  // building an index of every query word; an exact filter of a short word hits often and needs the index.
  const bool by_position = params_.probe_word > 0 && !params_.exact_filter;
  // A query shard: the records outside it are empty to the filters (no sub-queries, no index entries).
  std::vector<std::vector<uint8_t>> scoped;
  const bool partial = scope.begin > 0 || scope.end < queries_.size();
  if (partial) {
    scoped.resize(queries_.size());
    for (size_t i = scope.begin; i < std::min(scope.end, queries_.size()); ++i) scoped[i] = queries_.codes[i];
  }
  // The concatenated query and the letter counts only read the query's codes, final once DUST has run: they are
  // built beside the filters when DUST is not (E. coli vs S. suis on two threads: ~40 ms of a serial start, most
  // of it the first writes to the 10-MB concatenated query).
  std::vector<std::array<uint64_t, kBlastnaLetters>> letters(queries_.size());
  auto build_concatenated = [this, &letters] {
    uint64_t concatenated_size = 0;  // all of it at once: a query of many records would grow it step by step
    for (size_t i = 0; i < queries_.size(); ++i)
      concatenated_size +=
          (queries_.scored_strand(2 * i).size() + 1) * uint64_t(__builtin_popcount(params_.strands & 3));
    reserve_populated(concatenated_.codes, concatenated_size);
    for (size_t i = 0; i < queries_.size(); ++i)
      concatenated_.add(queries_.scored_strand(2 * i), queries_.scored_strand(2 * i + 1),
                        (params_.strands & 1) != 0, (params_.strands & 2) != 0);
    for (size_t i = 0; i < queries_.size(); ++i) {
      letters[i].fill(0);
      for (const uint8_t c : queries_.scored_strand(2 * i)) ++letters[i][blastna_of_code(c)];
    }
  };
  std::unique_ptr<RunBeside> concatenating;
  if (!dust && params_.threads > 1) concatenating = std::make_unique<RunBeside>(build_concatenated);
  filters_ = SubqueryFilters(partial ? scoped : queries_.codes, filter_params, caps_.needs_vectors || layout_ != Stage1aLayout::bitsliced,
                             layout_ == Stage1aLayout::bitsliced, by_position);
  if (params_.probe_word > 0 && params_.exact_filter)
    presence_ = WordPresence(partial ? scoped : queries_.codes, params_.w);
  if (dust) dust->join();
  if (concatenating) concatenating->join();
  else build_concatenated();
  const uint64_t mean_subject = totals_.records ? totals_.bases / totals_.records : 0;
  for (size_t i = 0; i < queries_.size(); ++i) {
    // Each strand's letters as blastn counts them (BLASTNA), the minus strand's the complements of the plus one's.
    const uint64_t* counts = letters[i].data();
    uint64_t minus[kBlastnaLetters] = {};
    for (uint8_t l = 0; l < kBlastnaLetters; ++l)
      minus[blastna_of_code(complement_extension_code(code_of_blastna(l)))] += counts[l];
    for (const uint64_t* strand : {counts, static_cast<const uint64_t*>(minus)}) {
      const KarlinParams ungapped = ungapped_karlin_for_letters(params_.reward, params_.penalty, strand);
      const KarlinParams kp =
          params_.gapped
              ? gapped_karlin(params_.reward, params_.penalty, params_.gap_open, params_.gap_extend, ungapped).params
              : ungapped;
      strand_ungapped_params_.push_back(ungapped);
      strand_evalue_params_.push_back(kp);
      // -searchsp replaces the whole space, -dbsize the subjects' bases in it (BLAST_CalcEffLengths).
      const uint64_t db_length = params_.db_length > 0 ? params_.db_length : totals_.bases;
      strand_search_space_.push_back(params_.search_space > 0
                                         ? params_.search_space
                                         : effective_search_space(kp, queries_.codes[i].size(), db_length,
                                                                  totals_.records));
    }
  }
  // blastn's cut-offs and ungapped X-drop per context (BlastInitialWordParametersNew/Update,
  // BlastHitSavingParametersUpdate): from the strand's own ungapped values, as its E-values. For a query of bases
  // and N they are the tabulated ones to ~1e-16; a query's other IUPAC codes move them.
  for (size_t g = 0; g < strand_evalue_params_.size(); ++g) {
    const KarlinParams& ungapped = strand_ungapped_params_[g];
    ExtensionCutoffs c;
    if (params_.gapped) {
      // The ungapped cut-off of a gapped search is the gap trigger, at most the gapped hit cut-off.
      c.hit = score_for_evalue(strand_evalue_params_[g], strand_search_space_[g], params_.evalue);
      const int64_t trigger =
          int64_t((params_.gap_trigger_bits * 0.69314718055994530941723212145818 + ungapped.logK) / ungapped.lambda);
      c.word = std::min(trigger, c.hit);
      c.reduced = int64_t(0.8 * double(c.word));
    } else {
      c = extension_cutoffs(ungapped, queries_.codes[g / 2].size(), strand_search_space_[g], mean_subject,
                            params_.evalue);
    }
    // X-drop 0 is BLAST's "none given" (megablast's default): the ungapped cut-off itself (x_dropoff_init 0).
    c.xdrop = params_.xdrop_bits > 0 ? xdrop_raw(ungapped, params_.xdrop_bits) : int(c.word);
    cutoffs_.push_back(c);
  }
  lane_.stats.seconds_build = seconds_since(t0);
  lane_.stats.tp.assign(filters_.count(), 0);
  lane_.stats.fp.assign(filters_.count(), 0);
  lane_.stats.db_bases = totals_.bases;
  lane_.stats.db_records = totals_.records;
}

void BlastSearch::mask_low_complexity() {
  // As blastn's lookup table: a w-mer is a seed only when none of its bases is masked, on either strand (the
  // minus strand's mask is the plus strand's, mirrored); in a gapped search of queries that blastn splits into
  // chunks, none of the chunk's masks, which end a base later (query_chunks.hpp).
  const uint64_t w = uint64_t(params_.w);
  const uint64_t chunk = params_.greedy ? kMegablastQueryChunk : kBlastnQueryChunk;
  seed_allowed_.assign(queries_.size(), {});
  if (params_.aligned_sequences) query_masks_.assign(queries_.size(), {});
  std::vector<uint64_t> chunks_of(queries_.size(), 1);
  parallel_for(queries_.size(), params_.threads, [&](size_t r) {
    // The scored codes tell an N (drawn as BLAST+ draws it) from the other ambiguity codes (read as A).
    const std::vector<uint8_t>& letters = queries_.scored_strand(2 * r);
    // An ungapped search is never split (CQuerySplitter).
    const auto chunks = params_.gapped ? blastn_query_chunks(letters.size(), chunk)
                                       : std::vector<std::pair<uint64_t, uint64_t>>{{0, letters.size()}};
    chunks_of[r] = chunks.size();  // reported whether or not the record has masks
    MaskIntervals masks = params_.dust ? dust_intervals(letters.data(), letters.size()) : MaskIntervals{};
    if (params_.lcase_masking && r < queries_.lowercase.size() && !queries_.lowercase[r].empty()) {
      // blastn adds the lower-case runs to DUST's masks (one set of locations, overlaps merged).
      masks.insert(masks.end(), queries_.lowercase[r].begin(), queries_.lowercase[r].end());
      std::sort(masks.begin(), masks.end());
      MaskIntervals merged;
      for (const auto& m : masks)
        if (!merged.empty() && m.first <= merged.back().second + 1) merged.back().second = std::max(merged.back().second, m.second);
        else merged.push_back(m);
      masks.swap(merged);
    }
    if (params_.aligned_sequences) query_masks_[r] = masks;
    if (masks.empty() || letters.size() < w) return;
    seed_allowed_[r] = seeds_allowed_in_chunks(letters.size(), masks, params_.w, chunks);
  });
  for (const uint64_t n : chunks_of) lane_.stats.query_chunks = std::max(lane_.stats.query_chunks, n);
  // The masked w-mers: cleared bits among the record's w-mer starts [0, length - w].
  for (size_t r = 0; r < queries_.size(); ++r) {
    const std::vector<uint64_t>& ok = seed_allowed_[r];
    if (ok.empty()) continue;
    const uint64_t starts = queries_.codes[r].size() - w + 1;
    for (uint64_t i = 0; i < (starts + 63) / 64; ++i) {
      const uint64_t left = starts - 64 * i;
      const uint64_t real = left >= 64 ? ~uint64_t(0) : (uint64_t(1) << left) - 1;
      lane_.stats.dust_masked_wmers += uint64_t(__builtin_popcountll(~ok[i] & real));
    }
  }
}

void BlastSearch::drop_masked_seeds(std::vector<Seed>& seeds) const {
  // --strand: blastn's lookup table holds the words of the strands searched only.
  if (params_.strands != 3)
    seeds.erase(std::remove_if(seeds.begin(), seeds.end(),
                               [&](const Seed& x) { return ((params_.strands >> x.strand) & 1) == 0; }),
                seeds.end());
  if (seed_allowed_.empty()) return;
  seeds.erase(std::remove_if(seeds.begin(), seeds.end(),
                             [&](const Seed& x) {
                               const std::vector<uint64_t>& ok = seed_allowed_[x.query];
                               return !ok.empty() && !((ok[x.q_pos / 64] >> (x.q_pos % 64)) & 1);
                             }),
              seeds.end());
}

double BlastSearch::modeled_fpr(uint32_t v) const {
  return expected_fpr(filters_.inserted(v), params_.m_bits, params_.k);
}

double BlastSearch::empirical_fpr(uint32_t v) const {
  const double negatives = double(lane_.stats.db_wmers) - double(lane_.stats.tp[v]);
  return negatives > 0 ? double(lane_.stats.fp[v]) / negatives : 0.0;
}

uint64_t BlastSearch::window_margin() const { return concatenated_.codes.size() + 2 * uint64_t(params_.w) + 64; }

void BlastSearch::search(const DbBatch& batch) {
  const DbBatch::Window& win = batch.window;
  if (win.on) {
    // What makes a window's output the whole record's: enough context on either side of its owned range.
    const uint64_t data_end = win.offset + batch.lengths[0];
    if (batch.size() != 1 || win.offset % 4 != 0 || win.own_begin < win.offset || win.own_end > data_end ||
        (win.offset > 0 && win.own_begin - win.offset < window_margin()) ||
        (data_end < win.record_length && data_end - win.own_end < window_margin()))
      throw std::logic_error("database window without the context the search needs");
  }
  note_subjects(batch);
  search_in(batch, lane_);
}

bool BlastSearch::batches_in_parallel(uint64_t batch_bases) const {
  return params_.threads > 1 && caps_.host_threads && run_stage2 && !on_stage1a && !on_seeds &&
         filters_.count() > 0 && totals_.largest <= batch_bases &&
         totals_.bases / std::max<uint64_t>(batch_bases, 1) >= 4 * uint64_t(params_.threads);
}

void BlastSearch::search_batches(const std::function<bool(DbBatch&)>& next) {
  prepare_stage1a();  // once, before the threads share the backend
  const int T = params_.threads;
  std::vector<Lane> lanes(static_cast<size_t>(T));
  for (Lane& l : lanes) {
    l.stats.tp.assign(filters_.count(), 0);
    l.stats.fp.assign(filters_.count(), 0);
  }
  std::mutex reading;
  bool stop = false;
  std::exception_ptr error;
  auto work = [&](size_t t) {
    DbBatch batch;
    try {
      for (;;) {
        {
          std::lock_guard<std::mutex> lock(reading);
          if (stop || !next(batch)) {
            stop = true;
            return;
          }
          note_subjects(batch);
        }
        search_in(batch, lanes[t]);
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(reading);
      if (!error) error = std::current_exception();
      stop = true;
    }
  };
  std::vector<std::thread> helpers;
  try {
    for (size_t t = 1; t < lanes.size(); ++t) helpers.emplace_back(work, t);
  } catch (const std::system_error&) {
    // No more threads to be had: the batches go to those started.
  }
  work(0);
  for (std::thread& h : helpers) h.join();
  if (error) std::rethrow_exception(error);
  // The lanes' counters into the search's; their stage seconds ran side by side, so they count once per thread.
  BlastStats& all = lane_.stats;
  for (const Lane& l : lanes) {
    const BlastStats& s = l.stats;
    all.db_wmers += s.db_wmers;
    all.stage1a_hits += s.stage1a_hits;
    all.true_positives += s.true_positives;
    all.false_positives += s.false_positives;
    all.seeds += s.seeds;
    all.extensions += s.extensions;
    all.gap_triggers += s.gap_triggers;
    all.gapped_extensions += s.gapped_extensions;
    all.gapped_extensions_wasted += s.gapped_extensions_wasted;
    all.gapped_alignments_joined += s.gapped_alignments_joined;
    all.gapped_extensions_postponed += s.gapped_extensions_postponed;
    for (size_t v = 0; v < all.tp.size(); ++v) all.tp[v] += s.tp[v], all.fp[v] += s.fp[v];
    all.seconds_stage1a += s.seconds_stage1a / T;
    all.seconds_stage1b += s.seconds_stage1b / T;
    all.seconds_stage2 += s.seconds_stage2 / T;
    all.seconds_stage3 += s.seconds_stage3 / T;
    lane_.hsps.insert(lane_.hsps.end(), l.hsps.begin(), l.hsps.end());
    lane_.preliminary_ranks.insert(lane_.preliminary_ranks.end(), l.preliminary_ranks.begin(),
                                   l.preliminary_ranks.end());
  }
  all.membership_tests = all.db_wmers * filters_.count();
  all.batches_in_parallel = true;
}

void BlastSearch::note_subjects(const DbBatch& batch) {
  const DbBatch::Window& win = batch.window;
  if (win.on && !win.first()) return;
  if (subject_names_.empty()) subject_base_ = batch.first_record;
  for (const auto& n : batch.names) subject_names_.push_back(n);
  if (win.on) subject_lengths_.push_back(win.record_length);
  else subject_lengths_.insert(subject_lengths_.end(), batch.lengths.begin(), batch.lengths.end());
}

void BlastSearch::search_in(const DbBatch& batch, Lane& lane) {
  const DbBatch::Window& win = batch.window;
  // Stage 1a tests the w-mers at every position, or the probe words at every stride-th one.
  const int probe = params_.probe_word;
  if (probe > 0 && !caps_.probe_words)
    throw std::logic_error("probe words need the CPU stage 1a (every w-mer is tested elsewhere)");
  const std::vector<DbChunk> chunks = chunk_batch(batch, params_.chunk_bases, probe > 0 ? probe : params_.w);
  // When only HSPs are wanted, all stages run on a few chunks at a time: their seeds (~1 per database base at
  // w = 11 against a genome, 24 bytes each, plus 16 for stage 2's copy) then reuse the same memory group after
  // group instead of faulting in fresh pages for the whole batch (hundreds of MB). Stage 2 takes the groups in
  // stream order, so every diagonal still sees its seeds in subject order. Observers and device backends get
  // the whole batch at once.
  const size_t group = (on_stage1a || on_seeds || !caps_.host_threads || !run_stage2)
                           ? chunks.size()
                           : std::max<size_t>(4, 4 * size_t(lane.threads));
  for (size_t c0 = 0; c0 < chunks.size(); c0 += group) {
    const size_t c1 = std::min(chunks.size(), c0 + group);
    search_chunks(batch, std::vector<DbChunk>(chunks.begin() + long(c0), chunks.begin() + long(c1)), lane);
  }
  if (!run_stage2 || !params_.gapped) return;
  if (!win.on) return extend_gapped_batch(batch, lane);
  if (win.first()) spill_.reset(new RecordSpill), spill_ambiguous_.clear();
  spill_->append(batch.codes.data() + (win.own_begin - win.offset), size_t(win.own_end - win.own_begin));
  for (const AmbiguousRun& r : batch.ambiguous) {  // those in the owned range, in record coordinates
    const uint64_t b = std::max(r.begin + win.offset, win.own_begin), e = std::min(r.end + win.offset, win.own_end);
    if (b >= e) continue;
    if (!spill_ambiguous_.empty() && spill_ambiguous_.back().end == b && spill_ambiguous_.back().code == r.code)
      spill_ambiguous_.back().end = e;
    else
      spill_ambiguous_.push_back(AmbiguousRun{b, e, r.code});
  }
  if (!win.last()) return;
  const uint8_t* record = spill_->map();
  // Where the extensions start: each gap trigger's ungapped HSP and a little around it.
  std::vector<std::pair<uint64_t, uint64_t>> around;
  constexpr uint64_t kAround = 256;
  for (const auto& v : lane.triggers)
    for (const Trigger& t : v)
      around.emplace_back(t.hit.s_start > kAround ? t.hit.s_start - kAround : 0,
                          t.hit.s_start + t.hit.length + kAround);
  spill_->prefetch(std::move(around));
  extend_gapped_triggers(batch.first_record, {record}, {spill_->map_true(spill_ambiguous_)},
                         {any_iupac(spill_ambiguous_, 0, win.record_length)}, {win.record_length}, lane);
  spill_.reset();
  spill_ambiguous_.clear();
}

void BlastSearch::prepare_stage1a() {
  if (stage1a_prepared_ || filters_.count() == 0) return;
  const int probe = params_.probe_word;
  const uint64_t stride = probe > 0 ? uint64_t(params_.w - probe + 1) : 1;
  stage1a_->prepare(filters_, Stage1aSetup{layout_, params_.exact_filter, stride, params_.layout});
  stage1a_prepared_ = true;
}

void BlastSearch::restart() {
  subject_names_.clear();
  subject_lengths_.clear();
  subject_base_ = 0;
  lane_.hsps.clear();
  lane_.preliminary_ranks.clear();
  lane_.diagonals.clear();
  lane_.carried.clear();
  lane_.triggers.clear();
  spill_.reset();
  const double build = lane_.stats.seconds_build;
  lane_.stats = BlastStats{};
  lane_.stats.seconds_build = build;
  lane_.stats.tp.assign(filters_.count(), 0);
  lane_.stats.fp.assign(filters_.count(), 0);
  lane_.stats.db_bases = totals_.bases;
  lane_.stats.db_records = totals_.records;
}

void BlastSearch::search_chunks(const DbBatch& batch, const std::vector<DbChunk>& chunks, Lane& lane) {
  const int w = params_.w;
  const int probe = params_.probe_word;
  const uint32_t V = filters_.count();

  // Stages 1a and 1b run back to back on each chunk inside one work unit, so a chunk's hits are verified while
  // they are still in cache and only one chunk's hits per thread exist at a time (they are kept for all chunks
  // only when an observer wants them or a device backend produces them). Each chunk's hits come back sorted and
  // its seeds in stream order, so taking the chunks in order keeps the stream order whatever the thread count.
  auto t0 = std::chrono::steady_clock::now();
  const size_t n_chunks = chunks.size();
  const bool keep_hits = bool(on_stage1a) || (V > 0 && !caps_.host_threads);
  std::vector<std::vector<Stage1aHit>> hits(keep_hits ? n_chunks : 0);
  std::vector<uint64_t> wmers(n_chunks, 0), nhits(n_chunks, 0);
  std::vector<std::vector<Seed>> seeds(n_chunks);
  std::vector<std::vector<uint64_t>> tp(n_chunks), fp(n_chunks);
  std::vector<double> busy_1a(n_chunks, 0.0), busy_1b(n_chunks, 0.0);
  auto locate = [&](uint64_t pos, uint32_t& subject, uint64_t& s_pos) {
    const uint64_t local = pos - batch.first_pos;
    const size_t r = batch.record_at(local);
    subject = batch.first_record + uint32_t(r);
    s_pos = local - batch.local_starts[r];
  };
  std::atomic<uint64_t> seen_hits{0}, seen_seeds{0};  // the chunks verified so far (for the seeds' reserve)
  auto verify = [&](size_t i, const std::vector<Stage1aHit>& h) {
    const auto t = std::chrono::steady_clock::now();
    // The seeds and counts go to this thread's own vectors first: seeds[i]'s header shares a cache line with its
    // neighbours', which other threads fill at the same time, and every push_back writes it. The seeds' vector is
    // reserved for the seeds per hit of the chunks done so far, in storage populated in one call: grown by
    // doubling from nothing, it faulted in about twice its final size page by page (a fifth of all page faults on
    // two threads, E. coli vs S. suis).
    std::vector<Seed> found;
    {
      const uint64_t done_hits = seen_hits.load(std::memory_order_relaxed);
      const double per_hit = done_hits ? double(seen_seeds.load(std::memory_order_relaxed)) / double(done_hits) : 1.0;
      // At most 1 Mi seeds (24 MB) on a guess: a chunk of repeats before a plain one must not reserve for repeats.
      reserve_populated(found, std::min<size_t>(size_t(1) << 20, size_t(double(h.size()) * per_hit * 1.125) + 64));
    }
    std::vector<uint64_t> true_hits(V, 0), false_hits(V, 0);
    if (probe > 0)
      seeds_from_probes(h, batch, queries_.codes, w, probe, filters_, found, true_hits, false_hits, &presence_);
    else
      verify_hits(h, batch.codes.data(), batch.first_pos, w, filters_, locate, found, true_hits, false_hits);
    drop_masked_seeds(found);  // --dust, --strand: as if blastn's lookup table never held them
    if (!batch.lowercase.empty()) {
      // --lcase-masking: blastn -subject scans a FASTA subject's unmasked ranges only, so a seed's subject word
      // lies outside its lower-case runs.
      const auto& runs = batch.lowercase;
      found.erase(std::remove_if(found.begin(), found.end(),
                                 [&](const Seed& x) {
                                   const uint64_t at = batch.local_starts[x.subject - batch.first_record] + x.s_pos;
                                   const auto it = std::upper_bound(
                                       runs.begin(), runs.end(), at,
                                       [](uint64_t v, const std::pair<uint64_t, uint64_t>& r) { return v < r.second; });
                                   return it != runs.end() && it->first < at + uint64_t(w);
                                 }),
                  found.end());
    }
    seen_hits.fetch_add(h.size(), std::memory_order_relaxed);
    seen_seeds.fetch_add(found.size(), std::memory_order_relaxed);
    seeds[i] = std::move(found);
    tp[i] = std::move(true_hits);
    fp[i] = std::move(false_hits);
    busy_1b[i] = seconds_since(t);
  };
  prepare_stage1a();
  if (V > 0 && !caps_.host_threads) {
    // The whole batch at once, so a streamed backend overlaps the copies and kernels of consecutive chunks.
    stage1a_->run_chunks(chunks, hits, wmers);
    for (size_t i = 0; i < n_chunks; ++i) nhits[i] = hits[i].size();
    lane.stats.seconds_stage1a += seconds_since(t0);
    t0 = std::chrono::steady_clock::now();
    parallel_for(n_chunks, lane.threads, [&](size_t i) {
      verify(i, hits[i]);
      if (on_chunk_done) on_chunk_done(chunks[i].n_starts);
    });
    lane.stats.seconds_stage1b += seconds_since(t0);
  } else if (V > 0) {
    parallel_for(n_chunks, lane.threads, [&](size_t i) {
      std::vector<Stage1aHit> scratch;
      std::vector<Stage1aHit>& h = keep_hits ? hits[i] : scratch;
      const auto t = std::chrono::steady_clock::now();
      wmers[i] = stage1a_->run_chunk(chunks[i], h);
      busy_1a[i] = seconds_since(t);
      nhits[i] = h.size();
      verify(i, h);
      if (on_chunk_done) on_chunk_done(chunks[i].n_starts);
    });
    // The phase's wall time is shared between the stages in proportion to the time the work units spent in each.
    const double wall = seconds_since(t0);
    double a = 0, b = 0;
    for (size_t i = 0; i < n_chunks; ++i) a += busy_1a[i], b += busy_1b[i];
    const double share = a + b > 0 ? a / (a + b) : 1.0;
    lane.stats.seconds_stage1a += wall * share;
    lane.stats.seconds_stage1b += wall * (1.0 - share);
  }
  uint64_t total_hits = 0, total_seeds = 0;
  for (size_t i = 0; i < n_chunks; ++i) {
    lane.stats.db_wmers += wmers[i];
    total_hits += nhits[i];
    total_seeds += seeds[i].size();
  }
  lane.stats.membership_tests = lane.stats.db_wmers * V;
  lane.stats.stage1a_hits += total_hits;
  if (on_stage1a) {
    std::vector<Stage1aHit> all;
    all.reserve(total_hits);
    for (const auto& h : hits) all.insert(all.end(), h.begin(), h.end());
    on_stage1a(batch, all);
  }
  std::vector<std::vector<Stage1aHit>>().swap(hits);
  for (size_t i = 0; i < n_chunks && V > 0; ++i) {
    for (uint32_t v = 0; v < V; ++v) {
      lane.stats.tp[v] += tp[i][v];
      lane.stats.fp[v] += fp[i][v];
      lane.stats.true_positives += tp[i][v];
      lane.stats.false_positives += fp[i][v];
    }
  }
  lane.stats.seeds += total_seeds;
  if (on_seeds) {
    std::vector<Seed> all;
    all.reserve(total_seeds);
    for (const auto& s : seeds) all.insert(all.end(), s.begin(), s.end());
    on_seeds(batch, all);
  }
  if (!run_stage2) return;
  // The seeds of later groups of this batch start at or after this group's last owned w-mer start, less w (a
  // probe word finds seeds that start before it); the last group has none after it in its records.
  const uint64_t group_end = chunks.empty() ? 0 : chunks.back().first_pos + chunks.back().n_starts;
  const uint64_t owned_end = batch.window.on ? batch.first_pos + (batch.window.own_end - batch.window.offset)
                                             : batch.first_pos + batch.codes.size();
  const uint64_t later_seeds_from = group_end >= owned_end ? UINT64_MAX : group_end - std::min<uint64_t>(group_end, uint64_t(w));
  extend_seeds(batch, seeds, total_seeds, later_seeds_from, lane);
}

// One function: the bucketing of the seeds and their extension share the strand table, the bucket bounds and the
// item array, and the extension of one seed is the `process` lambda.
void BlastSearch::extend_seeds(const DbBatch& batch, const std::vector<std::vector<Seed>>& seeds,
                               uint64_t total_seeds, uint64_t later_seeds_from, Lane& lane) {
  // Stage 2. The diagonal table of a long query is tens of MB and seeds hit it at random (a DRAM miss per seed), but
  // seeds in different slots of the table never interact: only each slot must see its seeds in subject order. So
  // the seeds are first bucketed by the region of the table they touch (2^16 slots, 256 KB: it stays in L2) with a
  // stable counting sort, and each region's seeds are then extended in subject order, the regions handed out to
  // the threads in turn. A batch too long for the
  // table's 32-bit ends keeps plain stream order (one bucket per strand). The sort runs on all threads at once,
  // each on a contiguous share of the chunks' seed lists: within a bucket, thread t's seeds go before thread
  // t + 1's, so the order stays the stream order.
  const auto t0 = std::chrono::steady_clock::now();
  const int w = params_.w;
  const size_t n_chunks = seeds.size();
  const size_t G = queries_.size() * 2;
  if (lane.diagonals.size() != G) lane.diagonals.resize(G);
  const UngappedScoring scoring{params_.reward, params_.penalty, 0,
                                ambiguous_score(params_.reward, params_.penalty)};
  const bool bucketed = batch.end_pos() - batch.first_pos <= UINT32_MAX;
  // A batch of whole records keeps its diagonal ends region by region (DiagonalRegion): a region's ends are set
  // from those carried over from the batch's earlier groups of chunks, its seeds are extended, and the ends that
  // later seeds of the batch could still meet are carried on (lane.carried, per bucket). A window of a longer record
  // keeps them in the strand's table for the next window.
  const bool regional = bucketed && !batch.window.on;
  constexpr int kRegionShift = DiagonalRegion::kShift;  // 64Ki slots of 4 bytes per region
  constexpr size_t kAhead = 16;
  struct Item {
    uint64_t s_pos;   // in the subject record
    uint32_t record;  // within the batch
    uint32_t q_pos;   // on the strand extended (the reverse complement for minus seeds)
  };
  auto strand_of = [&](size_t g) -> const std::vector<uint8_t>& {
    return queries_.scored_strand(g);
  };
  // What a seed's bucket needs from its strand, looked up once per strand, not per seed.
  struct StrandInfo {
    uint64_t slot_mask = 0;
    uint64_t rc_offset = 0;  // a minus seed's q_pos on the reverse complement is rc_offset - q_pos
    size_t first_bucket = 0;
  };
  std::vector<StrandInfo> info(G);
  std::vector<size_t> first_bucket(G + 1, 0);
  for (size_t g = 0; g < G; ++g) {
    info[g].slot_mask = DiagonalTable::slots_for(strand_of(g).size()) - 1;
    info[g].rc_offset = strand_of(g).size() - uint64_t(w);
    info[g].first_bucket = first_bucket[g];
    first_bucket[g + 1] = first_bucket[g] + (bucketed ? size_t((info[g].slot_mask >> kRegionShift) + 1) : 1);
  }
  const size_t n_buckets = first_bucket[G];
  // Thread t sorts the seed lists [share[t], share[t + 1]): contiguous, about equal in seeds.
  const int S = int(std::min<size_t>(size_t(lane.threads), std::max<size_t>(n_chunks, 1)));
  std::vector<size_t> share(size_t(S) + 1, n_chunks);
  share[0] = 0;
  for (size_t i = 0, t = 1, done = 0; i < n_chunks && t < size_t(S); ++i) {
    done += seeds[i].size();
    while (t < size_t(S) && done * size_t(S) >= total_seeds * t) share[t++] = i + 1;
  }
  const StrandInfo* strands = info.data();
  const uint64_t* starts = batch.local_starts.data();
  const uint64_t first_pos = batch.first_pos;
  const uint32_t first_record = batch.first_record;
  const uint64_t s_offset = batch.window.offset;  // record coordinate of the batch's codes[0] (a window's)
  const unsigned region_shift = bucketed ? kRegionShift : 63;  // slots < 2^63: one bucket per strand
  auto for_seeds = [&](size_t t, auto&& f) {
    for (size_t i = share[t]; i < share[t + 1]; ++i)
      for (const Seed& x : seeds[i]) {
        const StrandInfo& si = strands[size_t(x.query) * 2 + x.strand];
        const uint32_t r = x.subject - first_record;
        const uint64_t q_pos = x.strand ? si.rc_offset - x.q_pos : x.q_pos;
        const uint64_t slot = (first_pos + starts[r] + x.s_pos - q_pos) & si.slot_mask;
        f(si.first_bucket + size_t(slot >> region_shift), Item{x.s_pos, r, uint32_t(q_pos)});
      }
  };
  // cursor[t][b]: where thread t's next seed of bucket b goes.
  std::vector<std::vector<size_t>> cursor(size_t(S), std::vector<size_t>(n_buckets, 0));
  parallel_for(size_t(S), S, [&](size_t t) { for_seeds(t, [&](size_t b, const Item&) { ++cursor[t][b]; }); });
  std::vector<size_t> bucket_end(n_buckets, 0);
  for (size_t b = 0, at = 0; b < n_buckets; ++b) {
    for (size_t t = 0; t < size_t(S); ++t) {
      const size_t n = cursor[t][b];
      cursor[t][b] = at;
      at += n;
    }
    bucket_end[b] = at;
  }
  std::unique_ptr<Item[]> items(new Item[total_seeds]);  // every slot written below: no zeroing
  populate_pages(items.get(), total_seeds * sizeof(Item));  // all of it, in one call rather than a fault a page
  parallel_for(size_t(S), S, [&](size_t t) { for_seeds(t, [&](size_t b, const Item& it) { items[cursor[t][b]++] = it; }); });
  std::vector<std::vector<size_t>>().swap(cursor);

  // A table's pages are faulted in where seeds land (the first batch's tables, 32 MB per strand of E. coli). Threads
  // faulting pages at the same time are about 4x slower than one thread doing them all, and one system call per
  // region (populate_pages) is ~15x cheaper than its faults on a VM. So the calling thread makes the tables and
  // populates the regions that get seeds first: all of them with several threads, and on one thread those with
  // at least one seed per page on average (where most of the region's pages would be touched anyway).
  constexpr size_t kDenseRegionSeeds = (size_t(1) << kRegionShift) * sizeof(uint32_t) / 4096;
  if (bucketed && !regional)
    for (size_t g = 0; g < G; ++g) {
      size_t at = first_bucket[g] == 0 ? 0 : bucket_end[first_bucket[g] - 1];
      if (at == bucket_end[first_bucket[g + 1] - 1]) continue;  // no seeds on this strand
      if (!lane.diagonals[g]) lane.diagonals[g].reset(new DiagonalTable(strand_of(g).size()));
      for (size_t b = first_bucket[g]; b < first_bucket[g + 1]; at = bucket_end[b++])
        if (bucket_end[b] > at && (lane.threads > 1 || bucket_end[b] - at >= kDenseRegionSeeds))
          lane.diagonals[g]->touch(uint64_t(b - first_bucket[g]) << kRegionShift, uint64_t(1) << kRegionShift);
    }

  // The work units: each non-empty bucket (a region of one strand's table; seeds in different regions never
  // interact), or each strand when not bucketed, handed out in turn, so that the threads stay busy however the
  // seeds fall between the strands (one strand per thread left one thread idle for up to a third of stage 2 of
  // E. coli against S. suis). Each strand's table is made and its range reserved first, on this thread.
  struct Unit {
    size_t g, begin, end, bucket;
  };
  if (regional) {
    // Carried ends belong to the batch they came from (its stream offsets, its buckets): a strand without seeds
    // in the batch's last group keeps its own, and a search may stop half-way.
    if (lane.carried.size() != n_buckets) lane.carried.assign(n_buckets, {});
    else if (lane.carried_from != batch.first_pos)
      for (auto& kept : lane.carried) kept.clear();
    lane.carried_from = batch.first_pos;
  }
  std::vector<Unit> units;
  for (size_t g = 0; g < G; ++g) {
    size_t at = first_bucket[g] == 0 ? 0 : bucket_end[first_bucket[g] - 1];
    const size_t end = bucket_end[first_bucket[g + 1] - 1];
    if (at == end) continue;
    if (regional) {
      for (size_t b = first_bucket[g]; b < first_bucket[g + 1]; at = bucket_end[b++])
        if (bucket_end[b] > at || !lane.carried[b].empty())
          units.push_back(Unit{g, at, bucket_end[b], b});
      continue;
    }
    if (!lane.diagonals[g]) lane.diagonals[g].reset(new DiagonalTable(strand_of(g).size()));
    // A window's seeds lie in its owned range (the window before may have rebased the table past its start).
    if (bucketed &&
        !lane.diagonals[g]->reserve_range(batch.first_pos + (batch.window.own_begin - s_offset), batch.end_pos()))
      throw std::logic_error("diagonal table: batch out of range");  // cannot happen: batches come in order
    if (!bucketed) {
      units.push_back(Unit{g, at, end, 0});
      continue;
    }
    for (size_t b = first_bucket[g]; b < first_bucket[g + 1]; at = bucket_end[b++])
      if (bucket_end[b] > at) units.push_back(Unit{g, at, bucket_end[b], b});
  }
  const int T = int(std::min<size_t>(size_t(lane.threads), std::max<size_t>(units.size(), 1)));
  std::atomic<size_t> next_unit{0};
  std::vector<std::vector<Hsp>> found(static_cast<size_t>(T));
  if (lane.triggers.size() < size_t(T)) lane.triggers.resize(size_t(T));
  if (regional && lane.regions.size() < size_t(T)) lane.regions.resize(size_t(T));
  std::vector<uint64_t> extensions(static_cast<size_t>(T), 0);
  parallel_for(size_t(T), T, [&](size_t t) {
    // Counted and collected in this thread's own variables, written out once at the end: extensions[t] and the
    // headers of found[t] and lane.triggers[t] share cache lines with the other threads' (written at every seed).
    uint64_t n_extensions = 0;
    std::vector<Hsp> my_hsps;
    std::vector<Trigger> my_triggers;
    auto process = [&](size_t g, auto& diag, const Item& x) {
      const uint32_t query = uint32_t(g / 2);
      const bool minus = (g & 1) != 0;
      const std::vector<uint8_t>& qc = strand_of(g);
      const uint64_t q_len = qc.size();
      const uint64_t rec_stream = batch.first_pos + batch.local_starts[x.record];
      const uint64_t q_pos = x.q_pos;
      if (!diag.should_extend(rec_stream + x.s_pos, q_pos)) return;  // already explored on this diagonal
      const uint8_t* s = batch.codes.data() + batch.local_starts[x.record];
      const uint64_t s_len = batch.lengths[x.record];
      const ExtensionCutoffs& cut = cutoffs_[g];
      UngappedScoring sc = scoring;
      sc.xdrop = cut.xdrop;
      ++n_extensions;
      // As blastn: a failed extension marks only the word itself as explored.
      if (w >= 11 && approximate_ungapped_score(concatenated_.codes.data(), concatenated_.codes.size() - 1, s, s_len,
                                                concatenated_.offset[g] + q_pos, x.s_pos, sc) < cut.reduced) {
        diag.record(rec_stream + x.s_pos, q_pos, rec_stream + x.s_pos + uint64_t(w));
        return;
      }
      UngappedExtension e = extend_ungapped(qc.data(), q_len, s, s_len, q_pos, x.s_pos, sc);
      if (e.score < cut.word) {
        diag.record(rec_stream + x.s_pos, q_pos, rec_stream + x.s_pos + uint64_t(w));
        return;
      }
      diag.record(rec_stream + x.s_pos, q_pos, rec_stream + e.s_start + e.length);
      if (params_.gapped) {
        Trigger tr;
        tr.subject = x.record;
        tr.strand_index = uint32_t(g);
        tr.hit = GapTrigger{q_pos, x.s_pos + s_offset, e.q_start, e.s_start + s_offset, e.length, e.score};
        my_triggers.push_back(tr);
        return;
      }
      // Rescored and counted on the true codes, as blastn's traceback reads the subject (subject_bases.hpp).
      thread_local std::vector<uint8_t> true_copy;
      const uint64_t record_local = batch.local_starts[x.record];
      const uint8_t* st = true_subject_codes(batch.codes.data(), record_local + e.s_start, e.length,
                                             batch.ambiguous, true_copy);  // st[k]: subject base e.s_start + k
      UngappedExtension kept = e;
      kept.s_start = 0;
      if (!reevaluate_ungapped(qc.data(), st, sc, cut.word, kept)) return;
      st += kept.s_start;
      e.q_start = kept.q_start, e.s_start += kept.s_start, e.length = kept.length, e.score = kept.score;
      const double evalue = evalue_of(strand_evalue_params_[g], e.score, strand_search_space_[g]);
      if (!(evalue <= params_.evalue)) return;
      Hsp h;
      h.query = query;
      h.subject = batch.first_record + x.record;
      h.strand = minus ? 1 : 0;
      h.q_start = minus ? q_len - e.q_start - e.length : e.q_start;
      h.q_end = h.q_start + e.length;
      h.s_start = e.s_start + s_offset;
      h.s_end = h.s_start + e.length;
      h.score = e.score;
      h.align_length = e.length;
      // As blastn counts them (s_Blast_HSPGetNumIdentitiesAndPositives): equal letters, ambiguity codes included.
      for (uint64_t k = 0; k < e.length; ++k) h.identities += (qc[e.q_start + k] == st[k]);
      h.evalue = evalue;
      h.bits = bitscore_of(strand_evalue_params_[g], e.score);
      if (params_.aligned_sequences) set_aligned_letters(h, qc.data(), e.q_start, st, 0, {}, e.length);
      my_hsps.push_back(h);
    };
    auto run_unit = [&](const Unit& unit, auto& diag) {
      const size_t g = unit.g, end = unit.end;
      const std::vector<uint8_t>& qc = strand_of(g);
      for (size_t i = unit.begin; i < end; ++i) {
        if (i + kAhead < end) {
          const Item& y = items[i + kAhead];
          if constexpr (std::is_same_v<std::decay_t<decltype(diag)>, DiagonalTable>)
            diag.prefetch(batch.first_pos + batch.local_starts[y.record] + y.s_pos, y.q_pos);
          __builtin_prefetch(qc.data() + y.q_pos);
          // The 4-base screen reads blastn's concatenated query, another copy: left unfetched, its first load was
          // a third of the screen's time (E. coli against S. suis, w 11).
          if (w >= 11) {
            const size_t at = concatenated_.offset[g] + y.q_pos, last = concatenated_.codes.size() - 1;
            __builtin_prefetch(concatenated_.codes.data() + (at >= 8 ? at - 8 : 0));
            __builtin_prefetch(concatenated_.codes.data() + std::min<size_t>(at + w + 8, last));
          }
          __builtin_prefetch(batch.codes.data() + batch.local_starts[y.record] + y.s_pos);
        }
        process(g, diag, items[i]);
      }
    };
    for (size_t u; (u = next_unit.fetch_add(1)) < units.size();) {
      if (!regional) {
        run_unit(units[u], *lane.diagonals[units[u].g]);
        continue;
      }
      DiagonalRegion& region = lane.regions[t];
      std::vector<DiagonalRegion::Carried>& carried = lane.carried[units[u].bucket];
      region.start(batch.first_pos, strands[units[u].g].slot_mask);
      region.restore(carried);
      run_unit(units[u], region);
      // Every slot set here is cleared for the next region: those of the seeds and of the ends carried in.
      std::vector<DiagonalRegion::Carried> carry_on;
      region.carry(carried, later_seeds_from, carry_on);
      for (size_t i = units[u].begin; i < units[u].end; ++i)
        region.carry(batch.first_pos + batch.local_starts[items[i].record] + items[i].s_pos, items[i].q_pos,
                     later_seeds_from, carry_on);
      carried.swap(carry_on);
    }
    extensions[t] = n_extensions;
    found[t] = std::move(my_hsps);
    std::vector<Trigger>& triggers = lane.triggers[t];
    if (triggers.empty()) triggers = std::move(my_triggers);
    else triggers.insert(triggers.end(), my_triggers.begin(), my_triggers.end());
  });
  for (size_t t = 0; t < size_t(T); ++t) {
    lane.stats.extensions += extensions[t];
    lane.hsps.insert(lane.hsps.end(), found[t].begin(), found[t].end());
  }
  lane.stats.seconds_stage2 += seconds_since(t0);
}

void BlastSearch::extend_gapped_batch(const DbBatch& batch, Lane& lane) {
  std::vector<const uint8_t*> subjects;
  for (uint64_t start : batch.local_starts) subjects.push_back(batch.codes.data() + start);
  // The true codes of the records with triggers that have ambiguity codes: copies, with those codes back in place.
  std::vector<const uint8_t*> true_subjects = subjects;
  std::vector<bool> true_iupac(subjects.size(), false);
  std::vector<std::vector<uint8_t>> copies(subjects.size());
  if (!batch.ambiguous.empty())
    for (const auto& v : lane.triggers)
      for (const Trigger& t : v) {
        const size_t r = t.subject;
        if (true_subjects[r] != subjects[r]) continue;
        true_subjects[r] = true_subject_codes(batch.codes.data(), batch.local_starts[r], batch.lengths[r],
                                              batch.ambiguous, copies[r]);
        true_iupac[r] = any_iupac(batch.ambiguous, batch.local_starts[r], batch.local_starts[r] + batch.lengths[r]);
      }
  extend_gapped_triggers(batch.first_record, subjects, true_subjects, true_iupac, batch.lengths, lane);
}

void BlastSearch::extend_gapped_triggers(uint32_t first_record, const std::vector<const uint8_t*>& subjects,
                                         const std::vector<const uint8_t*>& true_subjects,
                                         const std::vector<bool>& true_iupac, const std::vector<uint64_t>& lengths,
                                         Lane& lane) {
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<Trigger> all;
  for (auto& v : lane.triggers) {
    all.insert(all.end(), v.begin(), v.end());
    std::vector<Trigger>().swap(v);
  }
  lane.stats.gap_triggers += all.size();
  // One work unit per (subject record, query strand); their order in `all` does not matter (extend_gapped sorts).
  std::sort(all.begin(), all.end(), [](const Trigger& a, const Trigger& b) {
    return std::tie(a.subject, a.strand_index, a.hit.s_seed, a.hit.q_seed) <
           std::tie(b.subject, b.strand_index, b.hit.s_seed, b.hit.q_seed);
  });
  std::vector<size_t> starts;
  for (size_t i = 0; i < all.size(); ++i)
    if (i == 0 || all[i].subject != all[i - 1].subject || all[i].strand_index != all[i - 1].strand_index)
      starts.push_back(i);
  starts.push_back(all.size());
  const size_t groups = starts.size() - 1;
  std::vector<std::vector<Hsp>> found(groups);
  std::vector<GappedExtensionStats> extension_stats(groups);
  auto extend_group = [&](size_t k, SpeculationCrew* crew) {
    const Trigger& first = all[starts[k]];
    const uint32_t g = first.strand_index;
    const uint32_t query = g / 2;
    const bool minus = (g & 1) != 0;
    const std::vector<uint8_t>& qc = queries_.scored_strand(g);
    const uint8_t* s = subjects[first.subject];
    const uint8_t* s_true = true_subjects[first.subject];
    const uint64_t s_len = lengths[first.subject];
    std::vector<GapTrigger> hits;
    for (size_t i = starts[k]; i < starts[k + 1]; ++i) hits.push_back(all[i].hit);
    GappedExtensionParams gp = gapped_params_;
    gp.cutoff = cutoffs_[g].hit;
    const uint64_t q_len = qc.size();
    for (const GappedHsp& r :
         extend_gapped(qc.data(), q_len, s, s_len, std::move(hits), gp, 1, &extension_stats[k], s_true,
                       true_iupac[first.subject], queries_.has_iupac(query), crew)) {
      const int64_t e_score = gapped_.round_down ? (r.score & ~int64_t(1)) : r.score;
      const double evalue = evalue_of(strand_evalue_params_[g], e_score, strand_search_space_[g]);
      if (!(evalue <= params_.evalue)) continue;
      Hsp h;
      h.query = query;
      h.subject = first_record + first.subject;
      h.strand = minus ? 1 : 0;
      h.q_start = minus ? q_len - r.q_end : r.q_start;
      h.q_end = minus ? q_len - r.q_start : r.q_end;
      h.s_start = r.s_start;
      h.s_end = r.s_end;
      h.score = r.score;
      h.identities = r.identities;
      h.align_length = r.align_length;
      h.gaps = r.align_length - r.identities - r.mismatches;
      h.gap_opens = r.gap_opens;
      h.evalue = evalue;
      h.bits = bitscore_of(strand_evalue_params_[g], r.score);
      if (params_.aligned_sequences) set_aligned_letters(h, qc.data(), r.q_start, s_true, r.s_start, r.ops, 0);
      found[k].push_back(h);
    }
  };
  // Each group's result is fixed whatever the threads (extend_gapped), so any schedule gives the same output. The
  // groups go one per thread, most triggers first, and a thread out of groups joins a large one still running: two
  // strands of a genome against another run side by side on two threads (with every thread in each group, stage 3
  // of E. coli vs S. suis took 0.41 s on two threads, one per thread 0.38 s), while a group far costlier than the
  // rest (the strand of an E. coli slice that holds its 1-Mbase self-match) ends on all threads. A small group
  // (under a quarter of a thread's share of the triggers) runs the plain loop: letting threads join it cost 1% of
  // the 152 contigs vs E. coli, in its locks.
  const int T = lane.threads;
  std::vector<size_t> order(groups);
  for (size_t k = 0; k < groups; ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return starts[a + 1] - starts[a] > starts[b + 1] - starts[b];
  });
  if (T > 1) {
    SpeculationCrew crew(T);
    crew.run(groups, [&](size_t i) {
      const size_t k = order[i];
      extend_group(k, (starts[k + 1] - starts[k]) * size_t(4 * T) > all.size() ? &crew : nullptr);
    });
  } else {
    for (size_t k : order) extend_group(k, nullptr);
  }
  if (params_.max_target_seqs > 0)
    for (size_t k = 0; k < groups; ++k) {
      const int64_t best = extension_stats[k].best_preliminary_score;
      if (best < 0) continue;
      const Trigger& first = all[starts[k]];
      const uint32_t g = first.strand_index;
      // As Blast_HSPListGetEvalues: with the 2/-n tables an odd score counts as the even one below.
      const int64_t e_score = gapped_.round_down ? (best & ~int64_t(1)) : best;
      lane.preliminary_ranks.push_back(SubjectRank{g / 2, first_record + first.subject,
                                                   evalue_of(strand_evalue_params_[g], e_score, strand_search_space_[g]),
                                                   best});
    }
  for (const GappedExtensionStats& e : extension_stats) {
    lane.stats.gapped_extensions += e.preliminary + e.final;
    lane.stats.gapped_extensions_wasted += e.preliminary_wasted + e.final_wasted;
    lane.stats.gapped_alignments_joined += e.final_joined;
    lane.stats.gapped_extensions_postponed += e.postponed;
  }
  for (auto& f : found) lane.hsps.insert(lane.hsps.end(), f.begin(), f.end());
  lane.stats.seconds_stage3 += seconds_since(t0);
}

namespace {
// s_EvalueCompareHSPLists: by best E-value, then best score, then the later subject first.
bool ranks_before(double e1, int64_t s1, uint32_t subject1, double e2, int64_t s2, uint32_t subject2) {
  if (const int c = compare_evalues(e1, e2)) return c < 0;
  if (s1 != s2) return s1 > s2;
  return subject1 > subject2;
}

// Keeps the HSPs of each query's best `keep` subjects, ranked by their best entry in `ranks` (any number per
// subject): what Blast_HitListUpdate keeps, the best under a total order whatever the order they come in.
void keep_best_subjects(std::vector<Hsp>& out, std::vector<BlastSearch::SubjectRank> ranks, uint64_t keep) {
  using Rank = BlastSearch::SubjectRank;
  const auto before = [](const Rank& a, const Rank& b) {
    return ranks_before(a.evalue, a.score, a.subject, b.evalue, b.score, b.subject);
  };
  std::sort(ranks.begin(), ranks.end(), [&](const Rank& a, const Rank& b) {
    if (a.query != b.query || a.subject != b.subject) return std::tie(a.query, a.subject) < std::tie(b.query, b.subject);
    return before(a, b);
  });
  ranks.erase(std::unique(ranks.begin(), ranks.end(),
                          [](const Rank& a, const Rank& b) { return a.query == b.query && a.subject == b.subject; }),
              ranks.end());
  std::stable_sort(ranks.begin(), ranks.end(), [&](const Rank& a, const Rank& b) {
    return a.query != b.query ? a.query < b.query : before(a, b);
  });
  std::vector<std::pair<uint32_t, uint32_t>> kept;  // (query, subject)
  for (size_t i = 0, n = 0; i < ranks.size(); ++i) {
    n = (i > 0 && ranks[i].query == ranks[i - 1].query) ? n + 1 : 0;
    if (n < keep) kept.emplace_back(ranks[i].query, ranks[i].subject);
  }
  std::sort(kept.begin(), kept.end());
  out.erase(std::remove_if(out.begin(), out.end(),
                           [&](const Hsp& h) {
                             return !std::binary_search(kept.begin(), kept.end(), std::make_pair(h.query, h.subject));
                           }),
            out.end());
}
}  // namespace

void BlastSearch::order_for_report(std::vector<Hsp>& out) const {
  // Subjects of each query ranked by their best E-value (then best score), as BLAST reports them.
  std::sort(out.begin(), out.end(), [](const Hsp& a, const Hsp& b) {
    return std::tie(a.query, a.subject) < std::tie(b.query, b.subject);
  });
  struct Rank {
    double evalue;
    int64_t score;
  };
  std::vector<std::pair<std::pair<uint32_t, uint32_t>, Rank>> best;
  for (const Hsp& h : out) {
    if (best.empty() || best.back().first != std::make_pair(h.query, h.subject))
      best.push_back({{h.query, h.subject}, {h.evalue, h.score}});
    else if (h.evalue < best.back().second.evalue ||
             (compare_evalues(h.evalue, best.back().second.evalue) == 0 && h.score > best.back().second.score))
      best.back().second = {h.evalue, h.score};  // blastn's first HSP of the subject: by E-value, then score
  }
  auto rank_of = [&](const Hsp& h) {
    auto it = std::lower_bound(best.begin(), best.end(), std::make_pair(h.query, h.subject),
                               [](const auto& x, const std::pair<uint32_t, uint32_t>& k) { return x.first < k; });
    return it->second;
  };
  std::stable_sort(out.begin(), out.end(), [&](const Hsp& a, const Hsp& b) {
    if (a.query != b.query) return a.query < b.query;
    if (a.subject != b.subject) {
      const Rank ra = rank_of(a), rb = rank_of(b);
      if (const int c = compare_evalues(ra.evalue, rb.evalue)) return c < 0;
      if (ra.score != rb.score) return ra.score > rb.score;
      return a.subject > b.subject;  // as s_EvalueCompareHSPLists: equal best E-value and score, the later subject first
    }
    // By E-value, then as blastn's ScoreCompareHSPs (s_EvalueCompareHSPs): equal scores on the two strands can have
    // E-values that differ in the last bits (strand_evalue_params_); below 1e-180 they count as equal.
    if (const int c = compare_evalues(a.evalue, b.evalue)) return c < 0;
    if (a.score != b.score) return a.score > b.score;
    // Ties as blastn's ScoreCompareHSPs breaks them: subject start up, subject end down, query start up, query end
    // down, the query on the strand aligned (a minus-strand alignment's offsets are on the reverse complement);
    // then the strand, so that the order cannot depend on the order the threads found them in.
    const uint64_t qa = queries_.codes[a.query].size(), qb = queries_.codes[b.query].size();
    const uint64_t a_qs = a.strand ? qa - a.q_end : a.q_start, a_qe = a.strand ? qa - a.q_start : a.q_end;
    const uint64_t b_qs = b.strand ? qb - b.q_end : b.q_start, b_qe = b.strand ? qb - b.q_start : b.q_end;
    return std::make_tuple(a.s_start, b.s_end, a_qs, b_qe, a.strand) <
           std::make_tuple(b.s_start, a.s_end, b_qs, a_qe, b.strand);
  });
}

std::vector<Hsp> BlastSearch::finish() {
  std::vector<Hsp> out = lane_.hsps;
  const uint64_t max_subjects = params_.max_target_seqs;
  if (max_subjects > 0 && params_.gapped) {
    // Before its traceback blastn keeps each query's best min(2N, N + 50) subjects (at least 10;
    // GetPrelimHitlistSize) ranked by their preliminary alignments: a subject's best strand, by E-value then score.
    keep_best_subjects(out, lane_.preliminary_ranks,
                       std::min(std::max<uint64_t>(2 * max_subjects, 10), max_subjects + 50));
  }
  if (!params_.gapped && params_.percent_identity > 0) {
    // Without gaps blastn drops the HSPs below -perc_identity before it ranks the subjects (measured: a subject
    // whose HSPs all fall below leaves its place to the next one).
    const double pct = params_.percent_identity;
    out.erase(std::remove_if(out.begin(), out.end(),
                             [&](const Hsp& h) { return double(h.identities) * 100.0 < double(h.align_length) * pct; }),
              out.end());
  }
  order_for_report(out);
  if (params_.max_hsps > 0 || params_.qcov_hsp_perc > 0) {
    // s_FilterBlastResults: each query-subject pair's best max_hsps, then those covering less of the query than
    // qcov_hsp_perc dropped (Blast_HSPGetQueryCoverage: 100 x aligned query bases / query length, plus 0.5 below 99).
    std::vector<Hsp> kept;
    uint64_t index = 0;
    bool dropped_by_coverage = false;
    for (size_t i = 0; i < out.size(); ++i) {
      const Hsp& h = out[i];
      index = (i > 0 && h.query == out[i - 1].query && h.subject == out[i - 1].subject) ? index + 1 : 0;
      if (params_.max_hsps > 0 && index >= params_.max_hsps) continue;
      if (params_.qcov_hsp_perc > 0) {
        const uint64_t q_len = queries_.codes[h.query].size();
        double pct = q_len ? 100.0 * double(h.q_end - h.q_start) / double(q_len) : 0.0;
        if (q_len && pct < 99) pct += 0.5;
        if (pct < params_.qcov_hsp_perc) {
          dropped_by_coverage = true;
          continue;
        }
      }
      kept.push_back(h);
    }
    out.swap(kept);
    if (dropped_by_coverage) order_for_report(out);  // a subject's best may be gone: ranked again, as blastn does
  }
  if (max_subjects > 0) {  // then the best N by the final alignments (s_BlastPruneExtraHits)
    std::vector<Hsp> kept;
    uint64_t subjects = 0;
    for (size_t i = 0; i < out.size(); ++i) {
      const bool new_query = i == 0 || out[i].query != out[i - 1].query;
      if (new_query) subjects = 0;
      if (new_query || out[i].subject != out[i - 1].subject) ++subjects;
      if (subjects <= max_subjects) kept.push_back(out[i]);
    }
    out.swap(kept);
  }
  lane_.stats.hsps = out.size();
  return out;
}

std::vector<uint64_t> BlastSearch::subject_coverage(const std::vector<Hsp>& hsps) {
  std::vector<uint64_t> out(hsps.size(), 0);
  for (size_t i = 0, j; i < hsps.size(); i = j) {
    std::vector<std::pair<uint64_t, uint64_t>> ranges;
    for (j = i; j < hsps.size() && hsps[j].query == hsps[i].query && hsps[j].subject == hsps[i].subject; ++j)
      ranges.emplace_back(hsps[j].q_start, hsps[j].q_end);
    std::sort(ranges.begin(), ranges.end());
    uint64_t covered = 0, end = 0;
    for (const auto& r : ranges) {
      const uint64_t from = std::max(r.first, end);
      if (r.second > from) covered += r.second - from;
      end = std::max(end, r.second);
    }
    for (size_t k = i; k < j; ++k) out[k] = covered;
  }
  return out;
}

TabularHit BlastSearch::tabular(const Hsp& h) const {
  TabularHit t;
  t.query = queries_.names[h.query];
  t.subject = subject_names_[h.subject - subject_base_];
  t.q_len = queries_.codes[h.query].size();
  t.s_len = subject_lengths_[h.subject - subject_base_];
  t.score = h.score;
  t.length = h.align_length;
  t.identities = h.identities;
  t.gaps = h.gaps;
  t.gap_opens = h.gap_opens;
  t.q_start = h.q_start + 1;
  t.q_end = h.q_end;
  if (h.strand == 0) {
    t.s_start = h.s_start + 1;
    t.s_end = h.s_end;
  } else {
    t.s_start = h.s_end;
    t.s_end = h.s_start + 1;
  }
  t.evalue = h.evalue;
  t.bits = h.bits;
  t.qseq = h.qseq;
  t.sseq = h.sseq;
  return t;
}

}  // namespace bloomseq
