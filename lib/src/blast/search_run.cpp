// blast-bloom's search: BLAST stages 1a (Bloom filters over sub-queries), 1b (exact verification) and 2 (ungapped
// extension), with blastn-compatible tabular output.
#include "bloomseq/blast/search_run.hpp"

#include "bloomseq/blast/tune_trial.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>

#include "bloomseq/app/json_writer.hpp"
#include "bloomseq/app/progress.hpp"
#include "bloomseq/app/tuning_profile.hpp"
#include "bloomseq/blast/database.hpp"
#include "bloomseq/blast/pairwise_report.hpp"
#include "bloomseq/blast/part_file.hpp"
#include "bloomseq/blast/search_plan.hpp"
#include "bloomseq/blast/pipeline.hpp"
#include "bloomseq/blast/short_word_plan.hpp"
#include "bloomseq/blast/stage1a_backend.hpp"
#include "bloomseq/blast/stage1a_cpu.hpp"
#include "bloomseq/bloom/bloom_vector.hpp"
#include "bloomseq/error.hpp"
#include "bloomseq/io/output_file.hpp"
#include "bloomseq/io/sequence_reader.hpp"
#include "bloomseq/model/planner.hpp"
#include "bloomseq/model/profile_io.hpp"

namespace bloomseq {
namespace {

const char* kProgram = "blast-bloom";

// The model's layouts and the pipeline's (the same three, under the same names).
model::Layout to_model_layout(Stage1aLayout l) {
  switch (l) {
    case Stage1aLayout::bitsliced: return model::Layout::BitSliced;
    case Stage1aLayout::paper_vector: return model::Layout::PaperVector;
    default: return model::Layout::Vector;
  }
}
Stage1aLayout from_model_layout(model::Layout l) {
  switch (l) {
    case model::Layout::BitSliced: return Stage1aLayout::bitsliced;
    case model::Layout::PaperVector: return Stage1aLayout::paper_vector;
    default: return Stage1aLayout::vector;
  }
}

void write_stats(const std::string& path, const std::string& cmdline, const std::string& query_path,
                 const std::string& db_path, const BlastSearch& s, const std::string& backend, double total_seconds,
                 uint64_t query_bases, const model::Plan* plan, const model::PlanRequest* request,
                 const std::string& profile_message, const TuneTrial& trial) {
  const BlastStats& st = s.stats();
  const BlastParams& p = s.params();
  JsonWriter j;
  j.begin_object();
  j.value("program", kProgram).value("version", BLOOMSEQ_VERSION).value("command_line", cmdline);
  j.begin_object("inputs")
      .value("query", query_path)
      .value("query_records", uint64_t(s.queries().size()))
      .value("query_bases", query_bases)
      .value("db", db_path)
      .value("db_records", st.db_records)
      .value("db_bases", st.db_bases)
      .end_object();
  j.begin_object("parameters")
      .value("word_size", p.w)
      .value("probe_word", p.probe_word)
      .value("probe_stride", p.probe_word > 0 ? p.w - p.probe_word + 1 : 1)
      .value("exact_filter", p.exact_filter)
      .value("sub_query", p.n_sub)
      .value("bloom_bits", p.m_bits)
      .value("hashes", p.k)
      .value("h3_seed", p.seed)
      .value("layout", layout_name(s.layout()))
      .value("reward", p.reward)
      .value("penalty", p.penalty)
      .value("xdrop_bits", p.xdrop_bits)
      .value("gapped", p.gapped)
      .value("dust", p.dust)
      .value("evalue", p.evalue)
      .value("max_target_seqs", p.max_target_seqs)
      .value("max_hsps", p.max_hsps)
      .value("perc_identity", p.percent_identity)
      .value("qcov_hsp_perc", p.qcov_hsp_perc)
      .value("dbsize", p.db_length)
      .value("searchsp", p.search_space)
      .value("strand", p.strands == 3 ? "both" : p.strands == 1 ? "plus" : "minus")
      .value("lcase_masking", p.lcase_masking)
      .value("chunk_bases", p.chunk_bases)
      .end_object();
  j.value("backend", backend).value("simd", s.layout() == Stage1aLayout::bitsliced ? bitsliced_isa() : "none");
  j.value("threads", p.threads);
  j.value("thread_split", s.stats().batches_in_parallel ? "batches" : "chunks");
  j.begin_object("seconds")
      .value("build", st.seconds_build)
      .value("stage1a", st.seconds_stage1a)
      .value("stage1b", st.seconds_stage1b)
      .value("stage2", st.seconds_stage2)
      .value("stage3", st.seconds_stage3)
      .value("total", total_seconds)
      .end_object();
  j.value("subqueries", uint64_t(s.filters().count()));
  j.value("db_wmers", st.db_wmers).value("membership_tests", st.membership_tests);
  j.value("tests_per_second", st.seconds_stage1a > 0 ? double(st.membership_tests) / st.seconds_stage1a : 0.0);
  j.value("stage1a_hits", st.stage1a_hits)
      .value("true_positives", st.true_positives)
      .value("false_positives", st.false_positives)
      .value("seeds", st.seeds)
      .value("extensions", st.extensions)
      .value("gap_triggers", st.gap_triggers)
      .value("gapped_extensions", st.gapped_extensions)
      .value("gapped_extensions_wasted", st.gapped_extensions_wasted)
      .value("gapped_alignments_joined", st.gapped_alignments_joined)
      .value("gapped_extensions_postponed", st.gapped_extensions_postponed)
      .value("dust_masked_wmers", st.dust_masked_wmers)
      .value("query_chunks", st.query_chunks)
      .value("hsps", st.hsps);
  // FPR: overall = sum FP / sum (DB - TP) over sub-queries; modeled = the same weighting of eq. 2.
  double fp = 0, neg = 0, modeled = 0;
  std::vector<double> emp, mod;
  for (uint32_t v = 0; v < s.filters().count(); ++v) {
    const double n = double(st.db_wmers) - double(st.tp[v]);
    fp += double(st.fp[v]);
    neg += n;
    modeled += s.modeled_fpr(v) * n;
    emp.push_back(s.empirical_fpr(v));
    mod.push_back(s.modeled_fpr(v));
  }
  j.begin_object("fpr")
      .value("empirical", neg > 0 ? fp / neg : 0.0)
      .value("modeled", neg > 0 ? modeled / neg : 0.0)
      .value("definition", "empirical FP/(DB-TP) per sub-query (Ma et al. 2011 eq. 3); modeled (1-(1-1/m)^(kn))^k, n = distinct canonical w-mers (eq. 2)");
  j.begin_array("per_subquery_empirical");
  for (double x : emp) j.value("", x);
  j.end_array();
  j.begin_array("per_subquery_modeled");
  for (double x : mod) j.value("", x);
  j.end_array();
  j.end_object();
  if (plan) {
    // The plan's predictions next to what this run measured (same definitions: FPR per test; w-mers/s over
    // stages 1a + 1b).
    const auto& c = plan->config;
    const auto& pr = plan->prediction;
    const double s1 = st.seconds_stage1a, s1b = st.seconds_stage1b;
    j.begin_object("auto_tune");
    j.value("objective", request->objective == model::Objective::MinTime ? "min-time" : "min-fpr");
    if (request->objective == model::Objective::MinTime) j.value("target_fpr", request->target_fpr);
    else j.value("target_throughput", request->target_throughput);
    j.value("target_met", plan->target_met).value("evaluated", uint64_t(plan->evaluated));
    j.value("device", plan->device).value("calibration", plan->calibration_source).value("profile", profile_message);
    j.begin_object("plan")
        .value("sub_query", c.n_sub)
        .value("hashes", c.k)
        .value("bloom_bits", c.m_bits)
        .value("layout", model::to_string(c.layout))
        .value("threads", c.threads)
        .value("work_units", c.work_units)
        .value("batch_bases", c.batch_bases)
        .end_object();
    j.begin_object("predicted")
        .value("fpr", pr.fpr)
        .value("stage1a_seconds", pr.stage1a_s)
        .value("stage1b_seconds", pr.stage1b_s)
        .value("seconds", pr.total_s)
        .value("tests_per_second", pr.tests_per_s)
        .value("wmers_per_second", pr.wmers_per_s)
        .value("subqueries", pr.subqueries)
        .value("false_hits", pr.false_hits)
        .end_object();
    j.begin_object("measured")
        .value("fpr", neg > 0 ? fp / neg : 0.0)
        .value("stage1a_seconds", s1)
        .value("stage1b_seconds", s1b)
        .value("seconds", s1 + s1b)
        .value("tests_per_second", s1 > 0 ? double(st.membership_tests) / s1 : 0.0)
        .value("wmers_per_second", s1 + s1b > 0 ? double(st.db_wmers) / (s1 + s1b) : 0.0)
        .value("subqueries", uint64_t(s.filters().count()))
        .value("false_hits", st.false_positives)
        .end_object();
    if (trial.ran) {
      // The on-line check: both candidates timed on the sample, their whole-run (build + 1a + 1b) predictions,
      // and the build + 1a + 1b this run measured for the one kept.
      auto candidate = [&j](const char* name, const TuneTrialCandidate& t) {
        j.begin_object(name)
            .value("build_seconds", t.build_s)
            .value("sample_seconds", t.sample_s)
            .value("predicted_seconds", t.predicted_s)
            .end_object();
      };
      j.begin_object("check");
      j.value("sample_bases", trial.sample_bases).value("seconds", trial.seconds);
      candidate("plan", trial.plan);
      candidate("defaults", trial.defaults);
      j.value("plan_built", !trial.plan_skipped).value("plan_build_estimate_seconds", trial.plan_build_estimate_s);
      j.value("kept", trial.kept_plan ? "plan" : "defaults").value("plan_timed", trial.plan_timed);
      j.value("measured_seconds", st.seconds_build + s1 + s1b);
      j.value("extensions_once_seconds", trial.later_once_s)
          .value("extensions_per_mbase_seconds", trial.later_per_base_s * 1e6);
      // The whole run's prediction; seconds.total above is what it measured.
      j.begin_object("predicted_run")
          .value("total_seconds", trial.run.total())
          .value("before_seconds", trial.run.before_s)
          .value("stages_1a_1b_seconds", trial.run.search_s)
          .value("extensions_seconds", trial.run.later_s)
          .value("reading_seconds", trial.run.reading_s)
          .end_object();
      j.end_object();
    }
    j.end_object();
  }
  j.end_object();
  OutputFile out(path);
  out.write(j.str());
  out.write("\n");
  out.commit();
}

// Before a long search (progress on): memory from the largest batch (a database held from the counting pass: its
// text, its codes and the input's pages, about 3 bytes per base; one parsed again goes straight into codes, about
// 1.1 bytes per base, measured), time from the counting pass's reading rate (a database too
// large to keep is parsed again) plus stages 1a/1b from the performance model for this configuration.
void print_estimate(std::FILE* log, const DbTotals& db, bool parses_again, double counting_s,
                    const BlastSearch& search, const std::string& profile, uint64_t query_bases) {
  const BlastParams& p = search.params();
  // A record longer than a batch is searched in windows of about a batch (DbBatch::window).
  const uint64_t longest = std::min(db.largest, p.batch_bases + 2 * search.window_margin());
  const uint64_t batch = std::min(db.bases, p.batch_bases + longest);
  const double mem_mb = ((parses_again ? 1.1 : 3.0) * double(batch) + double(search.filters().count()) * double(p.m_bits) / 8 +
                         8.0 * double(query_bases)) / 1e6;
  model::PlanRequest req;
  req.query_bases = query_bases;
  req.db_bases = db.bases;
  req.w = p.w;
  req.n_sub = p.n_sub;
  req.k = p.k;
  req.m_bits = p.m_bits;
  req.threads = p.threads;
  req.layouts = {to_model_layout(search.layout())};
  const model::LoadedProfile prof = model::load_profile(profile);
  const model::Plan plan = model::plan_stage1a(req, prof.device, prof.calibration);
  const double read_s = parses_again ? counting_s : 0.0;
  if (!plan.feasible || plan.prediction.total_s + read_s < 2.0) return;  // not long work
  std::fprintf(log,
               "%s: %.1f Mbases in %llu record%s: about %.0f MB of memory (batches of up to %.1f Mbases) and %.0f s "
               "(reading %.0f s, stages 1a/1b %.0f s predicted; extensions not included)\n",
               kProgram, double(db.bases) / 1e6, (unsigned long long)db.records, db.records == 1 ? "" : "s", mem_mb,
               double(batch) / 1e6, read_s + plan.prediction.total_s, read_s, plan.prediction.total_s);
}

// The stage-1a backend: the CPU unless a GPU backend was compiled in (and, for auto, a device answers).
std::unique_ptr<Stage1aBackend> choose_backend(const SearchRequest& o, std::FILE* progress_log) {
  std::ostringstream why;
  std::unique_ptr<Stage1aBackend> b = make_stage1a_backend(o.backend, o.device, &why);
  if (progress_log && !why.str().empty()) std::fprintf(progress_log, "%s: %s", kProgram, why.str().c_str());
  return b;
}

// A warning for characters of `path` that no nucleotide code has (a protein record was refused while reading).
void warn_foreign_letters(std::FILE* log, const std::string& path, const ForeignLetters& foreign) {
  if (log && foreign.count)
    std::fprintf(log, "%s: warning: %s: %s (blastn drops them, so its coordinates after them differ)\n", kProgram,
                 path.c_str(), foreign.describe().c_str());
}

// `titles`: each record's definition line as blastn's comment lines show it (--outfmt 7).
QuerySet read_queries(const std::string& path, uint64_t& query_bases, Fnv64& fingerprint, std::FILE* log,
                      std::vector<std::string>& titles) {
  QuerySet queries;
  query_bases = 0;
  ForeignLetters foreign;
  const auto recs = read_all_nucleotide_sequences(path, foreign);
  warn_foreign_letters(log, path, foreign);
  size_t empty = 0, first_empty = 0;
  for (size_t i = recs.size(); i-- > 0;)
    if (recs[i].seq.empty()) ++empty, first_empty = i;
  if (log && empty)
    std::fprintf(log, "%s: warning: %s: %zu record%s without sequence (the first: record %zu '%s'), which nothing can hit\n",
                 kProgram, path.c_str(), empty, empty == 1 ? "" : "s", first_empty + 1, recs[first_empty].name.c_str());
  if (recs.empty()) throw DataError(path + ": no sequences in the query");
  for (const auto& rec : recs) {
    queries.add(rec.name, rec.seq);
    titles.push_back(blast_query_title(rec.name + rec.blanks + rec.comment));
    query_bases += rec.seq.size();
    fingerprint.add(rec.name);
    fingerprint.add(rec.seq);
  }
  return queries;
}

// What the parts of one sharded search must share: everything that changes the output (not threads, chunk or
// batch sizes, the backend), the inputs' fingerprints and the program's version.
std::string shard_identity(const SearchRequest& o, const BlastParams& p, const QuerySet& queries,
                           uint64_t query_bases, uint64_t query_hash, const DatabaseReader& db) {
  std::string s = std::string(kProgram) + " " + BLOOMSEQ_VERSION + " stage=" + o.stage;
  s += " outfmt=" + outfmt_token(o.format);  // the merge prints the header of these columns
  s += " w=" + std::to_string(p.w) + " probe_word=" + std::to_string(p.probe_word) +
       " exact_filter=" + std::to_string(p.exact_filter) + " sub_query=" + std::to_string(p.n_sub) +
       " bloom_bits=" + std::to_string(p.m_bits) + " hashes=" + std::to_string(p.k) +
       " h3_seed=" + std::to_string(p.seed) + " layout=" + layout_name(p.layout) +
       " reward=" + std::to_string(p.reward) + " penalty=" + std::to_string(p.penalty) +
       " xdrop=" + hex_double(p.xdrop_bits) + " evalue=" + hex_double(p.evalue) +
       " gapped=" + std::to_string(p.gapped) + " dust=" + std::to_string(p.dust) + " gapopen=" + std::to_string(p.gap_open) +
       " gapextend=" + std::to_string(p.gap_extend) + " greedy=" + std::to_string(p.greedy) + " xdrop_gap=" + hex_double(p.xdrop_gap_bits) +
       " xdrop_gap_final=" + hex_double(p.xdrop_final_bits) + " gap_trigger=" + hex_double(p.gap_trigger_bits) +
       " max_target_seqs=" + std::to_string(p.max_target_seqs) + " max_hsps=" + std::to_string(p.max_hsps) +
       " perc_identity=" + hex_double(p.percent_identity) + " qcov_hsp_perc=" + hex_double(p.qcov_hsp_perc) +
       " strands=" + std::to_string(p.strands) + " lcase_masking=" + std::to_string(p.lcase_masking) +
       " dbsize=" + std::to_string(p.db_length) + " searchsp=" + hex_double(p.search_space);
  char h[24];
  std::snprintf(h, sizeof h, "%016llx", (unsigned long long)query_hash);
  s += " query=" + std::to_string(queries.size()) + ":" + std::to_string(query_bases) + ":" + h;
  std::snprintf(h, sizeof h, "%016llx", (unsigned long long)db.layout_hash());
  s += " db=" + std::to_string(db.totals().records) + ":" + std::to_string(db.totals().bases) + ":" + h;
  return s;
}


// --auto-tune: the model's plan for these inputs merged into `p` (what the user gave explicitly stays fixed).
model::Plan apply_auto_tune(const SearchRequest& o, model::PlanRequest& request, const Stage1aBackend& stage1a,
                            uint64_t query_bases, const DbTotals& db, BlastParams& p, std::string& profile_message,
                            std::FILE* log) {
  // On a GPU backend the plan is made for that device (its properties, the model's GPU constants) unless the
  // profile was calibrated on it; the GPU kernel is the papers' vector layout in shared memory.
  const model::LoadedProfile prof = profile_for_backend(model::load_profile(o.profile), stage1a.backend());
  profile_message = prof.message;
  if (log) std::fprintf(log, "%s: %s\n", kProgram, prof.message.c_str());
  request.query_bases = query_bases;
  request.db_bases = db.bases;
  request.w = p.w;
  if (o.given_n_sub) request.n_sub = p.n_sub;
  if (o.given_k) request.k = p.k;
  if (o.given_m_bits) request.m_bits = p.m_bits;
  if (o.given_threads) request.threads = p.threads;
  if (p.layout != Stage1aLayout::automatic) request.layouts = {to_model_layout(p.layout)};
  if (prof.device.kind == model::DeviceKind::Gpu) request.layouts = {model::Layout::PaperVector};
  const model::Plan plan = model::plan_stage1a(request, prof.device, prof.calibration);
  if (!plan.feasible) throw DataError("--auto-tune: " + plan.note);
  if (log) std::fputs(model::describe(plan).c_str(), log);
  p.n_sub = plan.config.n_sub;
  p.k = plan.config.k;
  p.m_bits = plan.config.m_bits;
  // On a GPU the layout only names the kernel's decomposition; the CPU side keeps its own default.
  if (prof.device.kind != model::DeviceKind::Gpu) p.layout = from_model_layout(plan.config.layout);
  if (!o.given_threads && prof.device.kind != model::DeviceKind::Gpu)
    p.threads = std::clamp(plan.config.threads > 0 ? plan.config.threads : prof.device.parallel_units(), 1, 1024);
  p.validate();
  return plan;
}

// HSPs only, on the CPU: stage 1a may probe a shorter word at a stride (the same seeds, fewer tests). Not under
// --auto-tune, whose plan and measured figures are about the w-mers themselves.
// A short query: exact filters of a short word at a stride (short_word_plan.hpp), unless Bloom filter
// parameters were given.
void apply_scan_plan(const SearchRequest& o, const Stage1aCapabilities& caps, const QuerySet& queries,
                     BlastParams& p) {
  const bool scan_choice = o.stage == "hsp" && caps.probe_words && !o.auto_tune && !o.every_wmer &&
                           (caps.scan_by_default || o.scan_word > 0);
  ShortWordPlan scan;
  if (scan_choice && !o.given_n_sub && !o.given_k && !o.given_m_bits) {
    std::vector<uint64_t> lengths;
    for (const auto& q : queries.codes) lengths.push_back(q.size());
    scan = plan_short_word_scan(p.w, lengths);
    if (o.scan_word > 0) scan = forced_short_word_plan(p.w, o.scan_word, lengths);
  }
  if (scan.use) {
    apply_short_word_plan(scan, p, o.given_batch);
  } else {
    if (scan_choice) p.probe_word = o.scan_word > 0 ? (o.scan_word < p.w ? o.scan_word : 0) : default_probe_word(p.w);
    if (caps.host_threads && !o.auto_tune && !o.given_n_sub) p.n_sub = default_cpu_sub_query(p.probe_word);
  }
  p.validate();
}

// --auto-tune on a short query: the model's Bloom plan prices stage 1a and 1b of every w-mer, while the defaults
// would scan exact filters of a short word at a stride (short_word_plan.hpp, false-positive free, so within any
// target FPR). That scan is priced by its own cost per database base; the cheaper of the two is taken, so auto-tune
// no longer loses to the defaults on the shape where the scan applies. Returns the line saying which.
std::string choose_scan_under_auto_tune(const SearchRequest& o, const Stage1aCapabilities& caps,
                                        const QuerySet& queries, uint64_t db_bases, model::Plan& plan,
                                        BlastParams& p) {
  if (o.stage != "hsp" || !caps.probe_words || o.every_wmer || o.given_n_sub || o.given_k || o.given_m_bits ||
      !(caps.scan_by_default || o.scan_word > 0))
    return "";
  std::vector<uint64_t> lengths;
  for (const auto& q : queries.codes) lengths.push_back(q.size());
  const ShortWordPlan scan =
      o.scan_word > 0 ? forced_short_word_plan(p.w, o.scan_word, lengths) : plan_short_word_scan(p.w, lengths);
  if (!scan.use) {
    // No short word: at w >= 20 the defaults test probe words at a stride (a thirteenth of the positions at
    // w = 28), which the model does not price; its plan tests every w-mer and took 1.3-2x the defaults' time
    // (docs/performance-model.md). Their filters (n_sub 2,000) are far below any sensible target FPR, so under a
    // target FPR the defaults' scan is kept when it meets it.
    const int probe = o.scan_word > kMaxExactWord ? (o.scan_word < p.w ? o.scan_word : 0)
                                                  : o.scan_word > 0 ? 0 : default_probe_word(p.w);
    if (probe == 0 || o.request.objective != model::Objective::MinTime) return "";
    const uint64_t n_sub = default_cpu_sub_query(probe);
    const double fpr = expected_fpr(n_sub, o.params.m_bits, o.params.k);
    if (fpr > o.request.target_fpr) return "";
    p.probe_word = probe;
    p.n_sub = n_sub;
    p.k = o.params.k;
    p.m_bits = o.params.m_bits;
    p.layout = o.params.layout;
    plan.note += std::string(plan.note.empty() ? "" : "; ") + "the defaults' probe-word scan kept";
    p.validate();
    char line[256];
    std::snprintf(line, sizeof line,
                  "auto-tune: probe words of %d bases at a stride of %d (the defaults; modelled FPR %.2g, within the "
                  "target %.2g) kept over the plan, which tests every w-mer",
                  probe, p.w - probe + 1, fpr, o.request.target_fpr);
    return line;
  }
  const double scan_s = scan.ns_per_base * 1e-9 * double(db_bases) / double(std::max(1, p.threads));
  const double bloom_s = plan.prediction.stage1a_s + plan.prediction.stage1b_s;
  char line[256];
  const bool take = scan_s < bloom_s;
  std::snprintf(line, sizeof line,
                "auto-tune: short-word scan (p = %d, stride %llu, exact filters) predicted %.3f s, the Bloom plan "
                "%.3f s: %s",
                scan.word, static_cast<unsigned long long>(scan.stride), scan_s, bloom_s,
                take ? "taking the scan" : "keeping the plan");
  if (take) {
    apply_short_word_plan(scan, p, o.given_batch);
    p.layout = Stage1aLayout::automatic;  // exact filters are read vector by vector
    plan.note += std::string(plan.note.empty() ? "" : "; ") + "short-word scan taken (p = " +
                 std::to_string(scan.word) + ")";
    p.validate();
  }
  return line;
}

// Whether two parameter sets search the same way (nothing for --auto-tune's check to compare).
bool same_search_shape(const BlastParams& a, const BlastParams& b) {
  return a.n_sub == b.n_sub && a.k == b.k && a.m_bits == b.m_bits && a.layout == b.layout &&
         a.threads == b.threads && a.probe_word == b.probe_word && a.exact_filter == b.exact_filter;
}

// The text of --stage 1a / 1b / hsp, buffered and written in 1-MB pieces.
class StageOutput {
 public:
  explicit StageOutput(const std::string& path) : out_(path) {}
  void add(const std::string& text) {
    buf_ += text;
    if (buf_.size() > (1 << 20)) {
      out_.write(buf_);
      buf_.clear();
    }
  }
  // Observers that print stage 1a hits or stage 1b seeds as they come.
  void observe(const std::string& stage, bool header, const TabularFormat& format, BlastSearch& search) {
    if (stage == "1a") {
      if (header) add("#subject\tsstart\tsubquery\tquery\tsubquery_qstart\tsubquery_length\n");
      search.on_stage1a = [this, &search](const DbBatch& b, const std::vector<Stage1aHit>& hits) {
        const auto& subs = search.filters().subqueries();
        for (const auto& h : hits) {
          const uint64_t local = h.db_pos - b.first_pos;
          const size_t rec = b.record_at(local);
          const SubQuery& sq = subs[h.subquery];
          add(b.names[rec] + '\t' + std::to_string(b.window.offset + local - b.local_starts[rec] + 1) + '\t' +
              std::to_string(h.subquery) + '\t' + search.queries().names[sq.query_id] + '\t' +
              std::to_string(sq.offset + 1) + '\t' + std::to_string(sq.length) + '\n');
        }
      };
    } else if (stage == "1b") {
      if (header) add("#query\tqstart\tsubject\tsstart\tstrand\n");
      search.on_seeds = [this, &search](const DbBatch& b, const std::vector<Seed>& seeds) {
        for (const auto& x : seeds)
          add(search.queries().names[x.query] + '\t' + std::to_string(x.q_pos + 1) + '\t' +
              b.names[x.subject - b.first_record] + '\t' + std::to_string(b.window.offset + x.s_pos + 1) + '\t' +
              (x.strand ? "-\n" : "+\n"));
      };
    } else if (header && (format.style == TabularStyle::tabs || format.style == TabularStyle::csv)) {
      add(tabular_header(format) + '\n');
    }
  }
  void commit() {
    out_.write(buf_);
    out_.commit();
  }

 private:
  OutputFile out_;
  std::string buf_;
};

// A shard's HSPs as part-file lines: each with its subject's rank (the first HSP of a query-subject run is its
// best: finish() orders a subject's HSPs by E-value, then score).
uint64_t add_part_lines(const BlastSearch& search, const std::vector<Hsp>& hsps, const TabularFormat& format,
                        StageOutput& out) {
  PartKey key;
  const std::vector<uint64_t> coverage = BlastSearch::subject_coverage(hsps);  // a subject is in one part
  for (size_t i = 0; i < hsps.size(); ++i) {
    const Hsp& h = hsps[i];
    if (i == 0 || h.query != hsps[i - 1].query || h.subject != hsps[i - 1].subject)
      key = PartKey{h.query, h.subject, h.evalue, h.score};
    TabularHit t = search.tabular(h);
    t.q_covered_subject = coverage[i];
    out.add(part_hsp_line(key, format_tabular(t, format)));
  }
  return hsps.size();
}

// Every batch of the database through the search, with progress: while a batch is read, then chunk by chunk as
// stages 1a/1b finish them.
// `first`, if not empty, is the database's first batch, already read (by --auto-tune's trial).
void stream_database(DatabaseReader& db, BlastSearch& search, uint64_t batch_bases, bool progress_on,
                     Progress& progress, DbBatch* first) {
  const uint64_t db_bases = db.totals().bases;
  DbBatch batch;
  uint64_t done = 0;
  std::atomic<uint64_t> searched{0};
  if (progress_on)
    search.on_chunk_done = [&](uint64_t n) { progress.update(std::min(db_bases, searched += n), db_bases); };
  std::string phase;
  const std::function<void(const char*, uint64_t)> reading = [&](const char* what, uint64_t b) {
    if (phase != what) {  // reading, then encoding a long record: the same bases again
      phase = what;
      progress.restart(std::string(kProgram) + ": " + what + " database bases");
    }
    progress.update(std::min(db_bases, done + b), db_bases);
  };
  // A record longer than a batch is searched in windows as it is read (DbBatch::window).
  db.window_long_records(search.window_margin(), [&](const DbBatch& window) {
    if (window.window.first()) progress.restart(std::string(kProgram) + ": database bases searched");
    searched = done + window.window.own_begin;
    search.search(window);
    if (window.window.last()) done += window.window.record_length;
    progress.update(window.window.last() ? done : done + window.window.own_end, db_bases);
  });
  bool have_first = first && !first->names.empty();
  if (have_first) batch = std::move(*first);
  if (search.batches_in_parallel(batch_bases)) {
    // Each thread reads its next batch (in turn) and searches it alone; progress counts the bases handed out.
    progress.restart(std::string(kProgram) + ": database bases searched");
    search.on_chunk_done = nullptr;
    search.search_batches([&](DbBatch& next) {
      if (have_first) {
        next = std::move(batch);
        have_first = false;
      } else if (!db.next_batch(next, batch_bases)) {
        return false;
      }
      for (uint64_t l : next.lengths) done += l;
      progress.update(done, db_bases);
      return true;
    });
    progress.finish();
    return;
  }
  for (;;) {
    phase.clear();
    if (!have_first && !db.next_batch(batch, batch_bases, progress_on ? reading : nullptr)) break;
    have_first = false;
    progress.restart(std::string(kProgram) + ": database bases searched");
    searched = done;
    search.search(batch);
    for (uint64_t l : batch.lengths) done += l;
    progress.update(done, db_bases);
  }
  progress.finish();
  search.on_chunk_done = nullptr;
}

}  // namespace

SearchReport run_search(const SearchRequest& o, const SearchSinks& sinks) {
  std::FILE* const log = sinks.log;
  BlastParams p = o.params;
  const bool progress_on = log && !o.no_progress && (o.progress || stderr_is_tty());
  model::PlanRequest request = o.request;
  std::unique_ptr<Stage1aBackend> stage1a = choose_backend(o, progress_on ? log : nullptr);
  const Stage1aCapabilities caps = stage1a->capabilities();
  const std::string backend_name = stage1a->name();

  const auto t_start = std::chrono::steady_clock::now();
  uint64_t query_bases = 0;
  Fnv64 query_hash;
  std::vector<std::string> query_titles;
  QuerySet queries = read_queries(o.query, query_bases, query_hash, log, query_titles);
  // The parameters decided once for every shard, and where the database's records start (no counting pass).
  SearchPlan given;
  if (!o.plan.empty()) given = read_search_plan(o.plan);
  // A FASTA database is read once to count its bases (the E-values need the total): progress from here on.
  Progress progress(progress_on, std::string(kProgram) + ": counting database bases");
  const auto t_count = std::chrono::steady_clock::now();
  const std::function<void(uint64_t)> counted =
      progress_on ? std::function<void(uint64_t)>([&](uint64_t b) { progress.update(b); }) : nullptr;
  DatabaseReader db = given.db_layout.lengths.empty() ? DatabaseReader(o.db, counted)
                                                      : DatabaseReader(o.db, given.db_layout);
  const double counting_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_count).count();
  if (db.foreign_letters().count) progress.finish();
  warn_foreign_letters(log, o.db, db.foreign_letters());
  uint64_t first_empty = 0;
  if (const uint64_t empty = db.empty_records(first_empty); log && empty) {
    progress.finish();
    std::fprintf(log, "%s: warning: %s: %llu record%s without sequence (the first: record %llu), which nothing can hit\n",
                 kProgram, o.db.c_str(), (unsigned long long)empty, empty == 1 ? "" : "s",
                 (unsigned long long)first_empty);
  }
  // HSPs as blastn finds them: seeds and extensions read blastn's bases where the database has ambiguity codes.
  db.blastn_subject_bases(o.stage == "hsp");

  model::Plan plan;
  std::string profile_message;
  if (!o.plan.empty()) {
    // These must be the inputs the plan was decided for.
    if (given.query_records != queries.size() || given.query_bases != query_bases ||
        given.query_hash != query_hash.value())
      throw DataError(o.query + ": not the query the plan " + o.plan + " was made for");
    if (given.db_records != db.totals().records || given.db_bases != db.totals().bases ||
        given.db_hash != db.layout_hash())
      throw DataError(o.db + ": not the database the plan " + o.plan + " was made for");
    const int threads = p.threads;
    p = given.params;
    if (o.given_threads) p.threads = threads;
  } else {
    if (o.auto_tune) {
      plan = apply_auto_tune(o, request, *stage1a, query_bases, db.totals(), p, profile_message, log);
      const std::string scan = choose_scan_under_auto_tune(o, caps, queries, db.totals().bases, plan, p);
      if (log && !scan.empty()) std::fprintf(log, "%s: %s\n", kProgram, scan.c_str());
    }
    apply_scan_plan(o, caps, queries, p);
  }
  // --auto-tune's on-line check (tune_trial.hpp): the plan against the defaults on a sample of the first batch.
  // Not for stage 1a output (its hits depend on the sub-queries) nor for plans and shards (decided once).
  TuneTrial trial;
  db.keep_lowercase(p.lcase_masking);  // --lcase-masking: the subjects' lower case too, as blastn -subject
  db.keep_titles((o.format.style == TabularStyle::pairwise || o.format.style == TabularStyle::xml ||
                  o.format.style == TabularStyle::json) &&
                 o.stage == "hsp");  // the report's "> title" lines, the XML's and JSON's titles
  if (p.lcase_masking && db.is_twobit() && log)
    std::fprintf(log, "%s: warning: %s: --lcase-masking masks the query only here: a .2bit database's soft-masked "
                 "blocks are not read as masks (its FASTA is)\n", kProgram, o.db.c_str());
  DbBatch first_batch;
  if (o.auto_tune && o.tune_trial && o.plan.empty() && !o.make_plan && !o.sharded && o.stage != "1a") {
    SearchRequest plain = o;
    plain.auto_tune = false;
    BlastParams defaults = o.params;
    apply_scan_plan(plain, caps, queries, defaults);
    // The first batch's read is timed to price the reading of the rest, which reuses its memory: its pages are
    // faulted in first (a 2-Mbase batch of a .2bit took 1.3 ms to read into fresh pages, a tenth of that after).
    const DbTotals& dt = db.totals();
    const uint64_t room = std::min(dt.bases + dt.records, p.batch_bases + dt.largest + 1);
    first_batch.codes.resize(room);
    std::memset(first_batch.codes.data(), 0, room);
    first_batch.codes.clear();
    const auto t_read = std::chrono::steady_clock::now();
    if (db.next_batch(first_batch, p.batch_bases) && !first_batch.codes.empty()) {
      const double read_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_read).count();
      const bool same = same_search_shape(p, defaults);
      // Pieces spread over the whole database where it can be read at any place (.2bit), else over the first batch.
      const uint64_t sample_bases = tune_trial_sample_bases(db.totals().bases, first_batch.codes.size());
      DbBatch sample;
      if (!db.sample_spread(sample_bases, 16, sample)) sample = tune_trial_sample(first_batch, sample_bases);
      trial = run_tune_trial(queries, p, plan.prediction.total_s, defaults, db.totals(), sample,
                             [&o] { return choose_backend(o, nullptr); }, o.stage == "hsp", same);
      // The whole run: what it cost so far, and the rest scaled from the sample and the first batch.
      const TuneTrialCandidate& kept = trial.kept_plan ? trial.plan : trial.defaults;
      trial.run.before_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
      trial.run.search_s = kept.predicted_s - kept.build_s;  // the kept search is built already
      trial.run.later_s = trial.later_once_s + trial.later_per_base_s * double(db.totals().bases);
      // With whole batches on each thread (BlastSearch::search_batches) one thread reads while the others search.
      trial.kept->run_stage2 = o.stage == "hsp";
      const bool overlapped = trial.kept->batches_in_parallel(p.batch_bases);
      trial.run.reading_s = read_s * double(db.totals().bases) / double(first_batch.codes.size()) /
                            (overlapped ? double(p.threads) : 1.0);
      if (log && !same)
        std::fprintf(log,
                     "%s: auto-tune check on %.2f Mbases: defaults %.2f s, plan %.2f s %s; keeping the %s\n",
                     kProgram, double(trial.sample_bases) / 1e6, trial.defaults.predicted_s, trial.plan.predicted_s,
                     trial.plan_skipped ? "by the model and a partial build (not built)" : "predicted for the run",
                     trial.kept_plan ? "plan" : "defaults");
      if (log)
        std::fprintf(log,
                     "%s: predicted run %.2f s: %.2f s so far, stages 1a/1b %.2f s, extensions %.2f s, reading the "
                     "database %.2f s (from %.2f Mbases of it)\n",
                     kProgram, trial.run.total(), trial.run.before_s, trial.run.search_s, trial.run.later_s,
                     trial.run.reading_s, double(trial.sample_bases) / 1e6);
      if (!trial.kept_plan) p = defaults;
      queries = QuerySet{};  // the kept search has its own copy
    }
  }
  if (o.make_plan) {
    SearchPlan made;
    made.params = p;
    made.query_records = queries.size();
    made.query_bases = query_bases;
    made.query_hash = query_hash.value();
    made.db_records = db.totals().records;
    made.db_bases = db.totals().bases;
    made.db_hash = db.layout_hash();
    made.db_layout = db.layout();
    write_search_plan(o.output, made);
    SearchReport report;
    report.params = p;
    report.backend = backend_name;
    report.query_bases = query_bases;
    return report;
  }
  StageOutput out(o.output);

  // A shard: the plans above and the statistics come from the whole query and database; only the shard's query
  // records get sub-queries and only its database records are read.
  QueryScope scope;
  bool searches = true;
  if (o.sharded) {
    if (o.stage != "hsp" || o.auto_tune) throw std::logic_error("sharded search: refused by the option checks");
    std::vector<uint64_t> query_lengths;
    for (const auto& q : queries.codes) query_lengths.push_back(q.size());
    const std::vector<uint64_t> qb = shard_boundaries(query_lengths, o.query_shard.count);
    const std::vector<uint64_t> dbb = shard_boundaries(db.record_lengths(), o.db_shard.count);
    scope.begin = size_t(qb[o.query_shard.index - 1]);
    scope.end = size_t(qb[o.query_shard.index]);
    db.restrict_records(dbb[o.db_shard.index - 1], dbb[o.db_shard.index]);
    searches = scope.begin < scope.end && dbb[o.db_shard.index - 1] < dbb[o.db_shard.index];
    PartHeader h;
    h.identity = shard_identity(o, p, queries, query_bases, query_hash.value(), db);
    h.db = o.db_shard;
    h.query = o.query_shard;
    h.header = o.header;
    out.add(part_header_line(h));
  }

  std::unique_ptr<BlastSearch> searcher =
      trial.kept ? std::move(trial.kept)
                 : std::make_unique<BlastSearch>(std::move(queries), p, db.totals(), std::move(stage1a), scope);
  BlastSearch& search = *searcher;
  search.run_stage2 = o.stage == "hsp";
  if (!o.sharded) out.observe(o.stage, o.header, o.format, search);
  if (progress_on) {
    progress.finish();  // the estimate goes on a line of its own
    print_estimate(log, db.totals(), db.parses_again(), counting_s, search, o.profile, query_bases);
  }
  db.keep_packed(p.exact_filter && caps.probe_words);  // the CPU's short-word scan reads them
  if (searches) stream_database(db, search, p.batch_bases, progress_on, progress, &first_batch);
  const std::vector<Hsp> hsps = search.finish();
  if (o.sharded) {
    out.add(part_trailer_line(add_part_lines(search, hsps, o.format, out)));
  } else {
    const std::vector<uint64_t> coverage = BlastSearch::subject_coverage(hsps);
    const auto add_line = [&](size_t i) {
      TabularHit t = search.tabular(hsps[i]);
      t.q_covered_subject = coverage[i];
      out.add(format_tabular(t, o.format) + '\n');
    };
    if (o.stage == "hsp" && (o.format.style == TabularStyle::pairwise || o.format.style == TabularStyle::xml ||
                             o.format.style == TabularStyle::json)) {
      // blastn's report, XML or JSON: every query in the query's order (those without sequence too, as blastn),
      // its hits grouped by subject as finish() orders them.
      const bool xml = o.format.style == TabularStyle::xml, json = o.format.style == TabularStyle::json;
      const BlastParams& sp = search.params();
      PairwiseSettings ps;
      ps.version = std::string("blast-bloom ") + BLOOMSEQ_VERSION;
      ps.megablast = sp.greedy;
      ps.database = o.db;
      ps.db_letters = db.totals().bases;
      ps.db_sequences = db.totals().records;
      ps.reward = sp.reward, ps.penalty = sp.penalty, ps.gap_open = sp.gap_open, ps.gap_extend = sp.gap_extend;
      ps.gapped = sp.gapped;
      ps.evalue = sp.evalue;
      ps.dust = sp.dust;
      ps.descriptions = o.report_descriptions;
      ps.alignments = o.report_alignments;
      const auto query_of = [&](size_t q) {
        const uint64_t length = search.queries().codes[q].size();
        const size_t g = 2 * q + ((sp.strands & 1) ? 0 : 1);
        PairwiseQuery pq{query_titles[q], length, search.strand_ungapped_params(g), search.strand_evalue_params(g),
                         search.strand_search_space(g)};
        pq.masked = search.query_masks(q);
        pq.length_adjustment =
            sp.search_space > 0 ? 0
                                : length_adjustment(search.strand_evalue_params(g), length,
                                                    sp.db_length > 0 ? sp.db_length : db.totals().bases,
                                                    db.totals().records);
        pq.ordinal = q + 1;
        return pq;
      };
      if (query_titles.empty()) throw std::logic_error("--outfmt 0/5/15: no query records");
      if (!json) out.add(xml ? xml_report_header(ps, query_of(0)) : pairwise_header(ps));
      size_t i = 0;
      for (size_t q = 0; q < query_titles.size(); ++q) {
        std::vector<TabularHit> hits;
        for (; i < hsps.size() && hsps[i].query == q; ++i) {
          TabularHit t = search.tabular(hsps[i]);
          const std::string* title = db.title(hsps[i].subject);
          t.s_title = title ? *title : t.subject;
          t.subject_ordinal = hsps[i].subject + 1;
          if (const auto* lower = db.lowercase_runs(hsps[i].subject)) {
            const uint64_t from = std::min(t.s_start, t.s_end) - 1, to = std::max(t.s_start, t.s_end);
            for (auto it = std::upper_bound(lower->begin(), lower->end(), from,
                                            [](uint64_t v, const std::pair<uint64_t, uint64_t>& r) { return v < r.second; });
                 it != lower->end() && it->first < to; ++it)
              t.s_masked.emplace_back(std::max(it->first, from), std::min(it->second, to) - 1);
          }
          hits.push_back(std::move(t));
        }
        const PairwiseQuery pq = query_of(q);
        out.add(json  ? json_report(ps, pq, hits, db.totals().records, q == 0)
                : xml ? xml_report_iteration(ps, pq, hits)
                      : pairwise_query_report(ps, pq, hits));
      }
      if (i != hsps.size()) throw std::logic_error("--outfmt 0/5/15: HSPs out of query order");
      out.add(json ? json_report_footer() : xml ? xml_report_footer() : pairwise_footer(ps));
    } else if (o.stage == "hsp" && o.format.style == TabularStyle::commented) {
      // Every query's block in the query's order, those without hits too (finish() orders the HSPs by query).
      size_t i = 0;
      for (size_t q = 0; q < query_titles.size(); ++q) {
        size_t end = i;
        while (end < hsps.size() && hsps[end].query == q) ++end;
        out.add(commented_query_block(o.format, query_titles[q], o.db, end - i));
        for (; i < end; ++i) add_line(i);
      }
      if (i != hsps.size()) throw std::logic_error("--outfmt 7: HSPs out of query order");
      out.add(commented_trailer(query_titles.size()));
    } else {
      for (size_t i = 0; i < hsps.size(); ++i) add_line(i);
    }
  }
  out.commit();
  if (sinks.on_hsps) sinks.on_hsps(search, hsps);
  const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
  if (o.stats)
    write_stats(o.stats_path, o.command_line, o.query, o.db, search, backend_name, total, query_bases,
                o.auto_tune ? &plan : nullptr, o.auto_tune ? &request : nullptr, profile_message, trial);
  SearchReport report;
  report.params = search.params();
  report.layout = search.layout();
  report.backend = backend_name;
  report.stats = search.stats();
  report.query_bases = query_bases;
  report.subqueries = search.filters().count();
  report.seconds = total;
  return report;
}

}  // namespace bloomseq
