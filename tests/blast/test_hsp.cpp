// Stage 2 and the statistics, against a straightforward re-implementation written here from the description of
// blastn's ungapped search (seeds in subject order, one extension per diagonal region, X-drop both ways, the
// final rescan), and against numbers printed by blastn itself (effective search spaces).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>

#include "bloomseq/blast/karlin.hpp"
#include "bloomseq/blast/tabular.hpp"
#include "bloomseq/blast/ungapped.hpp"
#include "bloomseq/encode/sequence.hpp"
#include "helpers.hpp"

using namespace bloomseq;
using namespace blast_test;

namespace {

struct RefHsp {
  uint32_t query, subject;
  int strand;
  uint64_t q_start, q_end, s_start, s_end;  // plus-strand, half-open
  int64_t score;
  double evalue;
  bool operator<(const RefHsp& o) const {
    return std::tie(query, subject, strand, q_start, s_start, q_end, score) <
           std::tie(o.query, o.subject, o.strand, o.q_start, o.s_start, o.q_end, o.score);
  }
};

// N against anything scores as BLAST's matrix scores a fully degenerate code: the average over the four bases,
// rounded half away from zero.
int pair_score(char a, char b, int reward, int penalty) {
  if (a == 'N' || b == 'N') return int(std::lround((reward + 3.0 * penalty) / 4.0));
  return a == b ? reward : penalty;
}

// Largest integer ell with ell <= alpha/lambda (ln K + ln((m - ell)(n - N ell))) + beta, by counting up.
int64_t brute_length_adjustment(double lambda, double K, double H, double beta, double m, double n, double N) {
  int64_t ell = 0;
  while (true) {
    const double next = double(ell + 1);
    if ((m - next) <= 0 || (n - N * next) <= 0) break;
    if (lambda / H / lambda * (std::log(K) + std::log((m - next) * (n - N * next))) + beta < next) break;
    ++ell;
  }
  return ell;
}

// Smallest raw score S >= 1 with space * K * exp(-lambda S) <= e.
int64_t smallest_score(double space, double K, double lambda, double e) {
  int64_t S = 1;
  while (space * K * std::exp(-lambda * double(S)) > e) ++S;
  return S;
}

// blastn's 4-bases-at-a-time screen: groups aligned to multiples of 4 in the subject, X-drop at group granularity.
int64_t screen_score(const std::string& Q, const std::string& S, uint64_t qp, uint64_t s, int reward, int penalty,
                     int X) {
  const uint64_t g = (s + 3) / 4 * 4, qg = qp + (g - s);
  auto group = [&](uint64_t qa, uint64_t sa) {
    int64_t t = 0;
    for (uint64_t j = 0; j < 4; ++j) t += pair_score(Q[qa + j], S[sa + j], reward, penalty);
    return t;
  };
  int64_t best_left = 0, run = 0;
  for (uint64_t j = 1; 4 * j <= std::min(g, qg); ++j) {
    run += group(qg - 4 * j, g - 4 * j);
    best_left = std::max(best_left, run);
    if (best_left - run > X) break;
  }
  int64_t best_right = 0;
  run = 0;
  for (uint64_t j = 0; qg + 4 * j + 4 <= Q.size() && g + 4 * j + 4 <= S.size(); ++j) {
    run += group(qg + 4 * j, g + 4 * j);
    best_right = std::max(best_right, run);
    if (best_right - run > X) break;
  }
  return best_left + best_right;
}

std::vector<RefHsp> reference_search(const Records& q, const Records& db, int w, int reward, int penalty, int X,
                                     double lambda, double K, double H, double beta, double evalue_cutoff) {
  uint64_t n = 0;
  for (const auto& s : db.seqs) n += s.size();
  const double mean_subject = double(n / db.seqs.size());
  std::vector<RefHsp> out;
  for (uint32_t qi = 0; qi < q.seqs.size(); ++qi) {
    const double m = double(q.seqs[qi].size());
    const int64_t ell = brute_length_adjustment(lambda, K, H, beta, m, double(n), double(db.seqs.size()));
    const double space = (m - double(ell)) * (double(n) - double(db.seqs.size()) * double(ell));
    const int64_t hit_cutoff = smallest_score(space, K, lambda, evalue_cutoff);
    const int64_t word_cutoff =
        std::min(hit_cutoff, smallest_score(std::min(mean_subject, 2 * m) * mean_subject, K, lambda, 0.05));
    const int64_t reduced = int64_t(0.8 * double(word_cutoff));
    for (int strand = 0; strand < 2; ++strand) {
      const std::string Q = strand == 0 ? q.seqs[qi] : revcomp(q.seqs[qi]);
      for (uint32_t di = 0; di < db.seqs.size(); ++di) {
        const std::string& S = db.seqs[di];
        // Seeds: exact w-mer matches, met in subject order.
        std::map<int64_t, uint64_t> last_end;  // diagonal -> end of its last extension (subject coordinate)
        for (uint64_t s = 0; s + uint64_t(w) <= S.size(); ++s) {
          if (!valid_word(S, s, w)) continue;
          for (uint64_t qp = 0; qp + uint64_t(w) <= Q.size(); ++qp) {
            if (Q.compare(qp, size_t(w), S, s, size_t(w)) != 0) continue;
            const int64_t d = int64_t(s) - int64_t(qp);
            auto it = last_end.find(d);
            if (it != last_end.end() && s < it->second) continue;
            if (w >= 11 && screen_score(Q, S, qp, s, reward, penalty, X) < reduced) {
              last_end[d] = s + uint64_t(w);  // only the word counts as explored
              continue;
            }
            // Left: best total over left ends, stop once the running total is more than X below the best.
            int64_t run = 0, best = 0;
            uint64_t left = 0;  // bases taken on the left
            for (uint64_t i = 1; i <= std::min(qp, s); ++i) {
              run += pair_score(Q[qp - i], S[s - i], reward, penalty);
              if (run > best) {
                best = run;
                left = i;
              }
              if (best - run > X) break;
            }
            const int64_t left_best = best;
            run = 0;
            best = 0;
            uint64_t right = 0;  // bases taken from the seed start
            for (uint64_t i = 0; qp + i < Q.size() && s + i < S.size(); ++i) {
              run += pair_score(Q[qp + i], S[s + i], reward, penalty);
              if (run > best) {
                best = run;
                right = i + 1;
              }
              if (best - run > X) break;
            }
            if (left_best + best < word_cutoff) {
              last_end[d] = s + uint64_t(w);
              continue;
            }
            last_end[d] = s + right;
            // The rescan: first position of the maximum prefix score (prefix scores never go negative here).
            const uint64_t q0 = qp - left, s0 = s - left, len = left + right;
            int64_t pre = 0, top = 0;
            uint64_t top_len = 0;
            bool negative = false;
            for (uint64_t i = 0; i < len; ++i) {
              pre += pair_score(Q[q0 + i], S[s0 + i], reward, penalty);
              negative |= pre < 0;
              if (pre > top) {
                top = pre;
                top_len = i + 1;
              }
            }
            REQUIRE_FALSE(negative);  // the test data keep w large enough for this shortcut
            const double e = space * K * std::exp(-lambda * double(top));
            if (e > evalue_cutoff) continue;
            RefHsp h{qi, di, strand, 0, 0, s0, s0 + top_len, top, e};
            h.q_start = strand == 0 ? q0 : Q.size() - (q0 + top_len);
            h.q_end = h.q_start + top_len;
            out.push_back(h);
          }
        }
      }
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("length adjustment and search space match blastn and a brute-force fixed point", "[blast][stats]") {
  // Printed by blastn 2.12 (-ungapped, lambda phage 48,502 bp vs the first 200,000 bp of E. coli 536).
  CHECK(effective_search_space(ungapped_karlin(1, -2), 48502, 200000, 1) == 9695430360.0);
  CHECK(effective_search_space(ungapped_karlin(2, -3), 48502, 200000, 1) == 9694933440.0);
  std::mt19937_64 rng(5);
  for (int rep = 0; rep < 300; ++rep) {
    const bool two = rep % 2;
    const KarlinParams kp = ungapped_karlin(two ? 2 : 1, two ? -3 : -2);
    const uint64_t m = 1000 + rng() % 10000000, n = 1000 + rng() % 3000000000ULL, N = 1 + rng() % 1000;
    if (n < N * 200) continue;
    INFO("m=" << m << " n=" << n << " N=" << N);
    CHECK(length_adjustment(kp, m, n, N) ==
          brute_length_adjustment(kp.lambda, kp.K, kp.H, kp.beta, double(m), double(n), double(N)));
  }
  CHECK(xdrop_raw(ungapped_karlin(1, -2), 20) == 11);
  CHECK(xdrop_raw(ungapped_karlin(2, -3), 20) == 22);
  // A query record without sequence has an empty word search space (log 0): the cut-offs stay defined (UBSan
  // found the conversion of -inf in an ungapped search with such a record).
  CHECK(score_for_evalue(ungapped_karlin(2, -3), 0.0, 10.0) == 1);
  const ExtensionCutoffs empty = extension_cutoffs(ungapped_karlin(2, -3), 0, 1e9, 10000, 10.0);
  CHECK(empty.word >= 1);
  CHECK(empty.hit > empty.word);
}

TEST_CASE("numbers are formatted as BLAST prints them", "[blast][format]") {
  CHECK(format_evalue(1e-200) == "0.0");
  CHECK(format_evalue(1.2096e-41) == "1.21e-41");
  CHECK(format_evalue(0.00088) == "8.80e-04");
  CHECK(format_evalue(0.0061) == "0.006");
  CHECK(format_evalue(0.964) == "0.96");
  CHECK(format_evalue(6.43) == "6.4");
  CHECK(format_evalue(12.7) == "13");
  CHECK(format_bitscore(12212.7) == "12212");
  CHECK(format_bitscore(35.14) == "35.1");
  CHECK(format_bitscore(173.9) == "173");
  CHECK(format_bitscore(123456.0) == "1.235e+05");
  // Above 99.9 blastn prints the whole part in at least three places ("%3.0ld"): a megablast line at 2/-5 (E. coli
  // 536 against K. pneumoniae, 2.29e-17) printed " 99".
  CHECK(format_bitscore(99.95) == " 99");
  CHECK(format_bitscore(99.9) == "99.9");
  TabularHit t{"q", "s", 20, 19, 5, 24, 100, 81, 0.5, 37.9};
  CHECK(format_tabular(t) == "q\ts\t95.000\t20\t1\t0\t5\t24\t100\t81\t0.50\t37.9");
  // blastn printed 55.937 for 179 identities in 320 columns (lambda vs E. coli 536 at 3/-2, gap costs 5/5): it
  // divides before scaling, and 179 / 320 * 100 lies just below the half that 100 * 179 / 320 hits exactly.
  TabularHit half{"q", "s", 320, 179, 1, 309, 1, 318, 7.22e-06, 54.9};
  half.gaps = 11;
  CHECK(format_tabular(half).substr(0, 14) == "q\ts\t55.937\t320");
  CHECK(format_tabular(half, parse_outfmt("6 ppos")) == "55.94");
}

TEST_CASE("btop, titles and column lists as blastn writes them", "[blast][format]") {
  // Query  ACGTA-CGTTA
  // Subject ACGAAGCG--A : 3 equal, T/A, 1 equal, a gap in the query, 2 equal, two gaps in the subject, 1 equal.
  CHECK(btop_text("ACGTA-CGTTA", "ACGAAGCG--A") == "3TA1-G2T-T-1");
  CHECK(btop_text("ACGT", "ACGT") == "4");
  CHECK(btop_text("NA", "AA") == "NA1");  // an N against a base is a mismatch column, as any other letters
  CHECK(btop_text("", "").empty());
  CHECK(blast_query_title("q1  first  two   spaces ") == "q1  first  two   spaces");
  CHECK(blast_query_title("q3\tafter a tab") == "q3");
  CHECK(blast_query_title("q1 first\tsecond") == "q1 first");
  // A column named twice is printed once, where it first appears (blastn -outfmt "6 qseqid qseqid length").
  const TabularFormat f = parse_outfmt("10 qseqid length qseqid std");
  CHECK(f.style == TabularStyle::csv);
  REQUIRE(f.columns.size() == 13);
  CHECK(f.columns[0] == TabularColumn::qseqid);
  CHECK(f.columns[1] == TabularColumn::length);
  CHECK(f.columns[2] == TabularColumn::qaccver);
  CHECK(tabular_header(parse_outfmt("10 qseqid evalue")) == "# qseqid,evalue");
  CHECK(outfmt_from_token(outfmt_token(f)).columns == f.columns);
  CHECK(outfmt_from_token(outfmt_token(f)).style == TabularStyle::csv);
  CHECK_THROWS_AS(outfmt_token(parse_outfmt("7")), std::logic_error);
  const std::string block = commented_query_block(parse_outfmt("7 qseqid btop"), "q1 x", "db.fa", 2);
  CHECK(block.find("# Query: q1 x\n# Database: User specified sequence set (Input: db.fa)\n# Fields: query id, BTOP\n"
                   "# 2 hits found\n") != std::string::npos);
  CHECK(commented_query_block(parse_outfmt("7"), "q2", "db.fa", 0).find("# Fields") == std::string::npos);
}

TEST_CASE("right extension stops where the score would turn negative while it is below X", "[blast][hsp]") {
  // 5/-4, X = 73 (20 bits): an 11-base seed scores 55 < X. After it, 14 mismatches (-56) and 20 matches (+100).
  // blastn (s_NuclUngappedExtendExact's X_current) stops at the 14th mismatch, where the score would fall below
  // zero; X alone would let the run go on and take the 20 matches (score 99, 45 bases).
  const std::string seed = "ACGTACGTACG", tail = "ACGTACGTACGTACGTACGT";
  const std::string q = seed + std::string(14, 'A') + tail, s = seed + std::string(14, 'C') + tail;
  const auto qa = encode_codes(q), sb = encode_codes(s);
  const UngappedScoring sc{5, -4, 73, ambiguous_score(5, -4)};
  const UngappedExtension e = extend_ungapped(qa.data(), qa.size(), sb.data(), sb.size(), 0, 0, sc);
  CHECK(e.q_start == 0);
  CHECK(e.length == 11);
  CHECK(e.score == 55);
  // With 16 matching bases to the left (80) the score is above X before the right extension starts: X alone
  // applies, and the run takes the matches after the mismatches: 80 + 55 - 56 + 100.
  const std::string left = "TGCATGCATGCATGCA";
  const auto ql = encode_codes(left + q), sl = encode_codes(left + s);
  const UngappedExtension f = extend_ungapped(ql.data(), ql.size(), sl.data(), sl.size(), 16, 16, sc);
  CHECK(f.q_start == 0);
  CHECK(f.length == 61);
  CHECK(f.score == 179);
}

TEST_CASE("extension of a single seed", "[blast][hsp]") {
  // Query and subject identical except two mismatches; X = 11 for 1/-2.
  const std::string a = "GGGGGGGGGGACGTACGTACGTAAAAAAAAAACCCCC";
  std::string b = a;
  b[3] = 'T';
  b[30] = 'C';
  const auto qa = encode_codes(a), sb = encode_codes(b);
  const UngappedScoring sc{1, -2, 11};
  const UngappedExtension e = extend_ungapped(qa.data(), qa.size(), sb.data(), sb.size(), 10, 10, sc);
  CHECK(e.q_start == 0);
  CHECK(e.length == a.size());
  CHECK(e.score == int64_t(a.size()) - 2 - 2 * 2);
}

TEST_CASE("HSPs and E-values equal a straightforward implementation", "[blast][hsp]") {
  std::mt19937_64 rng(1234);
  for (int rep = 0; rep < 6; ++rep) {
    const bool two = rep % 2;
    const int w = rep < 4 ? 11 : 16;
    const std::string base = random_dna(rng, 3000, 0.0005);
    Records q, db;
    q.names = {"qa", "qb"};
    q.seqs = {base.substr(0, 1800), mutate(rng, base.substr(1200), 0.1)};
    db.names = {"d1", "d2", "d3"};
    db.seqs = {mutate(rng, base.substr(500, 1500), 0.07), revcomp(mutate(rng, base, 0.12)) + random_dna(rng, 300),
               random_dna(rng, 900)};
    BlastParams p;
    p.w = w;
    p.n_sub = 300;
    p.reward = two ? 2 : 1;
    p.penalty = two ? -3 : -2;
    p.threads = 2;
    BlastSearch s(make_queries(q), p, totals_of(db));
    s.search(make_batch(db));
    std::vector<RefHsp> got;
    for (const Hsp& h : s.finish())
      got.push_back({h.query, h.subject, h.strand, h.q_start, h.q_end, h.s_start, h.s_end, h.score, h.evalue});
    std::sort(got.begin(), got.end());
    const KarlinParams kp = ungapped_karlin(p.reward, p.penalty);
    const auto want = reference_search(q, db, w, p.reward, p.penalty, xdrop_raw(kp, 20), kp.lambda, kp.K, kp.H,
                                       kp.beta, 10.0);
    INFO("rep=" << rep);
    REQUIRE(!want.empty());
    REQUIRE(got.size() == want.size());
    for (size_t i = 0; i < got.size(); ++i) {
      CHECK(got[i].q_start == want[i].q_start);
      CHECK(got[i].q_end == want[i].q_end);
      CHECK(got[i].s_start == want[i].s_start);
      CHECK(got[i].strand == want[i].strand);
      CHECK(got[i].score == want[i].score);
      if (want[i].evalue < 1e-200)
        CHECK(got[i].evalue < 1e-199);  // both print as 0.0; underflow makes the digits meaningless
      else
        CHECK(got[i].evalue == Approx(want[i].evalue).epsilon(1e-9));
    }
  }
}

TEST_CASE("diagonal table: one extension per diagonal region, also past 2^32 stream positions", "[blast][hsp]") {
  // Oracle: a plain map from diagonal to the last end, with 64-bit positions.
  const uint64_t q_len = 100;
  DiagonalTable table(q_len);
  std::map<uint64_t, uint64_t> last_end;
  std::mt19937_64 rng(7);
  uint64_t s = 1000;
  for (int i = 0; i < 20000; ++i) {
    // Mostly small steps, and a few jumps that cross 2^32 several times (rebasing the 32-bit table).
    s += (i % 5000 == 4999) ? (uint64_t(3) << 31) : rng() % 8;
    const uint64_t q = rng() % q_len;
    const uint64_t diag = s - q;
    const auto it = last_end.find(diag);
    const bool want = it == last_end.end() || s >= it->second;
    REQUIRE(table.should_extend(s, q) == want);
    if (want) {
      const uint64_t end = s + 1 + rng() % (q_len - q);  // an extension ends within the query
      table.record(s, q, end);
      last_end[diag] = end;
    }
    // Faulting pages in ahead of the extensions (as the pipeline does with several threads) changes nothing.
    if (i % 997 == 0) table.touch(rng() % table.slots(), rng() % (2 * table.slots()));
  }
}

TEST_CASE("diagonal regions: the table's verdicts, one region at a time, for batches of whole records", "[blast][hsp]") {
  // Oracle: a map from diagonal to the last end, fed every seed in subject order. The regions see the same seeds
  // in groups of consecutive stream positions (stage 2's calls), and within a group by region (stably, as stage 2's
  // counting sort does), one region after another in a reused array; ends go from group to group as carried.
  std::mt19937_64 rng(11);
  for (const uint64_t q_len : {uint64_t(90), uint64_t(5000), uint64_t(300000)}) {
    const uint64_t slot_mask = DiagonalTable::slots_for(q_len) - 1;
    const uint64_t base = (uint64_t(5) << 32) + 12345;  // the batch's first stream coordinate
    struct SeedAt {
      uint64_t s, q, record_end;
    };
    std::vector<SeedAt> seeds;
    uint64_t record_start = base;
    for (int r = 0; r < 6; ++r) {
      const uint64_t record_len = 200 + rng() % 200000;
      for (uint64_t s = record_start; s < record_start + record_len; s += 1 + rng() % 40) {
        // Some seeds on the diagonal of the one before (runs of matches), the others anywhere in the query.
        const uint64_t q = (!seeds.empty() && rng() % 3 == 0) ? seeds.back().q + (s - seeds.back().s) : rng() % q_len;
        seeds.push_back({s, q < q_len ? q : rng() % q_len, record_start + record_len});
      }
      record_start += record_len + 1;  // a separator between records
    }
    std::map<uint64_t, uint64_t> last_end;
    std::vector<uint64_t> end_of(seeds.size(), 0);  // 0: not extended
    std::vector<bool> want(seeds.size());
    for (size_t i = 0; i < seeds.size(); ++i) {
      const auto it = last_end.find(seeds[i].s - seeds[i].q);
      want[i] = it == last_end.end() || seeds[i].s >= it->second;
      if (!want[i]) continue;
      const uint64_t room = std::min(q_len - seeds[i].q, seeds[i].record_end - seeds[i].s);
      end_of[i] = seeds[i].s + 1 + rng() % room;  // an extension ends within the query and the record
      last_end[seeds[i].s - seeds[i].q] = end_of[i];
    }
    std::vector<DiagonalRegion> regions(2);  // two "threads", taking regions in turn
    std::map<uint64_t, std::vector<DiagonalRegion::Carried>> carried;  // per region
    size_t checked = 0, carried_ends = 0;
    for (size_t g0 = 0; g0 < seeds.size();) {
      const size_t g1 = std::min(seeds.size(), g0 + 1 + rng() % 3000);  // a group of seeds in stream order
      const uint64_t later_from = g1 < seeds.size() ? seeds[g1].s : UINT64_MAX;
      std::map<uint64_t, std::vector<size_t>> by_region;
      for (const auto& [r, kept] : carried)
        if (!kept.empty()) by_region[r];
      for (size_t i = g0; i < g1; ++i)
        by_region[((seeds[i].s - seeds[i].q) & slot_mask) >> DiagonalRegion::kShift].push_back(i);
      size_t turn = 0;
      for (const auto& [r, members] : by_region) {
        DiagonalRegion& region = regions[turn++ % 2];
        region.start(base, slot_mask);
        region.restore(carried[r]);
        for (size_t i : members) {
          REQUIRE(region.should_extend(seeds[i].s, seeds[i].q) == want[i]);
          if (want[i]) region.record(seeds[i].s, seeds[i].q, end_of[i]);
          ++checked;
        }
        std::vector<DiagonalRegion::Carried> on;
        region.carry(carried[r], later_from, on);
        for (size_t i : members) region.carry(seeds[i].s, seeds[i].q, later_from, on);
        carried_ends += on.size();
        carried[r] = on;
      }
      g0 = g1;
    }
    REQUIRE(checked == seeds.size());
    REQUIRE(carried_ends > 0);
    REQUIRE(std::count(want.begin(), want.end(), false) > 0);  // some seeds were stopped by an earlier extension
    for (const auto& [r, kept] : carried) REQUIRE(kept.empty());  // nothing after the last group
  }
}
