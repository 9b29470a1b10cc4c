// Exact-k-mer reference for the facs benchmark: scores reads with the same FACS rule as `facs classify` but
// with exact k-mer sets instead of Bloom filters, so the calls it makes reflect sequence really shared with the
// references (no false positives). Prints, per truth label (read name up to the first '.'), how many reads it
// calls to some reference, as TSV.
// Usage: facs_exact W THRESHOLD ERROR_RATE READS.fq NAME=REF.fa [NAME=REF.fa ...]
//   THRESHOLD 0: the error model's threshold per read length for ERROR_RATE (facs classify's default).
#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "bloomseq/encode/dna.hpp"
#include "bloomseq/error.hpp"
#include "bloomseq/facs/error_model.hpp"
#include "bloomseq/facs/filter_builder.hpp"
#include "bloomseq/facs/read_scorer.hpp"
#include "bloomseq/io/sequence_reader.hpp"

using namespace bloomseq;

int main(int argc, char** argv) {
  if (argc < 6) {
    std::fprintf(stderr, "usage: facs_exact W THRESHOLD ERROR_RATE READS.fq NAME=REF.fa [NAME=REF.fa ...]\n");
    return 64;
  }
  try {
    const int w = std::stoi(argv[1]);
    const FacsErrorModel model(w, std::stod(argv[3]), std::stod(argv[2]));
    std::vector<std::string> names;
    std::vector<std::vector<uint64_t>> sets;
    for (int i = 5; i < argc; ++i) {
      const std::string a = argv[i];
      const size_t eq = a.find('=');
      if (eq == std::string::npos) throw UsageError("expected NAME=REF.fa, got " + a);
      names.push_back(a.substr(0, eq));
      std::vector<std::string_view> seqs;
      const auto recs = read_all_sequences(a.substr(eq + 1));
      for (const auto& r : recs) seqs.push_back(r.seq);
      sets.push_back(distinct_canonical_wmers(seqs, w));
    }
    std::map<std::string, std::vector<uint64_t>> counts;  // label -> [total, called, per ref...]
    SequenceReader reader(argv[4]);
    SequenceRecord rec;
    std::vector<uint8_t> state;
    while (reader.next(rec)) {
      const std::string label = rec.name.substr(0, rec.name.find('.'));
      auto& c = counts[label];
      if (c.empty()) c.assign(2 + names.size(), 0);
      ++c[0];
      const int L = int(rec.seq.size()), F = L - w + 1;
      std::vector<uint8_t> hit(size_t(std::max(F, 0)), 0), valid(hit.size(), 0);
      std::vector<uint64_t> keys(hit.size());
      WmerRoller roller(w);
      FacsErrorModel::Uncoverable uncoverable(w);
      for (int i = 0; i < L; ++i) uncoverable.push(base_code(rec.seq[size_t(i)]) < 4);
      const int32_t need = model.min_covered(L, uncoverable.finish());
      for (int i = 0; i < L; ++i)
        if (roller.push(base_code(rec.seq[size_t(i)]))) {
          keys[size_t(i + 1 - w)] = canonical_wmer(roller.fwd, roller.rc);
          valid[size_t(i + 1 - w)] = 1;
        }
      int best = -1, best_points = -1;
      bool any = false;
      for (size_t j = 0; j < sets.size(); ++j) {
        state.assign(hit.size() + 1, kFrameUnknown);
        for (size_t f = 0; f < hit.size(); ++f) if (!valid[f]) state[f] = kFrameMiss;
        FacsScorer s;
        s.start(L, w, model.quick_density(L));
        for (int f; (f = s.next(state.data())) >= 0;)
          s.feed(state.data(), f, std::binary_search(sets[j].begin(), sets[j].end(), keys[size_t(f)]));
        if (s.covered > 0 && s.covered >= need) {
          any = true;
          if (s.covered > best_points) best_points = s.covered, best = int(j);
        }
      }
      if (any) {
        ++c[1];
        ++c[2 + size_t(best)];
      }
    }
    std::printf("#label\treads\tcalled_exact");
    for (const auto& n : names) std::printf("\t%s", n.c_str());
    std::printf("\n");
    for (const auto& [label, c] : counts) {
      std::printf("%s", label.c_str());
      for (uint64_t v : c) std::printf("\t%llu", (unsigned long long)v);
      std::printf("\n");
    }
  } catch (const Error& e) {
    std::fprintf(stderr, "facs_exact: error: %s\n", e.what());
    return int(e.code());
  }
  return 0;
}
