// facs merge (merge_parts.hpp).
#include "bloomseq/facs/merge_parts.hpp"

#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <utility>

#include "bloomseq/error.hpp"
#include "bloomseq/facs/classify_json.hpp"
#include "bloomseq/facs/part_file.hpp"
#include "bloomseq/io/output_file.hpp"

namespace bloomseq {
namespace {

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

// One part file: the header (read line by line), the trailer (its last three lines, read from the file's end)
// and where the calls between them lie, so that they can be copied in large blocks.
struct Part {
  std::string path;
  PartHeader header;
  PartBlock block;
  PartCounters counters;
  uint64_t body_begin = 0, body_end = 0;  // bytes of the calls
};

File open_part(const std::string& path) {
  File f(std::fopen(path.c_str(), "rb"));
  if (!f) throw NoInputError(path + ": cannot open part file");
  return f;
}

// The header's lines; `line_start` is where the last line read began.
PartHeader read_header(std::FILE* f, const std::string& path, uint64_t& body_begin) {
  char* buf = nullptr;
  size_t cap = 0;
  uint64_t offset = 0, line_start = 0;
  auto next = [&](std::string& line) {
    const ssize_t n = ::getline(&buf, &cap, f);
    if (n < 0) {
      if (std::ferror(f)) throw IoError(path + ": read error");
      return false;
    }
    if (n == 0 || buf[n - 1] != '\n') throw DataError(path + ": truncated part file (last line incomplete)");
    line.assign(buf, size_t(n - 1));
    line_start = offset;
    offset += uint64_t(n);
    return true;
  };
  try {
    std::string first, rest;
    if (!next(first)) throw DataError(path + ": not a facs part file (empty)");
    PartHeader h = parse_part_header(path, first, next, rest);
    body_begin = line_start;  // `rest`, the first line after the header
    std::free(buf);
    return h;
  } catch (...) {
    std::free(buf);
    throw;
  }
}

// The trailer: block, counters and end lines, the last three of the file, found from its end.
void read_trailer(std::FILE* f, Part& p) {
  if (fseeko(f, 0, SEEK_END) != 0) throw IoError(p.path + ": cannot seek (not a regular file?)");
  const uint64_t size = uint64_t(ftello(f));
  std::string tail;
  for (uint64_t want = 1 << 16;; want *= 2) {
    const uint64_t from = size - std::min(want, size - p.body_begin);
    tail.resize(size - from);
    if (fseeko(f, off_t(from), SEEK_SET) != 0 || std::fread(&tail[0], 1, tail.size(), f) != tail.size())
      throw IoError(p.path + ": read error");
    if (tail.empty() || tail.back() != '\n') throw DataError(p.path + ": truncated part file (last line incomplete)");
    // Line starts of the last three lines: after the 4th-last newline, or at the body's start.
    size_t ends[4], found = 0;
    for (size_t i = tail.size(); i-- > 0 && found < 4;)
      if (tail[i] == '\n') ends[found++] = i;
    if (found < 4 && from > p.body_begin) continue;  // the lines reach back further: read more
    if (found < 3) throw DataError(p.path + ": truncated part file (no counters line)");
    const size_t b0 = found == 4 ? ends[3] + 1 : 0;
    const std::string block = tail.substr(b0, ends[2] - b0);
    const std::string counters = tail.substr(ends[2] + 1, ends[1] - ends[2] - 1);
    const std::string end = tail.substr(ends[1] + 1, ends[0] - ends[1] - 1);
    if (end + "\n" != kPartEnd) throw DataError(p.path + ": truncated part file (no end line)");
    if (!is_counters_line(counters)) throw DataError(p.path + ": truncated part file (no counters line)");
    if (!is_block_line(block)) throw DataError(p.path + ": not a valid facs part file (no block line)");
    p.block = parse_part_block(p.path, block);
    p.counters = parse_part_counters(p.path, counters, p.header.info.filters.size());
    p.body_end = from + b0;
    return;
  }
}

Part read_part(const std::string& path) {
  File f = open_part(path);
  Part p;
  p.path = path;
  p.header = read_header(f.get(), path, p.body_begin);
  read_trailer(f.get(), p);
  if (p.header.kind != PartKind::calls && p.body_end != p.body_begin)
    throw DataError(path + ": not a valid facs part file (lines between header and block line)");
  return p;
}

uint64_t size_of(const std::string& sizes, size_t file) {
  size_t at = 0;
  for (size_t i = 0; i < file; ++i) at = sizes.find(',', at) + 1;
  return std::strtoull(sizes.c_str() + at, nullptr, 10);
}

// The blocks of one kind's parts (shards 1..N, all present) must tile the input: by records, or by bytes of the
// reads (and mate) file, with record indices adding up where they are known.
void check_blocks(const std::map<uint64_t, Part>& parts) {
  const Part& one = parts.begin()->second;
  const uint64_t n = one.header.shards;
  auto refuse = [&](const Part& p, const std::string& what) {
    throw DataError(p.path + ": shard " + std::to_string(p.header.shard) + "/" + std::to_string(n) + " " + what +
                    " (parts of different runs, or the input changed between shards)");
  };
  if (one.header.scheme == ShardScheme::records) {
    uint64_t next = 0;
    for (const auto& sp : parts) {
      const Part& p = sp.second;
      const RecordBlock b = shard_block(p.header.records, p.header.shard, n);
      if (p.block.first_record != b.begin || p.counters.summary.total != b.end - b.begin)
        refuse(p, "holds " + std::to_string(p.counters.summary.total) + " records from record " +
                      std::to_string(p.block.first_record + 1) + ", not its block");
      next = b.end;
    }
    if (next != one.header.records) refuse(parts.rbegin()->second, "ends before the input does");
    return;
  }
  const bool paired = one.header.info.paired;
  uint64_t at = 0, mate_at = 0, record = 0;
  for (const auto& sp : parts) {
    const Part& p = sp.second;
    const PartBlock& b = p.block;
    if (b.begin != at || b.end < b.begin)
      refuse(p, "starts at byte " + std::to_string(b.begin) + " of the reads, where the previous shard ended at " +
                    std::to_string(at));
    at = b.end;
    if (paired) {
      if (b.mate_begin != mate_at || b.mate_end < b.mate_begin)
        refuse(p, "starts at byte " + std::to_string(b.mate_begin) + " of the mates, where the previous shard " +
                      "ended at " + std::to_string(mate_at));
      if (b.first_record != record)
        refuse(p, "starts at pair " + std::to_string(b.first_record + 1) + ", where the previous shard ended at " +
                      std::to_string(record));
      mate_at = b.mate_end;
      record += p.counters.summary.total;
    }
  }
  const Part& last = parts.rbegin()->second;
  if (at != size_of(last.header.sizes, 0) || (paired && mate_at != size_of(last.header.sizes, 1)))
    refuse(last, "ends before the end of the input");
}

// The calls of one part, copied in blocks; returns their lines.
uint64_t copy_calls(const Part& p, OutputFile* out, std::string& buf) {
  File f = open_part(p.path);
  if (fseeko(f.get(), off_t(p.body_begin), SEEK_SET) != 0) throw IoError(p.path + ": cannot seek");
  uint64_t left = p.body_end - p.body_begin, lines = 0;
  buf.resize(size_t(4) << 20);
  while (left) {
    const size_t n = size_t(std::min<uint64_t>(left, buf.size()));
    if (std::fread(&buf[0], 1, n, f.get()) != n) throw IoError(p.path + ": read error (changed during the merge?)");
    for (const char* s = buf.data(); (s = static_cast<const char*>(std::memchr(s, '\n', size_t(buf.data() + n - s))));
         ++s)
      ++lines;
    if (out) out->write(std::string_view(buf.data(), n));
    left -= n;
  }
  return lines;
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
  // Headers and trailers first: every check that can refuse the merge comes before any output is written.
  std::map<PartKind, std::map<uint64_t, Part>> kinds;
  const Part* first = nullptr;
  for (const std::string& path : o.parts) {
    Part p = read_part(path);
    if (first && p.header.scheme != first->header.scheme)
      throw DataError(path + ": input cut by " + shard_scheme_name(p.header.scheme) + ", but " + first->path +
                      "'s by " + shard_scheme_name(first->header.scheme) + " (--shard-by): parts of one run only");
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
  }
  const uint64_t n = first->header.shards;
  for (const auto& k : kinds)
    for (uint64_t i = 1; i <= n; ++i)
      if (!k.second.count(i))
        throw DataError(k.second.begin()->second.path + ": the " + part_kind_name(k.first) + " part of shard " +
                        std::to_string(i) + "/" + std::to_string(n) + " is missing from the merge");
  for (const auto& k : kinds) check_blocks(k.second);
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

  // Counters from the calls parts when given (their calls are counted against them), else from the summary or
  // json parts.
  PartCounters sum;
  sum.summary = ClassifySummary(names.size());
  const auto& source = kinds.begin()->second;  // std::map: calls < summary < json
  std::string buf;
  for (const auto& sp : source) {
    const Part& p = sp.second;
    if (p.header.kind == PartKind::calls) {
      const uint64_t rows = copy_calls(p, o.output ? &tsv_out : nullptr, buf);
      if (rows != p.counters.summary.total)
        throw DataError(p.path + ": " + std::to_string(rows) + " call lines but the counters say " +
                        std::to_string(p.counters.summary.total));
    }
    add(sum, p.counters);
  }

  summary_out.write(sum.summary.tsv(names));
  if (json_out.is_open()) json_out.write(classify_json(info, o.command_line, sum.summary, sum.load_seconds, sum.seconds));
  if (tsv_out.is_open()) tsv_out.commit();
  if (json_out.is_open()) json_out.commit();
  summary_out.commit();
}

}  // namespace bloomseq
