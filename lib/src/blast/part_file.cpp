#include "bloomseq/blast/part_file.hpp"

#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "bloomseq/blast/karlin.hpp"
#include "bloomseq/error.hpp"

namespace bloomseq {
namespace {

const char* const kMagic = "#bloomseq-blast-part 1";

std::string hex64(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%016" PRIx64, v);
  return buf;
}

std::vector<std::string> split_tabs(const std::string& s, size_t max_fields) {
  std::vector<std::string> f;
  size_t from = 0;
  while (f.size() + 1 < max_fields) {
    const size_t tab = s.find('\t', from);
    if (tab == std::string::npos) break;
    f.push_back(s.substr(from, tab - from));
    from = tab + 1;
  }
  f.push_back(s.substr(from));
  return f;
}

bool parse_u64(const char* s, const char* end, uint64_t& v) {
  if (s == end) return false;
  v = 0;
  for (; s < end; ++s) {
    if (*s < '0' || *s > '9' || v > (UINT64_MAX - 9) / 10) return false;
    v = v * 10 + uint64_t(*s - '0');
  }
  return true;
}

}  // namespace

std::string part_header_line(const PartHeader& h) {
  Fnv64 fp;
  fp.add(h.identity);
  return std::string(kMagic) + "\tfp=" + hex64(fp.value()) + "\tdb=" + std::to_string(h.db.index) + "/" +
         std::to_string(h.db.count) + "\tquery=" + std::to_string(h.query.index) + "/" +
         std::to_string(h.query.count) + "\theader=" + (h.header ? "1" : "0") + "\t" + h.identity + "\n";
}

PartHeader parse_part_header(const std::string& line, const std::string& path) {
  const std::vector<std::string> f = split_tabs(line, 6);
  if (f.size() != 6 || f[0] != kMagic)
    throw DataError(path + ": not a blast-bloom part file (made by --db-shard/--query-shard)");
  const auto bad = [&] { return DataError(path + ": corrupt part file header"); };
  PartHeader h;
  h.identity = f[5];
  Fnv64 fp;
  fp.add(h.identity);
  if (f[1] != "fp=" + hex64(fp.value())) throw bad();
  try {
    if (f[2].compare(0, 3, "db=") != 0 || f[3].compare(0, 6, "query=") != 0) throw bad();
    h.db = parse_shard(f[2].substr(3), "db");
    h.query = parse_shard(f[3].substr(6), "query");
  } catch (const UsageError&) {
    throw bad();
  }
  if (f[4] != "header=0" && f[4] != "header=1") throw bad();
  h.header = f[4] == "header=1";
  return h;
}

bool part_key_less(const PartKey& a, const PartKey& b) {
  if (a.query != b.query) return a.query < b.query;
  if (const int c = compare_evalues(a.evalue, b.evalue)) return c < 0;
  if (a.score != b.score) return a.score > b.score;
  return a.subject > b.subject;  // the order of BlastSearch::finish (blastn's: the later subject first)
}

std::string part_hsp_line(const PartKey& key, const std::string& tabular) {
  return std::to_string(key.query) + '\t' + std::to_string(key.subject) + '\t' + hex_double(key.evalue) + '\t' +
         std::to_string(key.score) + '\t' + tabular + '\n';
}

bool parse_part_hsp_line(const std::string& line, PartKey& key, size_t& tabular_at) {
  size_t tabs[4];
  size_t from = 0;
  for (size_t& t : tabs) {
    t = line.find('\t', from);
    if (t == std::string::npos) return false;
    from = t + 1;
  }
  const char* s = line.data();
  uint64_t q = 0, subj = 0;
  if (!parse_u64(s, s + tabs[0], q) || !parse_u64(s + tabs[0] + 1, s + tabs[1], subj) || q > UINT32_MAX ||
      subj > UINT32_MAX)
    return false;
  const std::string e = line.substr(tabs[1] + 1, tabs[2] - tabs[1] - 1);
  if (e.empty()) return false;
  char* end = nullptr;
  errno = 0;
  const double ev = std::strtod(e.c_str(), &end);
  if (end != e.c_str() + e.size() || std::isnan(ev)) return false;
  const std::string sc = line.substr(tabs[2] + 1, tabs[3] - tabs[2] - 1);
  const bool negative = !sc.empty() && sc[0] == '-';
  uint64_t mag = 0;
  if (!parse_u64(sc.data() + negative, sc.data() + sc.size(), mag) || mag > uint64_t(INT64_MAX)) return false;
  key.query = uint32_t(q);
  key.subject = uint32_t(subj);
  key.evalue = ev;
  key.score = negative ? -int64_t(mag) : int64_t(mag);
  tabular_at = tabs[3] + 1;
  return tabular_at < line.size();
}

std::string part_trailer_line(uint64_t hsp_lines) { return kPartTrailerPrefix + std::to_string(hsp_lines) + "\n"; }

}  // namespace bloomseq
