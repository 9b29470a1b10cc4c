#include "bloomseq/blast/tabular.hpp"

#include <cstdio>

namespace bloomseq {

std::string format_evalue(double e) {
  char buf[64];
  if (e < 1.0e-180) std::snprintf(buf, sizeof buf, "0.0");
  else if (e < 0.0009) std::snprintf(buf, sizeof buf, "%.2e", e);
  else if (e < 0.1) std::snprintf(buf, sizeof buf, "%4.3f", e);
  else if (e < 1.0) std::snprintf(buf, sizeof buf, "%3.2f", e);
  else if (e < 10.0) std::snprintf(buf, sizeof buf, "%2.1f", e);
  else std::snprintf(buf, sizeof buf, "%2.0f", e);
  return buf;
}

std::string format_bitscore(double b) {
  char buf[64];
  if (b > 99999) std::snprintf(buf, sizeof buf, "%5.3e", b);
  else if (b > 99.9) std::snprintf(buf, sizeof buf, "%ld", long(b));
  else std::snprintf(buf, sizeof buf, "%4.1f", b);
  return buf;
}

std::string format_tabular(const TabularHit& h) {
  char buf[256];
  const double pident = h.length ? 100.0 * double(h.identities) / double(h.length) : 0.0;
  std::snprintf(buf, sizeof buf, "\t%.3f\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t", pident,
                (unsigned long long)h.length, (unsigned long long)(h.length - h.identities - h.gaps),
                (unsigned long long)h.gap_opens, (unsigned long long)h.q_start, (unsigned long long)h.q_end, (unsigned long long)h.s_start,
                (unsigned long long)h.s_end);
  return h.query + '\t' + h.subject + buf + format_evalue(h.evalue) + '\t' + format_bitscore(h.bits);
}

std::string tabular_header() {
  return "# qaccver\tsaccver\tpident\tlength\tmismatch\tgapopen\tqstart\tqend\tsstart\tsend\tevalue\tbitscore";
}

}  // namespace bloomseq
