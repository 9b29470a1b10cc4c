// Stage 1a: the vector-by-vector, bit-sliced (every SIMD path this CPU has) and paper-vector layouts give the same hits,
// and those hits are exactly what a Bloom filter built with the bit-loop H3 definition answers — hence no false
// negatives. Awkward sizes throughout: prime n_sub, m not a multiple of 32, records shorter than w, N runs,
// chunks far smaller than a record so that chunk boundaries fall inside w-mers.
#include <catch2/catch.hpp>

#include <map>
#include <random>
#include <set>

#include "bloomseq/blast/stage1a_cpu.hpp"
#include "bloomseq/bloom/bloom_view.hpp"
#include "helpers.hpp"

using namespace bloomseq;
using namespace blast_test;

namespace {

uint64_t canonical_of(const std::string& s, size_t pos, int w) {
  const uint64_t f = pack(s, pos, w);
  const uint64_t r = pack(revcomp(s.substr(pos, size_t(w))), 0, w);
  return std::min(f, r);
}

struct Config {
  int w;
  uint64_t n_sub;
  int k;
  uint64_t m;
};

// Expected stage-1a hits: vectors built from the bit-loop H3 definition, probed for every valid db w-mer.
std::vector<Stage1aHit> oracle_hits(const Records& q, const Records& db, const Config& c,
                                    std::set<std::pair<uint64_t, uint32_t>>& true_pairs) {
  const H3Family fam(c.k, c.w, kDefaultH3Seed);
  std::vector<uint64_t> lengths;
  for (const auto& s : q.seqs) lengths.push_back(s.size());
  const auto subs = split_subqueries(lengths, c.n_sub, c.w);
  std::vector<std::vector<uint32_t>> bits(subs.size(), std::vector<uint32_t>(bloom_words(c.m), 0));
  std::vector<std::set<uint64_t>> keys(subs.size());
  for (size_t v = 0; v < subs.size(); ++v) {
    for_each_piece(subs[v], [&](uint32_t r) { return lengths[r]; }, [&](uint32_t r, uint64_t off, uint64_t len) {
      const std::string& s = q.seqs[r];
      for (uint64_t p = off; p + uint64_t(c.w) <= off + len; ++p)
        if (valid_word(s, p, c.w)) keys[v].insert(canonical_of(s, p, c.w));
    });
    for (uint64_t key : keys[v])
      for (int i = 0; i < c.k; ++i) set_bit(bits[v].data(), bloom_slot(fam.hash_bitloop(i, key), c.m));
  }
  std::vector<Stage1aHit> out;
  uint64_t rec_start = 0;
  for (const auto& s : db.seqs) {
    for (size_t p = 0; p + size_t(c.w) <= s.size(); ++p) {
      if (!valid_word(s, p, c.w)) continue;
      const uint64_t key = canonical_of(s, p, c.w);
      for (uint32_t v = 0; v < subs.size(); ++v) {
        bool all = true;
        for (int i = 0; i < c.k && all; ++i) all = test_bit(bits[v].data(), bloom_slot(fam.hash_bitloop(i, key), c.m));
        if (all) out.push_back({rec_start + p, v});
        if (keys[v].count(key)) true_pairs.insert({rec_start + p, v});
      }
    }
    rec_start += s.size() + 1;  // records are separated by one invalid code in the stream
  }
  return out;  // ascending (db_pos, subquery) by construction
}

Records random_records(std::mt19937_64& rng, int count, size_t max_len, int w, const std::string& prefix) {
  Records r;
  for (int i = 0; i < count; ++i) {
    const size_t len = rng() % 4 == 0 ? rng() % size_t(w) : rng() % max_len;  // some shorter than w
    r.names.push_back(prefix + std::to_string(i));
    r.seqs.push_back(random_dna(rng, len, 0.004));
  }
  return r;
}

}  // namespace

TEST_CASE("stage-1a layouts agree with a bit-loop Bloom oracle on awkward inputs", "[blast][stage1a]") {
  std::mt19937_64 rng(2011);
  const Config configs[] = {{11, 101, 3, 97}, {7, 37, 2, 256}, {16, 211, 6, 1000}, {32, 41, 4, 4096},
                            {5, 13, 1, 64},   {28, 131, 8, 2039}, {11, 53, 6, 320}, {9, 25, 6, 512},
                            {13, 89, 5, 700}, {10, 61, 7, 900}};
  for (const Config& c : configs) {
    INFO("w=" << c.w << " n_sub=" << c.n_sub << " k=" << c.k << " m=" << c.m);
    Records q = random_records(rng, 4, 700, c.w, "q");
    Records db = random_records(rng, 6, 3000, c.w, "d");
    // Plant some query material in the database (both strands) so that true positives exist.
    db.names.push_back("planted");
    db.seqs.push_back(q.seqs[0].substr(0, 300) + "NNN" + revcomp(q.seqs[1].substr(0, 200)));

    BlastParams p;
    p.w = c.w;
    p.n_sub = c.n_sub;
    p.k = c.k;
    p.m_bits = c.m;
    const QuerySet qs = make_queries(q);
    const SubqueryFilters filters(qs.codes, p, true, true);
    const DbBatch batch = make_batch(db);

    std::set<std::pair<uint64_t, uint32_t>> true_pairs;
    const std::vector<Stage1aHit> expected = oracle_hits(q, db, c, true_pairs);

    for (uint64_t chunk : {uint64_t(7), uint64_t(c.w), uint64_t(1031), uint64_t(1) << 20}) {
      INFO("chunk=" << chunk);
      const auto chunks = chunk_batch(batch, chunk, c.w);
      std::vector<Stage1aHit> vec_hits, paper_hits;
      for (const auto& ch : chunks) {
        stage1a_vector_layout(filters.vectors(), ch, vec_hits);
        stage1a_paper_vector(filters.vectors(), ch, paper_hits);
      }
      CHECK(vec_hits == expected);
      CHECK(paper_hits == expected);
      for (const char* isa : {"scalar", "avx2", "avx512"}) {
        if (!force_bitsliced_isa(isa)) continue;  // this CPU lacks it
        INFO("isa=" << isa);
        std::vector<Stage1aHit> bs_hits;
        for (const auto& ch : chunks) stage1a_bitsliced(filters.bitsliced(), ch, bs_hits);
        CHECK(bs_hits == expected);
      }
      force_bitsliced_isa("");
      // With a stride only the w-mers starting at multiples of it are tested.
      for (uint64_t stride : {uint64_t(2), uint64_t(5)}) {
        INFO("stride=" << stride);
        std::vector<Stage1aHit> want, v_hits, n_hits, b_hits;
        for (const auto& h : expected)
          if (h.db_pos % stride == 0) want.push_back(h);
        for (const auto& ch : chunks) {
          stage1a_vector_layout(filters.vectors(), ch, v_hits, stride);
          stage1a_paper_vector(filters.vectors(), ch, n_hits, stride);
          stage1a_bitsliced(filters.bitsliced(), ch, b_hits, stride);
        }
        CHECK(v_hits == want);
        CHECK(n_hits == want);
        CHECK(b_hits == want);
      }
      // No false negatives: every (db w-mer, sub-query) pair with the w-mer in the sub-query is a hit.
      const std::set<std::pair<uint64_t, uint32_t>> got = [&] {
        std::set<std::pair<uint64_t, uint32_t>> s;
        for (const auto& h : vec_hits) s.insert({h.db_pos, h.subquery});
        return s;
      }();
      for (const auto& tp : true_pairs) CHECK(got.count(tp) == 1);
    }
  }
}

TEST_CASE("tests counted are the valid database w-mers", "[blast][stage1a]") {
  BlastParams p;
  p.w = 4;
  p.n_sub = 10;
  p.m_bits = 128;
  const QuerySet qs = [] { QuerySet s; s.add("q", "ACGTACGTAC"); return s; }();
  const SubqueryFilters f(qs.codes, p, true, true);
  DbBatch b;
  b.add_record("a", "ACGTNACGTA");  // w-mers: ACGT, ACGT, CGTA -> 3 valid (N breaks 4 windows)
  b.add_record("b", "ACG");         // shorter than w: none
  b.add_record("c", "TTTTT");       // 2
  std::vector<Stage1aHit> hits;
  uint64_t n = 0;
  for (const auto& ch : chunk_batch(b, 3, p.w)) n += stage1a_vector_layout(f.vectors(), ch, hits);
  CHECK(n == 5);
}

TEST_CASE("bit-sliced column blocks: full, padded and narrow last blocks give the vector layout's hits",
          "[blast][stage1a]") {
  // Sub-query counts around the block boundaries: one narrow block (<= 256), one padded full block (257..512),
  // full blocks followed by a narrow block of 1, 2 or 4 words (the last 1..256 columns), or by a padded block.
  std::mt19937_64 rng(1028);
  const int w = 7;
  const uint64_t n_sub = 13;  // 7 w-mer starts per sub-query
  for (uint32_t want_v : {1u, 64u, 65u, 256u, 257u, 511u, 512u, 513u, 576u, 577u, 640u, 641u, 768u, 769u, 1024u,
                          1028u, 1100u, 1536u, 1537u}) {
    INFO("sub-queries=" << want_v);
    Records q;
    // Two records, the split between them awkward, so sub-queries of both records share blocks.
    const size_t bases = size_t(want_v - 1) * 7 + 13;
    const size_t first = std::min<size_t>(bases, 13 + 7 * size_t(rng() % want_v));
    q.names = {"q0", "q1"};
    q.seqs = {random_dna(rng, first), random_dna(rng, bases - first + (bases > first ? 6 : 0))};
    Records db;
    for (int i = 0; i < 3; ++i) {
      db.names.push_back("d" + std::to_string(i));
      db.seqs.push_back(random_dna(rng, 900, 0.002));
    }
    db.names.push_back("planted");
    const std::string planted = revcomp(q.seqs[1].substr(0, std::min<size_t>(200, q.seqs[1].size())));
    db.seqs.push_back(q.seqs[0].substr(0, 200) + "N" + planted);
    BlastParams p;
    p.w = w;
    p.n_sub = n_sub;
    p.k = 3;
    p.m_bits = 67;  // high fill (~2% false positives): hits in every block
    const QuerySet qs = make_queries(q);
    const SubqueryFilters filters(qs.codes, p, true, true);
    const BitslicedMatrix M = filters.bitsliced();
    const uint32_t V = filters.count();
    CHECK(V >= want_v - 1);
    CHECK(M.words_per_row == M.full_blocks * 8 + M.tail_words);
    CHECK(M.full_blocks * 512 + M.tail_words * 64 >= V);
    if (V % 512 != 0 && V % 512 <= 256) CHECK(M.tail_words == (V % 512 <= 64 ? 1u : V % 512 <= 128 ? 2u : 4u));
    else CHECK(M.tail_words == 0);
    const DbBatch batch = make_batch(db);
    for (uint64_t chunk : {uint64_t(97), uint64_t(1) << 20}) {
      INFO("chunk=" << chunk);
      const auto chunks = chunk_batch(batch, chunk, w);
      std::vector<Stage1aHit> want;
      for (const auto& ch : chunks) stage1a_vector_layout(filters.vectors(), ch, want);
      REQUIRE(want.size() > size_t(V) * 10);
      std::set<uint32_t> cols;
      for (const auto& h : want) cols.insert(h.subquery);
      CHECK(*cols.rbegin() + 1 >= V - 1);  // hits reach the last columns
      for (const char* isa : {"scalar", "avx2", "avx512"}) {
        if (!force_bitsliced_isa(isa)) continue;
        INFO("isa=" << isa);
        std::vector<Stage1aHit> got;
        for (const auto& ch : chunks) stage1a_bitsliced(M, ch, got);
        CHECK(got == want);
      }
      force_bitsliced_isa("");
    }
  }
}

TEST_CASE("bit-sliced matrix of a repetitive query (bands crowded past their room) gives the vector layout's hits",
          "[blast][stage1a]") {
  // All the w-mers of a poly-A record, or of a short tandem repeat, hash to the same k rows, so their cells crowd
  // k row bands far beyond the one-pass room (mean + 8 sd): the build must fall back to an exact count.
  std::mt19937_64 rng(8);
  std::string tandem;
  while (tandem.size() < 6000) tandem += "ACGTTGCA";
  for (uint64_t m : {uint64_t(20000), uint64_t(3 * 4096 + 5), uint64_t(4096)}) {
    for (uint64_t n_sub : {uint64_t(100), uint64_t(1000)}) {
      INFO("m=" << m << " n_sub=" << n_sub);
      Records q;
      q.names = {"polyA", "random", "tandem"};
      q.seqs = {std::string(30000, 'A'), random_dna(rng, 4000), tandem};
      Records db;
      db.names = {"d0", "d1"};
      db.seqs = {random_dna(rng, 3000) + std::string(50, 'A') + "ACGTTGCAACGTTGCA", random_dna(rng, 2000)};
      BlastParams p;
      p.w = 11;
      p.n_sub = n_sub;
      p.k = 4;
      p.m_bits = m;
      const QuerySet qs = make_queries(q);
      const SubqueryFilters filters(qs.codes, p, true, true);
      const DbBatch batch = make_batch(db);
      std::vector<Stage1aHit> want, got;
      for (const auto& ch : chunk_batch(batch, 1024, p.w)) {
        stage1a_vector_layout(filters.vectors(), ch, want);
        stage1a_bitsliced(filters.bitsliced(), ch, got);
      }
      REQUIRE(want.size() > 100);
      CHECK(got == want);
    }
  }
}
