// blastn's ungapped Karlin-Altschul values per query strand (ungapped_karlin_for_composition). The expected values
// were read from blastn 2.12 itself (its Blast_KarlinBlkUngappedCalc results, printed to 17 digits, one per context:
// context 0 the plus strand, 1 the minus strand) for the bundled lambda and VDV-1 genomes; they differ from the
// tabulated values and between the strands in the last bits, which is what orders blastn's equal-looking lines.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "bloomseq/blast/karlin.hpp"
#include "bloomseq/encode/dna.hpp"
#include "bloomseq/error.hpp"
#include "bloomseq/io/sequence_reader.hpp"

using namespace bloomseq;

namespace {

struct Strands {
  KarlinParams plus, minus;
};

Strands of_file(const std::string& name, int reward, int penalty) {
  const auto records = read_all_sequences(std::string(BLOOMSEQ_DATA_DIR) + "/" + name);
  uint64_t counts[4] = {0, 0, 0, 0};
  for (const auto& r : records)
    for (const char c : r.seq)
      if (base_code(c) < 4) ++counts[base_code(c)];
  const uint64_t minus[4] = {counts[3], counts[2], counts[1], counts[0]};
  return {ungapped_karlin_for_composition(reward, penalty, counts),
          ungapped_karlin_for_composition(reward, penalty, minus)};
}

}  // namespace

TEST_CASE("ungapped Karlin-Altschul values per strand are blastn's to the last bit", "[karlin]") {
  SECTION("lambda, 2/-3") {
    const Strands s = of_file("lambda_virus.fa", 2, -3);
    REQUIRE(s.plus.lambda == 0.63373144309917362);
    REQUIRE(s.plus.K == 0.40814566254472417);
    REQUIRE(s.plus.logK == -0.89613115225204709);
    REQUIRE(s.plus.H == 0.91243839227970991);
    REQUIRE(s.minus.lambda == 0.63373144309917384);
    REQUIRE(s.minus.K == 0.40814566254472423);
    REQUIRE(s.minus.logK == -0.89613115225204698);
    REQUIRE(s.minus.H == 0.91243839227971046);
    REQUIRE(s.plus.beta == -2);
    REQUIRE(s.plus.alpha == s.plus.lambda / s.plus.H);
  }
  SECTION("VDV-1, 2/-3: the other strand has the smaller values") {
    const Strands s = of_file("bee-viruses/vdv1.fa", 2, -3);
    REQUIRE(s.plus.lambda == 0.63373144309917384);
    REQUIRE(s.plus.K == 0.40814566254472423);
    REQUIRE(s.minus.lambda == 0.63373144309917362);
    REQUIRE(s.minus.K == 0.40814566254472417);
  }
  SECTION("lambda, 1/-2 (K in closed form)") {
    const Strands s = of_file("lambda_virus.fa", 1, -2);
    REQUIRE(s.plus.lambda == 1.332705762823817);
    REQUIRE(s.plus.K == 0.62099111726420653);
    REQUIRE(s.plus.H == 1.1240918465011447);
    REQUIRE(s.minus.lambda == 1.3327057628238175);
    REQUIRE(s.minus.K == 0.62099111726420675);
    REQUIRE(s.minus.H == 1.1240918465011454);
  }
  SECTION("no bases: the tabulated values") {
    const uint64_t none[4] = {0, 0, 0, 0};
    const KarlinParams t = ungapped_karlin(2, -3), c = ungapped_karlin_for_composition(2, -3, none);
    REQUIRE(c.lambda == t.lambda);
    REQUIRE(c.K == t.K);
  }
}

TEST_CASE("E-values compare as blastn compares them", "[karlin]") {
  REQUIRE(compare_evalues(1e-10, 2e-10) < 0);
  REQUIRE(compare_evalues(2e-10, 1e-10) > 0);
  REQUIRE(compare_evalues(5.6769673687445108, 5.6769673687445099) > 0);  // the last bits count
  REQUIRE(compare_evalues(7.6663666475834994e-234, 7.6663666475817563e-234) == 0);  // below 1e-180: equal
  REQUIRE(compare_evalues(0.0, 1e-200) == 0);
  REQUIRE(compare_evalues(1e-200, 1e-179) < 0);
}

TEST_CASE("ideal ungapped values for every reward/penalty pair blastn accepts", "[karlin]") {
  // The uniform composition gives the values blastn reports for 1/-2 and 2/-3 (its kbp_ideal, printed to 15
  // digits): the computation that now serves every pair reproduces them.
  const KarlinParams a = ungapped_karlin(1, -2), b = ungapped_karlin(2, -3);
  REQUIRE(a.lambda == Approx(1.33270576282382).epsilon(1e-14));
  REQUIRE(a.K == Approx(0.620991117264207).epsilon(1e-14));
  REQUIRE(a.H == Approx(1.12409184650114).epsilon(1e-14));
  REQUIRE(a.beta == 0);
  REQUIRE(b.lambda == Approx(0.633731443099174).epsilon(1e-14));
  REQUIRE(b.K == Approx(0.408145662544724).epsilon(1e-14));
  REQUIRE(b.H == Approx(0.91243839227971).epsilon(1e-14));
  REQUIRE(b.beta == -2);
  // 1/-1: lowest score -1 and highest 1, K in closed form: (p(-1) - p(1))^2 / p(-1) = (3/4 - 1/4)^2 / (3/4) = 1/3,
  // and lambda solves 3/4 e^-l + 1/4 e^l = 1: e^l = 3. blastn's ungapped beta is -2 for it, as for 2/-3.
  const KarlinParams c = ungapped_karlin(1, -1);
  REQUIRE(c.K == Approx(1.0 / 3.0).epsilon(1e-12));
  REQUIRE(c.lambda == Approx(std::log(3.0)).epsilon(1e-6));
  REQUIRE(c.beta == -2);
  // A multiple of a pair scales lambda and keeps K and H where K has a closed form (2/-4 against 1/-2).
  const KarlinParams d = ungapped_karlin(2, -4);
  REQUIRE(d.lambda == Approx(a.lambda / 2).epsilon(1e-12));
  REQUIRE(d.K == Approx(a.K).epsilon(1e-12));
  REQUIRE(d.H == Approx(a.H).epsilon(1e-12));
  REQUIRE(d.beta == 0);  // s_GetUngappedBeta looks at the pair as given
  // Every pair with a table, and no other, is accepted (3/-5 and 1/-6 have none; 0 and positive penalties are
  // no pairs at all).
  for (const auto& [r, p] : std::vector<std::pair<int, int>>{{1, -5}, {1, -4}, {2, -7}, {1, -3}, {2, -5}, {3, -4},
                                                             {4, -5}, {3, -2}, {5, -4}, {4, -6}, {3, -3}})
    REQUIRE_NOTHROW(ungapped_karlin(r, p));
  for (const auto& [r, p] : std::vector<std::pair<int, int>>{{3, -5}, {1, -6}, {2, -1}, {1, 0}, {0, -1}})
    REQUIRE_THROWS_AS(ungapped_karlin(r, p), UsageError);
}
