// Stage 1b's query index (direct-mapped for w <= 11 on a large enough query, grouped otherwise): for every key,
// occurrences() lists exactly the query w-mers whose canonical key it is, in (record, position) order, with the
// strand flag right (also through a copied index slot); checked against a brute-force scan of the query strings.
// Then the seeds of a whole search with the direct-mapped index equal the brute-force exact matches.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <random>
#include <tuple>
#include <vector>

#include "helpers.hpp"

using namespace bloomseq;
using namespace blast_test;

namespace {

// Repeats (a key occurring many times, in several records), N runs, a record shorter than w.
Records repetitive_query(std::mt19937_64& rng, int w, size_t bases) {
  Records q;
  const std::string unit = random_dna(rng, 37);
  std::string rep;
  while (rep.size() < 600) rep += unit;
  q.names = {"a", "b", "short", "c"};
  q.seqs = {random_dna(rng, bases / 2, 0.002) + rep, rep.substr(5) + random_dna(rng, bases / 2),
            std::string(size_t(w - 1), 'C'), revcomp(rep) + "ACGTNNACGT" + std::string(40, 'A')};
  return q;
}

// Every valid w-mer of q as (canonical key, record, position, plus strand is the key), stably sorted by key: record
// and position order within a key.
struct Entry {
  uint64_t key;
  uint32_t record, pos;
  bool fwd_is_key;
};

std::vector<Entry> brute_force_occurrences(const Records& q, int w) {
  std::vector<Entry> want;
  for (uint32_t r = 0; r < q.seqs.size(); ++r)
    for (size_t i = 0; i + size_t(w) <= q.seqs[r].size(); ++i) {
      if (!valid_word(q.seqs[r], i, w)) continue;
      const uint64_t fwd = pack(q.seqs[r], i, w), rc = pack(revcomp(q.seqs[r].substr(i, size_t(w))), 0, w);
      want.push_back({std::min(fwd, rc), r, uint32_t(i), fwd <= rc});
    }
  std::stable_sort(want.begin(), want.end(), [](const Entry& a, const Entry& b) { return a.key < b.key; });
  return want;
}

// Whether [o, end) are want[i, j): the same records, positions and strands, in that order.
bool same_occurrences(const SubqueryFilters::Occurrence* o, const SubqueryFilters::Occurrence* end,
                      const std::vector<Entry>& want, size_t i, size_t j) {
  bool same = size_t(end - o) == j - i;
  for (size_t x = i; same && x < j; ++x, ++o)
    same = o->query == want[x].record && (o->pos & ~SubqueryFilters::kFwdIsKey) == want[x].pos &&
           ((o->pos & SubqueryFilters::kFwdIsKey) != 0) == want[x].fwd_is_key;
  return same;
}

// The index of q's w-mers built on three threads (from a million w-mers on, threads take uneven ranges of keys).
SubqueryFilters index_on_three_threads(const Records& q, int w) {
  BlastParams p;
  p.w = w;
  p.threads = 3;
  return SubqueryFilters(make_queries(q).codes, p, false, false);
}

}  // namespace

TEST_CASE("the query index lists every occurrence of every key, direct-mapped or grouped", "[blast][stage1b]") {
  std::mt19937_64 rng(4096);
  struct Case {
    int w;
    size_t bases;
    bool direct;
  };
  // Direct-mapped from 4^w / 16 to 4^w / 2 query w-mers (the repeats add ~1,850 to `bases`).
  for (const Case c : {Case{4, 2000, false}, Case{6, 3000, false}, Case{7, 3000, true}, Case{7, 9000, false},
                       Case{8, 9000, true}, Case{9, 4000, false}, Case{10, 70000, true}, Case{11, 6000, false}}) {
    INFO("w=" << c.w << " bases=" << c.bases);
    const Records q = repetitive_query(rng, c.w, c.bases);
    BlastParams p;
    p.w = c.w;
    p.n_sub = 101;
    p.k = 2;
    p.m_bits = 1024;
    const QuerySet qs = make_queries(q);
    const SubqueryFilters f(qs.codes, p, true, false);
    CHECK(f.direct_index() == c.direct);
    // Brute force: key -> (record, position, plus strand is the key), in record and position order.
    std::vector<std::vector<std::tuple<uint32_t, uint32_t, bool>>> want(size_t(1) << (2 * c.w));
    for (uint32_t r = 0; r < q.seqs.size(); ++r)
      for (size_t i = 0; i + size_t(c.w) <= q.seqs[r].size(); ++i) {
        if (!valid_word(q.seqs[r], i, c.w)) continue;
        const uint64_t fwd = pack(q.seqs[r], i, c.w), rc = pack(revcomp(q.seqs[r].substr(i, size_t(c.w))), 0, c.w);
        want[std::min(fwd, rc)].push_back({r, uint32_t(i), fwd <= rc});
      }
    size_t multi = 0;
    for (uint64_t key = 0; key < want.size(); ++key) {
      const SubqueryFilters::Occurrence *o, *end;
      f.occurrences(key, o, end);
      std::vector<std::tuple<uint32_t, uint32_t, bool>> got;
      for (; o < end; ++o)
        got.push_back({o->query, o->pos & ~SubqueryFilters::kFwdIsKey, (o->pos & SubqueryFilters::kFwdIsKey) != 0});
      if (got != want[key]) FAIL("key " << key << ": " << got.size() << " occurrences, want " << want[key].size());
      multi += want[key].size() > 1;
      // The same list through a copy of the key's slot (stage 1b's batched look-ups).
      const SubqueryFilters::Occurrence slot = f.direct_index() ? f.direct_slot(key) : f.group_slot(key);
      if (f.direct_index())
        f.direct_occurrences(slot, o, end);
      else
        f.group_occurrences(slot, key, o, end);
      got.clear();
      for (; o < end; ++o)
        got.push_back({o->query, o->pos & ~SubqueryFilters::kFwdIsKey, (o->pos & SubqueryFilters::kFwdIsKey) != 0});
      if (got != want[key]) FAIL("key " << key << " via its slot: " << got.size() << " occurrences");
    }
    CHECK(multi > 10);
  }
}

TEST_CASE("the grouped index built on several threads lists every occurrence as the brute force does",
          "[blast][stage1b]") {
  // From a million w-mers on, threads take ranges of groups (three here: the ranges are uneven); the slot is the key
  // at w = 11 (2.3 Mbases, too many w-mers for the direct-mapped index), keys are stored at w = 14.
  std::mt19937_64 rng(8192);
  for (const auto& [w, bases] : {std::pair<int, size_t>{11, 2300000}, std::pair<int, size_t>{14, 1100000}}) {
    INFO("w=" << w);
    const Records q = repetitive_query(rng, w, bases);
    const SubqueryFilters f = index_on_three_threads(q, w);
    REQUIRE_FALSE(f.direct_index());
    const std::vector<Entry> want = brute_force_occurrences(q, w);
    size_t mismatched = 0, longest = 0;
    for (size_t i = 0; i < want.size();) {
      size_t j = i;
      while (j < want.size() && want[j].key == want[i].key) ++j;
      const SubqueryFilters::Occurrence *o, *end;
      f.group_occurrences(f.group_slot(want[i].key), want[i].key, o, end);
      mismatched += !same_occurrences(o, end, want, i, j);
      longest = std::max(longest, j - i);
      i = j;
    }
    CHECK(mismatched == 0);
    CHECK(longest > 32);  // the repeats: a group sorted by std::sort at w = 14
    // Distinct keys per sub-query (the n of the FPR formula, counted from the index when first asked for).
    std::vector<uint64_t> distinct(f.count(), 0);
    for (size_t i = 0; i < want.size(); ++i) {
      const uint32_t v = f.subquery_of(want[i].record, want[i].pos);
      bool seen = false;
      for (size_t x = i; x-- > 0 && want[x].key == want[i].key && !seen;)
        seen = f.subquery_of(want[x].record, want[x].pos) == v;
      distinct[v] += !seen;
    }
    size_t wrong = 0;
    for (uint32_t v = 0; v < f.count(); ++v) wrong += f.inserted(v) != distinct[v];
    CHECK(wrong == 0);
    // Keys the query lacks have no occurrences.
    size_t absent = 0;
    for (int i = 0; i < 2000; ++i) {
      const uint64_t key = rng() & ((uint64_t(1) << (2 * w)) - 1);
      const SubqueryFilters::Occurrence *o, *end;
      f.occurrences(key, o, end);
      if (o == end) ++absent;
      else CHECK(std::binary_search(want.begin(), want.end(), Entry{key, 0, 0, false},
                                    [](const Entry& a, const Entry& b) { return a.key < b.key; }));
    }
    CHECK(absent > 0);
  }
}

TEST_CASE("the direct-mapped index built on several threads lists every occurrence as the brute force does",
          "[blast][stage1b]") {
  // From a million w-mers on, threads take ranges of keys (three here: the ranges are uneven). At w = 11 the index
  // is direct-mapped from 2^18 to 2^21 w-mers: 1.5 Mbases with repeats.
  std::mt19937_64 rng(16384);
  const int w = 11;
  const Records q = repetitive_query(rng, w, 1500000);
  const SubqueryFilters f = index_on_three_threads(q, w);
  REQUIRE(f.direct_index());
  const std::vector<Entry> want = brute_force_occurrences(q, w);
  REQUIRE(want.size() > (size_t(1) << 20));
  size_t mismatched = 0, multi = 0, keys = 0;
  for (size_t i = 0; i < want.size();) {
    size_t j = i;
    while (j < want.size() && want[j].key == want[i].key) ++j;
    const SubqueryFilters::Occurrence *o, *end;
    f.occurrences(want[i].key, o, end);
    mismatched += !same_occurrences(o, end, want, i, j);
    const SubqueryFilters::Occurrence slot = f.direct_slot(want[i].key);  // a copy, as stage 1b takes it
    f.direct_occurrences(slot, o, end);
    mismatched += !same_occurrences(o, end, want, i, j);
    multi += j - i > 1;
    ++keys;
    i = j;
  }
  CHECK(mismatched == 0);
  CHECK(multi > 1000);
  // Every key the query lacks has no occurrences.
  size_t present = 0;
  for (uint64_t key = 0; key < (uint64_t(1) << (2 * w)); ++key) {
    const SubqueryFilters::Occurrence *o, *end;
    f.occurrences(key, o, end);
    present += o != end;
  }
  CHECK(present == keys);
}

TEST_CASE("built by position, a sub-query's occurrences of every key and its distinct w-mers are exact",
          "[blast][stage1b]") {
  std::mt19937_64 rng(1616);
  for (const int w : {5, 9, 16, 31}) {
    INFO("w=" << w);
    const Records q = repetitive_query(rng, w, 5000);
    BlastParams p;
    p.w = w;
    p.n_sub = 101;  // prime: sub-query ends fall anywhere
    p.k = 2;
    p.m_bits = 1024;
    const QuerySet qs = make_queries(q);
    const SubqueryFilters f(qs.codes, p, false, true, true);
    REQUIRE(f.by_position());
    const uint64_t stride = p.n_sub - uint64_t(w) + 1;
    size_t found = 0;
    for (uint32_t v = 0; v < f.count(); ++v) {
      const SubQuery& sq = f.subqueries()[v];
      const std::string& rec = q.seqs[sq.query_id];
      // Brute force over the sub-query's w-mer starts: key -> (position, plus strand is the key), in order.
      std::map<uint64_t, std::vector<std::pair<uint32_t, bool>>> want;
      for (uint64_t i = sq.offset; i + uint64_t(w) <= sq.offset + sq.length; ++i) {
        if (!valid_word(rec, i, w)) continue;
        CHECK(f.subquery_of(sq.query_id, uint32_t(i)) == v);
        CHECK(i / stride == sq.offset / stride);
        const uint64_t fwd = pack(rec, i, w), rc = pack(revcomp(rec.substr(i, size_t(w))), 0, w);
        want[std::min(fwd, rc)].push_back({uint32_t(i), fwd <= rc});
      }
      CHECK(f.inserted(v) == want.size());
      std::vector<SubqueryFilters::Occurrence> got;
      for (const auto& kv : want) {
        f.subquery_occurrences(v, kv.first, got);
        std::vector<std::pair<uint32_t, bool>> g;
        for (const auto& o : got) {
          CHECK(o.query == sq.query_id);
          g.push_back({o.pos & ~SubqueryFilters::kFwdIsKey, (o.pos & SubqueryFilters::kFwdIsKey) != 0});
        }
        if (g != kv.second) FAIL("sub-query " << v << " key " << kv.first << ": " << g.size() << " occurrences");
        found += g.size();
      }
      // Keys the sub-query lacks (random ones, and keys of other sub-queries) give nothing.
      for (int j = 0; j < 20; ++j) {
        const uint64_t key = rng() & (w == 32 ? ~uint64_t(0) : (uint64_t(1) << (2 * w)) - 1);
        const uint64_t rc = revcomp_wmer(key, w);
        if (want.count(std::min(key, rc))) continue;
        f.subquery_occurrences(v, std::min(key, rc), got);
        CHECK(got.empty());
      }
    }
    CHECK(found > 4000);
  }
}

TEST_CASE("seeds with the direct-mapped index equal the brute-force exact matches", "[blast][stage1b]") {
  std::mt19937_64 rng(11);
  for (int w : {7, 8, 9}) {
    INFO("w=" << w);
    Records q = repetitive_query(rng, w, 1u << (2 * w - 3));
    Records db;
    db.names = {"d0", "d1", "d2"};
    db.seqs = {mutate(rng, q.seqs[0], 0.1), revcomp(mutate(rng, q.seqs[1], 0.05)), random_dna(rng, 3000, 0.01)};
    BlastParams p;
    p.w = w;
    p.n_sub = 97;
    p.k = 2;
    p.m_bits = 256;  // many false positives to reject
    p.chunk_bases = 1024;
    BlastSearch s(make_queries(q), p, totals_of(db));
    REQUIRE(s.filters().direct_index());
    std::vector<Seed> seeds;
    s.on_seeds = [&](const DbBatch&, const std::vector<Seed>& x) { seeds.insert(seeds.end(), x.begin(), x.end()); };
    for (const auto& b : make_batches(db, 1u << 20)) s.search(b);
    std::set<std::tuple<uint32_t, uint32_t, uint64_t, uint64_t, int>> got;
    for (const Seed& x : seeds) got.insert({x.query, x.subject, x.q_pos, x.s_pos, x.strand});
    CHECK(got.size() == seeds.size());
    CHECK(got == oracle_seeds(q, db, w));
  }
}
