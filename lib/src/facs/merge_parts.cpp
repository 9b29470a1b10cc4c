// facs merge (merge_parts.hpp).
#include "bloomseq/facs/merge_parts.hpp"

#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <utility>

#include "bloomseq/error.hpp"
#include "bloomseq/facs/classify_json.hpp"
#include "bloomseq/facs/part_file.hpp"
#include "bloomseq/io/output_file.hpp"

namespace bloomseq {
namespace {

// Lines of a file, without their newline; a last line without newline counts as truncation.
class LineReader {
 public:
  explicit LineReader(const std::string& path) : path_(path), f_(std::fopen(path.c_str(), "rb")) {
    if (!f_) throw NoInputError(path + ": cannot open part file");
  }
  ~LineReader() {
    if (f_) std::fclose(f_);
    std::free(buf_);
  }
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;
  bool next(std::string& line) {
    const ssize_t n = ::getline(&buf_, &cap_, f_);
    if (n < 0) {
      if (std::ferror(f_)) throw IoError(path_ + ": read error");
      return false;
    }
    if (n == 0 || buf_[n - 1] != '\n') throw DataError(path_ + ": truncated part file (last line incomplete)");
    line.assign(buf_, size_t(n - 1));
    return true;
  }

 private:
  std::string path_;
  std::FILE* f_;
  char* buf_ = nullptr;
  size_t cap_ = 0;
};

struct Part {
  std::string path;
  PartHeader header;
};

PartHeader read_header(LineReader& in, const std::string& path, std::string& rest) {
  std::string first;
  if (!in.next(first)) throw DataError(path + ": not a facs part file (empty)");
  return parse_part_header(path, first, [&](std::string& l) { return in.next(l); }, rest);
}

// After the counters line: the end line, then nothing.
void expect_end(LineReader& in, const std::string& path) {
  std::string l;
  if (!in.next(l) || l + "\n" != kPartEnd) throw DataError(path + ": truncated part file (no end line)");
  if (in.next(l)) throw DataError(path + ": text after the end line of the part file");
}

void add(PartCounters& sum, const PartCounters& c) {
  ClassifySummary& s = sum.summary;
  const ClassifySummary& x = c.summary;
  s.total += x.total;
  s.multi_match += x.multi_match;
  s.no_match += x.no_match;
  s.ties += x.ties;
  s.unscored += x.unscored;
  s.lookups += x.lookups;
  for (size_t f = 0; f < s.hits.size(); ++f) {
    s.hits[f] += x.hits[f];
    s.shared[f] += x.shared[f];
    s.best[f] += x.best[f];
  }
  sum.bases += c.bases;
  sum.load_seconds += c.load_seconds;
  sum.seconds += c.seconds;
}

}  // namespace

void run_facs_merge(const FacsMergeRequest& o) {
  if (o.parts.empty()) throw UsageError("merge: give the part files of every shard");
  // Headers first: every check that can refuse the merge comes before any output is written.
  std::map<PartKind, std::map<uint64_t, Part>> kinds;
  const Part* first = nullptr;
  for (const std::string& path : o.parts) {
    LineReader in(path);
    std::string rest;
    Part p{path, read_header(in, path, rest)};
    if (first && (p.header.fingerprint != first->header.fingerprint || p.header.shards != first->header.shards))
      throw DataError(path + ": part of another run than " + first->path +
                      " (parameters, filters, input or shard count differ)");
    auto& byshard = kinds[p.header.kind];
    const auto it = byshard.find(p.header.shard);
    if (it != byshard.end())
      throw DataError(path + ": shard " + std::to_string(p.header.shard) + "/" + std::to_string(p.header.shards) +
                      " " + part_kind_name(p.header.kind) + " part given twice (also " + it->second.path + ")");
    const Part& stored = byshard.emplace(p.header.shard, std::move(p)).first->second;
    if (!first) first = &stored;
    // Small parts are checked whole now; calls parts when they are streamed.
    if (stored.header.kind != PartKind::calls) {
      if (!is_counters_line(rest)) throw DataError(path + ": not a valid facs part file (lines before counters)");
      parse_part_counters(path, rest, stored.header.info.filters.size());
      expect_end(in, path);
    }
  }
  const uint64_t n = first->header.shards;
  for (const auto& k : kinds)
    for (uint64_t i = 1; i <= n; ++i)
      if (!k.second.count(i))
        throw DataError(k.second.begin()->second.path + ": the " + part_kind_name(k.first) + " part of shard " +
                        std::to_string(i) + "/" + std::to_string(n) + " is missing from the merge");
  if (o.output && !kinds.count(PartKind::calls))
    throw UsageError("merge: -o needs the calls parts (the shards' -o files)");

  const ClassifyRunInfo& info = kinds.begin()->second.at(1).header.info;
  const std::vector<std::string> names = info.names();
  OutputFile tsv_out, summary_out(o.summary), json_out;
  if (o.output) {
    tsv_out = OutputFile(o.output_path);
    tsv_out.write("# " + o.command_line + "\n");
    tsv_out.write(read_tsv_header(names, info.all_scores));
  }
  if (o.json) json_out = OutputFile(o.json_path);

  PartCounters sum;
  sum.summary = ClassifySummary(names.size());
  // Counters from the calls parts when given (read through anyway), else from the summary or json parts.
  const auto& source = kinds.begin()->second;  // std::map: calls < summary < json
  const bool calls = kinds.begin()->first == PartKind::calls;
  std::string buf, line;
  for (const auto& sp : source) {
    const Part& p = sp.second;
    LineReader in(p.path);
    std::string rest;
    read_header(in, p.path, rest);
    uint64_t rows = 0;
    line = std::move(rest);
    while (!is_counters_line(line)) {
      if (!calls) throw DataError(p.path + ": not a valid facs part file (lines before counters)");
      ++rows;
      if (o.output) {
        buf += line;
        buf += '\n';
        if (buf.size() >= (1u << 20)) {
          tsv_out.write(buf);
          buf.clear();
        }
      }
      if (!in.next(line)) throw DataError(p.path + ": truncated part file (no counters line)");
    }
    const PartCounters c = parse_part_counters(p.path, line, names.size());
    expect_end(in, p.path);
    if (calls && rows != c.summary.total)
      throw DataError(p.path + ": " + std::to_string(rows) + " call lines but the counters say " +
                      std::to_string(c.summary.total));
    add(sum, c);
  }
  if (o.output) tsv_out.write(buf);
  if (sum.summary.total != first->header.records)
    throw DataError(first->path + ": the parts hold " + std::to_string(sum.summary.total) + " reads but the input had " +
                    std::to_string(first->header.records));

  summary_out.write(sum.summary.tsv(names));
  if (json_out.is_open()) json_out.write(classify_json(info, o.command_line, sum.summary, sum.load_seconds, sum.seconds));
  if (tsv_out.is_open()) tsv_out.commit();
  if (json_out.is_open()) json_out.commit();
  summary_out.commit();
}

}  // namespace bloomseq
