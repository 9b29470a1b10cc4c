// A program outside the tools that runs a whole blast-bloom search through the library (run_search) and
// receives the HSPs as values instead of text: it prints, per query and subject, the number of HSPs and the best
// bit score, for the gapped alignments blast-bloom reports by default.
//
//   seed_counts QUERY.fa DATABASE.fa[.gz|.2bit] [word size (default 11)]
#include <bloomseq/bloomseq.hpp>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <utility>
#include <vector>

int main(int argc, char** argv) {
  if (argc < 3 || argc > 4) {
    std::fprintf(stderr, "usage: seed_counts QUERY.fa DATABASE.fa [word size]\n");
    return 64;
  }
  bloomseq::SearchRequest request;
  request.query = argv[1];
  request.db = argv[2];
  // blast-bloom's defaults, those of blastn -task blastn: gapped alignments, reward 2, penalty -3, gaps 5/2.
  request.params.w = argc == 4 ? std::atoi(argv[3]) : 11;
  request.params.gapped = true;
  request.params.reward = 2;
  request.params.penalty = -3;
  request.params.gap_open = 5;
  request.params.gap_extend = 2;
  request.output = "/dev/null";  // the tabular text is not needed: the HSPs come through on_hsps

  struct Summary {
    int hsps = 0;
    double best_bits = 0;
  };
  std::map<std::pair<std::string, std::string>, Summary> summary;
  bloomseq::SearchSinks sinks;
  sinks.log = nullptr;
  sinks.on_hsps = [&](const bloomseq::BlastSearch& search, const std::vector<bloomseq::Hsp>& hsps) {
    for (const bloomseq::Hsp& h : hsps) {
      Summary& s = summary[{search.queries().names[h.query], search.subject_names()[h.subject]}];
      ++s.hsps;
      if (h.bits > s.best_bits) s.best_bits = h.bits;
    }
  };
  try {
    request.params.validate();
    const bloomseq::SearchReport report = bloomseq::run_search(request, sinks);
    std::printf("query\tsubject\thsps\tbest_bits\n");
    for (const auto& [key, s] : summary)
      std::printf("%s\t%s\t%d\t%.1f\n", key.first.c_str(), key.second.c_str(), s.hsps, s.best_bits);
    std::fprintf(stderr, "seed_counts (bloomseq %s): %llu database w-mers tested, %llu HSPs\n", bloomseq::version(),
                 static_cast<unsigned long long>(report.stats.db_wmers),
                 static_cast<unsigned long long>(report.stats.hsps));
  } catch (const bloomseq::Error& e) {
    std::fprintf(stderr, "seed_counts: %s\n", e.what());
    return static_cast<int>(e.code());
  }
  return 0;
}
