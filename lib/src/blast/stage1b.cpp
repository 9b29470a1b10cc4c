#include "bloomseq/blast/stage1b.hpp"

#include <algorithm>
#include <tuple>

#include "bloomseq/encode/dna.hpp"

namespace bloomseq {

bool Seed::operator<(const Seed& o) const {
  return std::tie(query, subject, q_pos, s_pos, strand) < std::tie(o.query, o.subject, o.q_pos, o.s_pos, o.strand);
}
bool Seed::operator==(const Seed& o) const {
  return query == o.query && subject == o.subject && q_pos == o.q_pos && s_pos == o.s_pos && strand == o.strand;
}

}  // namespace bloomseq
