// parallel_for runs on a pool of threads kept between calls: every index exactly once, whatever the thread count
// and however often it is called; exceptions reach the caller and leave the pool usable; calls from inside a
// call, or from two threads at once, run on threads of their own instead of waiting on the busy pool.
#include <catch2/catch.hpp>

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

#include "bloomseq/blast/pipeline.hpp"

using namespace bloomseq;

namespace {

// Runs parallel_for over n units and checks that each ran exactly once.
void check_each_once(size_t n, int threads) {
  std::vector<std::atomic<int>> hits(n);
  for (auto& h : hits) h = 0;
  parallel_for(n, threads, [&](size_t i) { hits[i].fetch_add(1); });
  for (size_t i = 0; i < n; ++i) REQUIRE(hits[i].load() == 1);
}

}  // namespace

TEST_CASE("parallel_for on threads: every unit exactly once, over many calls and thread counts", "[blast][threads]") {
  for (int round = 0; round < 200; ++round) {
    const int threads = 1 + round % 5;  // the pool grows and shrinks its share from call to call
    check_each_once(size_t(round % 37), threads);
  }
  check_each_once(100000, 4);
}

TEST_CASE("parallel_for on threads: an exception reaches the caller and the pool still works", "[blast][threads]") {
  for (int round = 0; round < 20; ++round) {
    std::atomic<int> ran{0};
    REQUIRE_THROWS_AS(parallel_for(64, 3,
                                   [&](size_t i) {
                                     ++ran;
                                     if (i == 17) throw std::runtime_error("unit 17");
                                   }),
                      std::runtime_error);
    REQUIRE(ran.load() >= 1);
    check_each_once(50, 3);
  }
}

TEST_CASE("parallel_for on threads: nested and concurrent calls finish", "[blast][threads]") {
  // Nested: the inner calls find the pool busy and use threads of their own.
  std::vector<std::atomic<int>> hits(16 * 16);
  for (auto& h : hits) h = 0;
  parallel_for(16, 3, [&](size_t i) { parallel_for(16, 2, [&](size_t j) { hits[i * 16 + j].fetch_add(1); }); });
  for (auto& h : hits) REQUIRE(h.load() == 1);
  // Two callers at once: one gets the pool, the other its own threads.
  std::atomic<long> sum_a{0}, sum_b{0};
  std::thread other([&] {
    for (int r = 0; r < 50; ++r) parallel_for(1000, 2, [&](size_t i) { sum_b += long(i); });
  });
  for (int r = 0; r < 50; ++r) parallel_for(1000, 2, [&](size_t i) { sum_a += long(i); });
  other.join();
  REQUIRE(sum_a.load() == 50L * 999 * 1000 / 2);
  REQUIRE(sum_b.load() == 50L * 999 * 1000 / 2);
}

TEST_CASE("RunBeside runs its work on a thread beside the caller's and hands its exception to join",
          "[blast][threads]") {
  std::atomic<int> done{0};
  {
    RunBeside beside([&] { done = 1; });
    beside.join();
    CHECK(done == 1);
  }
  {
    RunBeside beside([&] { done = 2; });
  }  // the destructor waits for it
  CHECK(done == 2);
  RunBeside failing([] { throw std::runtime_error("beside failed"); });
  CHECK_THROWS_WITH(failing.join(), "beside failed");
  failing.join();  // reported once
}
