#include "bloomseq/facs/auto_tune.hpp"

#include <cstdio>
#include <sstream>

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
