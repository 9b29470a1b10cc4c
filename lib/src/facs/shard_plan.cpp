// Making, writing, reading and checking shard plans (shard_plan.hpp).
#include "bloomseq/facs/shard_plan.hpp"

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "bloomseq/error.hpp"
#include "bloomseq/facs/shard.hpp"
#include "bloomseq/io/output_file.hpp"
#include "bloomseq/io/record_starts.hpp"
#include "bloomseq/io/sequence_reader.hpp"

namespace bloomseq {
namespace {

const char* const kMagic = "#bloomseq-facs-shard-plan";

uint64_t fnv1a(uint64_t x, std::string_view bytes) {
  for (unsigned char c : bytes) x = (x ^ c) * 1099511628211ull;
  return x;
}
constexpr uint64_t kFnvStart = 1469598103934665603ull;

std::string hex64(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%016" PRIx64, v);
  return buf;
}

std::vector<uint64_t> reads_cuts(const ShardPlan& p) {
  std::vector<uint64_t> c;
  for (const PlannedShard& s : p.starts) c.push_back(s.begin);
  return c;
}
std::vector<uint64_t> mates_cuts(const ShardPlan& p) {
  std::vector<uint64_t> c;
  for (const PlannedShard& s : p.starts) c.push_back(s.mate_begin);
  return c;
}

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> f;
  size_t from = 0;
  for (;;) {
    const size_t tab = line.find('\t', from);
    f.push_back(line.substr(from, tab == std::string::npos ? std::string::npos : tab - from));
    if (tab == std::string::npos) return f;
    from = tab + 1;
  }
}

}  // namespace

uint64_t input_window_hash(std::string_view text, const std::vector<uint64_t>& cuts) {
  const uint64_t size = text.size();
  uint64_t x = fnv1a(kFnvStart, std::to_string(size));
  const auto window = [&](uint64_t at) {
    const uint64_t from = at > kPlanWindow ? at - kPlanWindow : 0;
    const uint64_t to = std::min(size, at + kPlanWindow);
    x = fnv1a(x, "|" + std::to_string(at) + ":");
    if (from < to) x = fnv1a(x, text.substr(size_t(from), size_t(to - from)));
  };
  window(0);
  for (const uint64_t c : cuts) window(std::min(c, size));
  window(size);
  return x;
}

ShardPlan make_shard_plan(const std::string& reads, const std::string& mates, uint64_t shards) {
  ShardPlan plan;
  plan.shards = shards;
  plan.paired = !mates.empty();
  SequenceReader r1(reads);
  std::string why = byte_cut_obstacle(r1);
  if (!why.empty()) throw UsageError("plan-shards: " + why + ": a plan needs files that shards can enter at a byte "
                                     "offset; run such shards without --shard-plan (they count records)");
  const std::string_view text = r1.mapped_text();
  size_t first = 0;
  const char format = text_format(text, first);
  std::vector<uint64_t> begins;
  for (uint64_t i = 1; i <= shards; ++i) begins.push_back(shard_byte_block(text, format, i, shards).begin);
  // The counts before every block in one pass over the reads file (the first block starts at byte 0).
  const std::vector<RecordCount> before = count_file_records_at(reads, begins, format);
  plan.starts.resize(shards);
  for (uint64_t i = 0; i < shards; ++i) {
    plan.starts[i].begin = begins[i];
    plan.starts[i].lines = before[i].lines;
    plan.starts[i].records = before[i].records;
  }
  plan.reads = {reads, text.size(), input_window_hash(text, begins)};
  if (plan.paired) {
    SequenceReader r2(mates);
    why = byte_cut_obstacle(r2);
    if (!why.empty()) throw UsageError("plan-shards: " + why + ": a plan needs files that shards can enter at a byte "
                                       "offset; run such shards without --shard-plan (they count records)");
    const std::string_view mate_text = r2.mapped_text();
    const char mate_format = text_format(mate_text, first);
    std::vector<uint64_t> ks;
    for (const PlannedShard& s : plan.starts) ks.push_back(s.records);
    std::vector<RecordCount> mate_before;
    const std::vector<uint64_t> at = find_file_records(mates, ks, mate_format, mate_before);
    for (uint64_t i = 0; i < shards; ++i) {
      // A block at byte 0 pairs with the mate file's byte 0, as a shard without a plan takes it.
      if (plan.starts[i].begin == 0) continue;
      plan.starts[i].mate_begin = at[i];
      plan.starts[i].mate_lines = mate_before[i].lines;
    }
    plan.mates = {mates, mate_text.size(), input_window_hash(mate_text, mates_cuts(plan))};
  }
  return plan;
}

std::string shard_plan_text(const ShardPlan& p) {
  std::string t = std::string(kMagic) + "\tformat=1\tversion=" BLOOMSEQ_VERSION "\tshards=" + std::to_string(p.shards) +
                  "\tpaired=" + (p.paired ? "1" : "0") + "\n";
  const auto input = [&](const char* role, const PlannedInput& in) {
    t += std::string("#input\t") + role + "\t" + std::to_string(in.size) + "\t" + hex64(in.hash) + "\t" + in.path + "\n";
  };
  input("reads", p.reads);
  if (p.paired) input("mates", p.mates);
  for (size_t i = 0; i < p.starts.size(); ++i) {
    const PlannedShard& s = p.starts[i];
    t += "#shard\t" + std::to_string(i + 1) + "\t" + std::to_string(s.begin) + "\t" + std::to_string(s.lines) + "\t" +
         std::to_string(s.records) + "\t" + std::to_string(s.mate_begin) + "\t" + std::to_string(s.mate_lines) + "\n";
  }
  t += "#end\t" + hex64(fnv1a(kFnvStart, t)) + "\n";
  return t;
}

void write_shard_plan(const std::string& path, const ShardPlan& plan) {
  OutputFile out(path);
  out.write(shard_plan_text(plan));
  out.commit();
}

ShardPlan parse_shard_plan(const std::string& path, const std::string& text) {
  size_t line_no = 0;
  const auto bad = [&](const std::string& why) {
    return DataError(path + ": line " + std::to_string(line_no) + ": not an intact facs shard plan (" + why + ")");
  };
  const auto number = [&](const std::string& s, int base = 10) {
    // Digits only (lower-case hex): one text per plan, so that the checksum covers every change.
    if (s.find_first_not_of(base == 16 ? "0123456789abcdef" : "0123456789") != std::string::npos)
      throw bad("bad number '" + s + "'");
    char* end = nullptr;
    errno = 0;
    const unsigned long long v = std::strtoull(s.c_str(), &end, base);
    if (s.empty() || s[0] == '-' || s[0] == '+' || s[0] == ' ' || errno || *end) throw bad("bad number '" + s + "'");
    return uint64_t(v);
  };
  ShardPlan p;
  size_t from = 0;
  bool ended = false, have_reads = false, have_mates = false;
  while (from < text.size()) {
    ++line_no;
    const size_t nl = text.find('\n', from);
    if (nl == std::string::npos) throw bad("no newline at the end: truncated");
    const std::string line = text.substr(from, nl - from);
    if (ended) throw bad("text after the end line");
    const std::vector<std::string> f = split_tabs(line);
    if (line_no == 1) {
      if (f.size() != 5 || f[0] != kMagic || f[1] != "format=1") throw bad("no plan header");
      if (f[2] != "version=" BLOOMSEQ_VERSION)
        throw DataError(path + ": plan made by facs " + f[2].substr(f[2].find('=') + 1) + ", this is " +
                        BLOOMSEQ_VERSION + " (make the plan again)");
      if (f[3].compare(0, 7, "shards=") != 0 || f[4].compare(0, 7, "paired=") != 0) throw bad("bad header");
      p.shards = number(f[3].substr(7));
      if (p.shards < 1 || p.shards > (uint64_t(1) << 24)) throw bad("bad shard count");
      if (f[4] != "paired=0" && f[4] != "paired=1") throw bad("bad header");
      p.paired = f[4] == "paired=1";
    } else if (f[0] == "#input") {
      if (f.size() != 5 || f[3].size() != 16) throw bad("bad input line");
      const bool reads = f[1] == "reads";
      if ((!reads && f[1] != "mates") || (reads ? have_reads : have_mates) || (!reads && !p.paired))
        throw bad("unexpected input line");
      (reads ? have_reads : have_mates) = true;
      PlannedInput& in = reads ? p.reads : p.mates;
      in.size = number(f[2]);
      in.hash = number(f[3], 16);
      in.path = f[4];
    } else if (f[0] == "#shard") {
      if (f.size() != 7 || number(f[1]) != p.starts.size() + 1 || p.starts.size() >= p.shards)
        throw bad("bad shard line");
      PlannedShard s{number(f[2]), number(f[3]), number(f[4]), number(f[5]), number(f[6])};
      if (!p.starts.empty()) {
        const PlannedShard& q = p.starts.back();
        if (s.begin < q.begin || s.records < q.records || s.lines < q.lines || s.mate_begin < q.mate_begin)
          throw bad("shards out of order");
      }
      if (s.begin > p.reads.size || (p.paired && s.mate_begin > p.mates.size)) throw bad("offset past the file's end");
      p.starts.push_back(s);
    } else if (f[0] == "#end") {
      if (f.size() != 2 || f[1].size() != 16 || number(f[1], 16) != fnv1a(kFnvStart, std::string_view(text).substr(0, from)))
        throw bad("checksum does not match: the plan was changed or damaged");
      ended = true;
    } else {
      throw bad("unknown line");
    }
    from = nl + 1;
  }
  if (!ended) throw bad("no end line: truncated");
  if (!have_reads || have_mates != p.paired || p.starts.size() != p.shards) throw bad("lines missing");
  return p;
}

ShardPlan read_shard_plan(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw NoInputError(path + ": cannot open the shard plan");
  std::ostringstream ss;
  ss << in.rdbuf();
  return parse_shard_plan(path, ss.str());
}

void check_shard_plan(const ShardPlan& plan, const std::string& plan_path, const std::string& reads,
                      std::string_view reads_text, const std::string& mates, std::string_view mates_text,
                      uint64_t shards) {
  if (plan.paired != !mates.empty())
    throw DataError(plan_path + ": a plan for " + (plan.paired ? "pairs (--mate)" : "single reads") +
                    ", this run classifies " + (plan.paired ? "single reads" : "pairs") +
                    ": make the plan for these inputs");
  if (plan.shards != shards)
    throw DataError(plan_path + ": a plan for " + std::to_string(plan.shards) + " shards, not " +
                    std::to_string(shards) + ": make the plan with -n " + std::to_string(shards));
  const auto check = [&](const PlannedInput& in, const std::string& path, std::string_view text,
                         const std::vector<uint64_t>& cuts) {
    if (text.size() != in.size)
      throw DataError(path + ": " + std::to_string(text.size()) + " bytes, but the plan " + plan_path +
                      " was made for " + in.path + " of " + std::to_string(in.size) +
                      " bytes (another file, or it changed): make the plan again");
    if (input_window_hash(text, cuts) != in.hash)
      throw DataError(path + ": differs from " + in.path + " near the cuts of the plan " + plan_path +
                      " (another file, or it changed): make the plan again");
  };
  check(plan.reads, reads, reads_text, reads_cuts(plan));
  if (plan.paired) check(plan.mates, mates, mates_text, mates_cuts(plan));
}

}  // namespace bloomseq
