#include "bloomseq/blast/search_plan.hpp"

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "bloomseq/app/json_writer.hpp"
#include "bloomseq/blast/shard.hpp"
#include "bloomseq/error.hpp"
#include "bloomseq/io/output_file.hpp"

namespace bloomseq {
namespace {

const char* const kFormat = "blast-bloom plan 1";

std::string hex64(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%016" PRIx64, v);
  return buf;
}

// The flat object written below: "key": "string" | number | true | false. Nothing else is accepted.
std::map<std::string, std::string> read_flat_object(const std::string& text, const std::string& path) {
  const auto bad = [&](const std::string& why) { return DataError(path + ": not a blast-bloom plan file (" + why + ")"); };
  std::map<std::string, std::string> kv;
  size_t i = 0;
  const auto skip = [&] {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\n' || text[i] == '\t' || text[i] == '\r')) ++i;
  };
  const auto string_at = [&] {
    if (i >= text.size() || text[i] != '"') throw bad("expected a string");
    std::string s;
    for (++i; i < text.size() && text[i] != '"'; ++i) {
      if (text[i] == '\\') throw bad("escaped characters");  // never written
      s += text[i];
    }
    if (i >= text.size()) throw bad("unterminated string");
    ++i;
    return s;
  };
  skip();
  if (i >= text.size() || text[i] != '{') throw bad("no object");
  ++i;
  for (;;) {
    skip();
    if (i < text.size() && text[i] == '}') break;
    const std::string key = string_at();
    skip();
    if (i >= text.size() || text[i] != ':') throw bad("expected ':'");
    ++i;
    skip();
    std::string value;
    if (i < text.size() && text[i] == '"') {
      value = string_at();
    } else {
      const size_t from = i;
      while (i < text.size() && text[i] != ',' && text[i] != '}' && text[i] != '\n' && text[i] != ' ') ++i;
      value = text.substr(from, i - from);
    }
    if (!kv.emplace(key, value).second) throw bad("key '" + key + "' twice");
    skip();
    if (i < text.size() && text[i] == ',') {
      ++i;
      continue;
    }
    skip();
    if (i < text.size() && text[i] == '}') break;
    throw bad("expected ',' or '}'");
  }
  return kv;
}

}  // namespace

void write_search_plan(const std::string& path, const SearchPlan& plan) {
  const BlastParams& p = plan.params;
  JsonWriter j;
  j.begin_object();
  j.value("format", kFormat).value("version", BLOOMSEQ_VERSION);
  j.value("word_size", p.w).value("probe_word", p.probe_word).value("exact_filter", p.exact_filter);
  j.value("sub_query", p.n_sub).value("bloom_bits", p.m_bits).value("hashes", p.k).value("h3_seed", p.seed);
  j.value("layout", layout_name(p.layout)).value("threads", p.threads);
  j.value("chunk_bases", p.chunk_bases).value("batch_bases", p.batch_bases);
  j.value("reward", p.reward).value("penalty", p.penalty).value("gapped", p.gapped);
  j.value("gapopen", p.gap_open).value("gapextend", p.gap_extend).value("greedy", p.greedy);
  j.value("xdrop", hex_double(p.xdrop_bits)).value("xdrop_gap", hex_double(p.xdrop_gap_bits));
  j.value("xdrop_gap_final", hex_double(p.xdrop_final_bits)).value("gap_trigger", hex_double(p.gap_trigger_bits));
  j.value("evalue", hex_double(p.evalue)).value("dust", p.dust).value("max_target_seqs", p.max_target_seqs);
  j.value("max_hsps", p.max_hsps).value("perc_identity", hex_double(p.percent_identity));
  j.value("qcov_hsp_perc", hex_double(p.qcov_hsp_perc)).value("strands", p.strands).value("lcase_masking", p.lcase_masking);
  j.value("dbsize", p.db_length).value("searchsp", hex_double(p.search_space));
  j.value("query_records", plan.query_records).value("query_bases", plan.query_bases);
  j.value("query_hash", hex64(plan.query_hash));
  j.value("db_records", plan.db_records).value("db_bases", plan.db_bases).value("db_hash", hex64(plan.db_hash));
  const DbLayout& l = plan.db_layout;
  if (!l.offsets.empty()) {
    // "offset:lines:length" per record, comma-separated: one string keeps the reader flat.
    std::string index;
    index.reserve(l.offsets.size() * 24);
    for (size_t r = 0; r < l.offsets.size(); ++r) {
      if (r) index += ',';
      index += std::to_string(l.offsets[r]) + ':' + std::to_string(l.lines[r]) + ':' + std::to_string(l.lengths[r]);
    }
    j.value("db_largest", l.totals.largest).value("db_file_bytes", l.file_bytes).value("db_index", index);
  } else if (!l.lengths.empty() && l.lengths.size() <= (size_t(1) << 22)) {
    // A .2bit (or gzip) database: the lengths alone (a .2bit shard then reads only the index and its records).
    std::string lengths;
    lengths.reserve(l.lengths.size() * 8);
    for (size_t r = 0; r < l.lengths.size(); ++r) {
      if (r) lengths += ',';
      lengths += std::to_string(l.lengths[r]);
    }
    j.value("db_largest", l.totals.largest).value("db_lengths", lengths);
  }
  j.end_object();
  OutputFile out(path);
  out.write(j.str());
  out.write("\n");
  out.commit();
}

SearchPlan read_search_plan(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw NoInputError(path + ": cannot open the plan file");
  std::ostringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  if (text.size() > (uint64_t(1) << 28)) throw DataError(path + ": not a blast-bloom plan file (too large)");
  const std::map<std::string, std::string> kv = read_flat_object(text, path);
  const auto get = [&](const std::string& key) -> const std::string& {
    const auto it = kv.find(key);
    if (it == kv.end()) throw DataError(path + ": plan file without \"" + key + "\"");
    return it->second;
  };
  if (get("format") != kFormat) throw DataError(path + ": not a blast-bloom plan file");
  if (get("version") != BLOOMSEQ_VERSION)
    throw DataError(path + ": plan made by blast-bloom " + get("version") + ", this is " + BLOOMSEQ_VERSION +
                    " (make the plan again)");
  const auto bad = [&](const std::string& key) { return DataError(path + ": bad value of \"" + key + "\" in the plan"); };
  const auto integer = [&](const std::string& key) -> int64_t {
    const std::string& v = get(key);
    char* end = nullptr;
    errno = 0;
    const long long x = std::strtoll(v.c_str(), &end, 10);
    if (v.empty() || errno || end != v.c_str() + v.size()) throw bad(key);
    return x;
  };
  const auto unsigned_ = [&](const std::string& key) -> uint64_t {
    const std::string& v = get(key);
    char* end = nullptr;
    errno = 0;
    const unsigned long long x = std::strtoull(v.c_str(), &end, 10);
    if (v.empty() || v[0] == '-' || errno || end != v.c_str() + v.size()) throw bad(key);
    return x;
  };
  const auto hex = [&](const std::string& key) -> uint64_t {
    const std::string& v = get(key);
    char* end = nullptr;
    errno = 0;
    const unsigned long long x = std::strtoull(v.c_str(), &end, 16);
    if (v.size() != 16 || errno || end != v.c_str() + v.size()) throw bad(key);
    return x;
  };
  const auto real = [&](const std::string& key) -> double {
    const std::string& v = get(key);
    char* end = nullptr;
    const double x = std::strtod(v.c_str(), &end);
    if (v.empty() || end != v.c_str() + v.size()) throw bad(key);
    return x;
  };
  const auto boolean = [&](const std::string& key) -> bool {
    const std::string& v = get(key);
    if (v != "true" && v != "false") throw bad(key);
    return v == "true";
  };
  SearchPlan plan;
  BlastParams& p = plan.params;
  try {
    p.w = int(integer("word_size"));
    p.probe_word = int(integer("probe_word"));
    p.exact_filter = boolean("exact_filter");
    p.n_sub = unsigned_("sub_query");
    p.m_bits = unsigned_("bloom_bits");
    p.k = int(integer("hashes"));
    p.seed = unsigned_("h3_seed");
    p.layout = parse_layout(get("layout"));
    p.threads = int(integer("threads"));
    p.chunk_bases = unsigned_("chunk_bases");
    p.batch_bases = unsigned_("batch_bases");
    p.reward = int(integer("reward"));
    p.penalty = int(integer("penalty"));
    p.gapped = boolean("gapped");
    p.dust = boolean("dust");
    p.gap_open = int(integer("gapopen"));
    p.gap_extend = int(integer("gapextend"));
    p.greedy = boolean("greedy");
    p.xdrop_bits = real("xdrop");
    p.xdrop_gap_bits = real("xdrop_gap");
    p.xdrop_final_bits = real("xdrop_gap_final");
    p.gap_trigger_bits = real("gap_trigger");
    p.evalue = real("evalue");
    // Plans made before the option have none: every subject, as those versions printed.
    p.max_target_seqs = kv.count("max_target_seqs") ? unsigned_("max_target_seqs") : 0;
    p.max_hsps = kv.count("max_hsps") ? unsigned_("max_hsps") : 0;
    p.percent_identity = kv.count("perc_identity") ? real("perc_identity") : 0;
    p.qcov_hsp_perc = kv.count("qcov_hsp_perc") ? real("qcov_hsp_perc") : 0;
    p.strands = kv.count("strands") ? int(integer("strands")) : 3;
    p.lcase_masking = kv.count("lcase_masking") ? boolean("lcase_masking") : false;
    p.db_length = kv.count("dbsize") ? unsigned_("dbsize") : 0;
    p.search_space = kv.count("searchsp") ? real("searchsp") : 0;
    p.validate();
  } catch (const UsageError& e) {
    throw DataError(path + ": plan with invalid parameters: " + e.what());
  }
  plan.query_records = unsigned_("query_records");
  plan.query_bases = unsigned_("query_bases");
  plan.query_hash = hex("query_hash");
  plan.db_records = unsigned_("db_records");
  plan.db_bases = unsigned_("db_bases");
  plan.db_hash = hex("db_hash");
  if (kv.count("db_index")) {
    DbLayout& l = plan.db_layout;
    l.totals.records = plan.db_records;
    l.totals.bases = plan.db_bases;
    l.totals.largest = unsigned_("db_largest");
    l.hash = plan.db_hash;
    l.file_bytes = unsigned_("db_file_bytes");
    const std::string& index = get("db_index");
    const char* c = index.c_str();
    uint64_t bases = 0, largest = 0;
    while (*c) {
      uint64_t v[3];
      for (int f = 0; f < 3; ++f) {
        char* end = nullptr;
        errno = 0;
        v[f] = std::strtoull(c, &end, 10);
        if (end == c || errno || *end != (f < 2 ? ':' : *end) || (f == 2 && *end != ',' && *end != '\0'))
          throw bad("db_index");
        c = *end ? end + 1 : end;
      }
      if ((!l.offsets.empty() && v[0] <= l.offsets.back()) || v[0] >= l.file_bytes) throw bad("db_index");
      l.offsets.push_back(v[0]);
      l.lines.push_back(v[1]);
      l.lengths.push_back(v[2]);
      bases += v[2];
      largest = std::max(largest, v[2]);
    }
    if (l.offsets.size() != l.totals.records || bases != l.totals.bases || largest != l.totals.largest)
      throw bad("db_index");
  } else if (kv.count("db_lengths")) {
    DbLayout& l = plan.db_layout;
    l.totals.records = plan.db_records;
    l.totals.bases = plan.db_bases;
    l.totals.largest = unsigned_("db_largest");
    l.hash = plan.db_hash;
    const std::string& list = get("db_lengths");
    const char* c = list.c_str();
    uint64_t bases = 0, largest = 0;
    while (*c) {
      char* end = nullptr;
      errno = 0;
      const uint64_t v = std::strtoull(c, &end, 10);
      if (end == c || errno || (*end != ',' && *end != '\0')) throw bad("db_lengths");
      c = *end ? end + 1 : end;
      l.lengths.push_back(v);
      bases += v;
      largest = std::max(largest, v);
    }
    if (l.lengths.size() != l.totals.records || bases != l.totals.bases || largest != l.totals.largest)
      throw bad("db_lengths");
  }
  return plan;
}

}  // namespace bloomseq
