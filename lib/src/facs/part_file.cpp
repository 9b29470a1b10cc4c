// Part files of sharded classify runs (part_file.hpp).
#include "bloomseq/facs/part_file.hpp"

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace bloomseq {
namespace {

const char* const kMagic = "#bloomseq-facs-part";
const char* const kCounters = "#bloomseq-facs-counters";
const char* const kBlock = "#bloomseq-facs-block";

std::string escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '\\') o += "\\\\";
    else if (c == '\t') o += "\\t";
    else if (c == '\n') o += "\\n";
    else if (c == '\r') o += "\\r";
    else o += c;
  }
  return o;
}

std::string unescape(const std::string& s) {
  std::string o;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) {
      const char c = s[++i];
      o += c == 't' ? '\t' : c == 'n' ? '\n' : c == 'r' ? '\r' : c;
    } else {
      o += s[i];
    }
  }
  return o;
}

std::string dbl(double v) {
  char b[40];
  std::snprintf(b, sizeof b, "%.17g", v);
  return b;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> f;
  size_t a = 0;
  for (;;) {
    const size_t b = s.find(sep, a);
    f.push_back(s.substr(a, b == std::string::npos ? std::string::npos : b - a));
    if (b == std::string::npos) return f;
    a = b + 1;
  }
}

[[noreturn]] void bad(const std::string& path, const std::string& what) {
  throw DataError(path + ": not a valid facs part file (" + what + ")");
}

uint64_t to_u64(const std::string& path, const std::string& s) {
  if (s.empty() || s.size() > 20 || s.find_first_not_of("0123456789") != std::string::npos)
    bad(path, "bad number '" + s + "'");
  errno = 0;
  const uint64_t v = std::strtoull(s.c_str(), nullptr, 10);
  if (errno) bad(path, "bad number '" + s + "'");
  return v;
}

double to_double(const std::string& path, const std::string& s) {
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || *end) bad(path, "bad number '" + s + "'");
  return v;
}

bool to_bool(const std::string& path, const std::string& s) {
  if (s == "1") return true;
  if (s == "0") return false;
  bad(path, "bad flag '" + s + "'");
}

// The lines the fingerprint covers: everything but the first line and threads.
std::string identity_text(const PartHeader& h, bool with_threads) {
  const ClassifyRunInfo& i = h.info;
  std::string t;
  auto info = [&](const char* k, const std::string& v) { t += std::string("#info\t") + k + "\t" + escape(v) + "\n"; };
  info("version", i.version);
  info("reads", i.reads);
  info("mates", i.mates);
  info("paired", i.paired ? "1" : "0");
  info("pair_mode", i.pair_mode);
  info("score", i.score);
  info("threshold", dbl(i.threshold));
  info("has_error_rate", i.has_error_rate ? "1" : "0");
  info("error_rate", dbl(i.error_rate));
  if (with_threads) info("threads", std::to_string(i.threads));
  info("batch_bases", std::to_string(i.batch_bases));
  info("kmer_size", std::to_string(i.kmer_size));
  info("seed", std::to_string(i.seed));
  info("canonical", i.canonical ? "1" : "0");
  info("all_scores", i.all_scores ? "1" : "0");
  for (const ClassifyRunInfo::Filter& f : i.filters)
    t += "#filter\t" + escape(f.name) + "\t" + escape(f.source) + "\t" + std::to_string(f.kmers) + "\t" +
         std::to_string(f.hashes) + "\t" + std::to_string(f.bits) + "\t" + dbl(f.predicted_fpr) + "\n";
  const bool bytes = h.scheme == ShardScheme::bytes;
  t += "#reads\t" + (bytes ? std::string("-") : std::to_string(h.records)) + "\t" + h.sizes + "\n";
  t += std::string("#cut\t") + shard_scheme_name(h.scheme) + "\n";
  return t;
}

std::string csv(const std::vector<uint64_t>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s;
}

}  // namespace

const char* const kPartEnd = "#bloomseq-facs-end\n";

const char* part_kind_name(PartKind k) {
  return k == PartKind::calls ? "calls" : k == PartKind::summary ? "summary" : "json";
}

uint64_t part_fingerprint(const PartHeader& h) {
  const std::string t = identity_text(h, false) + "shards=" + std::to_string(h.shards);
  uint64_t x = 1469598103934665603ull;  // FNV-1a
  for (unsigned char c : t) x = (x ^ c) * 1099511628211ull;
  return x;
}

std::string part_header_text(const PartHeader& h) {
  char fp[24];
  std::snprintf(fp, sizeof fp, "%016" PRIx64, part_fingerprint(h));
  return std::string(kMagic) + "\tformat=2\tkind=" + part_kind_name(h.kind) + "\tshard=" + std::to_string(h.shard) +
         "/" + std::to_string(h.shards) + "\tfingerprint=" + fp + "\n" + identity_text(h, true);
}

std::string part_counters_text(const PartCounters& c) {
  const ClassifySummary& s = c.summary;
  return std::string(kCounters) + "\t" + std::to_string(s.total) + "\t" + std::to_string(s.multi_match) + "\t" +
         std::to_string(s.no_match) + "\t" + std::to_string(s.ties) + "\t" + std::to_string(s.unscored) + "\t" +
         std::to_string(s.lookups) + "\t" + std::to_string(c.bases) + "\t" + dbl(c.load_seconds) + "\t" +
         dbl(c.seconds) + "\t" + csv(s.hits) + "\t" + csv(s.shared) + "\t" + csv(s.best) + "\n";
}

PartHeader parse_part_first_line(const std::string& path, const std::string& line) {
  const std::vector<std::string> f = split(line, '\t');
  if (f.size() != 5 || f[0] != kMagic) throw DataError(path + ": not a facs part file (no part header line)");
  if (f[1] != "format=2") bad(path, "unknown " + f[1] + " (a part of another bloomseq version?)");
  PartHeader h;
  if (f[2] == "kind=calls") h.kind = PartKind::calls;
  else if (f[2] == "kind=summary") h.kind = PartKind::summary;
  else if (f[2] == "kind=json") h.kind = PartKind::json;
  else bad(path, "unknown " + f[2]);
  const size_t slash = f[3].find('/');
  if (f[3].compare(0, 6, "shard=") != 0 || slash == std::string::npos) bad(path, "bad " + f[3]);
  h.shard = to_u64(path, f[3].substr(6, slash - 6));
  h.shards = to_u64(path, f[3].substr(slash + 1));
  if (h.shards < 1 || h.shard < 1 || h.shard > h.shards) bad(path, "bad " + f[3]);
  if (f[4].size() != 12 + 16 || f[4].compare(0, 12, "fingerprint=") != 0) bad(path, "bad fingerprint");
  char* end = nullptr;
  h.fingerprint = std::strtoull(f[4].c_str() + 12, &end, 16);
  if (*end) bad(path, "bad fingerprint");
  return h;
}

bool parse_part_header_line(const std::string& path, const std::string& line, PartHeader& h) {
  ClassifyRunInfo& i = h.info;
  const std::vector<std::string> f = split(line, '\t');
  if (f[0] == "#info") {
    if (f.size() != 3) bad(path, "bad #info line");
    const std::string& k = f[1];
    const std::string v = unescape(f[2]);
    if (k == "version") i.version = v;
    else if (k == "reads") i.reads = v;
    else if (k == "mates") i.mates = v;
    else if (k == "paired") i.paired = to_bool(path, v);
    else if (k == "pair_mode") i.pair_mode = v;
    else if (k == "score") i.score = v;
    else if (k == "threshold") i.threshold = to_double(path, v);
    else if (k == "has_error_rate") i.has_error_rate = to_bool(path, v);
    else if (k == "error_rate") i.error_rate = to_double(path, v);
    else if (k == "threads") i.threads = int(to_u64(path, v));
    else if (k == "batch_bases") i.batch_bases = to_u64(path, v);
    else if (k == "kmer_size") i.kmer_size = int(to_u64(path, v));
    else if (k == "seed") i.seed = to_u64(path, v);
    else if (k == "canonical") i.canonical = to_bool(path, v);
    else if (k == "all_scores") i.all_scores = to_bool(path, v);
    else bad(path, "unknown #info key '" + k + "'");
    return true;
  }
  if (f[0] == "#filter") {
    if (f.size() != 7) bad(path, "bad #filter line");
    ClassifyRunInfo::Filter x;
    x.name = unescape(f[1]);
    x.source = unescape(f[2]);
    x.kmers = to_u64(path, f[3]);
    x.hashes = int(to_u64(path, f[4]));
    x.bits = to_u64(path, f[5]);
    x.predicted_fpr = to_double(path, f[6]);
    i.filters.push_back(std::move(x));
    return true;
  }
  if (f[0] == "#reads") {
    if (f.size() != 3) bad(path, "bad #reads line");
    h.records = f[1] == "-" ? 0 : to_u64(path, f[1]);
    h.sizes = f[2];
    return true;
  }
  if (f[0] == "#cut") {
    if (f.size() != 2 || (f[1] != "bytes" && f[1] != "records")) bad(path, "bad #cut line");
    h.scheme = f[1] == "bytes" ? ShardScheme::bytes : ShardScheme::records;
    return true;
  }
  return false;
}

void finish_part_header(const std::string& path, PartHeader& h) {
  if (h.info.filters.empty()) bad(path, "no #filter line");
  if (part_fingerprint(h) != h.fingerprint) bad(path, "its fingerprint does not match its header");
}

std::string part_block_text(const PartBlock& b) {
  auto v = [](uint64_t x) { return x == PartBlock::kUnknown ? std::string("-") : std::to_string(x); };
  return std::string(kBlock) + "\t" + v(b.first_record) + "\t" + v(b.begin) + "\t" + v(b.end) + "\t" +
         v(b.mate_begin) + "\t" + v(b.mate_end) + "\n";
}

bool is_block_line(const std::string& line) {
  return line.size() > 21 && line.compare(0, 21, std::string(kBlock) + "\t") == 0;
}

PartBlock parse_part_block(const std::string& path, const std::string& line) {
  const std::vector<std::string> f = split(line, '\t');
  if (f.size() != 6 || f[0] != kBlock) bad(path, "bad block line");
  auto v = [&](const std::string& x) { return x == "-" ? PartBlock::kUnknown : to_u64(path, x); };
  PartBlock b;
  b.first_record = v(f[1]);
  b.begin = v(f[2]);
  b.end = v(f[3]);
  b.mate_begin = v(f[4]);
  b.mate_end = v(f[5]);
  return b;
}

bool is_counters_line(const std::string& line) {
  return line.size() > 24 && line.compare(0, 24, std::string(kCounters) + "\t") == 0;
}

PartCounters parse_part_counters(const std::string& path, const std::string& line, size_t filters) {
  const std::vector<std::string> f = split(line, '\t');
  if (f.size() != 13 || f[0] != kCounters) bad(path, "bad counters line");
  PartCounters c;
  ClassifySummary& s = c.summary;
  s = ClassifySummary(filters);
  s.total = to_u64(path, f[1]);
  s.multi_match = to_u64(path, f[2]);
  s.no_match = to_u64(path, f[3]);
  s.ties = to_u64(path, f[4]);
  s.unscored = to_u64(path, f[5]);
  s.lookups = to_u64(path, f[6]);
  c.bases = to_u64(path, f[7]);
  c.load_seconds = to_double(path, f[8]);
  c.seconds = to_double(path, f[9]);
  std::vector<uint64_t>* cols[3] = {&s.hits, &s.shared, &s.best};
  for (int k = 0; k < 3; ++k) {
    const std::vector<std::string> v = split(f[10 + k], ',');
    if (v.size() != filters) bad(path, "counters for " + std::to_string(v.size()) + " filters, header has " +
                                       std::to_string(filters));
    for (size_t j = 0; j < filters; ++j) (*cols[k])[j] = to_u64(path, v[j]);
  }
  return c;
}

}  // namespace bloomseq
