#include "bloomseq/facs/auto_tune.hpp"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string_view>

#include "bloomseq/facs/classifier.hpp"
#include "bloomseq/io/sequence_reader.hpp"

#include "bloomseq/model/cost_model.hpp"
#include "bloomseq/model/launch_config.hpp"

namespace bloomseq {
namespace {
std::string number(double x) {
  std::ostringstream o;
  o << x;
  return o.str();
}
}  // namespace

FacsAutoTune load_auto_tune(const FacsAutoTuneOptions& o, const std::string& cmd, std::FILE* log) {
  FacsAutoTune t;
  t.on = o.on;
  if (!t.on) return t;
  t.min_fpr = o.min_fpr;
  t.target_fpr = o.target_fpr;
  t.target_throughput = o.target_throughput;
  t.read_len = o.read_len;
  t.profile = model::load_profile(o.profile);
  if (log) std::fprintf(log, "%s: %s\n", cmd.c_str(), t.profile.message.c_str());
  return t;
}

FacsRunPrediction predict_facs_run(const std::vector<const FilterEntry*>& filters, int w, uint64_t reads,
                                   uint64_t read_len, int threads, const FacsAutoTune& t) {
  FacsRunPrediction p;
  p.threads = threads;
  const auto& dev = t.profile.device;
  const auto& cal = t.profile.calibration;
  for (const FilterEntry* f : filters) {
    model::FacsConfig c;
    c.reads = reads;
    c.read_len = read_len;
    c.w = w;
    c.k = f->k;
    c.m_bits = f->bits.m_bits() ? f->bits.m_bits() : f->m_bits;  // a bin of an interleaved set has no own bits
    c.threads = threads;
    if (dev.kind == model::DeviceKind::Gpu) c.launch = model::facs_launch_config(dev, reads, c.m_bits);
    const model::FacsPrediction fp = model::predict_facs(c, f->elements, dev, cal);
    p.filters.push_back({f->name, f->elements, c.m_bits, c.k, fp.fpr_per_kmer, fp.time_s});
    p.seconds += fp.time_s;  // one pass over the reads, every filter probed: the per-filter times add up
    p.max_fpr = std::max(p.max_fpr, fp.fpr_per_kmer);
  }
  p.reads_per_s = p.seconds > 0 ? double(reads) / p.seconds : 0.0;
  return p;
}

FacsSample time_facs_sample(const Classifier& classifier, const std::string& reads_path, uint64_t max_bases) {
  FacsSample s;
  std::error_code ec;
  if (reads_path == "-" || !std::filesystem::is_regular_file(reads_path, ec)) {
    s.why_not = "the reads are not a regular file (reading a sample would consume them)";
    return s;
  }
  // Reading the sample is timed too: cutting and parsing (and inflating, on this thread) are part of the run's work
  // per read. They are done as the run does them (next_chunk, then parse into records whose strings are reused),
  // and the first piece warms up the reader, the records' strings, the code, the workspace and the filters' pages,
  // untimed. Reading the whole sample at once into fresh records (a string allocated per read) and timing its share
  // under-predicted a cheap classification (one 2-Mbase filter, 1 M reads) 0.54-0.74x.
  auto seconds_since = [](std::chrono::steady_clock::time_point a) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count();
  };
  SequenceReader reader(reads_path, false);
  SequenceChunk chunk;
  std::vector<SequenceRecord> warm_records, records;
  auto views_of = [](const std::vector<SequenceRecord>& rs) {
    std::vector<std::string_view> v;
    for (const SequenceRecord& r : rs) v.emplace_back(r.seq);
    return v;
  };
  Classifier::Workspace ws;
  BatchScores out;
  // Pieces of a quarter of a 1.2-Mbase sample; the first warms up, the next are timed until they took 30 ms or
  // `max_bases` were read (a 1.2-Mbase sample of a fast classification was timed in ~7 ms: 0.59-0.86x).
  const uint64_t piece = std::max<uint64_t>(std::min<uint64_t>(max_bases, 1200000) / 4, 1);
  constexpr double kTimedEnough = 0.03;
  const auto t_warm = std::chrono::steady_clock::now();
  if (!reader.next_chunk(chunk, piece)) {
    s.why_not = "no reads";
    return s;
  }
  chunk.parse(warm_records);
  const double warm_read_s = seconds_since(t_warm);
  std::vector<std::string_view> warm = views_of(warm_records);
  // The second piece is read before the first is classified, to know whether there is one.
  auto t_read = std::chrono::steady_clock::now();
  bool more = reader.next_chunk(chunk, piece);
  if (more) chunk.parse(records);
  double read_s = seconds_since(t_read);
  if (!more) {
    // A small input, all in the first piece: its first quarter warms up, the rest is timed with its share of the
    // reading (start-up included).
    records.swap(warm_records);
    const std::vector<std::string_view> all = views_of(records);
    const size_t n_warm = all.size() / 4;
    warm.assign(all.begin(), all.begin() + long(n_warm));
    read_s = warm_read_s * double(all.size() - n_warm) / double(all.size());
  }
  // Timing a second pass over the same reads instead found the very filter lines the first pass had brought in:
  // up to 1.5x the rate.
  if (!warm.empty()) classifier.classify(warm.data(), warm.size(), out, ws);
  uint64_t bases = 2 * piece, lookups = 0;
  for (;;) {
    std::vector<std::string_view> views = views_of(records);
    if (!more) views.erase(views.begin(), views.begin() + long(warm.size()));
    const auto t0 = std::chrono::steady_clock::now();
    classifier.classify(views.data(), views.size(), out, ws);
    s.seconds += seconds_since(t0) + read_s;
    s.reads += views.size();
    lookups += out.lookups;
    if (!more || s.seconds >= kTimedEnough || bases >= max_bases) break;
    t_read = std::chrono::steady_clock::now();
    more = reader.next_chunk(chunk, piece);
    if (!more) break;
    chunk.parse(records);
    read_s = seconds_since(t_read);
    bases += piece;
  }
  out.lookups = lookups;
  s.lookups_per_read = double(out.lookups) / double(s.reads);
  s.per_thread_reads_per_s = s.seconds > 0 ? double(s.reads) / s.seconds : 0.0;
  s.taken = s.per_thread_reads_per_s > 0;
  if (!s.taken) s.why_not = "the sample took no measurable time";
  return s;
}

std::string describe_facs_sample(const FacsSample& s, int threads, int cores) {
  std::ostringstream o;
  o.precision(4);
  if (!s.taken) {
    o << "#   sample: not taken (" << s.why_not << ")\n";
    return o.str();
  }
  o << "#   sample: " << s.reads << " reads from the start of the input read and classified on one thread: "
    << s.per_thread_reads_per_s
    << " reads/s (" << s.lookups_per_read << " lookups per read); predicted for " << threads
    << " thread(s): " << s.reads_per_s(threads, cores) << " reads/s\n";
  return o.str();
}

std::string describe_facs_plan(const FacsRunPrediction& p, const FacsAutoTune& t, const std::string& what) {
  std::ostringstream o;
  o.precision(4);
  bool met = true;
  if (t.min_fpr) met = p.reads_per_s >= t.target_throughput;
  else if (t.target_fpr > 0) met = p.max_fpr <= t.target_fpr;
  o << "# plan (" << what << ", "
    << (t.min_fpr ? "throughput target " + number(t.target_throughput) + " reads/s"
                  : "FPR target " + (t.target_fpr > 0 ? number(t.target_fpr) : std::string("none")))
    << ") on " << t.profile.device.name << ": " << (met ? "target met" : "TARGET NOT MET") << "\n";
  for (const auto& f : p.filters)
    o << "#   " << f.name << ": kmers=" << f.kmers << " m=" << f.m_bits << " bits k=" << f.k
      << " predicted FPR/k-mer=" << f.fpr_per_kmer << "\n";
  o << "#   threads=" << p.threads << " predicted: " << p.reads_per_s << " reads/s (" << t.reads << " reads of "
    << t.read_len << " bases in " << p.seconds << " s); calibration: " << t.profile.calibration.source << "\n";
  return o.str();
}

void begin_facs_plan_json(JsonWriter& j, const FacsRunPrediction& p, const FacsAutoTune& t) {
  j.begin_object("auto_tune");
  j.value("objective", t.min_fpr ? "min-fpr" : "min-time");
  if (t.min_fpr) j.value("target_throughput", t.target_throughput);
  else if (t.target_fpr > 0) j.value("target_fpr", t.target_fpr);
  j.value("device", t.profile.device.name).value("calibration", t.profile.calibration.source);
  j.value("profile", t.profile.message);
  j.value("threads", p.threads);
  j.begin_array("filters");
  for (const auto& f : p.filters) {
    j.begin_object();
    j.value("name", f.name).value("kmers", f.kmers).value("bits", f.m_bits).value("hashes", f.k);
    j.value("predicted_fpr", f.fpr_per_kmer).value("predicted_seconds", f.seconds);
    j.end_object();
  }
  j.end_array();
}

}  // namespace bloomseq
