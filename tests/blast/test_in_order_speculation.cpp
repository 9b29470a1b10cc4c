// run_in_order_speculatively against the plain loop it stands for: random intervals, best first; one inside an
// interval already kept is skipped, the others are "extended" (widened by a pseudo-random amount, after a random
// pause so that threads finish out of order) and kept. The kept list must equal the plain loop's at every thread
// count and lookahead, and every candidate computed in vain must be one the plain loop skips.
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <condition_variable>
#include <cstdlib>
#include <functional>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

#include "bloomseq/blast/in_order_speculation.hpp"

using namespace bloomseq;

namespace {

struct Interval {
  int64_t begin, end;
};

std::vector<Interval> random_candidates(std::mt19937_64& rng, size_t n) {
  std::vector<Interval> v(n);
  for (auto& x : v) {
    x.begin = int64_t(rng() % 2000);
    x.end = x.begin + 1 + int64_t(rng() % 40);
  }
  return v;
}

Interval widened(const Interval& x, size_t i) { return {x.begin - int64_t(i * 7 % 90), x.end + int64_t(i * 13 % 110)}; }

bool inside(const Interval& x, const std::vector<Interval>& kept) {
  for (const auto& k : kept)
    if (k.begin <= x.begin && x.end <= k.end) return true;
  return false;
}

std::vector<size_t> plain_loop(const std::vector<Interval>& c) {
  std::vector<Interval> kept;
  std::vector<size_t> order;
  for (size_t i = 0; i < c.size(); ++i) {
    if (inside(c[i], kept)) continue;
    kept.push_back(widened(c[i], i));
    order.push_back(i);
  }
  return order;
}

}  // namespace

TEST_CASE("in-order speculation keeps what the plain loop keeps, at any thread count") {
  std::mt19937_64 rng(2024);
  for (int round = 0; round < 6; ++round) {
    const std::vector<Interval> c = random_candidates(rng, 60 + size_t(round) * 40);
    const std::vector<size_t> want = plain_loop(c);
    for (int threads : {1, 2, 3, 5, 8})
      for (size_t lookahead : {size_t(1), size_t(4), size_t(64)})
      for (bool postpone : {false, true}) {
        // With `postpone`, every 10th candidate is long (1 ms) and candidates starting near each other interact.
        std::vector<Interval> result(c.size()), kept;
        std::vector<size_t> order;
        std::vector<int> computed(c.size(), 0);
        std::function<bool(size_t, size_t)> interacts;
        if (postpone) interacts = [&](size_t i, size_t j) { return std::abs(c[i].begin - c[j].begin) < 300; };
        const SpeculationStats st = run_in_order_speculatively(
            c.size(), threads, lookahead, [&](size_t i) { return inside(c[i], kept); },
            [&](size_t i) {
              const auto pause = postpone && i % 10 == 0 ? 1000 : (i * 2654435761u) % 200;
              std::this_thread::sleep_for(std::chrono::microseconds(pause));
              result[i] = widened(c[i], i);
              ++computed[i];
            },
            [&](size_t i) {
              kept.push_back(result[i]);
              order.push_back(i);
            },
            interacts);
        INFO("round " << round << ", threads " << threads << ", lookahead " << lookahead << ", postpone " << postpone);
        REQUIRE(order == want);
        uint64_t n = 0;
        for (size_t i = 0; i < c.size(); ++i) {
          REQUIRE(computed[i] <= 1);
          n += uint64_t(computed[i]);
        }
        REQUIRE(st.computed == n);
        REQUIRE(st.computed - st.wasted == want.size());
        if (threads == 1) REQUIRE(st.wasted == 0);
        if (!postpone || threads == 1) REQUIRE(st.postponed == 0);
      }
  }
}

TEST_CASE("in-order speculation leaves the neighbours of a long computation to their turn") {
  // Candidate 0 is long and its result covers 2 and 3; 1 does not interact with it and takes 3 ms, so 2, 3 and 4
  // are claimed while 0 has been running for longer than a long computation. 2 and 3 are then covered at their
  // turn and never computed; 4 interacts with 0 too but is not covered: it is computed once, at its turn.
  // Candidate 0 runs until 4 has been claimed (whichever thread starts first), so the schedule is forced.
  for (bool postpone : {false, true}) {
    std::vector<int> computed(5, 0), order;
    std::vector<int> kept;
    std::mutex m;
    std::condition_variable cv;
    bool claimed_4 = false;
    std::function<bool(size_t, size_t)> interacts;
    if (postpone) interacts = [](size_t i, size_t j) { return j == 0 && i != 1; };
    const SpeculationStats st = run_in_order_speculatively(
        5, 2, 16,
        [&](size_t i) {
          if (i == 4) {
            std::lock_guard<std::mutex> lock(m);
            claimed_4 = true;
            cv.notify_all();
          }
          return (i == 2 || i == 3) && std::find(kept.begin(), kept.end(), 0) != kept.end();
        },
        [&](size_t i) {
          if (i == 0) {
            std::unique_lock<std::mutex> lock(m);
            cv.wait_for(lock, std::chrono::seconds(20), [&] { return claimed_4; });
          }
          if (i == 1) std::this_thread::sleep_for(std::chrono::milliseconds(3));
          ++computed[i];
        },
        [&](size_t i) {
          kept.push_back(int(i));
          order.push_back(int(i));
        },
        interacts);
    INFO("postpone " << postpone);
    REQUIRE(order == std::vector<int>{0, 1, 4});
    if (postpone) {
      REQUIRE(computed == std::vector<int>{1, 1, 0, 0, 1});
      REQUIRE(st.postponed == 3);
      REQUIRE(st.wasted == 0);
    } else {
      REQUIRE(st.postponed == 0);  // without the hint the neighbours are computed ahead, then found covered
      REQUIRE(st.wasted == 2);
    }
  }
}

TEST_CASE("in-order speculation keeps what the plain loop keeps when a commit drops what was kept") {
  // As BLAST's interval tree does with alignments sharing an end: here a kept interval whose begin falls in the
  // same 25-wide bucket as the new one's is dropped. A candidate skipped when claimed may then be uncovered by its
  // turn, and must be computed and kept as in the plain loop.
  auto commit_into = [](std::vector<Interval>& kept, const Interval& x) {
    std::vector<Interval> left;
    for (const auto& k : kept)
      if (k.begin / 25 != x.begin / 25) left.push_back(k);
    left.push_back(x);
    kept.swap(left);
  };
  std::mt19937_64 rng(77);
  for (int round = 0; round < 6; ++round) {
    const std::vector<Interval> c = random_candidates(rng, 80 + size_t(round) * 40);
    std::vector<size_t> want;
    {
      std::vector<Interval> kept;
      for (size_t i = 0; i < c.size(); ++i) {
        if (inside(c[i], kept)) continue;
        commit_into(kept, widened(c[i], i));
        want.push_back(i);
      }
    }
    for (int threads : {2, 3, 5})
      for (size_t lookahead : {size_t(4), size_t(64)}) {
        std::vector<Interval> result(c.size()), kept;
        std::vector<size_t> order;
        std::vector<int> computed(c.size(), 0);
        std::vector<int> at_claim(c.size(), -1);  // the first answer of covered(i): when i was claimed
        const SpeculationStats st = run_in_order_speculatively(
            c.size(), threads, lookahead,
            [&](size_t i) {
              const bool in = inside(c[i], kept);
              if (at_claim[i] < 0) at_claim[i] = in ? 1 : 0;
              return in;
            },
            [&](size_t i) {
              std::this_thread::sleep_for(std::chrono::microseconds((i * 2654435761u) % 200));
              result[i] = widened(c[i], i);
              ++computed[i];
            },
            [&](size_t i) {
              commit_into(kept, result[i]);
              order.push_back(i);
            });
        INFO("round " << round << ", threads " << threads << ", lookahead " << lookahead);
        REQUIRE(order == want);
        for (size_t i = 0; i < c.size(); ++i) REQUIRE(computed[i] <= 1);
        REQUIRE(st.computed - st.wasted == want.size());
      }
  }
}

TEST_CASE("in-order speculation computes a candidate skipped when claimed whose container was dropped since") {
  // Three candidates on two threads, the schedule forced: 0's result covers 2 and 1's result drops 0's. Candidate 1
  // is held until 2 has been claimed (and skipped, covered by 0's result), so 2 must be computed at its turn.
  std::mutex m;
  std::condition_variable cv;
  bool claimed_2 = false;
  std::vector<int> kept;  // committed candidates still kept
  std::vector<int> computed(3, 0), order;
  int covered_at_claim_2 = -1;
  const SpeculationStats st = run_in_order_speculatively(
      3, 2, 8,
      [&](size_t i) {
        const bool in = i == 2 && std::find(kept.begin(), kept.end(), 0) != kept.end();
        if (i == 2 && covered_at_claim_2 < 0) {
          covered_at_claim_2 = in ? 1 : 0;
          std::lock_guard<std::mutex> lock(m);
          claimed_2 = true;
          cv.notify_all();
        }
        return in;
      },
      [&](size_t i) {
        if (i == 1) {
          std::unique_lock<std::mutex> lock(m);
          cv.wait_for(lock, std::chrono::seconds(20), [&] { return claimed_2; });
        }
        ++computed[i];
      },
      [&](size_t i) {
        if (i == 1) kept.erase(std::remove(kept.begin(), kept.end(), 0), kept.end());
        kept.push_back(int(i));
        order.push_back(int(i));
      });
  REQUIRE(covered_at_claim_2 == 1);  // the schedule happened as intended
  REQUIRE(order == std::vector<int>{0, 1, 2});
  REQUIRE(computed == std::vector<int>{1, 1, 1});
  REQUIRE(st.computed == 3);
  REQUIRE(st.wasted == 0);
}

TEST_CASE("in-order speculation passes an exception on and stops") {
  for (int threads : {1, 3}) {
    std::vector<int> seen(100, 0);
    REQUIRE_THROWS_AS(run_in_order_speculatively(
                          100, threads, 8, [](size_t) { return false; },
                          [&](size_t i) {
                            if (i == 17) throw std::runtime_error("no memory");
                            seen[i] = 1;
                          },
                          [](size_t) {}),
                      std::runtime_error);
  }
}

TEST_CASE("a speculation crew runs each job once, and idle threads join a long job's loop with its result unchanged") {
  // Job 0 is long: its first candidate waits until some other thread has computed one of its candidates, which
  // only a crew thread that ran out of jobs of its own can do (the job runs its loop on one thread otherwise). The
  // other jobs are short. Every job's kept list must equal the plain loop's.
  std::mt19937_64 rng(77);
  for (int threads : {2, 3}) {
    const size_t jobs = 5;
    std::vector<std::vector<Interval>> c(jobs);
    for (size_t j = 0; j < jobs; ++j) c[j] = random_candidates(rng, j == 0 ? 400 : 40);
    std::vector<std::vector<size_t>> order(jobs);
    std::vector<int> ran(jobs, 0);
    std::mutex m;
    std::condition_variable cv;
    std::thread::id owner;
    bool helped = false;
    SpeculationCrew crew(threads);
    crew.run(jobs, [&](size_t j) {
      ++ran[j];  // each job index is handed out once, so only one thread writes ran[j]
      std::vector<Interval> result(c[j].size()), kept;
      run_in_order_speculatively(
          c[j].size(), 1, 64, [&](size_t i) { return inside(c[j][i], kept); },
          [&](size_t i) {
            if (j == 0) {
              std::unique_lock<std::mutex> lock(m);
              if (i == 0) {
                owner = std::this_thread::get_id();
                cv.wait_for(lock, std::chrono::seconds(20), [&] { return helped; });
              } else if (std::this_thread::get_id() != owner && owner != std::thread::id()) {
                helped = true;
                cv.notify_all();
              }
            }
            std::this_thread::sleep_for(std::chrono::microseconds((i * 2654435761u) % 50));
            result[i] = widened(c[j][i], i);
          },
          [&](size_t i) {
            kept.push_back(result[i]);
            order[j].push_back(i);
          },
          {}, &crew);
    });
    INFO("threads " << threads);
    REQUIRE(helped);
    REQUIRE(ran == std::vector<int>(jobs, 1));
    for (size_t j = 0; j < jobs; ++j) REQUIRE(order[j] == plain_loop(c[j]));
  }
}

TEST_CASE("a speculation crew passes on an exception thrown in a loop that idle threads joined") {
  SpeculationCrew crew(2);
  std::atomic<int> started{0};
  REQUIRE_THROWS_AS(crew.run(3,
                             [&](size_t j) {
                               ++started;
                               run_in_order_speculatively(
                                   j == 0 ? 2000 : 10, 1, 16, [](size_t) { return false; },
                                   [&](size_t i) {
                                     std::this_thread::sleep_for(std::chrono::microseconds(20));
                                     if (j == 0 && i == 1500) throw std::runtime_error("no memory");
                                   },
                                   [](size_t) {}, {}, &crew);
                             }),
                    std::runtime_error);
  REQUIRE(started >= 1);
}
