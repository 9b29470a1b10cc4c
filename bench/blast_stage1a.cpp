// Stage-1a throughput of the three CPU layouts (bit-sliced, vector-by-vector, the papers' kernel, paper-vector) on real
// sequences, 1..T threads, side by side in one run. Prints a table and writes CSV. Membership tests = valid db
// w-mers x sub-query vectors. Rates are given per wall second and per CPU second of the process (the machine may
// be shared: CPU seconds are the fairer per-core figure). Each layout gets a db slice sized to run ~1-3 s; all
// three are checked to return identical hits on a common slice.
//
// Usage: blast_stage1a QUERY.fa DB.fa [--n-sub 1000] [-k 6] [-m 262144] [-w 11] [--threads 2] [--csv FILE]
#include <ctime>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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

struct Result {
  uint64_t wmers = 0, hits = 0;
  double wall = 0, cpu = 0;
};

Result run(Stage1aLayout layout, const SubqueryFilters& f, const DbBatch& batch, uint64_t max_bases, int threads,
           int w, std::vector<Stage1aHit>* keep) {
  std::vector<DbChunk> chunks = chunk_batch(batch, 1 << 16, w);
  // Keep only the chunks covering the first max_bases bases.
  uint64_t bases = 0;
  size_t n = 0;
  while (n < chunks.size() && bases < max_bases) bases += chunks[n++].n_starts;
  chunks.resize(n);
  std::vector<std::vector<Stage1aHit>> hits(chunks.size());
  std::vector<uint64_t> wmers(chunks.size(), 0);
  const SubqueryVectors vec = f.vectors();
  const BitslicedMatrix mat = f.bitsliced();
  const double c0 = cpu_seconds();
  const auto t0 = std::chrono::steady_clock::now();
  parallel_for(chunks.size(), threads, [&](size_t i) {
    switch (layout) {
      case Stage1aLayout::bitsliced: wmers[i] = stage1a_bitsliced(mat, chunks[i], hits[i]); break;
      case Stage1aLayout::vector: wmers[i] = stage1a_vector_layout(vec, chunks[i], hits[i]); break;
      default: wmers[i] = stage1a_paper_vector(vec, chunks[i], hits[i]); break;
    }
  });
  Result r;
  r.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.cpu = cpu_seconds() - c0;
  for (size_t i = 0; i < chunks.size(); ++i) {
    r.wmers += wmers[i];
    r.hits += hits[i].size();
    if (keep) keep->insert(keep->end(), hits[i].begin(), hits[i].end());
  }
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s QUERY.fa DB.fa [--n-sub N] [-k K] [-m BITS] [-w W] [--threads T] [--csv FILE] [--isa avx512|avx2|scalar]\n", argv[0]);
    return 64;
  }
  BlastParams p;
  p.n_sub = 1000;
  p.k = 6;
  p.m_bits = 256 * 1024;
  int max_threads = 2;
  std::string csv_path = "blast_stage1a.csv";
  for (int i = 3; i + 1 < argc; i += 2) {
    const std::string a = argv[i], v = argv[i + 1];
    if (a == "--n-sub") p.n_sub = std::strtoull(v.c_str(), nullptr, 10);
    else if (a == "-k") p.k = std::atoi(v.c_str());
    else if (a == "-m") p.m_bits = std::strtoull(v.c_str(), nullptr, 10);
    else if (a == "-w") p.w = std::atoi(v.c_str());
    else if (a == "--threads") max_threads = std::atoi(v.c_str());
    else if (a == "--csv") csv_path = v;
    else if (a == "--isa") {
      if (!force_bitsliced_isa(v.c_str())) { std::fprintf(stderr, "this CPU lacks %s\n", v.c_str()); return 64; }
    }
    else { std::fprintf(stderr, "unknown option %s\n", a.c_str()); return 64; }
  }
  QuerySet q;
  for (const auto& r : read_all_sequences(argv[1])) q.add(r.name, r.seq);
  DbBatch batch;
  for (const auto& r : read_all_sequences(argv[2])) batch.add_record(r.name, r.seq);
  p.threads = max_threads;
  const auto tb = std::chrono::steady_clock::now();
  const SubqueryFilters f(q.codes, p, true, true);
  const double build = std::chrono::duration<double>(std::chrono::steady_clock::now() - tb).count();
  const uint32_t V = f.count();
  std::printf("stage 1a: %u sub-queries (n_sub %llu, w %d, k %d, m %llu bits), db %zu bases, bit-sliced SIMD: %s, "
              "build %.2f s (%d threads)\n",
              V, (unsigned long long)p.n_sub, p.w, p.k, (unsigned long long)p.m_bits, batch.codes.size(),
              bitsliced_isa(), build, max_threads);

  // Identical hits on a common slice.
  const uint64_t common = 20000;
  std::vector<Stage1aHit> a, b, c;
  run(Stage1aLayout::bitsliced, f, batch, common, 1, p.w, &a);
  run(Stage1aLayout::vector, f, batch, common, 1, p.w, &b);
  run(Stage1aLayout::paper_vector, f, batch, common, 1, p.w, &c);
  const bool identical = a == b && b == c;
  std::printf("identical hits on the first %llu db bases: %s (%zu hits)\n", (unsigned long long)common,
              identical ? "yes" : "NO", a.size());

  struct Row {
    const char* layout;
    Stage1aLayout l;
    uint64_t bases;
  };
  // Slices sized for roughly a second or two each on one core of the reference machine.
  const uint64_t db = batch.codes.size();
  const Row rows[] = {{"bitsliced", Stage1aLayout::bitsliced, db},
                      {"vector", Stage1aLayout::vector, std::min<uint64_t>(db, 1 << 18)},
                      {"paper-vector", Stage1aLayout::paper_vector, std::min<uint64_t>(db, 1 << 14)}};
  FILE* csv = std::fopen(csv_path.c_str(), "w");
  if (csv)
    std::fprintf(csv, "layout,threads,subqueries,db_wmers,membership_tests,wall_s,cpu_s,tests_per_s,"
                      "tests_per_s_per_core_wall,tests_per_cpu_s,hits\n");
  std::printf("\n%-10s %7s %12s %14s %8s %8s %12s %14s %14s\n", "layout", "threads", "db w-mers", "tests", "wall s",
              "cpu s", "tests/s", "tests/s/core", "tests/cpu-s");
  for (const Row& r : rows)
    for (int t = 1; t <= max_threads; ++t) {
      const Result res = run(r.l, f, batch, r.bases, t, p.w, nullptr);
      const double tests = double(res.wmers) * double(V);
      std::printf("%-10s %7d %12llu %14.4g %8.3f %8.3f %12.4g %14.4g %14.4g\n", r.layout, t,
                  (unsigned long long)res.wmers, tests, res.wall, res.cpu, tests / res.wall, tests / res.wall / t,
                  tests / res.cpu);
      if (csv)
        std::fprintf(csv, "%s,%d,%u,%llu,%.0f,%.4f,%.4f,%.6g,%.6g,%.6g,%llu\n", r.layout, t, V,
                     (unsigned long long)res.wmers, tests, res.wall, res.cpu, tests / res.wall, tests / res.wall / t,
                     tests / res.cpu, (unsigned long long)res.hits);
    }
  if (csv) std::fclose(csv);
  std::printf("\nCSV: %s\n", csv_path.c_str());
  return identical ? 0 : 1;
}
