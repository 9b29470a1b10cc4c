#include "bloomseq/model/microkernel.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <ctime>
#include <numeric>
#include <thread>

#include "bloomseq/bloom/bloom_view.hpp"
#include "bloomseq/hash/h3.hpp"

namespace bloomseq::model {

namespace {
using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

// Runs work units 0..units-1 on `threads` threads, unit u on thread u mod threads.
template <class F>
UnitTiming run_units(int units, int threads, F&& unit) {
  threads = std::max(1, std::min(threads, units));
  std::vector<double> cpu(size_t(threads), 0.0);
  auto worker = [&](int t) {
    double c0 = thread_cpu_seconds();
    for (int u = t; u < units; u += threads) unit(u);
    cpu[size_t(t)] = thread_cpu_seconds() - c0;
  };
  auto t0 = Clock::now();
  std::vector<std::thread> ts;
  for (int t = 1; t < threads; ++t) ts.emplace_back(worker, t);
  worker(0);
  for (auto& t : ts) t.join();
  UnitTiming r;
  r.wall_s = seconds_since(t0);
  r.critical_cpu_s = *std::max_element(cpu.begin(), cpu.end());
  return r;
}
}  // namespace

namespace {
// kCollect: append hits (a data-dependent branch, as the GPU's atomic append); otherwise count without branching so
// the timing measures hashing and probing only.
template <bool kCollect>
uint64_t paper_vector_impl(const SubqueryVectors& sv, const uint64_t* keys, uint64_t n, uint32_t v0, uint32_t v1,
                           std::vector<Stage1aHit>* hits) {
  uint64_t count = 0;
  const int k = sv.k;
  for (uint32_t v = v0; v < v1 && v < sv.count; ++v) {
    ConstBloomView vec{sv.words + uint64_t(v) * sv.words_per_vector, sv.m_bits};
    for (uint64_t i = 0; i < n; ++i) {
      // Algorithm 1, lines 16-21: each hash function is computed and its bit probed in turn (the GPU thread does this
      // for its block's vector; the loop over k is unrolled there). No early exit: a warp pays all k probes.
      const uint64_t key = keys[i];
      uint32_t all = 1;
      for (int j = 0; j < k; ++j) all &= uint32_t(test_bit(vec.words, bloom_slot(sv.hash.hash(j, key), vec.m_bits)));
      count += all;
      if (kCollect && all) hits->push_back({i, v});
    }
  }
  return count;
}
}  // namespace

uint64_t paper_vector_stage1a(const SubqueryVectors& sv, const uint64_t* keys, uint64_t n, uint32_t v0, uint32_t v1,
                              std::vector<Stage1aHit>* hits) {
  return hits ? paper_vector_impl<true>(sv, keys, n, v0, v1, hits) : paper_vector_impl<false>(sv, keys, n, v0, v1, nullptr);
}

UnitTiming time_paper_vector_stage1a(const SubqueryVectors& sv, const uint64_t* keys, uint64_t n, int units,
                                     int threads, uint64_t* hit_count) {
  units = std::max(1, units);
  std::atomic<uint64_t> total{0};
  UnitTiming s = run_units(units, threads, [&](int u) {
    uint32_t v0 = uint32_t(uint64_t(sv.count) * u / units), v1 = uint32_t(uint64_t(sv.count) * (u + 1) / units);
    total += paper_vector_stage1a(sv, keys, n, v0, v1);
  });
  if (hit_count) *hit_count = total;
  return s;
}

UnitTiming random_read_seconds(uint64_t table_bytes, uint64_t reads, int units, int threads, uint64_t seed) {
  uint64_t words = std::max<uint64_t>(1, table_bytes / 4);
  std::vector<uint32_t> table(words);
  SplitMix64 rng(seed);
  for (auto& x : table) x = uint32_t(rng.next());
  // The "random pointers" array of the papers' micro-benchmark (read sequentially, like coalesced global reads);
  // a power of two so that reusing it costs a mask, not a division.
  uint64_t per_pass = 1;
  while (per_pass < std::min<uint64_t>(reads, 1 << 20)) per_pass *= 2;
  const uint64_t mask = per_pass - 1;
  std::vector<uint32_t> idx(per_pass);
  for (auto& x : idx) x = uint32_t(bloom_slot(uint32_t(rng.next()), words));
  units = std::max(1, units);
  std::atomic<uint64_t> sink{0};
  return run_units(units, threads, [&](int u) {
    uint64_t b = reads * u / units, e = reads * (u + 1) / units;
    uint64_t s = 0;
    for (uint64_t i = b; i < e; ++i) s += table[idx[i & mask]];
    sink += s;
  });
}

double random_read_ns(uint64_t table_bytes, uint64_t reads, int units, int threads, uint64_t seed) {
  double s = random_read_seconds(table_bytes, reads, units, threads, seed).critical_cpu_s;
  return s * 1e9 * std::max(1, std::min(threads, units)) / double(std::max<uint64_t>(1, reads));
}

double pchase_ns(uint64_t bytes, uint64_t loads, uint64_t seed) {
  const uint64_t line = 64 / sizeof(uint64_t);  // one pointer per cache line
  uint64_t nodes = std::max<uint64_t>(2, bytes / 64);
  std::vector<uint64_t> a(nodes * line, 0);
  std::vector<uint64_t> order(nodes);
  std::iota(order.begin(), order.end(), 0);
  SplitMix64 rng(seed);
  for (uint64_t i = nodes - 1; i > 0; --i) std::swap(order[i], order[rng.next() % (i + 1)]);
  for (uint64_t i = 0; i < nodes; ++i) a[order[i] * line] = order[(i + 1) % nodes] * line;
  uint64_t j = order[0] * line;
  for (uint64_t i = 0; i < nodes; ++i) j = a[j];  // warm up: one full cycle
  auto t0 = Clock::now();
  for (uint64_t i = 0; i < loads; ++i) j = a[j];
  double s = seconds_since(t0);
  volatile uint64_t keep = j;
  (void)keep;
  return s * 1e9 / double(loads);
}

double stream_ns_per_byte(uint64_t bytes, int repeats) {
  std::vector<uint64_t> a(std::max<uint64_t>(1, bytes / 8), 1);
  uint64_t s = 0;
  double best = 1e30;
  for (int r = 0; r < repeats; ++r) {
    auto t0 = Clock::now();
    for (uint64_t x : a) s += x;
    best = std::min(best, seconds_since(t0));
  }
  volatile uint64_t keep = s;
  (void)keep;
  return best * 1e9 / double(a.size() * 8);
}

}  // namespace bloomseq::model
