// The short-word scan (short_word_plan.hpp): exact filters of a word p <= w tested at every (w - p + 1)-th database
// position give exactly the seeds of testing every w-mer — checked against the brute-force oracle and the full scan
// (same seeds in the same order, same HSPs) with awkward word sizes, strides, N runs, records shorter than w and
// record and batch boundaries; the exact stage 1a answers exactly the probes whose p-mer the sub-query holds.
#include <catch2/catch.hpp>

#include <cctype>
#include <random>
#include <set>

#include "bloomseq/blast/database.hpp"
#include "bloomseq/blast/short_word_plan.hpp"
#include "bloomseq/split/subquery.hpp"
#include "bloomseq/blast/stage1a_cpu.hpp"
#include "bloomseq/blast/word_presence.hpp"
#include "bloomseq/bloom/bloom_view.hpp"
#include "bloomseq/encode/sequence.hpp"
#include "bloomseq/error.hpp"
#include "bloomseq/io/twobit.hpp"
#include "helpers.hpp"
#include "io/io_test_util.hpp"

using namespace bloomseq;
using namespace blast_test;

namespace {

// Query and database sharing long stretches on both strands, mutated copies, N runs (also right at record ends),
// a record shorter than w and one of exactly w bases.
std::pair<Records, Records> data(std::mt19937_64& rng, int w) {
  Records q, db;
  const std::string base = random_dna(rng, 3000, 0.002);
  q.names = {"q1", "q2", "short", "exact_w"};
  q.seqs = {base.substr(0, 1700) + "NNN", mutate(rng, base.substr(1200), 0.04), std::string(size_t(w - 1), 'C'),
            base.substr(500, size_t(w))};
  db.names = {"d1", "d2", "d3", "tiny", "copies"};
  db.seqs = {"N" + mutate(rng, base.substr(300, 1500), 0.06) + random_dna(rng, 300),
             revcomp(mutate(rng, base.substr(0, 2000), 0.02)), random_dna(rng, 1800, 0.01), "ACGTA",
             base.substr(500, size_t(w)) + "NN" + revcomp(base.substr(17, 411)) + base.substr(2000, 333) + "N"};
  return {q, db};
}

// Exact filters of the p-mers of sub-queries of n_sub bases, w = p (stage 1a alone).
BlastParams exact_words(int p, uint64_t n_sub) {
  BlastParams b;
  b.w = p;
  b.exact_filter = true;
  b.k = 1;
  b.m_bits = uint64_t(1) << (2 * p);
  b.n_sub = n_sub;
  return b;
}

BlastParams exact_scan(int w, int p, const Records& q) {
  BlastParams b;
  b.w = w;
  std::vector<uint64_t> lengths;
  for (const auto& s : q.seqs) lengths.push_back(s.size());
  apply_short_word_plan(forced_short_word_plan(w, p, lengths), b);
  return b;
}

}  // namespace

TEST_CASE("an injective H3 function puts every key in its own slot of a 4^w-bit vector", "[blast][short-word]") {
  for (int w = 1; w <= 8; ++w) {
    const H3Family f = H3Family::injective(w);
    const H3ByteView h = f.byte_view();
    const uint64_t m = uint64_t(1) << (2 * w);
    for (uint64_t x = 0; x < m; ++x) {
      uint32_t out[1];
      h.hash_all(x, out);
      REQUIRE(bloom_slot(out[0], m) == x);
      REQUIRE(f.hash_bitloop(0, x) == out[0]);
    }
  }
  std::mt19937_64 rng(5);
  const H3Family f16 = H3Family::injective(16);
  for (int i = 0; i < 1000; ++i) {
    const uint64_t x = rng() & 0xFFFFFFFFu;
    uint32_t out[1];
    f16.byte_view().hash_all(x, out);
    CHECK(bloom_slot(out[0], uint64_t(1) << 32) == x);
  }
  CHECK_THROWS_AS(H3Family::injective(17), UsageError);
  BlastParams p;
  p.exact_filter = true;
  p.w = 11;
  CHECK_THROWS_AS(p.validate(), UsageError);  // k and m are not those of an exact filter of 11-mers
  p.k = 1;
  p.m_bits = uint64_t(1) << 22;
  CHECK_NOTHROW(p.validate());
}

TEST_CASE("the exact stage 1a hits exactly the probes whose word the sub-query holds", "[blast][short-word]") {
  std::mt19937_64 rng(77);
  for (int p : {3, 4, 7, 8, 9, 10, 12}) {
    for (bool one : {false, true}) {  // one sub-query takes the scan's own loop
      for (uint64_t stride : {1, 2, 3, 5, 12, 13, 18, 31, 32}) {
        INFO("p=" << p << " stride=" << stride << " one sub-query=" << one);
        Records q;
        q.names = {"a", "b"};
        q.seqs = {random_dna(rng, 700, 0.01), random_dna(rng, 90)};
        // The database holds a piece of the second record, kept even when the query drops that record.
        const std::string db = random_dna(rng, 5000, 0.003) + "N" + q.seqs[1].substr(3, 50);
        if (one) {
          q.names.pop_back();
          q.seqs.pop_back();
        }
        const BlastParams b = exact_words(p, 700);
        const QuerySet qs = make_queries(q);
        const SubqueryFilters f(qs.codes, b, true, false);
        // Brute force: the canonical p-mers of every sub-query, as strings.
        std::vector<std::set<std::string>> held(f.count());
        for (uint32_t v = 0; v < f.count(); ++v) {
          const SubQuery& sq = f.subqueries()[v];
          const std::string s = q.seqs[sq.query_id].substr(sq.offset, sq.length);
          for (size_t i = 0; i + size_t(p) <= s.size(); ++i)
            if (valid_word(s, i, p)) {
              const std::string x = s.substr(i, size_t(p)), r = revcomp(x);
              held[v].insert(std::min(x, r));
            }
        }
        const uint64_t first_pos = 1000 + 7;  // a stream offset that is not a multiple of the stride
        std::vector<Stage1aHit> want;
        for (size_t t = 0; t + size_t(p) <= db.size(); ++t) {
          if ((first_pos + t) % stride != 0 || !valid_word(db, t, p)) continue;
          const std::string x = db.substr(t, size_t(p)), r = revcomp(x);
          for (uint32_t v = 0; v < f.count(); ++v)
            if (held[v].count(std::min(x, r))) want.push_back({first_pos + t, v});
        }
        DbBatch batch;
        batch.add_record("d", db);
        batch.first_pos = first_pos;
        std::vector<Stage1aHit> vec;
        for (const DbChunk& c : chunk_batch(batch, 1031, p)) stage1a_vector_layout(f.vectors(), c, vec, stride);
        CHECK(vec == want);
        // Both instruction sets of the exact scan (the vector one where this CPU has it).
        for (const char* isa : {"scalar", "avx512"}) {
          if (!force_exact_scan_isa(isa)) continue;
          INFO("isa=" << isa);
          std::vector<Stage1aHit> exact;
          for (const DbChunk& c : chunk_batch(batch, 1031, p)) stage1a_exact(f.vectors(), c, exact, stride);
          CHECK(exact == want);
          // The backend's path: tables built once, chunks of every length down to a few bases.
          const ExactScanTables tables = make_exact_scan_tables(f.vectors(), p);
          for (uint64_t chunk : {uint64_t(1031), uint64_t(17), uint64_t(p + 1)}) {
            std::vector<Stage1aHit> prepared;
            for (const DbChunk& c : chunk_batch(batch, chunk, p)) stage1a_exact(tables, c, prepared, stride);
            CHECK(prepared == want);
          }
        }
        force_exact_scan_isa("");
      }
    }
  }
}

TEST_CASE("word presence: a probe can give a seed exactly when a w-mer containing it is a query w-mer",
          "[blast][short-word]") {
  std::mt19937_64 rng(4242);
  for (int w : {4, 8, 9, 11, 12}) {
    const std::string query = random_dna(rng, 900, 0.01);
    std::string db = mutate(rng, query.substr(100, 600), 0.03) + "N" + revcomp(query.substr(0, 300)) + random_dna(rng, 500, 0.005);
    db += query.substr(700, size_t(w));  // a w-mer right at the end
    std::set<std::string> held;
    for (size_t i = 0; i + size_t(w) <= query.size(); ++i)
      if (valid_word(query, i, w)) {
        held.insert(query.substr(i, size_t(w)));
        held.insert(revcomp(query.substr(i, size_t(w))));
      }
    const std::vector<std::vector<uint8_t>> codes = {encode_codes(query)};
    const WordPresence presence(codes, w);
    REQUIRE_FALSE(presence.empty());
    const std::vector<uint8_t> d = encode_codes(db);
    for (uint64_t s : {1, 2, 3, 4}) {
      for (uint64_t t = 0; t < d.size(); ++t) {
        bool want = false;
        for (uint64_t l = 0; l < s && l <= t; ++l) {
          const uint64_t u = t - l;
          if (u + uint64_t(w) <= d.size() && valid_word(db, size_t(u), w) && held.count(db.substr(size_t(u), size_t(w))))
            want = true;
        }
        INFO("w=" << w << " s=" << s << " t=" << t);
        REQUIRE(presence.any_containing(d.data(), d.size(), t, s) == want);
      }
    }
  }
  CHECK(WordPresence({encode_codes("ACGTACGTACGTACGT")}, WordPresence::kMaxWord + 1).empty());
}

TEST_CASE("short words at a stride give the seeds and HSPs of testing every w-mer", "[blast][short-word]") {
  std::mt19937_64 rng(2026);
  struct Variant {
    int w, p, threads;
    uint64_t chunk, batch;
  };
  for (const Variant& v : {Variant{11, 8, 1, 1024, uint64_t(1) << 30}, Variant{11, 9, 2, 1031, 1},
                           Variant{11, 10, 3, 1024, 2500}, Variant{11, 11, 1, 2048, 3000},
                           Variant{7, 4, 2, 1024, 1}, Variant{19, 12, 1, 1031, 2000},
                           Variant{28, 12, 2, 4096, 1}, Variant{13, 3, 1, 1024, uint64_t(1) << 30},
                           Variant{20, 6, 1, 1024, 4000}}) {
    INFO("w=" << v.w << " p=" << v.p << " threads=" << v.threads << " chunk=" << v.chunk << " batch=" << v.batch);
    const auto qd = data(rng, v.w);
    BlastParams every;
    every.w = v.w;
    every.n_sub = 307;
    every.k = 3;
    every.m_bits = 1024;
    every.chunk_bases = v.chunk;
    every.threads = v.threads;
    const Observed full = run(qd.first, qd.second, every, v.batch);
    BlastParams scan = exact_scan(v.w, v.p, qd.first);
    scan.chunk_bases = v.chunk;
    scan.threads = v.threads;
    REQUIRE(scan.exact_filter);
    CHECK(scan.probe_word == (v.p < v.w ? v.p : 0));
    const Observed got = run(qd.first, qd.second, scan, v.batch);
    REQUIRE(!full.seeds.empty());
    CHECK(got.seeds == full.seeds);
    std::set<std::tuple<uint32_t, uint32_t, uint64_t, uint64_t, int>> seen;
    for (const Seed& s : got.seeds) seen.insert({s.query, s.subject, s.q_pos, s.s_pos, s.strand});
    CHECK(seen.size() == got.seeds.size());
    CHECK(seen == oracle_seeds(qd.first, qd.second, v.w));
    // No false positives: every stage-1a hit is a probe the sub-query holds.
    CHECK(got.stats.false_positives == 0);
    CHECK(got.stats.true_positives == got.hits.size());
    uint64_t stream = 0;
    for (const auto& x : qd.second.seqs) stream += x.size() + 1;
    CHECK(got.stats.db_wmers <= stream / uint64_t(v.w - v.p + 1) + 1);
    const std::vector<Hsp> hsps = hsps_only(qd.first, qd.second, scan, v.batch);
    REQUIRE(hsps.size() == full.hsps.size());
    for (size_t i = 0; i < hsps.size(); ++i) {
      CHECK(hsps[i].query == full.hsps[i].query);
      CHECK(hsps[i].subject == full.hsps[i].subject);
      CHECK(hsps[i].strand == full.hsps[i].strand);
      CHECK(hsps[i].q_start == full.hsps[i].q_start);
      CHECK(hsps[i].q_end == full.hsps[i].q_end);
      CHECK(hsps[i].s_start == full.hsps[i].s_start);
      CHECK(hsps[i].score == full.hsps[i].score);
      CHECK(hsps[i].evalue == full.hsps[i].evalue);
    }
  }
}

TEST_CASE("the short-word plan keeps its filters selective and falls back for large queries", "[blast][short-word]") {
  const std::vector<uint64_t> caches = {32 << 10, 512 << 10, 32 << 20};
  const ShortWordPlan lambda = plan_short_word_scan(11, {48502}, caches);
  REQUIRE(lambda.use);
  CHECK(lambda.word <= 11);
  CHECK(lambda.stride == uint64_t(11 - lambda.word + 1));
  CHECK(lambda.hits_per_probe <= 0.25);
  CHECK(lambda.n_sub == 48502);
  // A shorter query affords a shorter word (a longer stride).
  const ShortWordPlan small = plan_short_word_scan(11, {1000}, caches);
  REQUIRE(small.use);
  CHECK(small.word < lambda.word);
  // w = 28: a word of at most 12 bases, stride >= 17.
  const ShortWordPlan long_w = plan_short_word_scan(28, {48502}, caches);
  REQUIRE(long_w.use);
  CHECK(long_w.stride >= 17);
  // A genome-sized query fills every exact filter of a shorter word; its filter of w-mers (one sub-query) passes
  // most database w-mers, but only true ones, for one bit read each: priced below the Bloom filters' 619 columns,
  // it replaces them, and the batch stays the default.
  const ShortWordPlan genome = plan_short_word_scan(11, {5000000}, caches);
  REQUIRE(genome.use);
  CHECK(genome.dense);
  CHECK(genome.word == 11);
  CHECK(genome.stride == 1);
  CHECK(genome.n_sub == 5000000);
  CHECK(genome.hits_per_probe > 0.25);
  CHECK(genome.batch_bases == 0);
  BlastParams applied;
  apply_short_word_plan(genome, applied);
  CHECK(applied.batch_bases == BlastParams{}.batch_bases);
  CHECK(applied.probe_word == 0);
  CHECK(applied.exact_filter);
  CHECK_NOTHROW(applied.validate());
  CHECK_FALSE(lambda.dense);
  // The same at w = 12 (4^12-bit filters); at w = 16 no exact filter holds the word, and a shorter word would be
  // dense: the Bloom filters stay.
  CHECK(plan_short_word_scan(12, {5000000}, caches).dense);
  CHECK_FALSE(plan_short_word_scan(16, {5000000}, caches).use);
  // A million reads: 191 exact filters of 512 KB that miss every cache cost more per database base (15 ns each)
  // than the Bloom filters' 12,500 columns (0.2 ns each): the Bloom filters stay.
  CHECK_FALSE(plan_short_word_scan(11, std::vector<uint64_t>(1000000, 100), caches).use);
  CHECK_FALSE(forced_short_word_plan(28, 16, {1000}).use);
  // No record of w bases: nothing to scan for.
  CHECK_FALSE(plan_short_word_scan(11, {5, 10}, caches).use);
  // 5,000 primers of 30 bases share filters: their count follows the bases (one 4^p-bit filter per record was
  // 10 GB at p = 12).
  const std::vector<uint64_t> primers(5000, 30);
  const ShortWordPlan many = plan_short_word_scan(11, primers, caches);
  REQUIRE(many.use);
  CHECK(many.hits_per_probe <= 0.25);
  CHECK(split_subqueries(primers, many.n_sub, 11).size() <= 5000 * 20 / (many.n_sub - 40) + 1);
}

TEST_CASE("the automatic layout keeps an explicit choice and bit-slices what only bit-slicing holds", "[blast][layout]") {
  const LayoutShape many{5000000, 8000, uint64_t(1) << 18, 6, 11};  // 625 sub-queries: 20 MB of vectors
  CHECK(resolve_layout(Stage1aLayout::automatic, many) == Stage1aLayout::bitsliced);
  CHECK(resolve_layout(Stage1aLayout::vector, many) == Stage1aLayout::vector);
  CHECK(resolve_layout(Stage1aLayout::paper_vector, many) == Stage1aLayout::paper_vector);
  // One sub-query of 64 Mbit: its vector (8 MB) outgrows L2 as the matrix (512 MB) outgrows every cache.
  const LayoutShape huge{48502, 50000, uint64_t(1) << 26, 6, 11};
  CHECK(resolve_layout(Stage1aLayout::automatic, huge) == Stage1aLayout::bitsliced);
  // Few sub-queries at the default m: the 2-MB matrix stays in the last-level cache of any current CPU.
  const LayoutShape lambda{48502, 8000, uint64_t(1) << 18, 6, 11};
  CHECK(resolve_layout(Stage1aLayout::automatic, lambda) == Stage1aLayout::bitsliced);
}

TEST_CASE("a .2bit database's batches carry their bases packed and their invalid runs, and the exact scan reads them",
          "[blast][short-word][twobit]") {
  bloomseq_test::TempDir dir;
  std::mt19937_64 rng(2024);
  // Records of awkward lengths (multiples of 32 and 4, one base, one N only) with N runs at the ends, in the middle
  // and next to each other, and soft-masked stretches (valid bases).
  std::vector<SequenceRecord> recs;
  const std::vector<size_t> lengths = {1, 31, 32, 33, 64, 100, 129, 1000, 4096, 5003, 7, 2};
  for (size_t r = 0; r < lengths.size(); ++r) {
    std::string s = random_dna(rng, lengths[r], 0.0);
    if (s.size() > 50) {
      for (size_t i = 10; i < 23; ++i) s[i] = 'N';
      s[s.size() - 1] = 'N';
      for (size_t i = 30; i < 45; ++i) s[i] = char(std::tolower(s[i]));
    }
    if (r == 7) s[0] = 'N', s[1] = 'N';
    if (r == 10) s = "NNNNNNN";
    recs.push_back({"r" + std::to_string(r), "", s, ""});
  }
  const std::string path = dir.file("db.2bit");
  write_twobit(path, recs);
  // Batches of a few records, so records start at every offset modulo 32.
  for (uint64_t max_bases : {uint64_t(40), uint64_t(3000), uint64_t(1) << 20}) {
    DatabaseReader db(path);
    db.keep_packed(true);
    DbBatch batch;
    size_t batches = 0;
    while (db.next_batch(batch, max_bases)) {
      ++batches;
      INFO("max_bases=" << max_bases << " batch " << batches);
      REQUIRE(!batch.packed.empty());
      REQUIRE(batch.packed.size() >= batch.codes.size() / 32 + 9);
      bool bases_ok = true;
      std::vector<uint8_t> invalid(batch.codes.size(), 0);
      for (const CodeRun& r : batch.invalid_runs) {
        REQUIRE(r.begin < r.end);
        REQUIRE(r.end <= batch.codes.size());
        for (uint64_t u = r.begin; u < r.end; ++u) invalid[u] = 1;
      }
      for (size_t i = 0; i < batch.codes.size(); ++i) {
        CHECK(invalid[i] == (batch.codes[i] > 3 ? 1 : 0));
        if (batch.codes[i] < 4) bases_ok = bases_ok && packed_base(batch.packed.data(), i) == batch.codes[i];
      }
      CHECK(bases_ok);
      for (size_t k = 1; k < batch.invalid_runs.size(); ++k)
        CHECK(batch.invalid_runs[k - 1].end <= batch.invalid_runs[k].begin);
      for (size_t w = batch.packed.size() - 8; w < batch.packed.size(); ++w) CHECK(batch.packed[w] == 0);
      // The scan on the batch's packed bases answers as on the codes packed again, on both instruction sets.
      Records q;
      q.names = {"q"};
      q.seqs = {recs[9].seq.substr(100, 2000)};
      for (int p : {4, 9, 11}) {
        const BlastParams b = exact_words(p, 3000);
        const QuerySet qs = make_queries(q);
        const SubqueryFilters f(qs.codes, b, true, false);
        const ExactScanTables tables = make_exact_scan_tables(f.vectors(), p);
        for (uint64_t stride : {uint64_t(1), uint64_t(2), uint64_t(5), uint64_t(18)}) {
          for (const char* isa : {"scalar", "avx512"}) {
            if (!force_exact_scan_isa(isa)) continue;
            std::vector<Stage1aHit> from_batch, from_codes;
            uint64_t tested_batch = 0, tested_codes = 0;
            for (DbChunk c : chunk_batch(batch, 517, p)) {
              REQUIRE(c.packed != nullptr);
              tested_batch += stage1a_exact(tables, c, from_batch, stride);
              c.packed = nullptr;
              tested_codes += stage1a_exact(tables, c, from_codes, stride);
            }
            INFO("p=" << p << " stride=" << stride << " isa=" << isa);
            CHECK(from_batch == from_codes);
            CHECK(tested_batch == tested_codes);
          }
          force_exact_scan_isa("");
        }
      }
    }
    CHECK(batches >= 1);
  }
  // Off by default: no translation where no scan reads it.
  DatabaseReader plain(path);
  DbBatch batch;
  REQUIRE(plain.next_batch(batch, uint64_t(1) << 20));
  CHECK(batch.packed.empty());
  CHECK(batch.invalid_runs.empty());
}
