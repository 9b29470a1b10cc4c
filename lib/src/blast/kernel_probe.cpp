#include "bloomseq/blast/kernel_probe.hpp"

#include <ctime>

#include <algorithm>
#include <string>

#include "bloomseq/blast/database.hpp"
#include "bloomseq/blast/params.hpp"
#include "bloomseq/blast/stage1a_cpu.hpp"
#include "bloomseq/blast/subquery_vectors.hpp"
#include "bloomseq/hash/h3.hpp"

namespace bloomseq {

namespace {
double thread_cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

std::string random_dna(uint64_t n, SplitMix64& rng) {
  static const char kBases[] = "ACGT";
  std::string s(n, 'A');
  for (uint64_t i = 0; i < n; i += 32) {
    uint64_t r = rng.next();
    for (uint64_t j = i; j < std::min(n, i + 32); ++j, r >>= 2) s[j] = kBases[r & 3];
  }
  return s;
}
}  // namespace

KernelProbeOptions quick_kernel_probe() {
  KernelProbeOptions o;
  o.ks = {4, 6, 10};
  o.ms = {65536, 262144};
  o.vector_query_bases = 60000;
  o.vector_nsubs = {5000, 12000, 30000};
  o.bitsliced_query_bases = 200000;
  o.bitsliced_nsubs = {150, 300, 500, 1000};  // 3 and 2 blocks, one block, narrow rows
  o.db_bases = 65536;
  o.passes = 1;
  o.min_ms = 2;
  return o;
}

std::vector<model::KernelSample> run_kernel_probe(const KernelProbeOptions& o) {
  SplitMix64 rng(o.seed);
  struct Point {
    model::KernelSample s;
    const std::vector<std::vector<uint8_t>>* query;
  };
  std::vector<std::vector<uint8_t>> vq(1), bq(1);
  {
    DbBatch b;  // DbBatch::add_record gives the pipeline's 2-bit codes
    b.add_record("v", random_dna(o.vector_query_bases, rng));
    vq[0].assign(b.codes.begin(), b.codes.begin() + int64_t(o.vector_query_bases));
    b.clear();
    b.add_record("b", random_dna(o.bitsliced_query_bases, rng));
    bq[0].assign(b.codes.begin(), b.codes.begin() + int64_t(o.bitsliced_query_bases));
  }
  DbBatch db;
  db.add_record("db", random_dna(o.db_bases, rng));
  const std::vector<DbChunk> chunks = chunk_batch(db, o.chunk_bases, o.w);

  std::vector<Point> pts;
  for (model::Layout l : {model::Layout::Vector, model::Layout::BitSliced}) {
    const bool vec = l == model::Layout::Vector;
    for (uint64_t m : o.ms)
      for (int k : o.ks)
        for (uint64_t n : vec ? o.vector_nsubs : o.bitsliced_nsubs) {
          Point p;
          p.s.layout = l;
          p.s.w = o.w;
          p.s.k = k;
          p.s.m_bits = m;
          p.s.n_sub = n;
          p.s.query_bases = vec ? o.vector_query_bases : o.bitsliced_query_bases;
          p.s.db_bases = o.db_bases;
          p.s.work_units = int(chunks.size());
          p.s.threads = 1;
          p.s.measured_s = 1e30;
          p.query = vec ? &vq : &bq;
          pts.push_back(p);
        }
  }
  // A shared machine's busy moments fall on different points in each pass: keep each point's fastest run.
  std::vector<size_t> order(pts.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::vector<Stage1aHit> hits;
  for (int pass = 0; pass < std::max(1, o.passes); ++pass) {
    for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.next() % i]);
    for (size_t idx : order) {
      model::KernelSample& s = pts[idx].s;
      const bool vec = s.layout == model::Layout::Vector;
      BlastParams p;
      p.w = s.w;
      p.k = s.k;
      p.m_bits = s.m_bits;
      p.n_sub = s.n_sub;
      p.threads = 1;
      const SubqueryFilters f(*pts[idx].query, p, vec, !vec);
      const SubqueryVectors vectors = vec ? f.vectors() : SubqueryVectors{};
      const BitslicedMatrix matrix = vec ? BitslicedMatrix{} : f.bitsliced();
      for (int rep = 0; rep < 2; ++rep) {
        int rounds = 0;
        const double t0 = thread_cpu_seconds();
        double t = 0;
        do {
          for (const DbChunk& c : chunks) {
            hits.clear();
            if (vec) stage1a_vector_layout(vectors, c, hits);
            else stage1a_bitsliced(matrix, c, hits);
          }
          ++rounds;
          t = thread_cpu_seconds() - t0;
        } while (t * 1e3 < o.min_ms);
        s.measured_s = std::min(s.measured_s, t / rounds);
      }
    }
    if (o.log) *o.log << "kernel probe: pass " << pass + 1 << "/" << std::max(1, o.passes) << " (" << pts.size() << " points)\n";
  }
  std::vector<model::KernelSample> out;
  for (const Point& p : pts) out.push_back(p.s);
  return out;
}

std::vector<model::KernelSample> kernel_probe_for_calibration(bool quick, std::ostream* log) {
  KernelProbeOptions o = quick ? quick_kernel_probe() : KernelProbeOptions{};
  o.log = log;
  return run_kernel_probe(o);
}

}  // namespace bloomseq
