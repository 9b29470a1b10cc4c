// Fuzz target: the command-line parsing of blast-bloom (search, encode, calibrate, model) and facs (build-filter,
// classify, merge, plan-shards, info, model). The input is split into argv at NUL and newline bytes. When the first
// word names a tool ("blast-bloom", "facs", "bloomseq-model", "bloomseq-calibrate") it is argv[0], so the seeds
// are plain command lines; otherwise the first byte picks the tool and every word is an argument.
// Bad usage must come out as bloomseq::Error (UsageError); any other exception, a crash, UB or a leak is a bug.
// Parses that succeed must hold the promised invariants (ranges checked, required values present).
// Inputs up to 16 KiB, so that single arguments can exceed the 4096-character bound (argument_limits.hpp).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "bloomseq/app/model_commands.hpp"
#include "bloomseq/cli/blast_options.hpp"
#include "bloomseq/cli/facs_options.hpp"
#include "bloomseq/error.hpp"

namespace {

using namespace bloomseq;

[[noreturn]] void finding(const char* what) {
  std::fprintf(stderr, "fuzz_cli_options: %s\n", what);
  std::abort();
}
void require(bool ok, const char* what) {
  if (!ok) finding(what);
}

void check(const BlastOptions& o) {
  if (o.command != BlastCommand::search || !o.help.empty() || o.version) return;
  const BlastParams& p = o.search.params;
  require(p.w >= 1 && p.w <= 32, "blast: w outside 1..32 accepted");
  require(p.k >= 1 && p.k <= 32, "blast: k outside 1..32 accepted");
  require(p.n_sub >= uint64_t(p.w), "blast: n_sub < w accepted");
  require(p.m_bits >= 64 && p.m_bits <= (uint64_t(1) << 32), "blast: m outside 64..2^32 accepted");
  require(p.threads >= 1 && p.threads <= 1024, "blast: threads outside 1..1024 accepted");
  require(p.chunk_bases >= 1024 && p.batch_bases >= 1, "blast: chunk/batch too small accepted");
  require(!(o.search.query == "-" && o.search.db == "-"), "blast: both inputs on stdin accepted");
}

void check(const FacsOptions& o) {
  if (!o.help.empty()) return;
  if (o.command == FacsCommand::build_filter) {
    const BuildParams& p = o.build.params;
    require(p.w >= 1 && p.w <= 32, "facs build-filter: w outside 1..32 accepted");
    require(p.fpr > 0 && p.fpr < 1, "facs build-filter: fpr outside (0, 1) accepted");
    require(p.hashes >= 0 && p.hashes <= 32, "facs build-filter: k outside 0..32 accepted");
    require(!o.build.refs.empty(), "facs build-filter: no references accepted");
    require(o.build.names.empty() || o.build.names.size() == o.build.refs.size(), "facs: --name count mismatch");
  } else if (o.command == FacsCommand::classify) {
    const ClassifyParams& p = o.classify.params;
    require(p.threads >= 1 && p.threads <= 1024, "facs classify: threads outside 1..1024 accepted");
    require(p.group_reads >= 1 && p.group_reads <= 4096, "facs classify: group outside 1..4096 accepted");
    require(p.batch_bases >= 1, "facs classify: batch 0 accepted");
    require(!o.classify.filters.empty(), "facs classify: no filter file accepted");
  } else if (o.command == FacsCommand::merge) {
    require(!o.merge.parts.empty(), "facs merge: no parts accepted");
  } else if (o.command == FacsCommand::plan_shards) {
    const PlanShardsRequest& p = o.plan_shards;
    require(!p.reads.empty() && !p.output.empty(), "facs plan-shards: no reads or no output accepted");
    require(p.shards >= 1 && p.shards <= (uint64_t(1) << 24), "facs plan-shards: N outside 1..2^24 accepted");
  } else if (o.command == FacsCommand::info) {
    require(!o.info.files.empty(), "facs info: no file accepted");
  }
}

void check(const ModelOptions& m) {
  if (!m.help.empty()) return;
  if (m.command == ModelCommand::tradeoff)
    require(m.w >= 1 && m.w <= 32 && m.steps >= 2 && m.n_sub_min > uint64_t(m.w) && m.n_sub_max >= m.n_sub_min,
            "model tradeoff: bad range accepted");
  if (m.command == ModelCommand::blocks)
    require(m.max_blocks >= 1 && !m.block_threads.empty() && m.n_sub > uint64_t(m.w), "model blocks: bad range accepted");
  if (m.command == ModelCommand::units) require(m.max_units >= 1, "model units: bad range accepted");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0 || size > 16384) return 0;
  std::vector<std::string> words(1);
  for (size_t i = 0; i < size; ++i) {
    if (data[i] == 0 || data[i] == '\n') words.emplace_back();
    else words.back() += char(data[i]);
  }
  if (words.size() > 256) return 0;
  static const char* const kTools[] = {"blast-bloom", "facs", "bloomseq-model", "bloomseq-calibrate"};
  int tool = -1;
  for (int t = 0; t < 4; ++t)
    if (words[0] == kTools[t]) tool = t;
  if (tool < 0) {
    tool = data[0] % 4;
    words.insert(words.begin(), kTools[tool]);
  }
  std::vector<const char*> argv;
  for (const std::string& w : words) argv.push_back(w.c_str());
  const int argc = int(argv.size());
  argv.push_back(nullptr);

  try {
    switch (tool) {
      case 0: check(parse_blast_options(argc, argv.data())); break;
      case 1: check(parse_facs_options(argc, argv.data())); break;
      case 2: check(parse_model_options("bloomseq-model", argc, argv.data())); break;
      default: parse_calibrate_options("bloomseq-calibrate", argc, argv.data()); break;
    }
  } catch (const bloomseq::Error&) {
    // Bad usage, reported properly.
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz_cli_options: exception that is not a bloomseq::Error: %s\n", e.what());
    std::abort();
  }
  return 0;
}
