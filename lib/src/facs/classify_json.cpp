// JSON report of facs classify (classify_json.hpp).
#include "bloomseq/facs/classify_json.hpp"

#include "bloomseq/app/json_writer.hpp"

namespace bloomseq {

std::vector<std::string> ClassifyRunInfo::names() const {
  std::vector<std::string> n;
  for (const Filter& f : filters) n.push_back(f.name);
  return n;
}

std::string classify_json(const ClassifyRunInfo& info, const std::string& command_line, const ClassifySummary& s,
                          double load_s, double run_s, const std::function<void(JsonWriter&)>& extra) {
  const std::vector<std::string> names = info.names();
  JsonWriter j;
  j.begin_object();
  j.value("program", "facs classify");
  j.value("version", info.version);
  j.value("command_line", command_line);
  j.begin_object("parameters");
  j.value("reads", info.reads);
  if (info.paired) j.value("mates", info.mates);
  j.value("paired", info.paired);
  j.value("pair_mode", info.pair_mode);
  j.value("score", info.score);
  j.value("threshold", info.threshold);  // 0: the error model's, per read length
  if (info.has_error_rate) j.value("error_rate", info.error_rate);
  j.value("threads", info.threads);
  j.value("batch_bases", info.batch_bases);
  j.value("kmer_size", info.kmer_size);
  j.value("seed", info.seed);
  j.value("canonical", info.canonical);
  j.end_object();
  j.begin_array("filters");
  for (const ClassifyRunInfo::Filter& f : info.filters) {
    j.begin_object();
    j.value("name", f.name);
    j.value("source", f.source);
    j.value("kmers", f.kmers);
    j.value("hashes", f.hashes);
    j.value("bits", f.bits);
    j.value("predicted_fpr", f.predicted_fpr);
    j.end_object();
  }
  j.end_array();
  j.begin_object("results");
  j.value("total", s.total);
  j.value("no_match", s.no_match);
  j.value("multi_match", s.multi_match);
  j.value("ties", s.ties);
  j.value("unscored", s.unscored);
  j.begin_object("called");
  for (size_t f = 0; f < names.size(); ++f) j.value(names[f], s.best[f]);
  j.end_object();
  j.begin_object("hits");
  for (size_t f = 0; f < names.size(); ++f) j.value(names[f], s.hits[f]);
  j.end_object();
  j.value("lookups_per_read", s.total ? double(s.lookups) / double(s.total) : 0.0);
  j.value("load_seconds", load_s);
  j.value("seconds", run_s);
  j.value("reads_per_second", run_s > 0 ? double(s.total) / run_s : 0.0);
  j.end_object();
  if (extra) extra(j);
  j.end_object();
  return j.str() + "\n";
}

}  // namespace bloomseq
