// facs classify: every read (or pair) against every filter in one pass over the reads.
#include "bloomseq/facs/classify_run.hpp"

#include <algorithm>
#include <chrono>
#include <exception>
#include <filesystem>
#include <functional>
#include <cstdio>
#include <iostream>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>

#include "bloomseq/app/tuning_profile.hpp"
#include "bloomseq/backend/backend.hpp"
#include "bloomseq/app/json_writer.hpp"
#include "bloomseq/app/progress.hpp"
#include "bloomseq/error.hpp"
#include "bloomseq/facs/classifier.hpp"
#include "bloomseq/facs/classify_json.hpp"
#include "bloomseq/facs/filter_builder.hpp"
#include "bloomseq/facs/ordered_pipeline.hpp"
#include "bloomseq/facs/part_file.hpp"
#include "bloomseq/facs/report.hpp"
#include "bloomseq/facs/shard_plan.hpp"
#include "bloomseq/facs/split_outputs.hpp"
#include "bloomseq/io/filter_file.hpp"
#include "bloomseq/io/output_file.hpp"
#include "bloomseq/io/output_folder.hpp"
#include "bloomseq/io/record_starts.hpp"
#include "bloomseq/io/sequence_reader.hpp"

namespace bloomseq {
namespace {

// At most this many bases of reads make the --auto-tune sample (auto_tune.hpp: pieces of 300 kbases until 30 ms were
// timed): ~32,000 reads of 150 bases for the fastest classifications, a single timed piece for slow ones.
constexpr uint64_t kFacsSampleBases = 4800000;

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The read name without a trailing /1 or /2, to check that mates belong together.
std::string_view pair_base(std::string_view name) {
  if (name.size() > 2 && name[name.size() - 2] == '/' && (name.back() == '1' || name.back() == '2'))
    name.remove_suffix(2);
  return name;
}

// Mates of one batch: as many as reads, each named as its read (less /1, /2). `first` records precede the batch.
void check_mates(const std::vector<SequenceRecord>& m1, const std::vector<SequenceRecord>& m2, uint64_t first,
                 const std::string& path1, const std::string& path2) {
  for (size_t i = 0; i < m1.size(); ++i) {
    const std::string record = std::to_string(first + i + 1);
    if (i == m2.size())
      throw DataError(path1 + ": record " + record + " ('" + m1[i].name + "') has no mate: " + path2 + " ended first");
    if (pair_base(m1[i].name) != pair_base(m2[i].name))
      throw DataError(path2 + ": record " + record + " ('" + m2[i].name + "') is not the mate of '" + m1[i].name +
                      "' in " + path1);
  }
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
FilterSet load_filters(const std::vector<std::string>& paths, int requested_w, FilterLoadMode mode, std::FILE* log) {
  FilterSet all;
  std::set<std::string> names;
  for (size_t i = 0; i < paths.size(); ++i) {
    FilterSet s = read_filter_file(paths[i], FilterLoading{mode, kMapVerifyLimit});
    if (!s.checksum_verified && log)
      std::fprintf(log, "facs classify: %s: mapped without verifying its checksum (over %llu MB; check it with facs "
                        "info --verify)\n",
                   paths[i].c_str(), (unsigned long long)(kMapVerifyLimit >> 20));
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
    // Interleaved groups move along; their member indices and the filters' group indices shift by what is loaded.
    const uint32_t filter_base = uint32_t(all.filters.size());
    const int32_t group_base = int32_t(all.groups.size());
    for (InterleavedGroup& g : s.groups) {
      for (uint32_t& m : g.members) m += filter_base;
      all.groups.push_back(std::move(g));
    }
    for (GroupRouter& gr : s.routers) {
      gr.first_group += uint32_t(group_base);
      all.routers.push_back(std::move(gr));
    }
    for (FilterEntry& f : s.filters) {
      if (!names.insert(f.name).second)
        throw UsageError(paths[i] + ": a filter named '" + f.name + "' was already loaded; names must be unique");
      if (f.group >= 0) f.group += group_base;
      all.filters.push_back(std::move(f));
    }
    if (all.interleaved() && std::any_of(all.filters.begin(), all.filters.end(), [](const FilterEntry& f) { return f.group < 0; }))
      throw UsageError(paths[i] + ": interleaved and separate filters cannot be classified in one run; classify them "
                       "in separate runs or build one interleaved set");
  }
  return all;
}

struct Slot {
  SequenceChunk chunk, chunk2;  // cut by the readers (mate 1, mate 2), parsed by the worker
  uint64_t first_record = 0;     // records before the chunk
  std::exception_ptr error;  // raised when the slot's turn to emit comes, so that errors keep input order
  std::vector<SequenceRecord> mates1, mates2;
  std::vector<std::string_view> v1, v2;
  BatchScores scores;
  Classifier::Workspace ws;
  std::string tsv;
  std::vector<std::string> split;  // [destination * streams + mate]: filters..., multiMatch, unmatched
  uint64_t bases = 0;
};

}  // namespace

uint64_t classify_batch_bases(const ClassifyParams& params, size_t filters) {
  constexpr size_t kFiltersPerFullBatch = 64;
  constexpr uint64_t kMinBatchBases = 65536;
  if (params.batch_bases_given || filters <= kFiltersPerFullBatch) return params.batch_bases;
  const uint64_t scaled = params.batch_bases / (filters / kFiltersPerFullBatch);
  return std::min(params.batch_bases, std::max(kMinBatchBases, scaled));
}

// One function: the readers, the three pipeline stages (read, classify, emit) and the outputs share the open files,
// the split destinations and the order in which errors surface; the stages are the lambdas below.
ClassifyReport run_classify(const ClassifyRequest& o, const FacsSinks& sinks) {
  std::FILE* const log = sinks.log;
  const std::string& command_line = o.command_line;
  const std::string& reads_path = o.reads;
  const std::vector<std::string>& bf_paths = o.filters;
  const bool paired = o.paired;
  ClassifyParams cp = o.params;
  const bool all_scores = o.scores;
  FacsAutoTune tune = load_auto_tune(o.tune, "classify", log);

  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::string> read_files{reads_path};
  if (paired) read_files.push_back(o.mate);
  const uint64_t read_bytes = estimated_read_bytes(read_files, o.sharded ? o.shard.count : 1);
  const uint64_t filter_bytes = filter_file_bytes(bf_paths), available = available_memory_bytes();
  FilterLoadMode load_mode = choose_filter_load(o.load, read_bytes, filter_bytes, available);
  // A copy is only worth its load where the mapping would go through 4-KiB pages: ask the kernel (it costs one
  // 2-MiB page of each file, which the run reads anyway).
  if (load_mode == FilterLoadMode::copy && o.load == FilterLoadChoice::automatic &&
      std::all_of(bf_paths.begin(), bf_paths.end(), [](const std::string& p) {
        return filter_file_bytes({p}) <= kAlwaysMapFilterBytes || maps_through_huge_pages(p);
      }))
    load_mode = choose_filter_load(o.load, read_bytes, filter_bytes, available, true);
  const FilterSet set = load_filters(bf_paths, o.requested_w, load_mode, log);
  std::vector<const FilterEntry*> filter_ptrs;
  for (const FilterEntry& f : set.filters) filter_ptrs.push_back(&f);
  const std::unique_ptr<Backend> backend =
      make_backend(o.backend, o.device, o.no_progress || !log ? nullptr : &std::cerr);
  FacsRunPrediction plan;
  if (tune.on) {
    // On a GPU backend the prediction is for that device (host threads stay as given).
    tune.profile = profile_for_backend(tune.profile, backend.get());
    const bool on_gpu = tune.profile.device.kind == model::DeviceKind::Gpu;
    if (on_gpu && log) std::fprintf(log, "classify: %s\n", tune.profile.message.c_str());
    const int cores = on_gpu ? cp.threads : std::max(1, tune.profile.device.parallel_units());
    auto predict = [&](int t) { return predict_facs_run(filter_ptrs, set.w, tune.reads, tune.read_len, t, tune); };
    if (o.threads_given || on_gpu) {
      plan = predict(cp.threads);
    } else {
      plan = predict(cores);
      if (tune.min_fpr)  // the fewest threads that reach the target (all cores when none does)
        for (int t = 1; t < cores; ++t) {
          FacsRunPrediction q = predict(t);
          if (q.reads_per_s >= tune.target_throughput) {
            plan = q;
            break;
          }
        }
      cp.threads = plan.threads;
    }
    if (log) std::fputs(describe_facs_plan(plan, tune, "facs classify").c_str(), log);
  }
  Classifier classifier(set, cp, backend.get());
  // The model's rate next to the classifier's own on the first reads (auto_tune.hpp: the model counts every k-mer
  // against every filter, the classifier far fewer). Single-end CPU runs on a regular file only.
  FacsSample sample;
  int sample_cores = 1;
  if (tune.on) {
    const bool on_gpu = tune.profile.device.kind == model::DeviceKind::Gpu;
    sample_cores = std::max(1, on_gpu ? cp.threads : tune.profile.device.parallel_units());
    if (paired) sample.why_not = "paired reads";
    else if (backend) sample.why_not = "a device backend";
    else if (o.sharded) sample.why_not = "a shard";
    else sample = time_facs_sample(classifier, reads_path, kFacsSampleBases);
    // With a throughput target and no -t, the sample's rate, not the model's, picks the fewest threads that reach it.
    if (sample.taken && tune.min_fpr && !o.threads_given) {
      int t = sample_cores;
      for (int k = 1; k < sample_cores; ++k)
        if (sample.reads_per_s(k, sample_cores) >= tune.target_throughput) {
          t = k;
          break;
        }
      if (t != cp.threads) {
        cp.threads = t;
        plan = predict_facs_run(filter_ptrs, set.w, tune.reads, tune.read_len, t, tune);
      }
    }
    if (log) std::fputs(describe_facs_sample(sample, cp.threads, sample_cores).c_str(), log);
  }
  std::vector<std::string> names;
  for (const FilterEntry& f : set.filters) names.push_back(f.name);
  const size_t nf = names.size();
  const auto t_loaded = std::chrono::steady_clock::now();

  if (!backend) cp.batch_bases = classify_batch_bases(cp, nf);  // a device takes a whole batch per launch
  ClassifyRunInfo info;
  info.version = BLOOMSEQ_VERSION;
  info.reads = reads_path;
  if (paired) info.mates = o.mate;
  info.paired = paired;
  info.pair_mode = pair_mode_name(cp.pair_mode);
  info.score = score_kind_name(cp.score);
  info.threshold = cp.threshold;
  info.has_error_rate = cp.score == ScoreKind::facs;
  info.error_rate = cp.error_rate;
  info.threads = cp.threads;
  info.batch_bases = cp.batch_bases;
  info.kmer_size = set.w;
  info.seed = set.seed;
  info.canonical = set.canonical;
  info.all_scores = all_scores;
  for (const FilterEntry& f : set.filters)
    info.filters.push_back({f.name, f.source, f.elements, f.k, f.m_bits, predicted_fpr(f)});

  // A shard finds its block (shard.hpp): by bytes, seeking; by records, counting them (cut, not parsed) and
  // skipping those before it. Split outputs of an empty shard take the input's format.
  const ShardSpec& shard = o.shard;
  RecordBlock block{0, UINT64_MAX};
  ByteBlock bytes;
  PartHeader part;
  PartBlock covered;  // what this shard read (the parts' block line)
  bool empty_fastq = true;
  bool to_input_end = true;  // this run reads to the input's end: the mate file must end there too
  if (o.sharded && (reads_path == "-" || (paired && o.mate == "-")))
    throw UsageError("classify: --shard reads its input by position: give a file, not stdin");
  // Open everything before the long part so that a bad path fails fast; outputs appear only on success.
  // A compressed input is inflated ahead on a thread of its own only where a core is left for it: beside as many
  // workers as cores, that thread took turns with them and 1 M gzip reads on 2 threads ran at 0.76x the plain
  // speed; inflated by the reading worker instead, 0.87x (docs/benchmarks.md, "gzip input"). With a core spare,
  // ahead is faster (one thread: 0.80 s against 0.91 s).
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  const int cores = online > 0 ? int(online) : 1;
  const bool ahead1 = cp.threads + 1 <= cores;
  SequenceReader reader1(reads_path, ahead1);
  std::unique_ptr<SequenceReader> reader2;
  if (paired) reader2 = std::make_unique<SequenceReader>(o.mate, cp.threads + (ahead1 ? 2 : 1) <= cores);
  if (o.sharded) {
    std::string note;
    if (!o.shard_plan.empty()) {
      // A plan holds byte offsets: only files entered at an offset can use one (no fallback: say so).
      std::string why = byte_cut_obstacle(reader1);
      if (why.empty() && paired) why = byte_cut_obstacle(*reader2);
      if (!why.empty())
        throw UsageError("classify: --shard-plan: " + why + ": a plan cannot seek into it; drop --shard-plan (the "
                         "shards then count records)");
    }
    part.scheme = choose_shard_scheme(o.shard_by, reader1, reader2.get(), note);
    if (!note.empty() && log) std::fprintf(log, "facs classify: %s\n", note.c_str());
    part.shard = shard.index;
    part.shards = shard.count;
    part.info = info;
    std::error_code ec;
    part.sizes = std::to_string(std::filesystem::file_size(reads_path, ec));
    if (paired) part.sizes += "," + std::to_string(std::filesystem::file_size(o.mate, ec));
  }
  if (o.sharded && part.scheme == ShardScheme::records) {
    SequenceReader counter(reads_path);
    const uint64_t total = count_records(counter, cp.batch_bases);
    if (total) empty_fastq = counter.is_fastq();
    block = shard_block(total, shard.index, shard.count);
    part.records = total;
    covered.first_record = block.begin;
    to_input_end = block.end == total;
    if (block.begin) {
      // The records before the block: cut, not parsed or classified.
      if (skip_records(reader1, block.begin, cp.batch_bases) != block.begin)
        throw DataError(reads_path + ": ended before record " + std::to_string(block.begin + 1) +
                        " (the file changed since its records were counted?)");
      if (paired && skip_records(*reader2, block.begin, cp.batch_bases) != block.begin)
        throw DataError(o.mate + ": record " + std::to_string(reader2->records_read() + 1) +
                        " has no mate: " + o.mate + " ended first");
    }
  } else if (o.sharded) {
    const std::string_view text = reader1.mapped_text();
    size_t first_at = 0;
    const char format = text_format(text, first_at);
    bytes = shard_byte_block(text, format, shard.index, shard.count);
    empty_fastq = format == '@';
    to_input_end = bytes.end == text.size();
    covered.begin = bytes.begin;
    covered.end = bytes.end;
    reader1.stop_at(bytes.end);
    // With a plan (shard_plan.hpp) the counts before the block come from it: no pass over the files.
    const bool planned = !o.shard_plan.empty();
    PlannedShard start;
    if (planned) {
      const ShardPlan shard_plan = read_shard_plan(o.shard_plan);
      check_shard_plan(shard_plan, o.shard_plan, reads_path, text, paired ? o.mate : std::string(),
                       paired ? reader2->mapped_text() : std::string_view(), shard.count);
      start = shard_plan.starts[shard.index - 1];
      if (start.begin != bytes.begin)
        throw DataError(reads_path + ": shard " + std::to_string(shard.index) + "/" + std::to_string(shard.count) +
                        " starts at byte " + std::to_string(bytes.begin) + ", the plan " + o.shard_plan + " says " +
                        std::to_string(start.begin) + " (the file changed?): make the plan again");
    }
    if (paired) {
      // The mates of the block's first pair: the same record index in the mate file, both counted, not parsed.
      const RecordCount before = planned ? RecordCount{start.lines, start.records}
                                         : count_file_records_before(reads_path, bytes.begin, format);
      if (format == '@' && before.lines % 4)
        throw DataError(reads_path + ": line " + std::to_string(before.lines + 1) + ": the records before shard " +
                        std::to_string(shard.index) + "/" + std::to_string(shard.count) +
                        " are not four lines each (blank lines?): cut these pairs with --shard-by records");
      const std::string_view mates = reader2->mapped_text();
      const char mate_format = text_format(mates, first_at);
      RecordCount mate_before{start.mate_lines, before.records};
      const uint64_t mate_at = planned         ? start.mate_begin
                               : bytes.begin ? find_file_record(o.mate, before.records, mate_format, mate_before)
                                             : 0;
      if (mate_at < mates.size() &&
          (mate_format == '@' ? !single_line_fastq_at(mates, mate_at) : mates[mate_at] != '>'))
        throw DataError(o.mate + ": line " + std::to_string(mate_before.lines + 1) + ": record " +
                        std::to_string(before.records + 1) + " (the mate of " + reads_path + "'s) does not start " +
                        "there (not four lines a record?): cut these pairs with --shard-by records");
      reader1.seek(bytes.begin, before.lines, before.records);
      reader2->seek(mate_at, mate_before.lines, before.records);
      covered.first_record = before.records;
      covered.mate_begin = mate_at;
    } else {
      // Records numbered from the block's start (or the plan's counts): on a DataError without a plan they are
      // counted (reread_block_for_error).
      reader1.seek(bytes.begin, start.lines, start.records);
    }
  }
  auto part_text = [&](PartKind k) {
    PartHeader h = part;
    h.kind = k;
    return part_header_text(h);
  };

  OutputFile tsv_out, summary_out(o.summary), json_out;
  if (o.output) {
    tsv_out = OutputFile(o.output_path);
    if (o.sharded) {
      tsv_out.write(part_text(PartKind::calls));
    } else {
      tsv_out.write("# " + command_line + "\n");
      tsv_out.write(read_tsv_header(names, all_scores));
    }
  }
  if (o.json) json_out = OutputFile(o.json_path);
  const bool split_matched = o.matched_out;
  const bool split_unmatched = o.unmatched_out;
  // Pairs: mate 1 and mate 2 in two files per destination (split_outputs.hpp), unless --interleaved.
  const size_t streams = paired && !o.interleaved ? 2 : 1;
  auto stream_paths = [&](const std::string& path) {
    std::vector<std::string> p;
    if (streams == 1) p.push_back(path);
    else for (int m = 1; m <= 2; ++m) p.push_back(mate_path(path, m));
    return p;
  };
  // Missing folders of the split outputs are created now (a bad path fails before the long part), removed again
  // if the run fails, and reported once it succeeded.
  std::vector<OutputFolder> folders;
  auto make_folder = [&](const std::string& path) { folders.emplace_back(path); };
  std::vector<OutputFile> unmatched_out;
  if (split_unmatched)
    for (const std::string& p : stream_paths(o.unmatched_path)) {
      make_folder(p);
      unmatched_out.emplace_back(p);
    }
  std::string prefix = split_matched ? o.matched_prefix : "";
  const bool prefix_gz = ends_with(prefix, ".gz");
  if (prefix_gz) prefix.resize(prefix.size() - 3);
  if (split_matched) make_folder(prefix);
  std::vector<OutputFile> matched_out;  // [destination * streams + mate], opened at the first batch (FASTA or FASTQ)
  auto open_matched = [&](bool fq) {
    const std::string ext = std::string(fq ? ".fq" : ".fa") + (prefix_gz ? ".gz" : "");
    std::vector<std::string> dests = names;
    dests.push_back("multiMatch");
    // The mate number goes where a '#' in PREFIX is, else before the extension (not into a filter's name).
    const bool hash = prefix.find('#') != std::string::npos;
    for (const std::string& d : dests) {
      if (streams == 1) matched_out.emplace_back(prefix + d + ext);
      else
        for (int m = 1; m <= 2; ++m)
          matched_out.emplace_back(hash ? mate_path(prefix, m) + d + ext : prefix + d + "_" + std::to_string(m) + ext);
    }
  };
  bool fastq = true;

  ClassifySummary summary(nf);
  Progress progress(o.no_progress ? false : (o.progress || stderr_is_tty()), "reads");
  const bool want_split = split_matched || split_unmatched;
  const bool want_tsv = tsv_out.is_open();
  uint64_t batches = 0;
  uint64_t total_bases = 0;
  bool input_failed = false;  // a read step failed: its error waits for its turn, no more input is read

  try {
  run_ordered_pipeline(
      cp.threads, [] { return Slot{}; },
      [&](Slot& s) {
        s.error = nullptr;
        // The workers parse the chunks (and check the mates); errors are raised in input order.
        if (input_failed) return false;
        try {
          // A shard stops at its block's end; the last block runs to the input's end (and checks the mates).
          const uint64_t left = block.end - reader1.records_read();
          if (block.end != UINT64_MAX && block.end != part.records && left == 0) return false;
          if (!reader1.next_chunk(s.chunk, cp.batch_bases, left > SIZE_MAX ? SIZE_MAX : size_t(left))) {
            if (paired && to_input_end && reader2->next_chunk(s.chunk2, 0, 1))
              throw DataError(reader2->path() + ": record " + std::to_string(reader2->records_read()) +
                              " has no mate: " + reads_path + " ended first");
            return false;
          }
          s.first_record = reader1.records_read() - s.chunk.records();
          // As many mates as reads (fewer only where the mate file ends: the worker reports it).
          if (paired) reader2->next_chunk(s.chunk2, UINT64_MAX, s.chunk.records());
        } catch (...) {
          s.error = std::current_exception();
          input_failed = true;
        }
        return true;
      },
      [&](Slot& s) {
        if (s.error) return;
        try {
          s.chunk.parse(s.mates1);
          if (paired) {
            s.chunk2.parse(s.mates2);
            check_mates(s.mates1, s.mates2, s.first_record, reads_path, reader2->path());
          }
        } catch (...) {
          s.error = std::current_exception();
          return;
        }
        const size_t n = s.mates1.size();
        s.bases = 0;
        for (size_t i = 0; i < n; ++i) s.bases += s.mates1[i].seq.size() + (paired ? s.mates2[i].seq.size() : 0);
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
          s.split.assign((nf + 2) * streams, std::string());
          for (size_t i = 0; i < n; ++i) {
            const int32_t c = s.scores.call[i];
            const size_t dest = c >= 0 ? size_t(c) : c == kCallTie ? nf : nf + 1;
            if (dest <= nf && !split_matched) continue;
            if (dest == nf + 1 && !split_unmatched) continue;
            append_record(s.split[dest * streams], s.mates1[i], fq);
            if (paired) append_record(s.split[dest * streams + streams - 1], s.mates2[i], fq);
          }
        }
      },
      [&](Slot& s) {
        if (s.error) std::rethrow_exception(s.error);
        summary.add(s.scores);
        total_bases += s.bases;
        if (want_tsv) tsv_out.write(s.tsv);
        if (want_split) {
          if (batches == 0) fastq = !s.mates1.empty() && !s.mates1[0].qual.empty();
          if (split_matched && matched_out.empty()) open_matched(fastq);
          if (split_matched)
            for (size_t j = 0; j < (nf + 1) * streams; ++j)
              if (!s.split[j].empty()) matched_out[j].write(s.split[j]);
          if (split_unmatched)
            for (size_t m = 0; m < streams; ++m)
              if (!s.split[(nf + 1) * streams + m].empty()) unmatched_out[m].write(s.split[(nf + 1) * streams + m]);
        }
        ++batches;
        progress.update(summary.total);
      });
  } catch (const DataError&) {
    if (part.scheme == ShardScheme::bytes && !paired && o.shard_plan.empty()) reread_block_for_error(reads_path, bytes);
    throw;
  }
  progress.finish();
  const auto t_end = std::chrono::steady_clock::now();
  const double load_s = std::chrono::duration<double>(t_loaded - t0).count();
  const double run_s = std::chrono::duration<double>(t_end - t_loaded).count();
  const double rate = run_s > 0 ? double(summary.total) / run_s : 0.0;

  if (o.sharded && part.scheme == ShardScheme::records && reader1.records_read() != block.end)
    throw DataError(reads_path + ": " + std::to_string(reader1.records_read()) + " records where " +
                    std::to_string(block.end) + " were counted (the file changed while the shard ran?)");
  // No reads: still create the (empty) outputs.
  if (split_matched && matched_out.empty()) open_matched(empty_fastq);
  if (o.sharded) {
    PartCounters c;
    c.summary = summary;
    c.bases = total_bases;
    c.load_seconds = load_s;
    c.seconds = run_s;
    if (paired && part.scheme == ShardScheme::bytes) {
      uint64_t line = 0;
      reader2->tell(covered.mate_end, line);
    }
    const std::string counters = part_block_text(covered) + part_counters_text(c) + kPartEnd;
    if (tsv_out.is_open()) tsv_out.write(counters);
    summary_out.write(part_text(PartKind::summary) + counters);
    if (json_out.is_open()) json_out.write(part_text(PartKind::json) + counters);
  } else {
    summary_out.write(summary.tsv(names));
  }
  if (json_out.is_open() && !o.sharded) {
    std::function<void(JsonWriter&)> extra;
    if (tune.on)
      extra = [&](JsonWriter& j) {
        // The prediction again for this run's reads and mean length, next to the measured rate.
        const uint64_t mean_len = summary.total ? std::max<uint64_t>(1, total_bases / summary.total) : tune.read_len;
        const FacsRunPrediction actual =
            predict_facs_run(filter_ptrs, set.w, std::max<uint64_t>(summary.total, 1), mean_len, cp.threads, tune);
        begin_facs_plan_json(j, plan, tune);
        j.begin_object("predicted")
            .value("reads_per_second", actual.reads_per_s)
            .value("seconds", actual.seconds)
            .value("max_fpr", actual.max_fpr)
            .value("nominal_reads_per_second", plan.reads_per_s);
        if (sample.taken)
          j.value("sampled_reads_per_second", sample.reads_per_s(cp.threads, sample_cores))
              .value("sample_reads", sample.reads)
              .value("sample_lookups_per_read", sample.lookups_per_read);
        j.end_object();
        j.begin_object("measured")
            .value("reads_per_second", rate)
            .value("seconds", run_s)
            .value("reads", summary.total)
            .value("mean_read_length", mean_len)
            .end_object();
        j.end_object();
      };
    json_out.write(classify_json(info, command_line, summary, load_s, run_s, extra));
  }
  // Commit last, all together, so that a failure above leaves no partial set of outputs.
  if (tsv_out.is_open()) tsv_out.commit();
  for (OutputFile& f : matched_out) f.commit();
  for (OutputFile& f : unmatched_out) f.commit();
  for (OutputFolder& f : folders) {
    if (log)
      for (const std::string& d : f.created()) std::fprintf(log, "facs classify: created folder %s/\n", d.c_str());
    f.keep();
  }
  if (json_out.is_open()) json_out.commit();
  summary_out.commit();
  if (log)
    std::fprintf(log, "facs classify: %llu %s in %.2f s (%.0f/s, %d thread%s), %llu matched, %llu no match\n",
               (unsigned long long)summary.total, paired ? "pairs" : "reads", run_s, rate, cp.threads,
               cp.threads == 1 ? "" : "s", (unsigned long long)(summary.total - summary.no_match),
               (unsigned long long)summary.no_match);
  ClassifyReport report;
  report.filter_names = names;
  report.summary = summary;
  report.bases = total_bases;
  report.threads = cp.threads;
  report.backend = backend ? backend->name() : "cpu";
  report.load_seconds = load_s;
  report.seconds = run_s;
  return report;
}

}  // namespace bloomseq
