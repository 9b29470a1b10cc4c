// facs options: definitions (cxxopts), parsing and the checks that need no file. Kept byte-for-byte compatible
// with what the tool printed and refused before the parsing moved out of the app.
#include "bloomseq/cli/facs_options.hpp"

#include <cxxopts.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "bloomseq/app/argument_limits.hpp"
#include "bloomseq/error.hpp"
#include "bloomseq/facs/interleaved_builder.hpp"
#include "bloomseq/hash/h3.hpp"
#include "bloomseq/model/profile_io.hpp"

namespace bloomseq {
namespace {

const char* kUsage =
    "facs " BLOOMSEQ_VERSION " - classify sequencing reads against Bloom filters of reference genomes\n"
    "\n"
    "Usage: facs <command> [options]\n"
    "\n"
    "Commands:\n"
    "  build-filter   build one Bloom filter per reference (file or FASTA record) into a .bf container\n"
    "  classify       score every read against every filter in one pass; per-read calls, summary, split reads\n"
    "  merge          merge the part files of a sharded classify run (classify --shard I/N) into its outputs\n"
    "  plan-shards    where each shard of plain paired files starts, found once (classify --shard-plan)\n"
    "  info           describe the filters in a .bf container\n"
    "  model          performance-model predictions without running (tradeoff, blocks, units, plan, profile)\n"
    "\n"
    "Examples:\n"
    "  facs build-filter -o refs.bf ecoli.fa suis.fa.gz lambda.fa\n"
    "  facs classify reads.fq.gz refs.bf -o calls.tsv --summary summary.tsv -t 2\n"
    "  facs classify reads.fq refs.bf --shard 2/8 -o calls.2.part   # then: facs merge -o calls.tsv calls.*.part\n"
    "  facs info refs.bf\n"
    "  facs build-filter --auto-tune --target-fpr 1e-4 -o refs.bf ecoli.fa   # size and k from the model\n"
    "  facs model plan --device cpu --query-bases 1000000 --db-bases 5000000\n"
    "\n"
    "Run 'facs <command> --help' for the options of a command.\n";

// Adds --auto-tune, --target-fpr, --target-throughput, --profile, --read-length to a subcommand's options.
void add_auto_tune_options(cxxopts::Options& o) {
  o.add_options("Auto-tune")
      ("auto-tune", "use the performance model: print the plan and its predicted FPR and reads/s")
      ("target-fpr", "with --auto-tune: the false-positive rate per k-mer lookup to meet", cxxopts::value<double>())
      ("target-throughput", "with --auto-tune: reads/s to reach", cxxopts::value<double>())
      ("profile", "calibration profile (default " + model::default_profile_path() + ")",
       cxxopts::value<std::string>()->default_value(""))
      ("read-length", "with --auto-tune: read length the prediction assumes", cxxopts::value<uint64_t>()->default_value("150"));
}

// Targets without --auto-tune, both targets, FPR outside (0, 1), throughput <= 0 or where the command takes none.
FacsAutoTuneOptions parse_auto_tune(const cxxopts::ParseResult& r, const std::string& cmd, bool throughput_target) {
  FacsAutoTuneOptions t;
  t.on = r.count("auto-tune") > 0;
  if (!t.on && (r.count("target-fpr") || r.count("target-throughput") || r.count("profile")))
    throw UsageError(cmd + ": --target-fpr, --target-throughput and --profile need --auto-tune");
  if (!t.on) return t;
  if (r.count("target-fpr") && r.count("target-throughput"))
    throw UsageError(cmd + ": give --target-fpr or --target-throughput, not both");
  if (r.count("target-fpr")) {
    t.target_fpr = r["target-fpr"].as<double>();
    if (!(t.target_fpr > 0 && t.target_fpr < 1)) throw UsageError(cmd + ": --target-fpr must be in (0, 1)");
  }
  if (r.count("target-throughput")) {
    if (!throughput_target)
      throw UsageError(cmd + ": --target-throughput applies to classify; size filters with --target-fpr");
    t.min_fpr = true;
    t.target_throughput = r["target-throughput"].as<double>();
    if (!(t.target_throughput > 0) || !std::isfinite(t.target_throughput))
      throw UsageError(cmd + ": --target-throughput must be a positive number of reads per second");
  }
  t.read_len = r["read-length"].as<uint64_t>();
  if (t.read_len < 1) throw UsageError(cmd + ": --read-length must be positive");
  t.profile = r["profile"].as<std::string>();
  return t;
}

// cxxopts reports bad usage with its own exceptions; the tools report it as UsageError prefixed by the command.
cxxopts::ParseResult parse_or_usage(cxxopts::Options& o, int argc, const char* const* argv, const char* cmd) {
  try {
    return o.parse(argc, argv);
  } catch (const cxxopts::exceptions::exception& e) {
    throw UsageError(std::string(cmd) + ": " + e.what());
  }
}

// --help given: true, with the options' help followed by `examples` in *help where the caller wants it.
bool help_asked(const cxxopts::ParseResult& r, const cxxopts::Options& o, std::string* help,
                const std::string& examples) {
  if (!r.count("help")) return false;
  if (help) *help = o.help() + examples;
  return true;
}

}  // namespace

FacsBuildOptions parse_facs_build_filter(int argc, const char* const* argv, std::string* help) {
  check_argument_lengths(argc, argv);
  cxxopts::Options o("facs build-filter",
                     "Build one Bloom filter of canonical k-mers per reference (per file, or per FASTA record with\n"
                     "--per-record), sized for a target false-positive rate from the number of distinct k-mers.\n");
  o.custom_help("-o OUT.bf [options]");
  o.positional_help("REF.fa [REF2.fa ...]");
  FacsBuildOptions b;
  BuildParams& p = b.params;
  o.add_options()
      ("o,output", "the .bf container to write (required)", cxxopts::value<std::string>())
      ("add", "append to the existing container given by -o (same -w)")
      ("w,kmer", "k-mer size 1..32", cxxopts::value<int>()->default_value(std::to_string(p.w)))
      ("fpr", "target false-positive rate per k-mer lookup (default for an interleaved set of more than 100 "
              "references: 0.05 / references, so that a read's work stays flat in their number; with a group "
              "router 10x that, at most 5e-4)",
       cxxopts::value<double>()->default_value("0.0005"))
      ("k,hashes", "hash functions (default: optimal for the size)", cxxopts::value<int>()->default_value("0"))
      ("m,bits", "filter size in bits (default: from --fpr and the k-mer count)",
       cxxopts::value<uint64_t>()->default_value("0"))
      ("layout", "bit layout: blocked (all probes of a k-mer in one 64-byte cache line; ~15-20% more bits for the "
                 "same FPR, several times faster to query), classic (probes anywhere in the filter), interleaved "
                 "(one classic filter per reference, references of similar size interleaved bit by bit so that one "
                 "lookup answers all of them: for many references; docs/facs.md) or auto (interleaved for 64 "
                 "reference files or more, else blocked; blocked with --per-record, --add, --auto-tune or stdin)",
       cxxopts::value<std::string>()->default_value("auto"))
      ("router", "interleaved sets: a group router, one cache line per k-mer saying which size groups may hold it "
                 "(~5 bits per k-mer): yes, no or auto (yes for more than 100 references of several size groups; "
                 "docs/facs.md)",
       cxxopts::value<std::string>()->default_value("auto"))
      ("per-record", "one filter per FASTA record instead of one per file")
      ("name", "filter name, once per input file in order (default: the file name without extensions)",
       cxxopts::value<std::vector<std::string>>())
      ("count", "how distinct k-mers are counted: exact (sort, 8 bytes per k-mer) or hll (HyperLogLog estimate)",
       cxxopts::value<std::string>()->default_value("exact"))
      ("seed", "H3 hash seed", cxxopts::value<uint64_t>()->default_value(std::to_string(kDefaultH3Seed)))
      ("t,threads", "threads for --count hll (0 = all cores): a file is then read twice, counted and inserted in "
                    "parallel, without holding its sequences",
       cxxopts::value<int>()->default_value("0"))
      ("json", "JSON file with the parameters, the filters built and (--auto-tune) the plan",
       cxxopts::value<std::string>())
      ("q,quiet", "do not print the table of filters built")
      ("progress", "show progress and the memory estimate on stderr even if it is not a terminal")
      ("no-progress", "never show progress")
      ("h,help", "this help")
      ("refs", "reference files", cxxopts::value<std::vector<std::string>>());
  add_auto_tune_options(o);
  o.parse_positional({"refs"});
  const cxxopts::ParseResult r = parse_or_usage(o, argc, argv, "build-filter");
  const char* examples =
      "\nExamples:\n"
      "  facs build-filter -o refs.bf ecoli.fa suis.fa.gz lambda.fa\n"
      "  facs build-filter -o refs.bf --add --name dwv bee-virus.fa\n"
      "  facs build-filter -o viruses.bf --per-record viruses.fa      # one filter per record\n"
      "  facs build-filter -o big.bf -w 31 --fpr 0.001 --count hll genome.fa.gz\n"
      "  facs build-filter -o refs.bf --auto-tune --target-fpr 1e-4 --json build.json ecoli.fa\n"
      "\n--auto-tune sizes each filter with the performance model for --target-fpr per k-mer lookup (default:\n"
      "--fpr): k = m/n ln 2 with m = -n ln p / ln^2 2, m then grown until the rounded k meets the target\n"
      "(n = distinct k-mers, counted once more for the plan; explicit -m/-k stay fixed),\n"
      "and prints the predicted FPR and classification rate (reads/s for 1M reads of --read-length bases).\n";
  if (help_asked(r, o, help, examples)) return b;
  if (!r.count("output")) throw UsageError("build-filter: -o OUT.bf is required");
  if (!r.count("refs")) throw UsageError("build-filter: no reference files given");
  b.output = r["output"].as<std::string>();
  b.refs = r["refs"].as<std::vector<std::string>>();
  p.w = r["kmer"].as<int>();
  p.fpr = r["fpr"].as<double>();
  p.fpr_given = r.count("fpr") > 0;
  p.hashes = r["hashes"].as<int>();
  p.m_bits = r["bits"].as<uint64_t>();
  p.per_record = r.count("per-record") > 0;
  p.seed = r["seed"].as<uint64_t>();
  b.add = r.count("add") > 0;
  b.quiet = r.count("quiet") > 0;
  b.progress = r.count("progress") > 0;
  b.no_progress = r.count("no-progress") > 0;
  b.json = r.count("json") > 0;
  if (b.json) b.json_path = r["json"].as<std::string>();
  b.tune = parse_auto_tune(r, "build-filter", false);
  std::string layout = r["layout"].as<std::string>();
  if (layout == "auto")
    layout = default_layout_interleaved(b.refs.size(), p.per_record, b.add, b.tune.on,
                                        std::find(b.refs.begin(), b.refs.end(), "-") != b.refs.end())
                 ? "interleaved"
                 : "blocked";
  b.layout_name = layout;
  if (layout == "blocked") p.layout = BloomLayout::blocked512;
  else if (layout == "classic") p.layout = BloomLayout::classic;
  else if (layout == "interleaved") p.layout = BloomLayout::classic, p.interleaved = true;
  else throw UsageError("build-filter: --layout must be auto, blocked, classic or interleaved, got '" + layout + "'");
  const std::string router = r["router"].as<std::string>();
  if (router == "auto") p.group_router = -1;
  else if (router == "yes") p.group_router = 1;
  else if (router == "no") p.group_router = 0;
  else throw UsageError("build-filter: --router must be auto, yes or no, got '" + router + "'");
  if (router != "auto" && !p.interleaved)
    throw UsageError("build-filter: --router applies to interleaved sets (--layout interleaved)");
  const std::string count = r["count"].as<std::string>();
  if (count == "exact") p.count = KmerCount::exact;
  else if (count == "hll") p.count = KmerCount::hyperloglog;
  else throw UsageError("build-filter: --count must be exact or hll, got '" + count + "'");
  if (p.w < 1 || p.w > 32) throw UsageError("build-filter: -w must be 1..32, got " + std::to_string(p.w));
  b.threads = r["threads"].as<int>();
  if (b.threads < 0 || b.threads > 1024) throw UsageError("build-filter: -t must be 0..1024, got " + std::to_string(b.threads));
  if (!(p.fpr > 0 && p.fpr < 1)) throw UsageError("build-filter: --fpr must be in (0, 1)");
  if (b.tune.on) {
    if (b.tune.target_fpr > 0) p.fpr = b.tune.target_fpr;
    else b.tune.target_fpr = p.fpr;
  }
  const int max_k = p.layout == BloomLayout::blocked512 ? kMaxHashes - 1 : kMaxHashes;
  if (p.hashes < 0 || p.hashes > max_k)
    throw UsageError("build-filter: -k must be 1.." + std::to_string(max_k) + " for the " + layout + " layout");
  if (r.count("name")) b.names = r["name"].as<std::vector<std::string>>();
  if (!b.names.empty() && b.names.size() != b.refs.size())
    throw UsageError("build-filter: give --name once per input file (" + std::to_string(b.refs.size()) + "), got " +
                     std::to_string(b.names.size()));
  if (!b.names.empty() && p.per_record) throw UsageError("build-filter: --name and --per-record exclude each other");
  return b;
}

FacsClassifyOptions parse_facs_classify(int argc, const char* const* argv, std::string* help) {
  check_argument_lengths(argc, argv);
  cxxopts::Options o("facs classify",
                     "Score every read against every filter in one pass and call it to the best-scoring filter\n"
                     "above the threshold. FACS score (default): fraction of the read's bases covered by k-mers in\n"
                     "the filter, after a quick pass over non-overlapping k-mers. BioBloom score: runs of hit\n"
                     "k-mers with early accept/reject (BioBloom Tools). Reads: FASTQ or FASTA, gzip or plain, - for\n"
                     "stdin. The summary (BioBloom Tools' summary.tsv layout) goes to stdout unless --summary.\n");
  o.custom_help("[options]");
  o.positional_help("READS REFS.bf [MORE.bf ...]");
  o.add_options()
      ("mate", "second mates of paired reads (same order as READS)", cxxopts::value<std::string>())
      ("o,output", "per-read TSV: read id, call, score, matched filters", cxxopts::value<std::string>())
      ("scores", "add one score column per filter to the per-read TSV")
      ("summary", "summary TSV (- = stdout)", cxxopts::value<std::string>()->default_value("-"))
      ("json", "JSON file with the run's parameters and totals", cxxopts::value<std::string>())
      ("score", "scoring: facs or biobloom", cxxopts::value<std::string>()->default_value("facs"))
      ("s,threshold", "minimum score to match: a fixed fraction of the read's bases covered (facs; default: from "
                      "--error-rate and the read length), or BioBloom's s (default 0.15)", cxxopts::value<double>())
      ("error-rate", "expected sequencing errors per base: sets the facs threshold and quick-pass frames for each "
                     "read length (with -s: the quick-pass frames only; 0 = FACS's fixed frames)",
       cxxopts::value<double>()->default_value("0.01"))
      ("pair-mode", "paired reads match a filter if both mates do, or either", cxxopts::value<std::string>()->default_value("both"))
      ("t,threads", "worker threads (reading and writing included)", cxxopts::value<int>()->default_value("1"))
      ("backend", "where k-mers are looked up: auto (CUDA if compiled in and a device answers), cpu or cuda "
                  "(either reads separate filters and interleaved sets)",
       cxxopts::value<std::string>()->default_value("cpu"))
      ("device", "CUDA device number", cxxopts::value<int>()->default_value("0"))
      ("matched-out", "write reads called to each filter to PREFIX<filter>.fq (or .fa); ties to PREFIX"
                      "multiMatch.fq; a PREFIX ending in .gz writes gzip; missing folders are created; pairs: "
                      "PREFIX<filter>_1.fq and _2.fq", cxxopts::value<std::string>())
      ("unmatched-out", "write reads that matched no filter to FILE (gzip if FILE ends in .gz); pairs: a '#' in "
                        "FILE becomes _1 / _2, else _1 / _2 goes before the extension", cxxopts::value<std::string>())
      ("interleaved", "pairs: write both mates into one split file (mate 1, then mate 2) instead of two")
      ("shard", "classify block I of N of the reads (N contiguous blocks of whole records, pairs cut alike); -o, "
                "--summary and --json become part files for facs merge", cxxopts::value<std::string>())
      ("shard-by", "how --shard cuts: bytes (plain FASTA or four-line FASTQ files: each shard seeks to its block), "
                   "records (equal record counts; each shard counts the records first: gzip, .2bit, multi-line "
                   "FASTQ) or auto (bytes where possible)", cxxopts::value<std::string>()->default_value("auto"))
      ("shard-plan", "with --shard: start where the plan made by 'facs plan-shards' says (pairs: no counting of "
                     "both files up to the block); refused for other files, another N or changed files, and for "
                     "gzip (shards of gzip input count records: drop --shard-plan)", cxxopts::value<std::string>())
      ("w,kmer", "refuse filters whose k-mer size differs from this", cxxopts::value<int>()->default_value("0"))
      ("load", "how the .bf filters get into memory: copy (read into memory of their own, on huge pages), map "
               "(a read-only mapping of the file, no copy; the checksum is verified for files up to 256 MB, above "
               "that skipped with a notice: facs info --verify checks it) or auto (map sets up to 32 MB or over a quarter "
               "of the available memory; other ones when "
               "the reads take at most 4x their bytes up to 128 MB, 1x up to 256 MB, 1/32 beyond; gzip counted x4; "
               "copy for more reads and for stdin, unless the kernel maps the files through 2-MiB pages, where "
               "mapping is as fast; docs/facs.md)",
       cxxopts::value<std::string>()->default_value("auto"))
      ("progress", "show progress on stderr even if it is not a terminal")
      ("no-progress", "never show progress")
      ("batch-bases", "bases per batch handed to a thread (unless given, fewer on the CPU for sets of more than 64 "
                      "filters: 64 / filters of it, at least 65,536)",
       cxxopts::value<uint64_t>()->default_value("2000000"))
      ("group", "reads scored together to overlap memory latency (tuning)",
       cxxopts::value<int>()->default_value(std::to_string(ClassifyParams{}.group_reads)))
      ("h,help", "this help")
      ("inputs", "READS then filter files", cxxopts::value<std::vector<std::string>>());
  add_auto_tune_options(o);
  o.parse_positional({"inputs"});
  const cxxopts::ParseResult r = parse_or_usage(o, argc, argv, "classify");
  FacsClassifyOptions c;
  const char* examples =
      "\nExamples:\n"
      "  facs classify reads.fq.gz refs.bf -o calls.tsv --summary summary.tsv --json run.json -t 2\n"
      "  facs classify r1.fq.gz --mate r2.fq.gz --pair-mode either refs.bf\n"
      "  facs classify reads.fq refs.bf --matched-out sorted/ --unmatched-out novel.fq.gz\n"
      "  facs classify r1.fq --mate r2.fq refs.bf --matched-out sorted/ --unmatched-out novel#.fq\n"
      "      # sorted/<filter>_1.fq + sorted/<filter>_2.fq, novel_1.fq + novel_2.fq\n"
      "  zcat reads.fq.gz | facs classify - refs.bf --score biobloom -s 0.15\n"
      "  facs classify reads.fq refs.bf --auto-tune --target-throughput 500000 --json run.json\n"
      "  facs classify reads.fq refs.bf --shard 3/8 -o calls.3.part --matched-out shard3/   # 1 of 8\n"
      "      # then: facs merge -o calls.tsv calls.*.part; cat shard{1..8}/<filter>.fq (see facs merge --help)\n"
      "  facs plan-shards r1.fq --mate r2.fq -n 8 -o pairs.plan     # once, then on every shard:\n"
      "  facs classify r1.fq --mate r2.fq refs.bf --shard 3/8 --shard-plan pairs.plan -o calls.3.part\n"
      "\n--auto-tune predicts the rate with the performance model, chooses the threads (all cores, or with\n"
      "--target-throughput the fewest that reach it; -t stays fixed), checks the filters against --target-fpr,\n"
      "prints the plan and puts predicted next to measured reads/s in --json.\n"
      "\nCalls: a filter name; 'tie' when several filters share the best score; 'novel' when none reaches the\n"
      "threshold; 'unscored' when the read has no complete k-mer (shorter than k or N everywhere).\n";
  if (help_asked(r, o, help, examples)) return c;
  if (!r.count("inputs")) throw UsageError("classify: give READS and at least one .bf filter file");
  const auto inputs = r["inputs"].as<std::vector<std::string>>();
  if (inputs.size() < 2) throw UsageError("classify: give READS and at least one .bf filter file");
  c.reads = inputs[0];
  c.filters.assign(inputs.begin() + 1, inputs.end());
  c.paired = r.count("mate") > 0;
  if (c.paired) c.mate = r["mate"].as<std::string>();

  ClassifyParams& cp = c.params;
  const std::string score = r["score"].as<std::string>();
  if (score == "facs") cp.score = ScoreKind::facs;
  else if (score == "biobloom") cp.score = ScoreKind::biobloom;
  else throw UsageError("classify: --score must be facs or biobloom, got '" + score + "'");
  // FACS: 0 = the error model's threshold for each read length.
  cp.threshold = r.count("threshold") ? r["threshold"].as<double>()
                                      : (cp.score == ScoreKind::facs ? 0.0 : kBioBloomDefaultThreshold);
  if (r.count("threshold") && !(cp.threshold > 0.0 && cp.threshold <= 1.0))
    throw UsageError("classify: -s must be in (0, 1]");
  cp.error_rate = r["error-rate"].as<double>();
  if (!(cp.error_rate >= 0.0 && cp.error_rate < 0.5)) throw UsageError("classify: --error-rate must be in [0, 0.5)");
  if (r.count("error-rate") && cp.score != ScoreKind::facs)
    throw UsageError("classify: --error-rate applies to the facs score, not to --score biobloom");
  const std::string pm = r["pair-mode"].as<std::string>();
  if (pm == "both") cp.pair_mode = PairMode::both;
  else if (pm == "either") cp.pair_mode = PairMode::either;
  else throw UsageError("classify: --pair-mode must be both or either, got '" + pm + "'");
  cp.threads = r["threads"].as<int>();
  if (cp.threads < 1 || cp.threads > 1024) throw UsageError("classify: -t must be 1..1024");
  cp.batch_bases = r["batch-bases"].as<uint64_t>();
  cp.batch_bases_given = r.count("batch-bases") > 0;
  cp.group_reads = r["group"].as<int>();
  if (cp.group_reads < 1 || cp.group_reads > 4096) throw UsageError("classify: --group must be 1..4096");
  if (cp.batch_bases < 1) throw UsageError("classify: --batch-bases must be positive");
  c.scores = r.count("scores") > 0;
  cp.exact_failing_points = c.scores;  // only the per-filter columns show the points of a failing filter
  c.tune = parse_auto_tune(r, "classify", true);

  c.threads_given = r.count("threads") > 0;
  c.requested_w = r["kmer"].as<int>();
  c.backend = r["backend"].as<std::string>();
  c.device = r["device"].as<int>();
  c.progress = r.count("progress") > 0;
  c.no_progress = r.count("no-progress") > 0;
  c.summary = r["summary"].as<std::string>();
  c.output = r.count("output") > 0;
  if (c.output) c.output_path = r["output"].as<std::string>();
  c.json = r.count("json") > 0;
  if (c.json) c.json_path = r["json"].as<std::string>();
  c.matched_out = r.count("matched-out") > 0;
  if (c.matched_out) c.matched_prefix = r["matched-out"].as<std::string>();
  c.unmatched_out = r.count("unmatched-out") > 0;
  if (c.unmatched_out) c.unmatched_path = r["unmatched-out"].as<std::string>();
  c.interleaved = r.count("interleaved") > 0;
  if (c.interleaved && !c.paired) throw UsageError("classify: --interleaved applies to pairs (--mate)");
  c.sharded = r.count("shard") > 0;
  if (c.sharded) c.shard = parse_shard(r["shard"].as<std::string>(), "classify: --shard");
  const std::string by = r["shard-by"].as<std::string>();
  if (by == "bytes") c.shard_by = ShardBy::bytes;
  else if (by == "records") c.shard_by = ShardBy::records;
  else if (by != "auto") throw UsageError("classify: --shard-by must be auto, bytes or records, not '" + by + "'");
  if (r.count("shard-by") && !c.sharded) throw UsageError("classify: --shard-by applies to --shard");
  const std::string load = r["load"].as<std::string>();
  if (load == "map") c.load = FilterLoadChoice::map;
  else if (load == "copy") c.load = FilterLoadChoice::copy;
  else if (load != "auto") throw UsageError("classify: --load must be auto, map or copy, not '" + load + "'");
  if (r.count("shard-plan")) {
    c.shard_plan = r["shard-plan"].as<std::string>();
    if (!c.sharded) throw UsageError("classify: --shard-plan applies to --shard");
    if (c.shard_by == ShardBy::records)
      throw UsageError("classify: --shard-plan holds byte offsets; it cannot be used with --shard-by records");
  }
  return c;
}

FacsMergeOptions parse_facs_merge(int argc, const char* const* argv, std::string* help) {
  check_argument_lengths(argc, argv);
  cxxopts::Options o("facs merge",
                     "Merge the part files of a sharded classify run (facs classify --shard I/N) into the outputs\n"
                     "the single run writes: per-read calls in input order, the summary and the JSON report, with\n"
                     "counters summed and rates recomputed. Give the parts of every shard, in any order.\n");
  o.custom_help("[options]");
  o.positional_help("PART [PART ...]");
  o.add_options()
      ("o,output", "per-read TSV (needs the shards' -o parts)", cxxopts::value<std::string>())
      ("summary", "summary TSV (- = stdout)", cxxopts::value<std::string>()->default_value("-"))
      ("json", "JSON report", cxxopts::value<std::string>())
      ("h,help", "this help")
      ("parts", "part files", cxxopts::value<std::vector<std::string>>());
  o.parse_positional({"parts"});
  const cxxopts::ParseResult r = parse_or_usage(o, argc, argv, "merge");
  FacsMergeOptions m;
  const char* examples =
      "\nExample (3 shards, run anywhere, then merged):\n"
      "  for i in 1 2 3; do\n"
      "    facs classify reads.fq.gz refs.bf --shard $i/3 -o calls.$i.part --summary summary.$i.part \\\n"
      "      --json run.$i.part --matched-out shard$i/\n"
      "  done\n"
      "  facs merge -o calls.tsv --summary summary.tsv --json run.json calls.*.part\n"
      "  cat shard1/ecoli.fq shard2/ecoli.fq shard3/ecoli.fq > ecoli.fq   # split outputs: in shard order\n";
  if (help_asked(r, o, help, examples)) return m;
  if (!r.count("parts")) throw UsageError("merge: give the part files of every shard");
  m.parts = r["parts"].as<std::vector<std::string>>();
  m.output = r.count("output") > 0;
  if (m.output) m.output_path = r["output"].as<std::string>();
  m.summary = r["summary"].as<std::string>();
  m.json = r.count("json") > 0;
  if (m.json) m.json_path = r["json"].as<std::string>();
  return m;
}

FacsPlanShardsOptions parse_facs_plan_shards(int argc, const char* const* argv, std::string* help) {
  check_argument_lengths(argc, argv);
  cxxopts::Options o("facs plan-shards",
                     "Find once where each of N shards of a classify run starts (facs classify --shard I/N\n"
                     "--shard-plan PLAN): the byte offset of its first record in the reads and the mate file and\n"
                     "the records before it. Without a plan every shard of pairs counts both files up to its block\n"
                     "(together about N/2 passes over each); with one it seeks there. Shards with and without a plan\n"
                     "write the same parts. Plain FASTA or four-line FASTQ only: gzip cannot be entered at an offset\n"
                     "(refused; shards of gzip input count records without a plan).\n");
  o.custom_help("-n N -o PLAN [options]");
  o.positional_help("READS");
  o.add_options()
      ("mate", "second mates of paired reads (same order as READS)", cxxopts::value<std::string>())
      ("n,shards", "the number of shards N (as in --shard I/N)", cxxopts::value<uint64_t>())
      ("o,output", "the plan file to write (required)", cxxopts::value<std::string>())
      ("q,quiet", "do not print what the plan holds")
      ("h,help", "this help")
      ("reads", "reads file", cxxopts::value<std::vector<std::string>>());
  o.parse_positional({"reads"});
  const cxxopts::ParseResult r = parse_or_usage(o, argc, argv, "plan-shards");
  FacsPlanShardsOptions p;
  const char* examples =
      "\nExample (8 shards of pairs, run anywhere, then merged):\n"
      "  facs plan-shards r1.fq --mate r2.fq -n 8 -o pairs.plan\n"
      "  for i in $(seq 8); do\n"
      "    facs classify r1.fq --mate r2.fq refs.bf --shard $i/8 --shard-plan pairs.plan \\\n"
      "      -o calls.$i.part --summary summary.$i.part\n"
      "  done\n"
      "  facs merge -o calls.tsv --summary summary.tsv calls.*.part\n"
      "\nA shard refuses (exit 65) a plan made for other files, another N, or files changed since.\n";
  if (help_asked(r, o, help, examples)) return p;
  if (!r.count("reads") || r["reads"].as<std::vector<std::string>>().size() != 1)
    throw UsageError("plan-shards: give one READS file (and --mate for pairs)");
  if (!r.count("shards")) throw UsageError("plan-shards: -n N (the number of shards) is required");
  if (!r.count("output")) throw UsageError("plan-shards: -o PLAN is required");
  p.reads = r["reads"].as<std::vector<std::string>>()[0];
  if (p.reads.empty()) throw UsageError("plan-shards: READS is an empty file name");
  if (r.count("mate")) p.mate = r["mate"].as<std::string>();
  if (r.count("mate") && p.mate.empty()) throw UsageError("plan-shards: --mate needs a file");
  p.shards = r["shards"].as<uint64_t>();
  if (p.shards < 1 || p.shards > (uint64_t(1) << 24)) throw UsageError("plan-shards: -n must be 1..16777216");
  p.output = r["output"].as<std::string>();
  if (p.output.empty()) throw UsageError("plan-shards: -o needs a file name");
  p.quiet = r.count("quiet") > 0;
  return p;
}

FacsInfoOptions parse_facs_info(int argc, const char* const* argv, std::string* help) {
  check_argument_lengths(argc, argv);
  cxxopts::Options o("facs info", "Describe the filters of .bf containers: header and per filter k-mers, bits, hash\n"
                                  "functions, fill fraction and false-positive rates (predicted from the k-mer count\n"
                                  "and from the fill fraction).\n");
  o.positional_help("REFS.bf [MORE.bf ...]");
  o.add_options()("h,help", "this help")
      ("verify", "check the whole-file checksum (done anyway for files up to 256 MB; larger ones are mapped and "
                 "not checksummed unless this is given, as facs classify --load map does)")
      ("files", "containers", cxxopts::value<std::vector<std::string>>());
  o.parse_positional({"files"});
  const cxxopts::ParseResult r = parse_or_usage(o, argc, argv, "info");
  FacsInfoOptions f;
  if (help_asked(r, o, help, "\nExample:\n  facs info refs.bf\n")) return f;
  if (!r.count("files")) throw UsageError("info: no .bf file given");
  f.files = r["files"].as<std::vector<std::string>>();
  f.verify = r.count("verify") > 0;
  return f;
}

FacsOptions parse_facs_options(int argc, const char* const* argv) {
  check_argument_lengths(argc, argv);
  FacsOptions o;
  if (argc < 2) {
    o.command = FacsCommand::usage;
    o.help = kUsage;
    return o;
  }
  const std::string cmd = argv[1];
  if (cmd == "-h" || cmd == "--help" || cmd == "help") {
    o.command = FacsCommand::help;
    o.help = kUsage;
    return o;
  }
  if (cmd == "--version") {
    o.command = FacsCommand::version;
    return o;
  }
  if (cmd == "build-filter") {
    o.command = FacsCommand::build_filter;
    o.build = parse_facs_build_filter(argc - 1, argv + 1, &o.help);
  } else if (cmd == "classify") {
    o.command = FacsCommand::classify;
    o.classify = parse_facs_classify(argc - 1, argv + 1, &o.help);
  } else if (cmd == "merge") {
    o.command = FacsCommand::merge;
    o.merge = parse_facs_merge(argc - 1, argv + 1, &o.help);
  } else if (cmd == "plan-shards") {
    o.command = FacsCommand::plan_shards;
    o.plan_shards = parse_facs_plan_shards(argc - 1, argv + 1, &o.help);
  } else if (cmd == "info") {
    o.command = FacsCommand::info;
    o.info = parse_facs_info(argc - 1, argv + 1, &o.help);
  } else if (cmd == "model") {
    o.command = FacsCommand::model;
    o.model = parse_model_options("facs model", argc - 1, argv + 1);
  } else {
    throw UsageError("unknown command '" + cmd + "' (expected build-filter, classify, merge, plan-shards, info or model; see facs --help)");
  }
  return o;
}

}  // namespace bloomseq
