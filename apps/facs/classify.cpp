// facs classify: every read (or pair) against every filter in one pass over the reads.
#include <cxxopts.hpp>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "bloomseq/backend/backend.hpp"
#include "bloomseq/app/json_writer.hpp"
#include "bloomseq/app/progress.hpp"
#include "bloomseq/error.hpp"
#include "bloomseq/facs/classifier.hpp"
#include "bloomseq/facs/filter_builder.hpp"
#include "bloomseq/facs/ordered_pipeline.hpp"
#include "bloomseq/facs/report.hpp"
#include "bloomseq/io/filter_file.hpp"
#include "bloomseq/io/output_file.hpp"
#include "bloomseq/io/sequence_reader.hpp"
#include "facs_commands.hpp"

namespace bloomseq {
namespace {

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The read name without a trailing /1 or /2, to check that mates belong together.
std::string_view pair_base(std::string_view name) {
  if (name.size() > 2 && name[name.size() - 2] == '/' && (name.back() == '1' || name.back() == '2'))
    name.remove_suffix(2);
  return name;
}

void append_record(std::string& out, const SequenceRecord& r, bool fastq) {
  out += fastq ? '@' : '>';
  out += r.name;
  if (!r.comment.empty()) {
    out += ' ';
    out += r.comment;
  }
  out += '\n';
  out += r.seq;
  out += '\n';
  if (fastq) {
    out += "+\n";
    out += r.qual;
    out += '\n';
  }
}

// All filters of all containers, checked to share the k-mer size, seed and k-mer convention.
FilterSet load_filters(const std::vector<std::string>& paths, int requested_w) {
  FilterSet all;
  std::set<std::string> names;
  for (size_t i = 0; i < paths.size(); ++i) {
    FilterSet s = read_filter_file(paths[i]);
    if (!s.canonical)
      throw DataError(paths[i] + ": filters hold non-canonical k-mers; facs classify needs canonical k-mers");
    if (requested_w && s.w != requested_w)
      throw UsageError(paths[i] + ": filters use k-mer size " + std::to_string(s.w) + " but this run asked for -w " +
                       std::to_string(requested_w) + "; rebuild the filters or drop -w");
    if (i == 0) {
      all.w = s.w;
      all.seed = s.seed;
      all.canonical = s.canonical;
    } else if (s.w != all.w || s.seed != all.seed) {
      throw UsageError(paths[i] + ": filters use k-mer size " + std::to_string(s.w) + " and seed " +
                       std::to_string(s.seed) + ", unlike " + paths[0] + " (k-mer size " + std::to_string(all.w) +
                       ", seed " + std::to_string(all.seed) + "); filters classified together must match");
    }
    for (FilterEntry& f : s.filters) {
      if (!names.insert(f.name).second)
        throw UsageError(paths[i] + ": a filter named '" + f.name + "' was already loaded; names must be unique");
      all.filters.push_back(std::move(f));
    }
  }
  return all;
}

struct Slot {
  std::vector<SequenceRecord> mates1, mates2;
  std::vector<std::string_view> v1, v2;
  BatchScores scores;
  Classifier::Workspace ws;
  std::string tsv;
  std::vector<std::string> split;  // per split output: filters..., multiMatch, unmatched
};

}  // namespace

int facs_classify(int argc, char** argv, const std::string& command_line) {
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
      ("s,threshold", "minimum score to match (default 0.55 for facs: fraction of bases covered; 0.15 for biobloom)",
       cxxopts::value<double>())
      ("pair-mode", "paired reads match a filter if both mates do, or either", cxxopts::value<std::string>()->default_value("both"))
      ("t,threads", "worker threads (reading and writing included)", cxxopts::value<int>()->default_value("1"))
      ("backend", "where k-mers are looked up: auto (CUDA if compiled in and a device answers), cpu or cuda",
       cxxopts::value<std::string>()->default_value("cpu"))
      ("device", "CUDA device number", cxxopts::value<int>()->default_value("0"))
      ("matched-out", "write reads called to each filter to PREFIX<filter>.fq (or .fa); ties to PREFIX"
                      "multiMatch.fq; a PREFIX ending in .gz writes gzip", cxxopts::value<std::string>())
      ("unmatched-out", "write reads that matched no filter to FILE (gzip if FILE ends in .gz)",
       cxxopts::value<std::string>())
      ("w,kmer", "refuse filters whose k-mer size differs from this", cxxopts::value<int>()->default_value("0"))
      ("progress", "show progress on stderr even if it is not a terminal")
      ("no-progress", "never show progress")
      ("batch-bases", "bases per batch handed to a thread", cxxopts::value<uint64_t>()->default_value("2000000"))
      ("group", "reads scored together to overlap memory latency (tuning)",
       cxxopts::value<int>()->default_value(std::to_string(ClassifyParams{}.group_reads)))
      ("h,help", "this help")
      ("inputs", "READS then filter files", cxxopts::value<std::vector<std::string>>());
  o.parse_positional({"inputs"});
  cxxopts::ParseResult r;
  try {
    r = o.parse(argc, argv);
  } catch (const cxxopts::exceptions::exception& e) {
    throw UsageError(std::string("classify: ") + e.what());
  }
  if (r.count("help")) {
    std::fputs(o.help().c_str(), stdout);
    std::fputs(
        "\nExamples:\n"
        "  facs classify reads.fq.gz refs.bf -o calls.tsv --summary summary.tsv --json run.json -t 2\n"
        "  facs classify r1.fq.gz --mate r2.fq.gz --pair-mode either refs.bf\n"
        "  facs classify reads.fq refs.bf --matched-out sorted/ --unmatched-out novel.fq.gz\n"
        "  zcat reads.fq.gz | facs classify - refs.bf --score biobloom -s 0.15\n"
        "\nCalls: a filter name; 'tie' when several filters share the best score; 'novel' when none reaches the\n"
        "threshold; 'unscored' when the read has no complete k-mer (shorter than k or N everywhere).\n",
        stdout);
    return 0;
  }
  if (!r.count("inputs")) throw UsageError("classify: give READS and at least one .bf filter file");
  const auto inputs = r["inputs"].as<std::vector<std::string>>();
  if (inputs.size() < 2) throw UsageError("classify: give READS and at least one .bf filter file");
  const std::string reads_path = inputs[0];
  const std::vector<std::string> bf_paths(inputs.begin() + 1, inputs.end());
  const bool paired = r.count("mate") > 0;

  ClassifyParams cp;
  const std::string score = r["score"].as<std::string>();
  if (score == "facs") cp.score = ScoreKind::facs;
  else if (score == "biobloom") cp.score = ScoreKind::biobloom;
  else throw UsageError("classify: --score must be facs or biobloom, got '" + score + "'");
  cp.threshold = r.count("threshold") ? r["threshold"].as<double>()
                                      : (cp.score == ScoreKind::facs ? kFacsDefaultThreshold : kBioBloomDefaultThreshold);
  const std::string pm = r["pair-mode"].as<std::string>();
  if (pm == "both") cp.pair_mode = PairMode::both;
  else if (pm == "either") cp.pair_mode = PairMode::either;
  else throw UsageError("classify: --pair-mode must be both or either, got '" + pm + "'");
  cp.threads = r["threads"].as<int>();
  if (cp.threads < 1 || cp.threads > 1024) throw UsageError("classify: -t must be 1..1024");
  cp.batch_bases = r["batch-bases"].as<uint64_t>();
  cp.group_reads = r["group"].as<int>();
  if (cp.group_reads < 1 || cp.group_reads > 4096) throw UsageError("classify: --group must be 1..4096");
  if (cp.batch_bases < 1) throw UsageError("classify: --batch-bases must be positive");
  const bool all_scores = r.count("scores") > 0;

  const auto t0 = std::chrono::steady_clock::now();
  const FilterSet set = load_filters(bf_paths, r["kmer"].as<int>());
  Classifier classifier(set, cp);
  const std::unique_ptr<Backend> backend =
      make_backend(r["backend"].as<std::string>(), r["device"].as<int>(), cp.threads,
                   r.count("no-progress") ? nullptr : &std::cerr);
  if (backend->name() != "cpu") classifier.use_backend(backend.get());
  std::vector<std::string> names;
  for (const FilterEntry& f : set.filters) names.push_back(f.name);
  const size_t nf = names.size();
  const auto t_loaded = std::chrono::steady_clock::now();

  // Open everything before the long part so that a bad path fails fast; outputs appear only on success.
  SequenceReader reader1(reads_path);
  std::unique_ptr<SequenceReader> reader2;
  if (paired) reader2 = std::make_unique<SequenceReader>(r["mate"].as<std::string>());
  OutputFile tsv_out, summary_out(r["summary"].as<std::string>()), json_out, unmatched_out;
  if (r.count("output")) {
    tsv_out = OutputFile(r["output"].as<std::string>());
    tsv_out.write("# " + command_line + "\n");
    tsv_out.write(read_tsv_header(names, all_scores));
  }
  if (r.count("json")) json_out = OutputFile(r["json"].as<std::string>());
  const bool split_matched = r.count("matched-out") > 0;
  const bool split_unmatched = r.count("unmatched-out") > 0;
  if (split_unmatched) unmatched_out = OutputFile(r["unmatched-out"].as<std::string>());
  std::string prefix = split_matched ? r["matched-out"].as<std::string>() : "";
  const bool prefix_gz = ends_with(prefix, ".gz");
  if (prefix_gz) prefix.resize(prefix.size() - 3);
  std::vector<OutputFile> matched_out;  // opened at the first batch, when FASTA or FASTQ is known
  bool fastq = true;

  ClassifySummary summary(nf);
  Progress progress(r.count("no-progress") ? false : (r.count("progress") > 0 || stderr_is_tty()), "reads");
  const bool want_split = split_matched || split_unmatched;
  const bool want_tsv = tsv_out.is_open();
  uint64_t batches = 0;

  run_ordered_pipeline(
      cp.threads, [] { return Slot{}; },
      [&](Slot& s) {
        if (reader1.next_batch(s.mates1, cp.batch_bases) == 0) {
          if (paired) {
            SequenceRecord extra;
            if (reader2->next(extra))
              throw DataError(reader2->path() + ": record " + std::to_string(reader2->records_read()) +
                              " has no mate: " + reads_path + " ended first");
          }
          return false;
        }
        if (paired) {
          s.mates2.resize(s.mates1.size());
          for (size_t i = 0; i < s.mates1.size(); ++i) {
            if (!reader2->next(s.mates2[i]))
              throw DataError(reads_path + ": record " + std::to_string(reader1.records_read() - s.mates1.size() + i + 1) +
                              " ('" + s.mates1[i].name + "') has no mate: " + reader2->path() + " ended first");
            if (pair_base(s.mates1[i].name) != pair_base(s.mates2[i].name))
              throw DataError(reader2->path() + ": record " + std::to_string(reader2->records_read()) + " ('" +
                              s.mates2[i].name + "') is not the mate of '" + s.mates1[i].name + "' in " + reads_path);
          }
        }
        return true;
      },
      [&](Slot& s) {
        const size_t n = s.mates1.size();
        s.v1.resize(n);
        for (size_t i = 0; i < n; ++i) s.v1[i] = s.mates1[i].seq;
        if (paired) {
          s.v2.resize(n);
          for (size_t i = 0; i < n; ++i) s.v2[i] = s.mates2[i].seq;
          classifier.classify_pairs(s.v1.data(), s.v2.data(), n, s.scores, s.ws);
        } else {
          classifier.classify(s.v1.data(), n, s.scores, s.ws);
        }
        s.tsv.clear();
        if (want_tsv)
          for (size_t i = 0; i < n; ++i) append_read_tsv(s.tsv, s.mates1[i].name, s.scores, i, names, all_scores);
        if (want_split) {
          const bool fq = !s.mates1.empty() && !s.mates1[0].qual.empty();
          s.split.assign(nf + 2, std::string());
          for (size_t i = 0; i < n; ++i) {
            const int32_t c = s.scores.call[i];
            const size_t dest = c >= 0 ? size_t(c) : c == kCallTie ? nf : nf + 1;
            if (dest <= nf && !split_matched) continue;
            if (dest == nf + 1 && !split_unmatched) continue;
            append_record(s.split[dest], s.mates1[i], fq);
            if (paired) append_record(s.split[dest], s.mates2[i], fq);
          }
        }
      },
      [&](Slot& s) {
        summary.add(s.scores);
        if (want_tsv) tsv_out.write(s.tsv);
        if (want_split) {
          if (batches == 0) fastq = !s.mates1.empty() && !s.mates1[0].qual.empty();
          if (split_matched && matched_out.empty()) {
            const std::string ext = std::string(fastq ? ".fq" : ".fa") + (prefix_gz ? ".gz" : "");
            for (const std::string& nm : names) matched_out.emplace_back(prefix + nm + ext);
            matched_out.emplace_back(prefix + "multiMatch" + ext);
          }
          if (split_matched)
            for (size_t j = 0; j <= nf; ++j)
              if (!s.split[j].empty()) matched_out[j].write(s.split[j]);
          if (split_unmatched && !s.split[nf + 1].empty()) unmatched_out.write(s.split[nf + 1]);
        }
        ++batches;
        progress.update(summary.total);
      });
  progress.finish();
  const auto t_end = std::chrono::steady_clock::now();
  const double load_s = std::chrono::duration<double>(t_loaded - t0).count();
  const double run_s = std::chrono::duration<double>(t_end - t_loaded).count();
  const double rate = run_s > 0 ? double(summary.total) / run_s : 0.0;

  if (split_matched && matched_out.empty()) {  // no reads: still create the (empty) outputs
    const std::string ext = std::string(".fq") + (prefix_gz ? ".gz" : "");
    for (const std::string& nm : names) matched_out.emplace_back(prefix + nm + ext);
    matched_out.emplace_back(prefix + "multiMatch" + ext);
  }
  summary_out.write(summary.tsv(names));
  if (json_out.is_open()) {
    JsonWriter j;
    j.begin_object();
    j.value("program", "facs classify");
    j.value("version", BLOOMSEQ_VERSION);
    j.value("command_line", command_line);
    j.begin_object("parameters");
    j.value("reads", reads_path);
    if (paired) j.value("mates", r["mate"].as<std::string>());
    j.value("paired", paired);
    j.value("pair_mode", pair_mode_name(cp.pair_mode));
    j.value("score", score_kind_name(cp.score));
    j.value("threshold", cp.threshold);
    j.value("threads", cp.threads);
    j.value("batch_bases", cp.batch_bases);
    j.value("kmer_size", set.w);
    j.value("seed", set.seed);
    j.value("canonical", set.canonical);
    j.end_object();
    j.begin_array("filters");
    for (const FilterEntry& f : set.filters) {
      j.begin_object();
      j.value("name", f.name);
      j.value("source", f.source);
      j.value("kmers", f.elements);
      j.value("hashes", f.k);
      j.value("bits", f.bits.m_bits());
      j.value("predicted_fpr", predicted_fpr(f));
      j.end_object();
    }
    j.end_array();
    j.begin_object("results");
    j.value("total", summary.total);
    j.value("no_match", summary.no_match);
    j.value("multi_match", summary.multi_match);
    j.value("ties", summary.ties);
    j.value("unscored", summary.unscored);
    j.begin_object("called");
    for (size_t f = 0; f < nf; ++f) j.value(names[f], summary.best[f]);
    j.end_object();
    j.begin_object("hits");
    for (size_t f = 0; f < nf; ++f) j.value(names[f], summary.hits[f]);
    j.end_object();
    j.value("lookups_per_read", summary.total ? double(summary.lookups) / double(summary.total) : 0.0);
    j.value("load_seconds", load_s);
    j.value("seconds", run_s);
    j.value("reads_per_second", rate);
    j.end_object();
    j.end_object();
    json_out.write(j.str() + "\n");
  }
  // Commit last, all together, so that a failure above leaves no partial set of outputs.
  if (tsv_out.is_open()) tsv_out.commit();
  for (OutputFile& f : matched_out) f.commit();
  if (unmatched_out.is_open()) unmatched_out.commit();
  if (json_out.is_open()) json_out.commit();
  summary_out.commit();
  std::fprintf(stderr, "facs classify: %llu %s in %.2f s (%.0f/s, %d thread%s), %llu matched, %llu no match\n",
               (unsigned long long)summary.total, paired ? "pairs" : "reads", run_s, rate, cp.threads,
               cp.threads == 1 ? "" : "s", (unsigned long long)(summary.total - summary.no_match),
               (unsigned long long)summary.no_match);
  return 0;
}

}  // namespace bloomseq
