// blast-bloom options: definitions (cxxopts), parsing and the checks that need no file. Kept byte-for-byte
// compatible with what the tool printed and refused before the parsing moved out of the app.
#include "bloomseq/cli/blast_options.hpp"

#include <cxxopts.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "bloomseq/app/argument_limits.hpp"
#include "bloomseq/blast/gapped_karlin.hpp"
#include "bloomseq/blast/karlin.hpp"
#include "bloomseq/blast/shard.hpp"
#include "bloomseq/cli/blastn_arguments.hpp"
#include "bloomseq/error.hpp"
#include "bloomseq/hash/h3.hpp"
#include "bloomseq/model/profile_io.hpp"

namespace bloomseq {
namespace {

// A whole number as blastn's Int8 options take it (-dbsize, -searchsp): digits only, below 2^63.
uint64_t parse_count(const std::string& s, const std::string& what) {
  if (s.empty() || s.size() > 18 || s.find_first_not_of("0123456789") != std::string::npos)
    throw UsageError(what + ": '" + s + "' (expected a whole number of bases)");
  return std::stoull(s);
}

const char* kExamples = R"(
Examples:
  blast-bloom data/lambda_virus.fa data/ecoli_536_200k.fa                 HSPs (BLAST tabular, 12 columns)
  blast-bloom -w 28 -t 2 query.fa genome.2bit -o hits.tsv --stats run.json
  blast-bloom --reward 2 --penalty=-3 query.fa db.fa                      blastn's -task blastn scoring
  blast-bloom --task megablast query.fa db.fa                             as plain blastn (-task megablast)
  blast-bloom --task blastn-short primers.fa genome.fa                    primers (blastn -task blastn-short)
  blast-bloom --stage 1a --sub-query 500 -m 65536 -k 4 query.fa db.fa     the Bloom-filter hits themselves
  blast-bloom --stage 1b query.fa db.fa                                   exact seeds
  blast-bloom --auto-tune --target-fpr 1e-3 query.fa db.fa --stats run.json   parameters from the performance model
  blast-bloom --auto-tune --target-throughput 5e7 -k 4 query.fa db.fa     min FPR at >= 5e7 db w-mers/s, k fixed
  blast-bloom encode genome.fa -o genome.2bit                             encode a database once
  blast-bloom calibrate                                                   measure this machine for --auto-tune
  blast-bloom model tradeoff --device cpu > tradeoff.csv                  model predictions (see 'model --help')
  blast-bloom --db-shard 2/4 query.fa db.2bit -o part2.bbp                one of 4 database shards (a part file)
  blast-bloom merge -o hsps.tsv part*.bbp                                 the parts merged: the single run's output
  blast-bloom plan --auto-tune query.fa db.2bit -o plan.json              decide once, then on every shard:
  blast-bloom --plan plan.json --db-shard 2/4 query.fa db.2bit -o part2.bbp
  blast-bloom plan query.fa db.fa -o plan.json      a FASTA database's plan also says where its records start:
                                                   shards with --plan then read only their own records

--auto-tune chooses n_sub, k, m, layout and threads with the performance model (docs/performance-model.md):
minimum predicted time with the per-test FPR <= --target-fpr (default 1e-4), or minimum FPR with predicted
throughput >= --target-throughput (db w-mers/s). -k, -m, --sub-query, --layout and -t given explicitly stay fixed.
The plan is printed on stderr before the run; --stats puts its predictions next to the measured values.
--tune-check (min time only): the defaults (the run without --auto-tune) and, if the model and a partial build
promise a 20% gain, the plan are first timed on a sample of the database (1/32, at most 8 Mbases) and the run goes
on with the one predicted faster; the output is the same either way (stage 1b is exact). It also predicts the
whole run (stages 2 and 3 timed on the sample too), on stderr and in --stats. It costs 0.1-2 s and pays only where
the model's plan is far off (docs/performance-model.md).

The HSPs are meant to equal those of
  blastn -task blastn -subject DB -outfmt 6                  (the default: gapped, w 11, 2/-3, gaps 5/2, DUST)
  blastn -task blastn -ungapped -sum_stats false -outfmt 6   (--ungapped)
  blastn -task blastn -dust no ...                           (--dust no)
  blastn -task megablast ...                                 (--task megablast; blastn's own default task)
  blastn -task blastn-short ...                              (--task blastn-short; queries under 50 bases)
with the same word size and scores; docs/blast-bloom.md lists the known differences.
blastn's own options work too, with blastn's defaults (megablast, no header line, its pairwise report):
  blast-bloom -query q.fa -subject db.fa -outfmt 6 -evalue 1e-5 -num_threads 2
--outfmt: 6 (tabs), 7 (tabs with blastn's comment lines for every query) or 10 (commas), then any of the
columns std qseqid qaccver qacc sseqid saccver sacc pident length mismatch gapopen gaps nident positive ppos
qstart qend sstart send evalue bitscore score qlen slen qcovhsp qcovs sstrand qseq sseq btop sallseqid sallacc
sgi sallgi stitle salltitles frames qframe sframe (the last six as blastn -subject prints them: 0, N/A, 1), e.g.
  blast-bloom --outfmt "6 qseqid sseqid pident length evalue bitscore qlen slen qcovhsp" query.fa db.fa
  blast-bloom --outfmt "7 std btop" query.fa db.fa
--outfmt 0 writes blastn's pairwise report, 5 its XML, 15 its JSON (no columns; as blastn writes them):
  blast-bloom --outfmt 0 --num-alignments 10 query.fa db.fa
Negative numbers need '=': --penalty=-3.
Exit codes: 0 ok, 64 usage, 65 bad input data, 66 missing input, 70 internal error, 74 I/O error.
)";

BlastEncodeOptions parse_encode(int argc, const char* const* argv, std::string& help) {
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
  BlastEncodeOptions e;
  if (r.count("help")) {
    help = opts.help() + "\nExample:\n  blast-bloom encode genome.fa -o genome.2bit\n";
    return e;
  }
  if (!r.count("input") || !r.count("output")) throw UsageError("encode needs an input FASTA and -o OUTPUT.2bit");
  e.input = r["input"].as<std::string>();
  e.output = r["output"].as<std::string>();
  e.lossy = r.count("lossy") > 0;
  return e;
}

// blast-bloom's search options: declared, parsed and validated in one place so that each option's help text,
// default and check sit together (one option after the other; long only because the tool has many options).
BlastSearchOptions parse_search(int argc, const char* const* argv, std::string& help, bool& version) {
  cxxopts::Options opts("blast-bloom",
                        "BLAST with Bloom filters: every database w-mer is tested against one Bloom vector per "
                        "sub-query (stage 1a),\nhits are verified exactly (1b), extended without gaps (2), then with gaps as "
                        "blastn -task blastn (3).\n"
                        "\nCommands:\n"
                        "  blast-bloom [options] QUERY DB             search (DB: FASTA/FASTQ, gzip or .2bit; '-' = stdin)\n"
                        "  blast-bloom encode DB.fa -o DB.2bit        encode a database once\n"
                        "  blast-bloom plan [options] QUERY DB -o plan.json   parameters decided once, for --plan\n"
                        "  blast-bloom merge -o OUT PART...           the parts of --db-shard/--query-shard runs\n"
                        "  blast-bloom calibrate [options]            measure this machine for --auto-tune\n"
                        "  blast-bloom model COMMAND [options]        model predictions: tradeoff, blocks, units, plan, profile\n");
  opts.add_options("Search")
      ("task", "blastn (the default, as blastn -task blastn), blastn-short (as blastn -task blastn-short, for "
               "queries under 50 bases such as primers: w 7, 1/-3, gaps 5/2) or megablast (as blastn -task "
               "megablast, blastn's own default: w 28, 1/-2, linear gaps 0/0, greedy extension, X-drop 25 bits)",
       cxxopts::value<std::string>()->default_value("blastn"))
      ("w,word-size", "word size w (1..32)", cxxopts::value<int>()->default_value("11"))
      ("reward", "match reward (blastn's pairs: 1/-1 to 1/-5, 2/-3, 2/-5, 2/-7, 3/-2, 3/-4, 4/-5, 5/-4 and multiples)", cxxopts::value<int>()->default_value("2"))
      ("penalty", "mismatch penalty", cxxopts::value<int>()->default_value("-3"))
      ("gapopen", "gap open cost (blastn -gapopen)", cxxopts::value<int>()->default_value("5"))
      ("gapextend", "gap extension cost (blastn -gapextend)", cxxopts::value<int>()->default_value("2"))
      ("xdrop", "ungapped X-drop in bits (blastn -xdrop_ungap; 0: the ungapped cut-off score, megablast's default)",
       cxxopts::value<double>()->default_value("20"))
      ("xdrop-gap", "preliminary gapped X-drop in bits (blastn -xdrop_gap)", cxxopts::value<double>()->default_value("30"))
      ("xdrop-gap-final", "final gapped X-drop in bits (blastn -xdrop_gap_final)",
       cxxopts::value<double>()->default_value("100"))
      ("evalue", "E-value cutoff", cxxopts::value<double>()->default_value("10"))
      ("max-target-seqs", "subjects reported per query, the best ones, chosen as blastn -max_target_seqs "
                          "chooses them (0: all)", cxxopts::value<uint64_t>()->default_value("500"))
      ("num-descriptions", "with --outfmt 0: subjects in each query's table (blastn -num_descriptions; default "
                           "500)", cxxopts::value<uint64_t>())
      ("num-alignments", "with --outfmt 0: subjects whose alignments are shown (blastn -num_alignments; default "
                         "250)", cxxopts::value<uint64_t>())
      ("strand", "query strands searched: both, plus or minus (blastn -strand)",
       cxxopts::value<std::string>()->default_value("both"))
      ("max-hsps", "alignments reported per query-subject pair, the best ones (blastn -max_hsps; 0: all)",
       cxxopts::value<uint64_t>()->default_value("0"))
      ("perc-identity", "drop alignments below this percent identity (blastn -perc_identity)",
       cxxopts::value<double>()->default_value("0"))
      ("qcov-hsp-perc", "drop alignments covering less of the query, in percent (blastn -qcov_hsp_perc)",
       cxxopts::value<double>()->default_value("0"))
      ("dbsize", "database length the E-values take instead of the subjects' bases (blastn -dbsize; 0: those)",
       cxxopts::value<std::string>()->default_value("0"))
      ("searchsp", "effective search space of every query strand (blastn -searchsp; 0: computed)",
       cxxopts::value<std::string>()->default_value("0"))
      ("ungapped", "report ungapped HSPs (blastn -ungapped -sum_stats false) instead of gapped alignments")
      ("dust", "yes (default, as blastn): no seeds in low-complexity query stretches (symmetric DUST, level 20, "
               "window 64, linker 1; extensions still cross them); no: seeds everywhere (blastn -dust no)",
       cxxopts::value<std::string>()->default_value("yes"))
      ("lcase-masking", "no seeds in the query's lower-case letters (blastn -lcase_masking; soft-masked genomes)")
      ("stage", "what to print: 1a (Bloom hits), 1b (exact seeds) or hsp", cxxopts::value<std::string>()->default_value("hsp"))
      ("every-wmer", "for --stage hsp, test every database w-mer in stage 1a (default for w >= 20: 16-mer probes "
                     "at every (w-15)-th position, which find the same seeds)")
      ("scan-word", "for --stage hsp, test words of this many bases (<= w) at every (w-P+1)-th position; exact "
                    "filters up to 12 (default: chosen from the query's size; docs/blast-bloom.md)",
       cxxopts::value<int>());
  opts.add_options("Bloom filters")
      ("sub-query", "sub-query length n_sub in bases (default: 8000 on the CPU, 2000 with 16-mer probes, 1000 "
                    "on a GPU)", cxxopts::value<std::string>())
      ("m,bloom-bits", "bits per sub-query vector (K/M suffixes)", cxxopts::value<std::string>()->default_value("256K"))
      ("k,hashes", "hash functions per vector", cxxopts::value<int>()->default_value("6"))
      ("layout", "stage-1a layout: auto, vector, bitsliced or paper-vector (the papers' kernel, a baseline); with "
                 "--backend cuda, bitsliced runs the bit-sliced kernel, any other the papers' kernel", cxxopts::value<std::string>()->default_value("auto"))
      ("seed", "H3 seed", cxxopts::value<uint64_t>()->default_value(std::to_string(kDefaultH3Seed)));
  opts.add_options("Auto-tune")
      ("auto-tune", "choose n_sub, k, m, layout and threads with the performance model")
      ("target-fpr", "with --auto-tune: minimum time with FPR per test <= X (default 1e-4)", cxxopts::value<double>())
      ("target-throughput", "with --auto-tune: minimum FPR with >= Y database w-mers/s", cxxopts::value<double>())
      ("tune-check", "with --auto-tune: time the plan against the defaults on a database sample first, keep the "
       "faster, and predict the whole run")
      ("profile", "calibration profile (default " + model::default_profile_path() + ")",
       cxxopts::value<std::string>()->default_value(""));
  opts.add_options("Execution")
      ("t,threads", "threads", cxxopts::value<int>()->default_value("1"))
      ("backend", "auto (the CPU: faster than the CUDA kernel on every measured workload), cpu or cuda",
       cxxopts::value<std::string>()->default_value("auto"))
      ("device", "CUDA device number", cxxopts::value<int>()->default_value("0"))
      ("chunk", "database bases per stage-1a work unit", cxxopts::value<std::string>()->default_value("64K"))
      ("batch", "database bases held in memory at once (whole records, a longer FASTA record in overlapping windows; 2M with the short-word scan)",
       cxxopts::value<std::string>()->default_value("64M"))
      ("db-shard", "search database shard I of N (whole records, balanced by bases); -o gets a part file for "
                   "'blast-bloom merge'", cxxopts::value<std::string>())
      ("query-shard", "search query shard J of M (as --db-shard; both may be combined)",
       cxxopts::value<std::string>())
      ("plan", "run the parameters of a plan file made by 'blast-bloom plan' (for shards: decided once)",
       cxxopts::value<std::string>());
  opts.add_options("Output")
      ("o,output", "output file ('-' = stdout; .gz compresses)", cxxopts::value<std::string>()->default_value("-"))
      ("stats", "write run statistics as JSON to FILE", cxxopts::value<std::string>())
      ("outfmt", "output as blastn's -outfmt: \"6\" (tabular, the 12 standard columns), \"7\" (with comment "
                 "lines), \"10\" (commas), each with columns: \"6 qseqid sseqid pident ... qlen slen qcovhsp\" "
                 "(see below); \"0\": blastn's pairwise report; \"5\": its XML; \"15\": its JSON", cxxopts::value<std::string>()->default_value("6"))
      ("no-header", "omit the '#' header line (formats 6 and 10)")
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
  BlastSearchOptions o;
  if (r.count("help")) {
    help = opts.help({"Search", "Bloom filters", "Auto-tune", "Execution", "Output"}) + kExamples;
    return o;
  }
  if (r.count("version")) {
    version = true;
    return o;
  }
  std::vector<std::string> pos;
  if (r.count("positional")) pos = r["positional"].as<std::vector<std::string>>();
  if (pos.size() != 2) throw UsageError("expected QUERY and DB (see --help)");
  o.query = pos[0];
  o.db = pos[1];
  if (o.query == "-" && o.db == "-") throw UsageError("QUERY and DB cannot both be stdin");

  BlastParams& p = o.params;
  p.w = r["word-size"].as<int>();
  p.reward = r["reward"].as<int>();
  p.penalty = r["penalty"].as<int>();
  p.xdrop_bits = r["xdrop"].as<double>();
  p.evalue = r["evalue"].as<double>();
  p.max_target_seqs = r["max-target-seqs"].as<uint64_t>();
  p.max_hsps = r["max-hsps"].as<uint64_t>();
  {
    const std::string st = r["strand"].as<std::string>();
    if (st != "both" && st != "plus" && st != "minus")
      throw UsageError("--strand: '" + st + "' (expected both, plus or minus)");
    p.strands = st == "both" ? 3 : st == "plus" ? 1 : 2;
  }
  p.percent_identity = r["perc-identity"].as<double>();
  p.qcov_hsp_perc = r["qcov-hsp-perc"].as<double>();
  p.db_length = parse_count(r["dbsize"].as<std::string>(), "--dbsize");
  p.search_space = double(parse_count(r["searchsp"].as<std::string>(), "--searchsp"));
  if (!(p.percent_identity >= 0 && p.percent_identity <= 100))
    throw UsageError("--perc-identity: " + std::to_string(p.percent_identity) + " (expected 0..100)");
  if (!(p.qcov_hsp_perc >= 0 && p.qcov_hsp_perc <= 100))
    throw UsageError("--qcov-hsp-perc: " + std::to_string(p.qcov_hsp_perc) + " (expected 0..100)");
  p.gapped = r.count("ungapped") == 0;
  // Without gaps blastn's cut-offs under -searchsp differ from the E-values it prints in a way not reproduced
  // (bee viruses against themselves at 1e11: three lines at E 9.5 that blastn drops for some queries only).
  if (!p.gapped && p.search_space > 0) throw UsageError("--searchsp with --ungapped is not supported (use --dbsize)");
  {
    const std::string d = r["dust"].as<std::string>();
    if (d != "yes" && d != "no") throw UsageError("--dust: '" + d + "' (expected yes or no)");
    p.dust = d == "yes";
  }
  p.lcase_masking = r.count("lcase-masking") > 0;
  p.gap_open = r["gapopen"].as<int>();
  p.gap_extend = r["gapextend"].as<int>();
  p.xdrop_gap_bits = r["xdrop-gap"].as<double>();
  p.xdrop_final_bits = r["xdrop-gap-final"].as<double>();
  {
    const std::string task = r["task"].as<std::string>();
    if (task == "megablast") {
      // blastn -task megablast's defaults, for the options not given.
      p.greedy = true;
      if (!r.count("word-size")) p.w = 28;
      if (!r.count("reward")) p.reward = 1;
      if (!r.count("penalty")) p.penalty = -2;
      if (!r.count("gapopen")) p.gap_open = 0;
      if (!r.count("gapextend")) p.gap_extend = 0;
      if (!r.count("xdrop-gap")) p.xdrop_gap_bits = 25;
      // blastn's megablast sets no ungapped X-drop, so BLAST takes the ungapped cut-off score for it (a larger X
      // than -task blastn's 20 bits: 1 Mbase of E. coli against its genome gives 1,168 ungapped HSPs, not 1,171).
      if (!r.count("xdrop")) p.xdrop_bits = 0;
    } else if (task == "blastn-short") {
      // blastn -task blastn-short's defaults, for the options not given; the X-drops and the rest as -task blastn.
      if (!r.count("word-size")) p.w = 7;
      if (!r.count("reward")) p.reward = 1;
      if (!r.count("penalty")) p.penalty = -3;
      if (!r.count("gapopen")) p.gap_open = 5;
      if (!r.count("gapextend")) p.gap_extend = 2;
    } else if (task != "blastn") {
      throw UsageError("--task: '" + task + "' (expected blastn, blastn-short or megablast)");
    }
  }

  if (r.count("sub-query")) p.n_sub = parse_size(r["sub-query"].as<std::string>(), "--sub-query");
  p.m_bits = parse_size(r["bloom-bits"].as<std::string>(), "--bloom-bits");
  p.k = r["hashes"].as<int>();
  p.layout = parse_layout(r["layout"].as<std::string>());
  p.seed = r["seed"].as<uint64_t>();
  p.threads = r["threads"].as<int>();
  p.chunk_bases = parse_size(r["chunk"].as<std::string>(), "--chunk");
  p.batch_bases = parse_size(r["batch"].as<std::string>(), "--batch");
  p.validate();
  // Reject unsupported scoring before reading anything.
  const KarlinParams ungapped = ungapped_karlin(p.reward, p.penalty);
  if (p.gapped) {
    // Linear gaps (0/0) only with megablast's greedy extension, as blastn has it.
    if (!(p.greedy && p.gap_open == 0 && p.gap_extend == 0) && (p.gap_open < 0 || p.gap_extend < 1))
      throw UsageError(std::string("--gapopen must be >= 0 and --gapextend >= 1") +
                       (p.greedy ? " (or both 0: linear gaps)" : ""));
    if (!(p.xdrop_gap_bits > 0) || !(p.xdrop_final_bits > 0)) throw UsageError("--xdrop-gap and --xdrop-gap-final must be positive");
    gapped_karlin(p.reward, p.penalty, p.gap_open, p.gap_extend, ungapped);
  }
  o.stage = r["stage"].as<std::string>();
  if (o.stage != "1a" && o.stage != "1b" && o.stage != "hsp")
    throw UsageError("--stage must be 1a, 1b or hsp, got '" + o.stage + "'");
  o.every_wmer = r.count("every-wmer") > 0;
  if (r.count("scan-word")) {
    o.scan_word = r["scan-word"].as<int>();
    if (o.scan_word < 1 || o.scan_word > p.w)
      throw UsageError("--scan-word must be 1..w (" + std::to_string(p.w) + "), got " + std::to_string(o.scan_word));
    if (o.every_wmer) throw UsageError("give --scan-word or --every-wmer, not both");
  }
  o.progress = r.count("progress") > 0;
  o.no_progress = r.count("no-progress") > 0;

  // --auto-tune: check the targets now; the plan needs the query and database sizes.
  o.auto_tune = r.count("auto-tune") > 0;
  model::PlanRequest& request = o.request;
  if (!o.auto_tune && (r.count("target-fpr") || r.count("target-throughput") || r.count("profile") ||
                       r.count("tune-check")))
    throw UsageError("--target-fpr, --target-throughput, --profile and --tune-check need --auto-tune");
  // The check races for time: a minimum-FPR plan is kept as planned.
  o.tune_trial = r.count("tune-check") > 0 && !r.count("target-throughput");
  if (o.auto_tune) {
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
  o.profile = r["profile"].as<std::string>();
  o.given_n_sub = r.count("sub-query") > 0;
  o.given_k = r.count("hashes") > 0;
  o.given_m_bits = r.count("bloom-bits") > 0;
  o.given_threads = r.count("threads") > 0;
  o.given_batch = r.count("batch") > 0;
  o.given_max_target_seqs = r.count("max-target-seqs") > 0;

  o.backend = r["backend"].as<std::string>();
  if (o.backend != "auto" && o.backend != "cpu" && o.backend != "cuda")
    throw UsageError("--backend must be auto, cpu or cuda, got '" + o.backend + "'");
  o.device = r["device"].as<int>();
  o.output = r["output"].as<std::string>();
  o.stats = r.count("stats") > 0;
  if (o.stats) o.stats_path = r["stats"].as<std::string>();
  o.header = !r.count("no-header");
  o.format = parse_outfmt(r["outfmt"].as<std::string>());
  o.params.aligned_sequences = o.format.needs_aligned_letters();
  if (r.count("outfmt") && o.stage != "hsp") throw UsageError("--outfmt applies to HSPs (--stage hsp) only");
  {
    // The report's table and alignments: blastn's defaults 500 and 250 subjects (the search keeps the larger
    // number), or -max_target_seqs for both.
    const bool d = r.count("num-descriptions") > 0, a = r.count("num-alignments") > 0;
    if ((d || a) && o.format.style != TabularStyle::pairwise)
      throw UsageError("--num-descriptions and --num-alignments apply to the pairwise report (--outfmt 0); the "
                       "tabular formats take --max-target-seqs");
    if ((d || a) && o.given_max_target_seqs)
      throw UsageError("--max-target-seqs cannot be combined with --num-descriptions or --num-alignments (as in "
                       "blastn)");
    const auto all = [](uint64_t n) { return n == 0 ? std::numeric_limits<size_t>::max() : size_t(n); };
    if (o.given_max_target_seqs) {
      o.report_descriptions = o.report_alignments = all(o.params.max_target_seqs);
    } else if (d || a) {
      const uint64_t nd = d ? r["num-descriptions"].as<uint64_t>() : 500;
      const uint64_t na = a ? r["num-alignments"].as<uint64_t>() : 250;
      o.report_descriptions = size_t(nd);
      o.report_alignments = size_t(na);
      o.params.max_target_seqs = std::max<uint64_t>(std::max<uint64_t>(nd, na), 1);
    }
  }
  if (o.format.style == TabularStyle::commented && !o.header)
    throw UsageError("--outfmt 7: its comment lines are the format (--no-header is for 6 and 10)");
  // Shards: parts of the HSP output only, with the parameters every shard derives alike from the whole inputs.
  o.sharded = r.count("db-shard") || r.count("query-shard");
  if (r.count("db-shard")) o.db_shard = parse_shard(r["db-shard"].as<std::string>(), "--db-shard");
  if (r.count("query-shard")) o.query_shard = parse_shard(r["query-shard"].as<std::string>(), "--query-shard");
  if (o.sharded && o.stage != "hsp")
    throw UsageError("--db-shard/--query-shard work with --stage hsp only (stage 1a/1b output is per batch)");
  if (o.sharded && o.format.style != TabularStyle::tabs && o.format.style != TabularStyle::csv)
    throw UsageError("--outfmt " + std::to_string(int(o.format.style)) +
                     " cannot be combined with --db-shard/--query-shard: use 6 or 10 for the parts");
  if (o.sharded && o.auto_tune)
    throw UsageError("--auto-tune cannot be combined with --db-shard/--query-shard: shards on other machines "
                     "could choose differently. Make the plan once: 'blast-bloom plan --auto-tune QUERY DB -o "
                     "plan.json', then give every shard --plan plan.json");
  if (r.count("plan")) {
    o.plan = r["plan"].as<std::string>();
    // The plan holds every parameter that changes the output; only how to run and where to write come from here.
    for (const char* opt : {"task", "word-size", "reward", "penalty", "gapopen", "gapextend", "xdrop", "xdrop-gap",
                            "xdrop-gap-final", "evalue", "max-target-seqs", "num-descriptions", "num-alignments", "max-hsps", "perc-identity", "strand", "lcase-masking",
                            "qcov-hsp-perc", "ungapped", "dust", "every-wmer", "scan-word", "sub-query",
                            "bloom-bits", "hashes", "layout", "seed", "auto-tune", "target-fpr",
                            "target-throughput", "profile", "tune-check", "batch"})
      if (r.count(opt))
        throw UsageError(std::string("--") + opt + " cannot be given with --plan (the plan holds the search's "
                         "parameters; give them to 'blast-bloom plan')");
  }
  return o;
}

const char* kMergeHelp = R"(blast-bloom merge: the part files of a sharded search into its BLAST tabular output
Usage: blast-bloom merge -o OUT PART...     (OUT '-' = stdout; parts in any order, plain or .gz)

Every part of the grid (each --db-shard I/N with each --query-shard J/M) must be given exactly once, all made
with the same parameters and inputs; the output is then byte-identical to the unsharded run's. A missing,
duplicate, foreign, truncated or corrupt part is refused (exit 65) and nothing is written.

Example:
  for i in 1 2 3 4; do blast-bloom --db-shard $i/4 query.fa db.2bit -o part$i.bbp; done
  blast-bloom merge -o hsps.tsv part*.bbp     # = blast-bloom query.fa db.2bit -o hsps.tsv
)";

BlastMergeOptions parse_merge(int argc, const char* const* argv, std::string& help) {
  BlastMergeOptions m;
  bool have_output = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "-h" || a == "--help") {
      help = kMergeHelp;
      return m;
    } else if (a == "-o" || a == "--output") {
      if (i + 1 >= argc) throw UsageError("merge: " + a + " needs a file name");
      m.output = argv[++i];
      have_output = true;
    } else if (a.compare(0, 9, "--output=") == 0) {
      m.output = a.substr(9);
      have_output = true;
    } else if (a.size() > 1 && a[0] == '-') {
      throw UsageError("merge: unknown option '" + a + "' (see 'blast-bloom merge --help')");
    } else {
      m.parts.push_back(a);
    }
  }
  if (!have_output) throw UsageError("merge needs -o OUT ('-' = stdout; see 'blast-bloom merge --help')");
  if (m.parts.empty()) throw UsageError("merge needs at least one part file (see 'blast-bloom merge --help')");
  return m;
}

}  // namespace

uint64_t parse_size(const std::string& s, const std::string& what) {
  if (s.empty()) throw UsageError(what + ": empty value");
  // std::stoull takes "-1" as 2^64-1; a size is never negative.
  if (s.find('-') != std::string::npos) throw UsageError(what + ": must not be negative: '" + s + "'");
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
  if (uint64_t(v) > std::numeric_limits<uint64_t>::max() / mult) throw UsageError(what + ": too large: '" + s + "'");
  return uint64_t(v) * mult;
}

BlastOptions parse_blast_options(int argc, const char* const* argv) {
  check_argument_lengths(argc, argv);
  BlastOptions o;
  const std::string cmd = argc >= 2 ? argv[1] : "";
  if (cmd == "encode") {
    o.command = BlastCommand::encode;
    o.encode = parse_encode(argc - 1, argv + 1, o.help);
  } else if (cmd == "calibrate") {
    o.command = BlastCommand::calibrate;
    o.calibrate = parse_calibrate_options("blast-bloom calibrate", argc - 1, argv + 1);
  } else if (cmd == "plan") {
    o.command = BlastCommand::plan;
    o.search = parse_search(argc - 1, argv + 1, o.help, o.version);
    if (o.help.empty() && !o.version) {
      if (o.search.sharded || !o.search.plan.empty())
        throw UsageError("plan: --db-shard, --query-shard and --plan are for the searches that use the plan");
      if (o.search.stage != "hsp") throw UsageError("plan: sharded searches print HSPs only (--stage hsp)");
      o.search.make_plan = true;
    }
  } else if (cmd == "merge") {
    o.command = BlastCommand::merge;
    o.merge = parse_merge(argc - 1, argv + 1, o.help);
  } else if (cmd == "model") {
    o.command = BlastCommand::model;
    o.model = parse_model_options("blast-bloom model", argc - 1, argv + 1);
  } else {
    // blastn's own options (-query, -subject, -outfmt ...) are rewritten as ours first (blastn_arguments.hpp).
    const BlastnArguments blastn = translate_blastn_arguments(std::vector<std::string>(argv + 1, argv + argc));
    if (!blastn.used) {
      o.search = parse_search(argc, argv, o.help, o.version);
    } else {
      std::vector<const char*> translated{argv[0]};
      for (const std::string& a : blastn.args) translated.push_back(a.c_str());
      o.search = parse_search(int(translated.size()), translated.data(), o.help, o.version);
      o.notice = blastn.note;
    }
  }
  return o;
}

}  // namespace bloomseq
