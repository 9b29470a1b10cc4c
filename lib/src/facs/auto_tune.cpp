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
  // Reading the sample is timed too: parsing (and inflating, on this thread) is part of the run's work per read.
  const auto t_read = std::chrono::steady_clock::now();
  SequenceReader reader(reads_path, false);
  std::vector<SequenceRecord> records;
  reader.next_batch(records, max_bases);
  const double read_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_read).count();
  if (records.empty()) {
    s.why_not = "no reads";
    return s;
  }
  std::vector<std::string_view> views;
  for (const SequenceRecord& r : records) views.emplace_back(r.seq);
  // The first quarter warms the code, the workspace and the filters' pages; the rest is timed. Timing a second pass
  // over the same reads instead found the very filter lines the first pass had brought in: up to 1.5x the rate.
  const size_t warm = views.size() / 4;
  Classifier::Workspace ws;
  BatchScores out;
  if (warm > 0) classifier.classify(views.data(), warm, out, ws);
  const auto t0 = std::chrono::steady_clock::now();
  classifier.classify(views.data() + warm, views.size() - warm, out, ws);
  s.reads = views.size() - warm;
  s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() +
              read_s * double(s.reads) / double(views.size());
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
