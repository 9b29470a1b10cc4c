#include "bloomseq/model/cost_model.hpp"

#include <algorithm>
#include <cmath>

#include "bloomseq/error.hpp"
#include "bloomseq/model/equations.hpp"
#include "bloomseq/model/kernel_fit.hpp"

namespace bloomseq::model {

const char* to_string(Layout l) {
  switch (l) {
    case Layout::PaperVector: return "paper-vector";
    case Layout::Vector: return "vector";
    case Layout::BitSliced: return "bitsliced";
  }
  return "?";
}

Layout parse_layout(const std::string& s) {
  if (s == "paper" || s == "paper-vector") return Layout::PaperVector;
  if (s == "vector") return Layout::Vector;
  if (s == "bitsliced" || s == "bit-sliced") return Layout::BitSliced;
  throw UsageError("unknown layout '" + s + "' (paper-vector, vector, bitsliced)");
}

double cpu_vector_working_set(uint64_t m_bits, int k, int w) {
  return double(m_bits) / 8.0 + double(k) * double((2 * w + 7) / 8) * 256.0 * 4.0;
}

double cpu_paper_vector_fcache(uint64_t m_bits, int k, int w, const DeviceProfile& d, double G_l1) {
  double ws = cpu_vector_working_set(m_bits, k, w);
  double l1 = double(d.cache_size(1));
  if (l1 <= 0 || indicator_ac(ws, l1)) return 1.0;
  if (d.shared_per_mp == 0 || indicator_ac(ws, double(d.shared_per_mp))) return f_cache(ws, l1, G_l1);
  // Beyond L2: the multi-level factor relative to L2, on top of the L1->L2 step.
  return G_l1 * std::max(1.0, f_cache_levels(ws, d.caches) / std::max(1.0, f_cache_levels(double(d.shared_per_mp) * 0.99, d.caches)));
}

namespace {
// Expected exact matches between random sequences: both strands (canonical keys) of D_w x Q_w pairs at 4^-w.
double random_true_hits(double dw, double qw, int w) { return 2.0 * dw * qw * std::pow(0.25, std::min(w, 32)); }

double cpu_cores_used(const Stage1aConfig& c, const DeviceProfile& d) {
  int p = d.parallel_units();
  if (c.threads > 0) p = std::min(p, c.threads);
  return std::max(1, p);
}
}  // namespace

// Stage-1a time and FPR of one configuration. Kept as one function: it is the model's equations in the papers'
// order (FPR, then per layout and device the memory and compute terms, then transfers and stage 1b), each branch
// a short formula whose comment cites its equation; a function per branch would scatter one page of algebra.
Prediction predict_stage1a(const Stage1aConfig& c, const DeviceProfile& d, const Calibration& cal) {
  Prediction r;
  if (c.n_sub < uint64_t(c.w) || c.k <= 0 || c.m_bits == 0 || c.w <= 0) {
    r.note = "invalid: n_sub < w, k = 0 or m = 0";
    return r;
  }
  double ne = double(keys_per_subquery(c.n_sub, c.w));
  r.subqueries = double(subquery_count(c.query_bases, c.n_sub, c.w));
  r.db_wmers = double(wmer_count(c.db_bases, c.w));
  r.tests = r.db_wmers * r.subqueries;
  r.fill = bloom_fill(double(c.m_bits), c.k, ne);
  r.fpr = bloom_fpr(double(c.m_bits), c.k, ne);
  r.true_hits = random_true_hits(r.db_wmers, double(wmer_count(c.query_bases, c.w)), c.w);
  r.false_hits = std::max(0.0, r.tests - r.true_hits) * r.fpr;
  const double V = r.subqueries, Dw = r.db_wmers;

  if (d.kind == DeviceKind::Gpu) {
    const LaunchConfig& L = c.launch;
    if (!L.valid || L.active_blocks <= 0) {
      r.note = "invalid launch configuration: " + L.reason;
      return r;
    }
    if (c.layout == Layout::BitSliced) {
      // Global-memory bit-sliced matrix: k row reads of ceil(V/8) bytes per db w-mer, bandwidth-bound.
      double row_bytes = std::ceil(V / 8.0);
      double matrix = row_bytes * double(c.m_bits);
      double fc = f_cache(matrix, double(d.l2_bytes), cal.G);
      double bytes = Dw * c.k * std::max(32.0, row_bytes);  // at least one 32-byte sector per row
      r.f_app = Dw * c.k;
      r.f_cache = fc;
      r.f_sched = L.f_sched;
      // All misses: bytes / bandwidth; hits are G times cheaper, so time = bytes / (bw G) x f_cache (eq. 11).
      r.stage1a_s = bytes / (d.mem_bandwidth_gbs * 1e9 * cal.G) * fc * L.f_sched + cal.a0;
    } else {
      // Eq. 19 / 5.24: Time = a1 k (Q/n_sub) D f_sched + a0 (vectors in shared memory: A_C true, f_cache = 1).
      r.f_app = double(c.k) * V * Dw;
      r.f_cache = 1.0;
      r.f_sched = L.f_sched;
      r.stage1a_s = model_time(cal.a1, cal.a0, r.f_app, r.f_cache, r.f_sched);
    }
    // Transfers: the 2-bit database in, hits out (8 bytes each). With >= 2 streams they overlap the kernel.
    double bytes_in = double(c.db_bases) / 4.0, bytes_out = (r.false_hits + r.true_hits) * 8.0;
    double copy = (bytes_in + bytes_out) / (cal.pcie_gbs * 1e9);
    double chunks = c.batch_bases ? std::ceil(double(c.db_bases) / double(c.batch_bases)) : 1.0;
    if (c.streams >= 2 && chunks > 1) r.transfer_s = copy / chunks;  // only the first chunk's copy is exposed
    else r.transfer_s = copy;
    // Stage 1b runs on the host (one thread per core of a typical host: the calibration's verify_ns is per hit).
    r.stage1b_s = (r.false_hits + r.true_hits) * cal.verify_ns * 1e-9;
    r.total_s = r.stage1a_s + r.transfer_s + r.stage1b_s;
  } else {
    double P = cpu_cores_used(c, d);
    int U = c.work_units > 0 ? c.work_units : int(P);
    // Vector layouts cut the V vectors into U slices; the bit-sliced layout cuts the database (fine-grained).
    r.f_sched = c.layout == Layout::BitSliced ? f_sched_cpu(U, int(P), 1) : f_sched_split(uint64_t(V), U, int(P));
    // The CPU layouts are priced by the coefficients fitted on their own kernel when the profile has them.
    const KernelCoefficients kc =
        c.layout == Layout::PaperVector ? KernelCoefficients{} : layout_coefficients(cal, c.layout);
    switch (c.layout) {
      case Layout::PaperVector: {
        // Eq. 7 with the CPU mapping: Time = a1 (f_app / P) f_cache f_sched + a0; a1 per core.
        r.f_app = double(c.k) * V * Dw;
        r.f_cache = cpu_paper_vector_fcache(c.m_bits, c.k, c.w, d, cal.G_l1);
        r.stage1a_s = model_time(cal.a1, cal.a0, r.f_app / P, r.f_cache, r.f_sched);
        break;
      }
      case Layout::Vector: {
        // Per db w-mer and chunk: k hashes. Per test: E[probes] probes (early exit) priced by the vector's cache
        // level, and E[mispredicts] branch mispredictions — each vector at its own fill (the last sub-query is
        // short). Measured: docs/model-validation.md, part D.
        const SubqueryShape sh = subquery_shape(c.query_bases, c.n_sub, c.w);
        const double full = sh.count ? double(sh.count - 1) : 0.0;
        const double rf = bloom_fill(double(c.m_bits), c.k, double(sh.keys));
        const double rl = bloom_fill(double(c.m_bits), c.k, double(sh.last_keys));
        const double last = sh.count ? 1.0 : 0.0;
        const double probes = full * expected_probes(rf, c.k) + last * expected_probes(rl, c.k);
        const double mispredicts = full * expected_mispredicts(rf, c.k) + last * expected_mispredicts(rl, c.k);
        r.f_cache = f_cache_levels(double(c.m_bits) / 8.0, d.caches);
        r.f_app = Dw * probes;
        double ns = Dw * c.k * kc.hash_ns + r.f_app * kc.probe_ns * r.f_cache + Dw * mispredicts * kc.mispredict_ns;
        r.stage1a_s = ns * 1e-9 / P * r.f_sched + kc.a0;
        break;
      }
      case Layout::BitSliced: {
        // Rows padded to 512-column blocks (64-byte lines); the kernel walks block by block, so the lines one block
        // reads are spread over m x 64 bytes. Per db w-mer and block: a fixed cost and the row lines actually read
        // (early exit, bitsliced_rows_per_block); a line costs 64 row bytes, plus row_miss for the share of random
        // reads in m x 64 bytes that the caches cannot hold (eq. 9 per level, DRAM's share).
        const SubqueryShape sh = subquery_shape(c.query_bases, c.n_sub, c.w);
        const double rf = bloom_fill(double(c.m_bits), c.k, double(sh.keys));
        const double rl = bloom_fill(double(c.m_bits), c.k, double(sh.last_keys));
        if (sh.count <= 256) {
          // Narrow rows (blast/stage1a_cpu.cpp, bitsliced_narrow): W = 1, 2 or 4 words per row, one line; per w-mer
          // its row pointers come from a small ring (no pointer stream), all k row lines are prefetched and all k
          // rows' W words ANDed (no early exit). Each row read costs one line access, whatever W; the k lines of a
          // w-mer are requested together a few w-mers ahead, and up to the planner's 256 Kbit (8 MB of rows) the
          // measured times show no DRAM term (docs/model-validation.md, D4), so none is charged.
          const double lines = double(c.k);
          r.f_app = Dw * lines;
          r.f_cache = 1.0;
          const double hash = bitsliced_fixed_k_hash(c.k) ? kc.hash_ns : kc.hash_generic_ns;
          double ns = Dw * c.k * hash + Dw * kc.narrow_fixed_ns + r.f_app * kc.narrow_row_ns;
          r.stage1a_s = ns * 1e-9 / P * r.f_sched + kc.a0;
          break;
        }
        const uint64_t blocks = (sh.count + 511) / 512;
        // The AVX2 and AVX-512 kernels (profiles store the SIMD width) are column-tiled and read all k rows once
        // the first two agree; the scalar kernel exits row by row.
        const bool all_after_two = d.simd_bits >= 256;
        double lines = 0, mispredicts = 0;
        for (uint64_t b = 0; b < blocks; ++b) {
          const uint64_t cols = std::min<uint64_t>(512, sh.count - b * 512);
          const bool last = b + 1 == blocks;
          const double full = double(last ? cols - 1 : cols), short_cols = last ? 1.0 : 0.0;
          lines += bitsliced_rows_per_block(rf, full, rl, short_cols, c.k, all_after_two);
          mispredicts += bitsliced_block_mispredicts(rf, full, rl, short_cols, c.k, all_after_two);
        }
        // The SIMD kernels are column-tiled (one block for all the chunk's w-mers, then the next): their lines are
        // spread over m x 64 bytes, and each block pass re-streams the chunk's row pointers (k x 8 bytes per
        // w-mer). The scalar kernel walks all blocks of one w-mer's rows: the whole matrix (m x 64 x blocks bytes)
        // is the working set, the pointers are read once.
        const double ws = double(c.m_bits) * 64.0 * double(all_after_two ? 1 : blocks);
        const double pointer_passes = all_after_two ? double(blocks) : 1.0;
        const std::vector<double> share = level_fractions(ws, caches_with_llc(d.caches, kc.llc_bytes));
        const double dram = d.caches.size() > 1 ? share.back() : 0.0;
        // DRAM misses: a random one per row line for the column-tiled kernel; the per-w-mer kernels read a row's
        // lines one after the other (consecutive addresses), so one random miss per row touched — row j is touched
        // while any block is alive after j rows.
        const double misses =
            all_after_two ? lines : bitsliced_rows_per_block(rf, double(sh.count - 1), rl, 1.0, c.k, false);
        // A one-block matrix is the same lines for every database chunk and keeps more of them in the shared cache
        // than one capacity predicts; several blocks, one pass each, evict each other (docs/model-validation.md, D4).
        const double miss_ns = blocks == 1 ? kc.row_miss_single_ns : kc.row_miss_ns;
        r.f_app = Dw * lines;
        r.f_cache = kc.row_byte_ns > 0 ? 1.0 + dram * misses * miss_ns / (lines * 64.0 * kc.row_byte_ns) : 1.0;
        const double hash = bitsliced_fixed_k_hash(c.k) ? kc.hash_ns : kc.hash_generic_ns;
        double ns = Dw * c.k * hash + Dw * double(blocks) * kc.row_fixed_ns + Dw * pointer_passes * 8.0 * c.k * kc.row_byte_ns +
                    r.f_app * 64.0 * kc.row_byte_ns + Dw * misses * dram * miss_ns +
                    Dw * mispredicts * kc.mispredict_ns;
        r.stage1a_s = ns * 1e-9 / P * r.f_sched + kc.a0;
        break;
      }
    }
    // blast-bloom's CPU layouts write every hit out and sort a chunk's hits (the papers' kernel only counts them):
    // at high FPR this, not the probing, is stage 1a's cost (measured: docs/model-validation.md, part D).
    if (c.layout != Layout::PaperVector) r.stage1a_s += (r.false_hits + r.true_hits) * kc.hit_ns * 1e-9 / P;
    r.stage1b_s = (r.false_hits + r.true_hits) * cal.verify_ns * 1e-9 / P;
    r.total_s = r.stage1a_s + r.stage1b_s;
  }
  r.tests_per_s = r.stage1a_s > 0 ? r.tests / r.stage1a_s : 0;
  r.wmers_per_s = throughput(Dw, r.total_s);
  r.valid = true;
  return r;
}

FacsPrediction predict_facs(const FacsConfig& c, uint64_t n_keys, const DeviceProfile& d, const Calibration& cal) {
  FacsPrediction r;
  if (c.m_bits == 0 || c.k <= 0) return r;
  r.fpr_per_kmer = bloom_fpr(double(c.m_bits), c.k, double(n_keys));
  double kmers = double(c.reads) * double(wmer_count(c.read_len, c.w));
  double ws = double(c.m_bits) / 8.0;
  if (d.kind == DeviceKind::Gpu) {
    const LaunchConfig& L = c.launch;
    if (!L.valid || L.active_blocks <= 0) return r;
    // Eq. 22-23: f_app = k D / (B_a MP) with D counted in k-mers; the cache is L1 (C) as in the paper.
    r.f_app = f_app_facs(c.k, kmers, L.active_blocks, d.mp);
    r.f_cache = f_cache(ws, double(d.cache_bytes), cal.G);
    r.f_sched = L.f_sched;
    // a1 is per hash-and-probe for the whole device at full residency; per block slot it is a1 x B_max.
    r.time_s = model_time(cal.a1 * d.max_blocks_total, cal.a0, r.f_app, r.f_cache, r.f_sched);
  } else {
    double P = c.threads > 0 ? std::min(c.threads, d.parallel_units()) : d.parallel_units();
    double fill = bloom_fill(double(c.m_bits), c.k, double(n_keys));
    r.f_app = kmers * expected_probes(fill, c.k);
    r.f_cache = f_cache_levels(ws, d.caches);
    r.f_sched = 1;
    r.time_s = (kmers * c.k * cal.hash_ns + r.f_app * cal.probe_ns * r.f_cache) * 1e-9 / P + cal.a0;
  }
  r.reads_per_s = throughput(double(c.reads), r.time_s);
  r.valid = true;
  return r;
}

}  // namespace bloomseq::model
