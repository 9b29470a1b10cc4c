// Shared helpers for the blast tests: random DNA with awkward features, and brute-force oracles written
// independently of the library's fast paths.
#pragma once
#include <algorithm>
#include <map>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "bloomseq/blast/database.hpp"
#include "bloomseq/blast/pipeline.hpp"

namespace blast_test {

inline std::string random_dna(std::mt19937_64& rng, size_t n, double n_run_prob = 0.0) {
  std::string s(n, 'A');
  for (size_t i = 0; i < n; ++i) s[i] = "ACGT"[rng() % 4];
  if (n_run_prob > 0)
    for (size_t i = 0; i < n; ++i)
      if (std::uniform_real_distribution<double>(0, 1)(rng) < n_run_prob) {
        const size_t len = 1 + rng() % 15;
        for (size_t j = i; j < std::min(n, i + len); ++j) s[j] = 'N';
      }
  return s;
}

// A mutated copy (substitutions only) so that queries and databases share long similar regions.
inline std::string mutate(std::mt19937_64& rng, const std::string& s, double rate) {
  std::string t = s;
  for (auto& c : t)
    if (std::uniform_real_distribution<double>(0, 1)(rng) < rate) c = "ACGT"[rng() % 4];
  return t;
}

inline std::string revcomp(const std::string& s) {
  std::string r(s.rbegin(), s.rend());
  for (auto& c : r) c = c == 'A' ? 'T' : c == 'C' ? 'G' : c == 'G' ? 'C' : c == 'T' ? 'A' : 'N';
  return r;
}

// The 2-bit code (A=0 C=1 G=2 T=3, first base most significant) of the w bases of s at pos (all ACGT).
inline uint64_t pack(const std::string& s, size_t pos, int w) {
  uint64_t x = 0;
  for (int j = 0; j < w; ++j) x = x * 4 + uint64_t(std::string("ACGT").find(s[pos + size_t(j)]));
  return x;
}

inline bool valid_word(const std::string& s, size_t pos, int w) {
  if (pos + size_t(w) > s.size()) return false;
  for (int j = 0; j < w; ++j)
    if (std::string("ACGT").find(s[pos + size_t(j)]) == std::string::npos) return false;
  return true;
}

struct Records {
  std::vector<std::string> names, seqs;
};

// Every exact w-mer match between the query records (both strands) and the db records, by string comparison.
inline std::set<std::tuple<uint32_t, uint32_t, uint64_t, uint64_t, int>> oracle_seeds(const Records& q, const Records& db,
                                                                                       int w) {
  std::set<std::tuple<uint32_t, uint32_t, uint64_t, uint64_t, int>> out;
  std::multimap<std::string, std::pair<uint32_t, uint64_t>> qwords;
  for (uint32_t i = 0; i < q.seqs.size(); ++i)
    for (size_t p = 0; p + size_t(w) <= q.seqs[i].size(); ++p)
      if (valid_word(q.seqs[i], p, w)) qwords.insert({q.seqs[i].substr(p, size_t(w)), {i, p}});
  for (uint32_t d = 0; d < db.seqs.size(); ++d)
    for (size_t p = 0; p + size_t(w) <= db.seqs[d].size(); ++p) {
      if (!valid_word(db.seqs[d], p, w)) continue;
      const std::string word = db.seqs[d].substr(p, size_t(w));
      for (int strand = 0; strand < 2; ++strand) {
        auto range = qwords.equal_range(strand == 0 ? word : revcomp(word));
        for (auto it = range.first; it != range.second; ++it)
          out.insert({it->second.first, d, it->second.second, p, strand});
      }
    }
  return out;
}

inline bloomseq::DbBatch make_batch(const Records& db) {
  bloomseq::DbBatch b;
  for (size_t i = 0; i < db.seqs.size(); ++i) b.add_record(db.names[i], db.seqs[i]);
  return b;
}

inline bloomseq::QuerySet make_queries(const Records& q) {
  bloomseq::QuerySet s;
  for (size_t i = 0; i < q.seqs.size(); ++i) s.add(q.names[i], q.seqs[i]);
  return s;
}

inline bloomseq::DbTotals totals_of(const Records& db) {
  bloomseq::DbTotals t;
  for (const auto& s : db.seqs) t.bases += s.size();
  t.records = db.seqs.size();
  return t;
}

// Splits the records into batches of about `batch_bases` (whole records), with stream coordinates continuing.
inline std::vector<bloomseq::DbBatch> make_batches(const Records& db, uint64_t batch_bases) {
  std::vector<bloomseq::DbBatch> out;
  bloomseq::DbBatch cur;
  uint64_t pos = 0;
  uint32_t rec = 0;
  for (size_t i = 0; i < db.seqs.size(); ++i) {
    if (cur.size() == 0) {
      cur.first_pos = pos;
      cur.first_record = rec;
    }
    cur.add_record(db.names[i], db.seqs[i]);
    if (cur.codes.size() >= batch_bases || i + 1 == db.seqs.size()) {
      pos += cur.codes.size();
      rec += uint32_t(cur.size());
      out.push_back(cur);
      cur = bloomseq::DbBatch();
    }
  }
  return out;
}

// A whole search with observers on stages 1a and 1b: its hits, seeds, HSPs and statistics.
struct Observed {
  std::vector<bloomseq::Stage1aHit> hits;
  std::vector<bloomseq::Seed> seeds;
  std::vector<bloomseq::Hsp> hsps;
  bloomseq::BlastStats stats;
};

inline Observed run(const Records& q, const Records& db, const bloomseq::BlastParams& p, uint64_t batch_bases) {
  bloomseq::BlastSearch s(make_queries(q), p, totals_of(db));
  Observed o;
  s.on_stage1a = [&](const bloomseq::DbBatch&, const std::vector<bloomseq::Stage1aHit>& h) {
    o.hits.insert(o.hits.end(), h.begin(), h.end());
  };
  s.on_seeds = [&](const bloomseq::DbBatch&, const std::vector<bloomseq::Seed>& x) {
    o.seeds.insert(o.seeds.end(), x.begin(), x.end());
  };
  for (const auto& b : make_batches(db, batch_bases)) s.search(b);
  o.hsps = s.finish();
  o.stats = s.stats();
  return o;
}

// Without observers: the search then runs the stages on a few chunks at a time (stage 2 group by group).
inline std::vector<bloomseq::Hsp> hsps_only(const Records& q, const Records& db, const bloomseq::BlastParams& p,
                                            uint64_t batch_bases) {
  bloomseq::BlastSearch s(make_queries(q), p, totals_of(db));
  for (const auto& b : make_batches(db, batch_bases)) s.search(b);
  return s.finish();
}

}  // namespace blast_test
