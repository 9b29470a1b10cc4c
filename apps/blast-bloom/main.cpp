// blast-bloom: BLAST stages 1a (Bloom filters over sub-queries), 1b (exact verification) and 2 (ungapped
// extension) on the CPU, with blastn-compatible tabular output.
#include <cxxopts.hpp>
#include <malloc.h>

#include <algorithm>
#include <cmath>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include "bloomseq/app/json_writer.hpp"
#include "bloomseq/app/model_commands.hpp"
#include "bloomseq/app/progress.hpp"
#include "bloomseq/app/run_app.hpp"
#include "bloomseq/blast/database.hpp"
#include "bloomseq/blast/pipeline.hpp"
#include "bloomseq/blast/stage1a_backend.hpp"
#include "bloomseq/blast/stage1a_cpu.hpp"
#include "bloomseq/error.hpp"
#include "bloomseq/io/output_file.hpp"
#include "bloomseq/io/sequence_reader.hpp"
#include "bloomseq/io/twobit.hpp"
#include "bloomseq/model/planner.hpp"
#include "bloomseq/model/profile_io.hpp"

using namespace bloomseq;

namespace {

const char* kProgram = "blast-bloom";

const char* kExamples = R"(
Examples:
  blast-bloom data/lambda_virus.fa data/ecoli_536_200k.fa                 HSPs (BLAST tabular, 12 columns)
  blast-bloom -w 28 -t 2 query.fa genome.2bit -o hits.tsv --stats run.json
  blast-bloom --reward 2 --penalty=-3 query.fa db.fa                      blastn's -task blastn scoring
  blast-bloom --stage 1a --sub-query 500 -m 65536 -k 4 query.fa db.fa     the Bloom-filter hits themselves
  blast-bloom --stage 1b query.fa db.fa                                   exact seeds
  blast-bloom --auto-tune --target-fpr 1e-3 query.fa db.fa --stats run.json   parameters from the performance model
  blast-bloom --auto-tune --target-throughput 5e7 -k 4 query.fa db.fa     min FPR at >= 5e7 db w-mers/s, k fixed
  blast-bloom encode genome.fa -o genome.2bit                             encode a database once
  blast-bloom calibrate                                                   measure this machine for --auto-tune
  blast-bloom model tradeoff --device cpu > tradeoff.csv                  model predictions (see 'model --help')

--auto-tune chooses n_sub, k, m, layout and threads with the performance model (docs/performance-model.md):
minimum predicted time with the per-test FPR <= --target-fpr (default 1e-4), or minimum FPR with predicted
throughput >= --target-throughput (db w-mers/s). -k, -m, --sub-query, --layout and -t given explicitly stay fixed.
The plan is printed on stderr before the run; --stats puts its predictions next to the measured values.

The HSPs equal those of
  blastn -task blastn -ungapped -dust no -sum_stats false -word_size W -reward R -penalty P -subject DB -outfmt 6
(ambiguity codes in the database may give small differences: see docs/blast-bloom.md).
Negative numbers need '=': --penalty=-3.
Exit codes: 0 ok, 64 usage, 65 bad input data, 66 missing input, 70 internal error, 74 I/O error.
)";

// Accepts plain integers and K/M/G suffixes (powers of 1024): 256K = 262144.
uint64_t parse_size(const std::string& s, const std::string& what) {
  if (s.empty()) throw UsageError(what + ": empty value");
  size_t used = 0;
  unsigned long long v = 0;
  try {
    v = std::stoull(s, &used);
  } catch (...) {
    throw UsageError(what + ": not a number: '" + s + "'");
  }
  std::string suffix = s.substr(used);
  uint64_t mult = 1;
  if (suffix == "K" || suffix == "k") mult = 1024;
  else if (suffix == "M" || suffix == "m") mult = uint64_t(1) << 20;
  else if (suffix == "G" || suffix == "g") mult = uint64_t(1) << 30;
  else if (!suffix.empty()) throw UsageError(what + ": not a number: '" + s + "'");
  return uint64_t(v) * mult;
}

// The model's layouts and the pipeline's: the paper's vector kernel (all k hashes per test) is the naive layout.
model::Layout to_model_layout(Stage1aLayout l) {
  switch (l) {
    case Stage1aLayout::bitsliced: return model::Layout::BitSliced;
    case Stage1aLayout::naive: return model::Layout::PaperVector;
    default: return model::Layout::Vector;
  }
}
Stage1aLayout from_model_layout(model::Layout l) {
  switch (l) {
    case model::Layout::BitSliced: return Stage1aLayout::bitsliced;
    case model::Layout::PaperVector: return Stage1aLayout::naive;
    default: return Stage1aLayout::vector;
  }
}

int encode_main(int argc, char** argv) {
  cxxopts::Options opts("blast-bloom encode", "Encode a FASTA database as UCSC .2bit (N blocks and lower case kept).");
  opts.add_options()("o,output", "output .2bit file", cxxopts::value<std::string>())(
      "lossy", "store IUPAC codes other than N as N instead of refusing")("h,help", "this help")(
      "input", "FASTA input", cxxopts::value<std::string>());
  opts.parse_positional({"input"});
  opts.positional_help("DB.fa -o DB.2bit");
  cxxopts::ParseResult r;
  try {
    r = opts.parse(argc, argv);
  } catch (const std::exception& e) {
    throw UsageError(e.what());
  }
  if (r.count("help")) {
    std::cout << opts.help() << "\nExample:\n  blast-bloom encode genome.fa -o genome.2bit\n";
    return 0;
  }
  if (!r.count("input") || !r.count("output")) throw UsageError("encode needs an input FASTA and -o OUTPUT.2bit");
  const auto records = read_all_sequences(r["input"].as<std::string>());
  if (records.empty()) throw DataError(r["input"].as<std::string>() + ": no sequences");
  write_twobit(r["output"].as<std::string>(), records, r.count("lossy") > 0);
  return 0;
}

void write_stats(const std::string& path, const std::string& cmdline, const std::string& query_path,
                 const std::string& db_path, const BlastSearch& s, const std::string& backend, double total_seconds,
                 uint64_t query_bases, const model::Plan* plan, const model::PlanRequest* request,
                 const std::string& profile_message) {
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
      .value("sub_query", p.n_sub)
      .value("bloom_bits", p.m_bits)
      .value("hashes", p.k)
      .value("h3_seed", p.seed)
      .value("layout", layout_name(s.layout()))
      .value("reward", p.reward)
      .value("penalty", p.penalty)
      .value("xdrop_bits", p.xdrop_bits)
      .value("evalue", p.evalue)
      .value("chunk_bases", p.chunk_bases)
      .end_object();
  j.value("backend", backend).value("simd", s.layout() == Stage1aLayout::bitsliced ? bitsliced_isa() : "none");
  j.value("threads", p.threads);
  j.begin_object("seconds")
      .value("build", st.seconds_build)
      .value("stage1a", st.seconds_stage1a)
      .value("stage1b", st.seconds_stage1b)
      .value("stage2", st.seconds_stage2)
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
    j.end_object();
  }
  j.end_object();
  OutputFile out(path);
  out.write(j.str());
  out.write("\n");
  out.commit();
}

int search_main(int argc, char** argv) {
  cxxopts::Options opts(kProgram,
                        "BLAST with Bloom filters: every database w-mer is tested against one Bloom vector per "
                        "sub-query (stage 1a),\nhits are verified exactly (1b) and extended without gaps (2).\n"
                        "Usage: blast-bloom [options] QUERY DB      (DB: FASTA/FASTQ, gzip or .2bit; '-' = stdin)\n"
                        "       blast-bloom encode DB.fa -o DB.2bit\n"
                        "       blast-bloom calibrate [options]          (measure this machine for --auto-tune)\n"
                        "       blast-bloom model COMMAND [options]      (model predictions: tradeoff, blocks, units, plan, profile)");
  opts.add_options("Search")
      ("w,word-size", "word size w (1..32)", cxxopts::value<int>()->default_value("11"))
      ("reward", "match reward (1/-2 or 2/-3)", cxxopts::value<int>()->default_value("1"))
      ("penalty", "mismatch penalty", cxxopts::value<int>()->default_value("-2"))
      ("xdrop", "ungapped X-drop in bits (blastn -xdrop_ungap)", cxxopts::value<double>()->default_value("20"))
      ("evalue", "E-value cutoff", cxxopts::value<double>()->default_value("10"))
      ("stage", "what to print: 1a (Bloom hits), 1b (exact seeds) or hsp", cxxopts::value<std::string>()->default_value("hsp"));
  opts.add_options("Bloom filters")
      ("sub-query", "sub-query length n_sub in bases", cxxopts::value<std::string>()->default_value("1000"))
      ("m,bloom-bits", "bits per sub-query vector (K/M suffixes)", cxxopts::value<std::string>()->default_value("256K"))
      ("k,hashes", "hash functions per vector", cxxopts::value<int>()->default_value("6"))
      ("layout", "stage-1a layout: auto, vector, bitsliced or naive", cxxopts::value<std::string>()->default_value("auto"))
      ("seed", "H3 seed", cxxopts::value<uint64_t>()->default_value(std::to_string(kDefaultH3Seed)));
  opts.add_options("Auto-tune")
      ("auto-tune", "choose n_sub, k, m, layout and threads with the performance model")
      ("target-fpr", "with --auto-tune: minimum time with FPR per test <= X (default 1e-4)", cxxopts::value<double>())
      ("target-throughput", "with --auto-tune: minimum FPR with >= Y database w-mers/s", cxxopts::value<double>())
      ("profile", "calibration profile (default " + model::default_profile_path() + ")",
       cxxopts::value<std::string>()->default_value(""));
  opts.add_options("Execution")
      ("t,threads", "threads", cxxopts::value<int>()->default_value("1"))
      ("backend", "auto, cpu or cuda", cxxopts::value<std::string>()->default_value("auto"))
      ("device", "CUDA device number", cxxopts::value<int>()->default_value("0"))
      ("chunk", "database bases per stage-1a work unit", cxxopts::value<std::string>()->default_value("64K"))
      ("batch", "database bases held in memory at once (whole records)", cxxopts::value<std::string>()->default_value("64M"));
  opts.add_options("Output")
      ("o,output", "output file ('-' = stdout; .gz compresses)", cxxopts::value<std::string>()->default_value("-"))
      ("stats", "write run statistics as JSON to FILE", cxxopts::value<std::string>())
      ("no-header", "omit the '#' header line")
      ("progress", "show progress on stderr (default: when stderr is a terminal)")
      ("no-progress", "never show progress")
      ("h,help", "this help")
      ("version", "print the version");
  opts.add_options()("positional", "", cxxopts::value<std::vector<std::string>>());
  opts.parse_positional({"positional"});
  opts.positional_help("QUERY DB");

  cxxopts::ParseResult r;
  try {
    r = opts.parse(argc, argv);
  } catch (const std::exception& e) {
    throw UsageError(std::string(e.what()) + " (see --help)");
  }
  if (r.count("help")) {
    std::cout << opts.help({"Search", "Bloom filters", "Auto-tune", "Execution", "Output"}) << kExamples;
    return 0;
  }
  if (r.count("version")) {
    std::cout << kProgram << " " << BLOOMSEQ_VERSION << "\n";
    return 0;
  }
  std::vector<std::string> pos;
  if (r.count("positional")) pos = r["positional"].as<std::vector<std::string>>();
  if (pos.size() != 2) throw UsageError("expected QUERY and DB (see --help)");
  const std::string query_path = pos[0], db_path = pos[1];
  if (query_path == "-" && db_path == "-") throw UsageError("QUERY and DB cannot both be stdin");

  BlastParams p;
  p.w = r["word-size"].as<int>();
  p.reward = r["reward"].as<int>();
  p.penalty = r["penalty"].as<int>();
  p.xdrop_bits = r["xdrop"].as<double>();
  p.evalue = r["evalue"].as<double>();
  p.n_sub = parse_size(r["sub-query"].as<std::string>(), "--sub-query");
  p.m_bits = parse_size(r["bloom-bits"].as<std::string>(), "--bloom-bits");
  p.k = r["hashes"].as<int>();
  p.layout = parse_layout(r["layout"].as<std::string>());
  p.seed = r["seed"].as<uint64_t>();
  p.threads = r["threads"].as<int>();
  p.chunk_bases = parse_size(r["chunk"].as<std::string>(), "--chunk");
  p.batch_bases = parse_size(r["batch"].as<std::string>(), "--batch");
  p.validate();
  ungapped_karlin(p.reward, p.penalty);  // reject unsupported scoring before reading anything
  const std::string stage = r["stage"].as<std::string>();
  if (stage != "1a" && stage != "1b" && stage != "hsp") throw UsageError("--stage must be 1a, 1b or hsp, got '" + stage + "'");
  const bool progress_on = !r.count("no-progress") && (r.count("progress") || stderr_is_tty());

  // --auto-tune: check the targets now, plan once the query and database sizes are known.
  const bool auto_tune = r.count("auto-tune") > 0;
  model::PlanRequest request;
  if (!auto_tune && (r.count("target-fpr") || r.count("target-throughput") || r.count("profile")))
    throw UsageError("--target-fpr, --target-throughput and --profile need --auto-tune");
  if (auto_tune) {
    if (r.count("target-fpr") && r.count("target-throughput"))
      throw UsageError("give --target-fpr or --target-throughput, not both");
    if (r.count("target-throughput")) {
      request.objective = model::Objective::MinFpr;
      request.target_throughput = r["target-throughput"].as<double>();
      if (!(request.target_throughput > 0) || !std::isfinite(request.target_throughput))
        throw UsageError("--target-throughput must be a positive number of database w-mers per second");
    } else if (r.count("target-fpr")) {
      request.target_fpr = r["target-fpr"].as<double>();
      if (!(request.target_fpr > 0 && request.target_fpr < 1))
        throw UsageError("--target-fpr must be in (0, 1)");
    }
  }

  // Backend: the CPU unless a GPU backend was compiled in (and, for auto, a device answers).
  const std::string backend_arg = r["backend"].as<std::string>();
  if (backend_arg != "auto" && backend_arg != "cpu" && backend_arg != "cuda")
    throw UsageError("--backend must be auto, cpu or cuda, got '" + backend_arg + "'");
  std::unique_ptr<Stage1aBackend> gpu;
  std::string backend_name = "cpu";
  if (backend_arg != "cpu") {
    const Stage1aBackendFactory* f = find_stage1a_backend("cuda");
    std::string why;
    if (!f) {
      if (backend_arg == "cuda") throw UsageError("CUDA backend not available in this build");
      if (progress_on) std::fprintf(stderr, "%s: backend: cpu (CUDA backend not compiled in)\n", kProgram);
    } else if (!f->available(why)) {
      if (backend_arg == "cuda") throw UsageError("CUDA backend: no usable device: " + why);
      if (progress_on) std::fprintf(stderr, "%s: backend: cpu (%s)\n", kProgram, why.c_str());
    } else {
      gpu = f->create(r["device"].as<int>());
      backend_name = gpu->name();
    }
  }

  const auto t_start = std::chrono::steady_clock::now();
  QuerySet queries;
  uint64_t query_bases = 0;
  {
    const auto recs = read_all_sequences(query_path);
    if (recs.empty()) throw DataError(query_path + ": no sequences in the query");
    for (const auto& rec : recs) {
      queries.add(rec.name, rec.seq);
      query_bases += rec.seq.size();
    }
  }
  DatabaseReader db(db_path);

  model::Plan plan;
  std::string profile_message;
  if (auto_tune) {
    const model::LoadedProfile prof = model::load_profile(r["profile"].as<std::string>());
    profile_message = prof.message;
    std::fprintf(stderr, "%s: %s\n", kProgram, prof.message.c_str());
    request.query_bases = query_bases;
    request.db_bases = db.totals().bases;
    request.w = p.w;
    // What the user gave explicitly stays fixed.
    if (r.count("sub-query")) request.n_sub = p.n_sub;
    if (r.count("hashes")) request.k = p.k;
    if (r.count("bloom-bits")) request.m_bits = p.m_bits;
    if (r.count("threads")) request.threads = p.threads;
    if (p.layout != Stage1aLayout::automatic) request.layouts = {to_model_layout(p.layout)};
    plan = model::plan_stage1a(request, prof.device, prof.calibration);
    if (!plan.feasible) throw DataError("--auto-tune: " + plan.note);
    std::fputs(model::describe(plan).c_str(), stderr);
    if (gpu) std::fprintf(stderr, "%s: note: the plan models the CPU profile; stage 1a runs on %s\n", kProgram,
                          gpu->name().c_str());
    p.n_sub = plan.config.n_sub;
    p.k = plan.config.k;
    p.m_bits = plan.config.m_bits;
    p.layout = from_model_layout(plan.config.layout);
    if (!r.count("threads"))
      p.threads = std::clamp(plan.config.threads > 0 ? plan.config.threads : prof.device.parallel_units(), 1, 1024);
    p.validate();
  }
  OutputFile out(r["output"].as<std::string>());
  const bool header = !r.count("no-header");

  BlastSearch search(std::move(queries), p, db.totals(), gpu != nullptr);
  search.external_stage1a = gpu.get();
  search.run_stage2 = stage == "hsp";
  std::string buf;
  auto flush = [&] {
    if (buf.size() > (1 << 20)) {
      out.write(buf);
      buf.clear();
    }
  };
  if (stage == "1a") {
    if (header) buf += "#subject\tsstart\tsubquery\tquery\tsubquery_qstart\tsubquery_length\n";
    search.on_stage1a = [&](const DbBatch& b, const std::vector<Stage1aHit>& hits) {
      const auto& subs = search.filters().subqueries();
      for (const auto& h : hits) {
        const uint64_t local = h.db_pos - b.first_pos;
        const size_t rec = b.record_at(local);
        const SubQuery& sq = subs[h.subquery];
        buf += b.names[rec] + '\t' + std::to_string(local - b.local_starts[rec] + 1) + '\t' + std::to_string(h.subquery) +
               '\t' + search.queries().names[sq.query_id] + '\t' + std::to_string(sq.offset + 1) + '\t' +
               std::to_string(sq.length) + '\n';
        flush();
      }
    };
  } else if (stage == "1b") {
    if (header) buf += "#query\tqstart\tsubject\tsstart\tstrand\n";
    search.on_seeds = [&](const DbBatch& b, const std::vector<Seed>& seeds) {
      for (const auto& x : seeds) {
        buf += search.queries().names[x.query] + '\t' + std::to_string(x.q_pos + 1) + '\t' +
               b.names[x.subject - b.first_record] + '\t' + std::to_string(x.s_pos + 1) + '\t' +
               (x.strand ? "-\n" : "+\n");
        flush();
      }
    };
  } else if (header) {
    buf += tabular_header() + '\n';
  }

  Progress progress(progress_on, "blast-bloom: database bases");
  DbBatch batch;
  uint64_t done = 0;
  while (db.next_batch(batch, p.batch_bases)) {
    search.search(batch);
    for (uint64_t l : batch.lengths) done += l;
    progress.update(done, db.totals().bases);
  }
  progress.finish();
  const std::vector<Hsp> hsps = search.finish();
  for (const Hsp& h : hsps) {
    buf += format_tabular(search.tabular(h));
    buf += '\n';
    flush();
  }
  out.write(buf);
  out.commit();
  const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
  if (r.count("stats"))
    write_stats(r["stats"].as<std::string>(), command_line(argc, argv), query_path, db_path, search, backend_name,
                total, query_bases, auto_tune ? &plan : nullptr, auto_tune ? &request : nullptr, profile_message);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // The per-chunk hit, seed and verification arrays are large and short-lived: keep freed memory in the heap
  // instead of returning it to the kernel, which would zero fresh pages for every chunk again.
  mallopt(M_MMAP_THRESHOLD, 512 << 20);
  mallopt(M_TRIM_THRESHOLD, 1024 << 20);
  return run_app(kProgram, [&] {
    if (argc >= 2 && std::string(argv[1]) == "encode") return encode_main(argc - 1, argv + 1);
    if (argc >= 2 && std::string(argv[1]) == "calibrate") return calibrate_command("blast-bloom calibrate", argc - 1, argv + 1);
    if (argc >= 2 && std::string(argv[1]) == "model") return model_command("blast-bloom model", argc - 1, argv + 1);
    return search_main(argc, argv);
  });
}
