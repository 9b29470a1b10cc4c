// The tools' option parsing (bloomseq/cli): defaults, ranges and conflicts refused with a message that names the
// option, help without side effects. The values asserted are the documented defaults and limits.
#include <catch2/catch.hpp>

#include <initializer_list>
#include <string>
#include <vector>

#include "bloomseq/app/argument_limits.hpp"
#include "bloomseq/app/model_commands.hpp"
#include "bloomseq/cli/blast_options.hpp"
#include "bloomseq/cli/facs_options.hpp"
#include "bloomseq/facs/interleaved_builder.hpp"
#include "bloomseq/error.hpp"

using namespace bloomseq;

namespace {

struct Argv {
  std::vector<std::string> words;
  std::vector<const char*> ptrs;
  Argv(std::initializer_list<const char*> w) : words(w.begin(), w.end()) {
    for (const auto& s : words) ptrs.push_back(s.c_str());
    ptrs.push_back(nullptr);
  }
  int argc() const { return int(words.size()); }
  const char* const* argv() const { return ptrs.data(); }
};

BlastOptions blast(std::initializer_list<const char*> w) {
  Argv a(w);
  return parse_blast_options(a.argc(), a.argv());
}
FacsOptions facs(std::initializer_list<const char*> w) {
  Argv a(w);
  return parse_facs_options(a.argc(), a.argv());
}
ModelOptions model_cmd(std::initializer_list<const char*> w) {
  Argv a(w);
  return parse_model_options("bloomseq-model", a.argc(), a.argv());
}

// The UsageError message of a parse that must fail ("" when it did not fail with UsageError).
template <class F>
std::string usage_error(F&& f) {
  try {
    f();
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

// The same for a whole command line; argv[0] picks the parser. A plain function rather than a lambda per check
// keeps this file quick to compile under the sanitizers.
std::string usage_message(std::initializer_list<const char*> w) {
  const Argv a(w);
  const std::string tool = a.words[0];
  return usage_error([&] {
    if (tool == "blast-bloom") parse_blast_options(a.argc(), a.argv());
    else if (tool == "facs") parse_facs_options(a.argc(), a.argv());
    else parse_model_options("bloomseq-model", a.argc(), a.argv());
  });
}

}  // namespace

TEST_CASE("blast-bloom: defaults", "[cli]") {
  const BlastOptions o = blast({"blast-bloom", "q.fa", "db.fa"});
  REQUIRE(o.command == BlastCommand::search);
  CHECK(o.help.empty());
  CHECK_FALSE(o.version);
  const BlastSearchOptions& s = o.search;
  CHECK(s.query == "q.fa");
  CHECK(s.db == "db.fa");
  CHECK(s.params.w == 11);
  CHECK(s.params.k == 6);
  CHECK(s.params.n_sub == 1000);
  CHECK(s.params.m_bits == 262144);
  CHECK(s.params.threads == 1);
  CHECK(s.params.chunk_bases == 65536);
  CHECK(s.params.batch_bases == (uint64_t(64) << 20));
  // blastn -task blastn's defaults: gapped, 2/-3, gap costs 5/2, X-drops 20/30/100 bits.
  CHECK(s.params.reward == 2);
  CHECK(s.params.penalty == -3);
  CHECK(s.params.gapped);
  CHECK(s.params.gap_open == 5);
  CHECK(s.params.gap_extend == 2);
  CHECK(s.params.xdrop_bits == 20);
  CHECK(s.params.xdrop_gap_bits == 30);
  CHECK(s.params.xdrop_final_bits == 100);
  CHECK_FALSE(blast({"blast-bloom", "--ungapped", "q.fa", "db.fa"}).search.params.gapped);
  CHECK(s.params.layout == Stage1aLayout::automatic);
  CHECK(s.stage == "hsp");
  CHECK(s.backend == "auto");
  CHECK(s.output == "-");
  CHECK(s.header);
  CHECK_FALSE(s.stats);
  CHECK_FALSE(s.auto_tune);
  CHECK_FALSE(s.given_k);
  CHECK_FALSE(s.given_threads);
}

TEST_CASE("blast-bloom: values, size suffixes and explicit flags", "[cli]") {
  const BlastOptions o = blast({"blast-bloom", "-w", "28", "-t", "2", "--sub-query", "2K", "-m", "1M", "-k", "4",
                                "--reward", "2", "--penalty=-3", "--stage", "1a", "--layout", "bitsliced", "--chunk",
                                "4k", "--batch", "1G", "--no-header", "--stats", "s.json", "-o", "out.tsv", "q", "-"});
  const BlastSearchOptions& s = o.search;
  CHECK(s.params.w == 28);
  CHECK(s.params.threads == 2);
  CHECK(s.params.n_sub == 2048);
  CHECK(s.params.m_bits == 1048576);
  CHECK(s.params.k == 4);
  CHECK(s.params.reward == 2);
  CHECK(s.params.penalty == -3);
  CHECK(s.params.layout == Stage1aLayout::bitsliced);
  CHECK(s.params.chunk_bases == 4096);
  CHECK(s.params.batch_bases == (uint64_t(1) << 30));
  CHECK(s.stage == "1a");
  CHECK_FALSE(s.header);
  CHECK(s.stats);
  CHECK(s.stats_path == "s.json");
  CHECK(s.output == "out.tsv");
  CHECK(s.db == "-");
  CHECK(s.given_k);
  CHECK(s.given_n_sub);
  CHECK(s.given_m_bits);
  CHECK(s.given_threads);
}

TEST_CASE("blast-bloom: out-of-range values are refused, naming the option", "[cli]") {
  CHECK_THAT(usage_message({"blast-bloom", "-w", "0", "q", "d"}), Catch::Contains("word size must be 1..32"));
  CHECK_THAT(usage_message({"blast-bloom", "-w", "33", "q", "d"}), Catch::Contains("word size must be 1..32"));
  CHECK_THAT(usage_message({"blast-bloom", "-k", "0", "q", "d"}), Catch::Contains("hash functions"));
  CHECK_THAT(usage_message({"blast-bloom", "--sub-query", "10", "q", "d"}),
             Catch::Contains("sub-query length (10) must be at least the word size (11)"));
  CHECK_THAT(usage_message({"blast-bloom", "-m", "32", "q", "d"}), Catch::Contains("Bloom vector bits"));
  CHECK_THAT(usage_message({"blast-bloom", "-t", "0", "q", "d"}), Catch::Contains("threads must be 1..1024"));
  CHECK_THAT(usage_message({"blast-bloom", "--chunk", "100", "q", "d"}), Catch::Contains("chunk size"));
  CHECK_THAT(usage_message({"blast-bloom", "--reward", "3", "--penalty=-5", "q", "d"}),
             Catch::Contains("reward/penalty 3/-5 not supported"));
  CHECK_THAT(usage_message({"blast-bloom", "--reward", "3", "--penalty=-2", "q", "d"}),
             Catch::Contains("gap costs 5/2 not supported for reward/penalty 3/-2 (supported: 5/5"));
  CHECK_THAT(usage_message({"blast-bloom", "--gapopen", "1", "--gapextend", "1", "q", "d"}),
             Catch::Contains("gap costs 1/1 not supported for reward/penalty 2/-3"));
  CHECK_THAT(usage_message({"blast-bloom", "--stage", "2", "q", "d"}), Catch::Contains("--stage must be"));
  CHECK_THAT(usage_message({"blast-bloom", "--layout", "x", "q", "d"}), Catch::Contains("unknown layout 'x'"));
  CHECK_THAT(usage_message({"blast-bloom", "--backend", "gpu", "q", "d"}), Catch::Contains("--backend must be"));
}

TEST_CASE("blast-bloom: malformed numbers and sizes", "[cli]") {
  CHECK_THAT(usage_message({"blast-bloom", "-w", "abc", "q", "d"}), Catch::Contains("(see --help)"));
  CHECK_THAT(usage_message({"blast-bloom", "--sub-query", "12X", "q", "d"}),
             Catch::Contains("--sub-query: not a number: '12X'"));
  CHECK_THAT(usage_message({"blast-bloom", "--batch", "", "q", "d"}), Catch::Contains("--batch: empty value"));
  // A size is never negative (std::stoull alone would turn -1 into 2^64-1) and never wraps around.
  CHECK_THAT(usage_message({"blast-bloom", "--chunk=-1", "q", "d"}), Catch::Contains("--chunk: must not be negative"));
  CHECK_THAT(usage_message({"blast-bloom", "--batch", "17179869184G", "q", "d"}), Catch::Contains("--batch: too large"));
  CHECK(parse_size("16777215G", "x") == (uint64_t(16777215) << 30));
  CHECK(parse_size("18446744073709551615", "x") == ~uint64_t(0));
}

TEST_CASE("blast-bloom: conflicting and missing arguments", "[cli]") {
  CHECK_THAT(usage_message({"blast-bloom", "q"}), Catch::Contains("expected QUERY and DB"));
  CHECK_THAT(usage_message({"blast-bloom", "q", "d", "e"}), Catch::Contains("expected QUERY and DB"));
  CHECK_THAT(usage_message({"blast-bloom", "-", "-"}), Catch::Contains("cannot both be stdin"));
  CHECK_THAT(usage_message({"blast-bloom", "--target-fpr", "0.01", "q", "d"}), Catch::Contains("need --auto-tune"));
  CHECK_THAT(usage_message({"blast-bloom", "--profile", "p.json", "q", "d"}), Catch::Contains("need --auto-tune"));
  CHECK_THAT(usage_message({"blast-bloom", "--auto-tune", "--target-fpr", "0.01", "--target-throughput", "1e6", "q", "d"}),
             Catch::Contains("not both"));
  CHECK_THAT(usage_message({"blast-bloom", "--auto-tune", "--target-fpr", "1", "q", "d"}),
             Catch::Contains("--target-fpr must be in (0, 1)"));
  CHECK_THAT(usage_message({"blast-bloom", "--auto-tune", "--target-throughput", "0", "q", "d"}),
             Catch::Contains("--target-throughput must be a positive"));
  CHECK_THAT(usage_message({"blast-bloom", "--bogus", "q", "d"}), Catch::Contains("bogus"));
  const BlastOptions t = blast({"blast-bloom", "--auto-tune", "--target-throughput", "5e7", "-k", "4", "q", "d"});
  CHECK(t.search.auto_tune);
  CHECK(t.search.request.objective == model::Objective::MinFpr);
  CHECK(t.search.request.target_throughput == 5e7);
  CHECK(t.search.given_k);
}

TEST_CASE("blast-bloom: blastn's own command line", "[cli]") {
  // Each blastn option lands on the value blastn gives it; blastn's default task is megablast; no header line.
  const BlastOptions a = blast({"blast-bloom", "-query", "q.fa", "-subject", "s.fa", "-outfmt", "6 qseqid btop",
                                "-evalue", "1e-5", "-word_size", "20", "-penalty", "-3", "-reward", "2",
                                "-num_threads", "2", "-max_target_seqs", "7", "-max_hsps", "3", "-perc_identity",
                                "91.5", "-qcov_hsp_perc", "40", "-strand", "minus", "-dust", "no", "-out", "o.tsv",
                                "-gapopen", "4", "-gapextend", "2", "-xdrop_gap", "20", "-lcase_masking"});
  CHECK(a.search.query == "q.fa");
  CHECK(a.search.db == "s.fa");
  CHECK(a.search.output == "o.tsv");
  CHECK(!a.search.header);
  CHECK(a.search.format.columns.size() == 2);
  CHECK(a.search.params.evalue == 1e-5);
  CHECK(a.search.params.w == 20);
  CHECK(a.search.params.penalty == -3);
  CHECK(a.search.params.reward == 2);
  CHECK(a.search.params.threads == 2);
  CHECK(a.search.params.max_target_seqs == 7);
  CHECK(a.search.params.max_hsps == 3);
  CHECK(a.search.params.percent_identity == 91.5);
  CHECK(a.search.params.qcov_hsp_perc == 40);
  CHECK(!a.search.params.dust);
  CHECK(a.search.params.gap_open == 4);
  CHECK(a.search.params.xdrop_gap_bits == 20);
  CHECK(a.search.params.lcase_masking);
  CHECK(a.search.params.db_length == 0);
  CHECK(blast({"blast-bloom", "-query", "q", "-subject", "s", "-dbsize", "3000000000"}).search.params.db_length ==
        3000000000ull);
  CHECK(blast({"blast-bloom", "--searchsp", "123456789012", "q", "s"}).search.params.search_space == 123456789012.0);
  CHECK_THAT(usage_message({"blast-bloom", "--searchsp", "-5", "q", "s"}), Catch::Contains("--searchsp"));
  CHECK(a.search.params.greedy);  // -task not given: megablast, as blastn
  CHECK(a.notice.empty());
  const BlastOptions b = blast({"blast-bloom", "-task", "blastn", "-subject", "s.fa"});
  CHECK(b.search.query == "-");  // blastn reads the query from stdin without -query
  CHECK(!b.search.params.greedy);
  CHECK(b.search.params.w == 11);
  CHECK(b.notice.empty());
  CHECK(b.search.format.style == TabularStyle::pairwise);  // blastn's default output: its pairwise report
  CHECK(b.search.params.aligned_sequences);
  // With the pairwise report -num_alignments and -num_descriptions set its counts; the search keeps the larger.
  const BlastOptions na = blast({"blast-bloom", "-query", "q", "-subject", "s", "-num_alignments", "700"});
  CHECK(na.search.report_alignments == 700);
  CHECK(na.search.report_descriptions == 500);
  CHECK(na.search.params.max_target_seqs == 700);
  const BlastOptions f = blast({"blast-bloom", "-query", "q", "-subject", "s", "-num_descriptions", "3"});
  CHECK(f.search.report_descriptions == 3);
  CHECK(f.search.report_alignments == 250);
  CHECK(f.search.params.max_target_seqs == 250);
  CHECK(f.notice.empty());
  const BlastOptions g = blast({"blast-bloom", "-query", "q", "-subject", "s", "-max_target_seqs", "4"});
  CHECK(g.search.report_descriptions == 4);
  CHECK(g.search.report_alignments == 4);
  CHECK_THAT(usage_message({"blast-bloom", "--num-alignments", "3", "q", "s"}), Catch::Contains("--outfmt 0"));
  CHECK_THAT(usage_message({"blast-bloom", "--outfmt", "0", "--num-alignments", "3", "--max-target-seqs", "2", "q",
                            "s"}),
             Catch::Contains("--max-target-seqs"));
  CHECK_THAT(usage_message({"blast-bloom", "--outfmt", "0 qseqid", "q", "s"}), Catch::Contains("no columns"));
  CHECK_THAT(usage_message({"blast-bloom", "--outfmt", "0", "--db-shard", "1/2", "q", "s"}),
             Catch::Contains("--outfmt 0"));
  const BlastOptions c = blast({"blast-bloom", "-subject", "s.fa", "-query", "q.fa", "-outfmt", "7 std",
                                "-ungapped", "-sum_stats", "false", "-dust", "20 64 1", "-window_size", "0"});
  CHECK(c.search.header);  // format 7 keeps its comment lines
  CHECK(c.search.format.style == TabularStyle::commented);
  CHECK(!c.search.params.gapped);
  CHECK(c.search.params.dust);
  // Our own options mix with blastn's; without any of blastn's nothing changes (a header line, -task blastn).
  const BlastOptions d = blast({"blast-bloom", "-query", "q.fa", "-subject", "s.fa", "--stats", "x.json", "-t", "2"});
  CHECK(d.search.stats_path == "x.json");
  CHECK(d.search.params.threads == 2);
  const BlastOptions e = blast({"blast-bloom", "q.fa", "s.fa"});
  CHECK(e.search.header);
  CHECK(!e.search.params.greedy);
  // What cannot be honoured is refused, naming it.
  CHECK_THAT(usage_message({"blast-bloom", "-query", "q", "-db", "nt"}), Catch::Contains("makeblastdb"));
  CHECK_THAT(usage_message({"blast-bloom", "-query", "q", "-subject", "s", "-ungapped"}),
             Catch::Contains("-sum_stats false"));
  CHECK_THAT(usage_message({"blast-bloom", "-query", "q", "-subject", "s", "-sum_stats", "true"}),
             Catch::Contains("sum statistics"));
  CHECK_THAT(usage_message({"blast-bloom", "-query", "q", "-subject", "s", "-culling_limit", "2"}),
             Catch::Contains("-culling_limit is not supported"));
  CHECK_THAT(usage_message({"blast-bloom", "-query", "q", "-subject", "s", "-window_size", "40"}),
             Catch::Contains("-window_size"));
  CHECK_THAT(usage_message({"blast-bloom", "-query", "q", "-subject", "s", "-dust", "10 64 1"}),
             Catch::Contains("-dust"));
  CHECK_THAT(usage_message({"blast-bloom", "-query", "q", "-subject", "s", "-soft_masking", "false"}),
             Catch::Contains("-soft_masking"));
  CHECK_THAT(usage_message({"blast-bloom", "-query", "q"}), Catch::Contains("-subject"));
  CHECK_THAT(usage_message({"blast-bloom", "-task", "blastn", "-query", "q", "-subject", "s", "-task", "megablast"}),
             Catch::Contains("-task is given more than once"));
  CHECK_THAT(usage_message({"blast-bloom", "-query", "q", "-subject"}), Catch::Contains("needs a value"));
}

TEST_CASE("blast-bloom: help, version and subcommands", "[cli]") {
  const BlastOptions h = blast({"blast-bloom", "--help"});
  CHECK_THAT(h.help, Catch::Contains("--word-size") && Catch::Contains("Examples:") && Catch::Contains("Exit codes"));
  CHECK(blast({"blast-bloom", "--version"}).version);
  const BlastOptions e = blast({"blast-bloom", "encode", "g.fa", "-o", "g.2bit", "--lossy"});
  REQUIRE(e.command == BlastCommand::encode);
  CHECK(e.encode.input == "g.fa");
  CHECK(e.encode.output == "g.2bit");
  CHECK(e.encode.lossy);
  CHECK_THAT(usage_message({"blast-bloom", "encode", "g.fa"}), Catch::Contains("-o OUTPUT.2bit"));
  CHECK_THAT(blast({"blast-bloom", "encode", "--help"}).help, Catch::Contains("blast-bloom encode genome.fa"));
  const BlastOptions c = blast({"blast-bloom", "calibrate", "--quick", "-t", "2"});
  REQUIRE(c.command == BlastCommand::calibrate);
  CHECK(c.calibrate.quick);
  CHECK(c.calibrate.threads == 2);
  CHECK(c.calibrate.kernel_probe);
  CHECK_FALSE(blast({"blast-bloom", "calibrate", "--no-kernel-probe"}).calibrate.kernel_probe);
  CHECK_THAT(usage_message({"blast-bloom", "calibrate", "-t", "-1"}), Catch::Contains("--threads must be >= 0"));
  const BlastOptions m = blast({"blast-bloom", "model", "units", "--max-units", "4"});
  REQUIRE(m.command == BlastCommand::model);
  CHECK(m.model.command == ModelCommand::units);
  CHECK(m.model.max_units == 4);
  CHECK(m.model.program == "blast-bloom model");
}

TEST_CASE("model commands: defaults, ranges, usage", "[cli]") {
  const ModelOptions t = model_cmd({"bloomseq-model", "tradeoff"});
  CHECK(t.command == ModelCommand::tradeoff);
  CHECK(t.device == "gtx480");
  CHECK(t.w == 11);
  CHECK(t.k == 6);
  CHECK(t.m_bits == 262144);
  CHECK(t.steps == 30);
  CHECK(t.layout == model::Layout::PaperVector);
  CHECK_THAT(usage_message({"bloomseq-model", "tradeoff", "--steps", "1"}), Catch::Contains("steps >= 2"));
  CHECK_THAT(usage_message({"bloomseq-model", "tradeoff", "-w", "40"}), Catch::Contains("1 <= w <= 32"));
  CHECK_THAT(usage_message({"bloomseq-model", "blocks", "--threads", "128,x"}),
             Catch::Contains("bad value 'x' in --threads"));
  CHECK_THAT(usage_message({"bloomseq-model", "blocks", "--max-blocks", "0"}), Catch::Contains("--max-blocks"));
  CHECK_THAT(usage_message({"bloomseq-model", "units", "--max-units", "0"}), Catch::Contains("--max-units"));
  CHECK_THAT(usage_message({"bloomseq-model", "plan", "--target-fpr", "2"}), Catch::Contains("--target-fpr"));
  CHECK_THAT(usage_message({"bloomseq-model", "frobnicate"}), Catch::Contains("unknown command 'frobnicate'"));
  // cxxopts' own message for a malformed number names the value, not the option.
  CHECK_THAT(usage_message({"bloomseq-model", "units", "--cores", "x"}),
             Catch::Contains("Argument") && Catch::Contains("x") && Catch::Contains("failed to parse"));
  const ModelOptions b = model_cmd({"bloomseq-model", "blocks", "--threads", "64,128"});
  CHECK(b.block_threads == std::vector<int>{64, 128});
  const ModelOptions u = model_cmd({"bloomseq-model"});
  CHECK(u.usage_error);
  CHECK_THAT(u.help, Catch::Contains("tradeoff"));
  CHECK_FALSE(model_cmd({"bloomseq-model", "--help"}).usage_error);
  CHECK_THAT(model_cmd({"bloomseq-model", "plan", "--help"}).help, Catch::Contains("--target-throughput"));
}

TEST_CASE("facs: top level", "[cli]") {
  CHECK(facs({"facs"}).command == FacsCommand::usage);
  CHECK_THAT(facs({"facs", "--help"}).help, Catch::Contains("build-filter") && Catch::Contains("classify"));
  CHECK(facs({"facs", "--version"}).command == FacsCommand::version);
  CHECK_THAT(usage_message({"facs", "filter"}), Catch::Contains("unknown command 'filter'"));
  CHECK(facs({"facs", "model", "plan"}).model.command == ModelCommand::plan);
}

TEST_CASE("facs build-filter: the default layout is interleaved from 64 reference files on, else blocked", "[cli]") {
  // The files are only named here: the layout is decided from their number before any is read.
  auto layout_for = [](size_t files, std::vector<std::string> extra, bool first_from_stdin = false) {
    std::vector<std::string> words{"build-filter", "-o", "r.bf"};
    words.insert(words.end(), extra.begin(), extra.end());
    for (size_t i = 0; i < files; ++i) words.push_back(i == 0 && first_from_stdin ? "-" : "ref" + std::to_string(i) + ".fa");
    std::vector<const char*> argv;
    for (const std::string& w : words) argv.push_back(w.c_str());
    argv.push_back(nullptr);
    std::string help;
    const FacsBuildOptions b = parse_facs_build_filter(int(words.size()), argv.data(), &help);
    return std::make_pair(b.params.interleaved, b.params.layout);
  };
  CHECK(layout_for(63, {}) == std::make_pair(false, BloomLayout::blocked512));
  CHECK(layout_for(64, {}) == std::make_pair(true, BloomLayout::classic));
  CHECK(layout_for(1000, {}) == std::make_pair(true, BloomLayout::classic));
  CHECK(layout_for(64, {"--layout", "blocked"}) == std::make_pair(false, BloomLayout::blocked512));
  CHECK(layout_for(2, {"--layout", "interleaved"}) == std::make_pair(true, BloomLayout::classic));
  CHECK(layout_for(64, {"--layout", "auto"}) == std::make_pair(true, BloomLayout::classic));
  // Where an interleaved set cannot be built or planned: blocked.
  CHECK(layout_for(64, {"--per-record"}) == std::make_pair(false, BloomLayout::blocked512));
  CHECK(layout_for(64, {"--add"}) == std::make_pair(false, BloomLayout::blocked512));
  CHECK(layout_for(64, {"--auto-tune"}) == std::make_pair(false, BloomLayout::blocked512));
  CHECK(layout_for(64, {}, true) == std::make_pair(false, BloomLayout::blocked512));
  CHECK(default_layout_interleaved(kInterleavedFromReferences, false, false, false, false));
  CHECK_FALSE(default_layout_interleaved(kInterleavedFromReferences - 1, false, false, false, false));
}

TEST_CASE("facs build-filter: defaults and checks", "[cli]") {
  const FacsOptions o = facs({"facs", "build-filter", "-o", "r.bf", "a.fa", "b.fa"});
  REQUIRE(o.command == FacsCommand::build_filter);
  const FacsBuildOptions& b = o.build;
  CHECK(b.output == "r.bf");
  CHECK(b.refs == std::vector<std::string>{"a.fa", "b.fa"});
  CHECK(b.params.w == kFacsDefaultWordSize);
  CHECK(b.params.fpr == 0.0005);
  CHECK(b.params.hashes == 0);
  CHECK(b.params.m_bits == 0);
  CHECK(b.params.layout == BloomLayout::blocked512);
  CHECK(b.params.count == KmerCount::exact);
  CHECK_FALSE(b.add);
  CHECK_FALSE(b.tune.on);

  CHECK_THAT(usage_message({"facs", "build-filter", "a.fa"}), Catch::Contains("-o OUT.bf is required"));
  CHECK_THAT(usage_message({"facs", "build-filter", "-o", "r.bf"}), Catch::Contains("no reference files"));
  CHECK_THAT(usage_message({"facs", "build-filter", "-o", "r.bf", "-w", "0", "a"}), Catch::Contains("-w must be 1..32, got 0"));
  CHECK_THAT(usage_message({"facs", "build-filter", "-o", "r.bf", "-w", "33", "a"}), Catch::Contains("-w must be 1..32, got 33"));
  CHECK_THAT(usage_message({"facs", "build-filter", "-o", "r.bf", "--fpr", "1", "a"}), Catch::Contains("--fpr must be in (0, 1)"));
  CHECK_THAT(usage_message({"facs", "build-filter", "-o", "r.bf", "-k", "32", "a"}),
             Catch::Contains("-k must be 1..31 for the blocked layout"));
  CHECK(facs({"facs", "build-filter", "-o", "r.bf", "-k", "32", "--layout", "classic", "a"}).build.params.hashes == 32);
  CHECK_THAT(usage_message({"facs", "build-filter", "-o", "r.bf", "--layout", "x", "a"}), Catch::Contains("--layout must be"));
  CHECK_THAT(usage_message({"facs", "build-filter", "-o", "r.bf", "--count", "x", "a"}), Catch::Contains("--count must be"));
  CHECK_THAT(usage_message({"facs", "build-filter", "-o", "r.bf", "--name", "x", "a", "b"}),
             Catch::Contains("give --name once per input file (2), got 1"));
  CHECK_THAT(usage_message({"facs", "build-filter", "-o", "r.bf", "--name", "x", "--per-record", "a"}),
             Catch::Contains("--name and --per-record exclude each other"));
  CHECK_THAT(usage_message({"facs", "build-filter", "-o", "r.bf", "--auto-tune", "--target-throughput", "1", "a"}),
             Catch::Contains("--target-throughput applies to classify"));
  CHECK_THAT(usage_message({"facs", "build-filter", "-o", "r.bf", "--target-fpr", "0.1", "a"}),
             Catch::Contains("need --auto-tune"));
  CHECK_THAT(usage_message({"facs", "build-filter", "-o", "r.bf", "-w", "x", "a"}), Catch::StartsWith("build-filter: "));
  // --auto-tune: the target becomes the build FPR; without a target the build FPR is the target.
  CHECK(facs({"facs", "build-filter", "-o", "r", "--auto-tune", "--target-fpr", "1e-4", "a"}).build.params.fpr == 1e-4);
  CHECK(facs({"facs", "build-filter", "-o", "r", "--auto-tune", "--fpr", "0.01", "a"}).build.tune.target_fpr == 0.01);
  CHECK_THAT(facs({"facs", "build-filter", "--help"}).help, Catch::Contains("--per-record") && Catch::Contains("Examples:"));
}

TEST_CASE("facs plan-shards and classify --shard-plan: options and checks", "[cli]") {
  const FacsOptions o = facs({"facs", "plan-shards", "r1.fq", "--mate", "r2.fq", "-n", "8", "-o", "p.plan"});
  REQUIRE(o.command == FacsCommand::plan_shards);
  CHECK(o.plan_shards.reads == "r1.fq");
  CHECK(o.plan_shards.mate == "r2.fq");
  CHECK(o.plan_shards.shards == 8);
  CHECK(o.plan_shards.output == "p.plan");
  CHECK(facs({"facs", "plan-shards", "r.fq", "-n", "2", "-o", "p"}).plan_shards.mate.empty());
  CHECK_THAT(usage_message({"facs", "plan-shards", "r.fq", "-o", "p"}), Catch::Contains("-n N"));
  CHECK_THAT(usage_message({"facs", "plan-shards", "r.fq", "-n", "2"}), Catch::Contains("-o PLAN is required"));
  CHECK_THAT(usage_message({"facs", "plan-shards", "r.fq", "-n", "0", "-o", "p"}), Catch::Contains("-n must be"));
  CHECK_THAT(usage_message({"facs", "plan-shards", "-n", "2", "-o", "p"}), Catch::Contains("give one READS"));
  CHECK_THAT(facs({"facs", "plan-shards", "--help"}).help, Catch::Contains("Example") && Catch::Contains("gzip"));
  CHECK(facs({"facs", "classify", "r", "a.bf", "--shard", "1/2", "--shard-plan", "p"}).classify.shard_plan == "p");
  CHECK_THAT(usage_message({"facs", "classify", "r", "a.bf", "--shard-plan", "p"}),
             Catch::Contains("--shard-plan applies to --shard"));
  CHECK_THAT(usage_message({"facs", "classify", "r", "a.bf", "--shard", "1/2", "--shard-by", "records", "--shard-plan", "p"}),
             Catch::Contains("--shard-by records"));
}

TEST_CASE("facs classify: defaults and checks", "[cli]") {
  const FacsOptions o = facs({"facs", "classify", "reads.fq", "a.bf", "b.bf"});
  REQUIRE(o.command == FacsCommand::classify);
  const FacsClassifyOptions& c = o.classify;
  CHECK(c.reads == "reads.fq");
  CHECK(c.filters == std::vector<std::string>{"a.bf", "b.bf"});
  CHECK(c.params.score == ScoreKind::facs);
  CHECK(c.params.threshold == 0.0);  // the error model's, per read length
  CHECK(c.params.error_rate == kFacsDefaultErrorRate);
  CHECK(c.params.pair_mode == PairMode::both);
  CHECK(c.params.threads == 1);
  CHECK(c.params.batch_bases == 2000000);
  CHECK(c.summary == "-");
  CHECK(c.backend == "cpu");
  CHECK(c.requested_w == 0);
  CHECK_FALSE(c.paired);
  CHECK_FALSE(c.threads_given);
  CHECK(facs({"facs", "classify", "--score", "biobloom", "r", "a.bf"}).classify.params.threshold == kBioBloomDefaultThreshold);
  CHECK(facs({"facs", "classify", "--score", "biobloom", "-s", "0.3", "r", "a.bf"}).classify.params.threshold == 0.3);
  const FacsOptions p = facs({"facs", "classify", "r1", "--mate", "r2", "--pair-mode", "either", "-t", "3", "a.bf"});
  CHECK(p.classify.paired);
  CHECK(p.classify.mate == "r2");
  CHECK(p.classify.params.pair_mode == PairMode::either);
  CHECK(p.classify.threads_given);

  CHECK(facs({"facs", "classify", "--error-rate", "0.03", "r", "a.bf"}).classify.params.error_rate == 0.03);
  CHECK(facs({"facs", "classify", "-s", "0.55", "r", "a.bf"}).classify.params.threshold == 0.55);
  CHECK_THAT(usage_message({"facs", "classify", "--error-rate", "0.5", "r", "a.bf"}), Catch::Contains("--error-rate must be in [0, 0.5)"));
  CHECK_THAT(usage_message({"facs", "classify", "--error-rate", "-0.1", "r", "a.bf"}), Catch::Contains("--error-rate must be in [0, 0.5)"));
  CHECK_THAT(usage_message({"facs", "classify", "--score", "biobloom", "--error-rate", "0.02", "r", "a.bf"}),
             Catch::Contains("not to --score biobloom"));
  CHECK_THAT(usage_message({"facs", "classify", "-s", "0", "r", "a.bf"}), Catch::Contains("-s must be in (0, 1]"));
  CHECK_THAT(usage_message({"facs", "classify", "reads.fq"}), Catch::Contains("at least one .bf"));
  CHECK_THAT(usage_message({"facs", "classify", "-t", "0", "r", "a.bf"}), Catch::Contains("-t must be 1..1024"));
  CHECK_THAT(usage_message({"facs", "classify", "-t", "1025", "r", "a.bf"}), Catch::Contains("-t must be 1..1024"));
  CHECK_THAT(usage_message({"facs", "classify", "--group", "0", "r", "a.bf"}), Catch::Contains("--group must be 1..4096"));
  CHECK_THAT(usage_message({"facs", "classify", "--batch-bases", "0", "r", "a.bf"}), Catch::Contains("--batch-bases"));
  CHECK_THAT(usage_message({"facs", "classify", "--score", "x", "r", "a.bf"}), Catch::Contains("--score must be"));
  CHECK_THAT(usage_message({"facs", "classify", "--pair-mode", "x", "r", "a.bf"}), Catch::Contains("--pair-mode must be"));
  CHECK_THAT(usage_message({"facs", "classify", "--auto-tune", "--target-fpr", "0", "r", "a.bf"}),
             Catch::Contains("--target-fpr must be in (0, 1)"));
  CHECK_THAT(usage_message({"facs", "classify", "--auto-tune", "--read-length", "0", "r", "a.bf"}),
             Catch::Contains("--read-length must be positive"));
  CHECK_THAT(usage_message({"facs", "classify", "--threads=-5x", "r", "a.bf"}), Catch::StartsWith("classify: "));
}

TEST_CASE("facs info", "[cli]") {
  CHECK(facs({"facs", "info", "a.bf", "b.bf"}).info.files == std::vector<std::string>{"a.bf", "b.bf"});
  CHECK_THAT(usage_message({"facs", "info"}), Catch::Contains("no .bf file given"));
  CHECK_THAT(facs({"facs", "info", "--help"}).help, Catch::Contains("facs info refs.bf"));
}

TEST_CASE("arguments longer than 4096 characters are refused before the option parser", "[cli]") {
  // cxxopts' std::regex recursed once per character: a 30000-character option crashed both tools (stack overflow).
  const std::string long_option = "--" + std::string(30000, 'a');
  const std::string long_number(10000, '7');
  Argv b({"blast-bloom", long_option.c_str(), "q", "d"});
  CHECK_THAT(usage_error([&] { parse_blast_options(b.argc(), b.argv()); }),
             Catch::Contains("argument 1") && Catch::Contains("30002 characters long; at most 4096"));
  Argv f({"facs", "classify", "-t", long_number.c_str(), "r", "a.bf"});
  CHECK_THAT(usage_error([&] { parse_facs_options(f.argc(), f.argv()); }), Catch::Contains("argument 3"));
  Argv m({"bloomseq-model", "units", "--cores", long_number.c_str()});
  CHECK_THAT(usage_error([&] { parse_model_options("bloomseq-model", m.argc(), m.argv()); }), Catch::Contains("argument 3"));
  Argv c({"bloomseq-calibrate", long_option.c_str()});
  CHECK_THAT(usage_error([&] { parse_calibrate_options("bloomseq-calibrate", c.argc(), c.argv()); }),
             Catch::Contains("argument 1"));
  // At the bound the parser itself answers (here: not a valid int).
  const std::string at_bound(kMaxArgumentLength, '1');
  Argv w({"blast-bloom", "-w", at_bound.c_str(), "q", "d"});
  CHECK_THAT(usage_error([&] { parse_blast_options(w.argc(), w.argv()); }), Catch::Contains("(see --help)"));
  const std::string path(kMaxArgumentLength, 'p');
  Argv ok({"blast-bloom", path.c_str(), "d"});
  CHECK(parse_blast_options(ok.argc(), ok.argv()).search.query == path);
}
