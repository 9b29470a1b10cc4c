// Where the vector layout overtakes the bit-sliced one: stage-1a CPU time per database w-mer of both layouts for a
// growing number of sub-queries V (the first V x n_sub bases of the query), one thread, repeats alternated and the
// median taken, next to the layout `--layout auto` picks (the cost model with this machine's caches). Prints a table
// and writes CSV.
//
// Usage: blast_layout_crossover QUERY.fa DB.fa [--n-sub 8000] [-k 6] [-m 262144] [-w 11] [--db-bases 4000000]
//        [--repeats 3] [--csv FILE]
#include <ctime>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bloomseq/blast/database.hpp"
#include "bloomseq/blast/pipeline.hpp"
#include "bloomseq/blast/stage1a_cpu.hpp"
#include "bloomseq/io/sequence_reader.hpp"

using namespace bloomseq;

namespace {

double cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

// CPU seconds of one stage-1a pass of `layout` over the chunks; the hit count into `hits`.
double run(Stage1aLayout layout, const SubqueryFilters& f, const std::vector<DbChunk>& chunks, uint64_t& wmers,
           uint64_t& hits) {
  const SubqueryVectors vec = f.vectors();
  const BitslicedMatrix mat = f.bitsliced();
  std::vector<Stage1aHit> h;
  wmers = hits = 0;
  const double c0 = cpu_seconds();
  for (const DbChunk& c : chunks) {
    h.clear();
    wmers += layout == Stage1aLayout::vector ? stage1a_vector_layout(vec, c, h) : stage1a_bitsliced(mat, c, h);
    hits += h.size();
  }
  return cpu_seconds() - c0;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s QUERY.fa DB.fa [--n-sub N] [-k K] [-m BITS] [-w W] [--db-bases N] [--repeats R] [--csv FILE]\n", argv[0]);
    return 64;
  }
  BlastParams p;
  p.n_sub = 8000;
  p.k = 6;
  p.m_bits = 256 * 1024;
  uint64_t db_bases = 4000000;
  int repeats = 3;
  std::string csv_path = "blast_layout_crossover.csv";
  for (int i = 3; i + 1 < argc; i += 2) {
    const std::string a = argv[i], v = argv[i + 1];
    if (a == "--n-sub") p.n_sub = std::strtoull(v.c_str(), nullptr, 10);
    else if (a == "-k") p.k = std::atoi(v.c_str());
    else if (a == "-m") p.m_bits = std::strtoull(v.c_str(), nullptr, 10);
    else if (a == "-w") p.w = std::atoi(v.c_str());
    else if (a == "--db-bases") db_bases = std::strtoull(v.c_str(), nullptr, 10);
    else if (a == "--repeats") repeats = std::max(1, std::atoi(v.c_str()));
    else if (a == "--csv") csv_path = v;
    else { std::fprintf(stderr, "unknown option %s\n", a.c_str()); return 64; }
  }
  std::string query;
  for (const auto& r : read_all_sequences(argv[1])) query += r.seq;
  DbBatch batch;
  for (const auto& r : read_all_sequences(argv[2])) {
    if (batch.codes.size() >= db_bases) break;
    batch.add_record(r.name, r.seq.substr(0, db_bases - batch.codes.size()));
  }
  const std::vector<DbChunk> chunks = chunk_batch(batch, 1 << 16, p.w);
  std::printf("stage-1a layout crossover: n_sub %llu, w %d, k %d, m %llu bits, db %zu bases, bit-sliced SIMD: %s\n",
              (unsigned long long)p.n_sub, p.w, p.k, (unsigned long long)p.m_bits, batch.codes.size(), bitsliced_isa());
  FILE* csv = std::fopen(csv_path.c_str(), "w");
  if (csv) std::fprintf(csv, "subqueries,m_bits,k,vector_ns_per_wmer,bitsliced_ns_per_wmer,faster,auto_layout\n");
  std::printf("\n%5s %14s %14s %10s %10s %8s\n", "V", "vector ns/w", "bitsliced ns/w", "faster", "auto", "agree");
  for (uint64_t V : {1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 128, 256, 512}) {
    const uint64_t need = V * (p.n_sub - uint64_t(p.w) + 1) + uint64_t(p.w) - 1;
    if (need > query.size()) break;
    QuerySet q;
    q.add("q", query.substr(0, need));
    const SubqueryFilters f(q.codes, p, true, true);
    std::vector<double> tv, tb;
    uint64_t wv = 0, hv = 0, wb = 0, hb = 0;
    for (int r = 0; r < repeats; ++r) {
      tv.push_back(run(Stage1aLayout::vector, f, chunks, wv, hv));
      tb.push_back(run(Stage1aLayout::bitsliced, f, chunks, wb, hb));
    }
    if (hv != hb || wv != wb) {
      std::fprintf(stderr, "layouts disagree at V = %llu\n", (unsigned long long)V);
      return 1;
    }
    const double nv = median(tv) * 1e9 / double(wv), nb = median(tb) * 1e9 / double(wb);
    const Stage1aLayout a = resolve_layout(Stage1aLayout::automatic, LayoutShape{need, p.n_sub, p.m_bits, p.k, p.w});
    const char* faster = nv < nb ? "vector" : "bitsliced";
    std::printf("%5llu %14.2f %14.2f %10s %10s %8s\n", (unsigned long long)V, nv, nb, faster, layout_name(a),
                std::string(faster) == layout_name(a) ? "yes" : "no");
    if (csv)
      std::fprintf(csv, "%llu,%llu,%d,%.3f,%.3f,%s,%s\n", (unsigned long long)V, (unsigned long long)p.m_bits, p.k,
                   nv, nb, faster, layout_name(a));
  }
  if (csv) std::fclose(csv);
  std::printf("\nCSV: %s\n", csv_path.c_str());
  return 0;
}
