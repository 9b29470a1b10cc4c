// blastn's ungapped Karlin-Altschul values per query strand (ungapped_karlin_for_composition). The expected values
// were read from blastn 2.12 itself (its Blast_KarlinBlkUngappedCalc results, printed to 17 digits, one per context:
// context 0 the plus strand, 1 the minus strand) for the bundled lambda and VDV-1 genomes; they differ from the
// tabulated values and between the strands in the last bits, which is what orders blastn's equal-looking lines.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>

#include "bloomseq/blast/karlin.hpp"
#include "bloomseq/encode/dna.hpp"
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
