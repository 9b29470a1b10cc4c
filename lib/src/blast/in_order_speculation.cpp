#include "bloomseq/blast/in_order_speculation.hpp"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace bloomseq {
namespace {

// A computation running this long is long for stage 3: ~75 preliminary extensions or 3 final ones of the median
// size, while a self-match's take 0.05-0.5 s.
constexpr std::chrono::microseconds kLongComputation{250};

}  // namespace

void SpeculationCrew::run(size_t n, const std::function<void(size_t)>& job) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    jobs_left_ = n;
  }
  size_t next = 0;
  std::exception_ptr error;
  auto member = [&] {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      if (next < n && !error) {
        const size_t i = next++;
        lock.unlock();
        try {
          job(i);
        } catch (...) {
          lock.lock();
          if (!error) error = std::current_exception();
          lock.unlock();
        }
        lock.lock();
        --jobs_left_;
        changed_.notify_all();
        continue;
      }
      if (next < n) {  // an earlier job failed: the rest are not started
        jobs_left_ -= n - next;
        next = n;
        changed_.notify_all();
      }
      if (jobs_left_ == 0) return;
      if (!help(lock)) changed_.wait(lock);
    }
  };
  std::vector<std::thread> others;
  try {
    for (int t = 1; t < threads_ && size_t(t) < n; ++t) others.emplace_back(member);
  } catch (const std::system_error&) {
    // No more threads to be had: the jobs go to those started.
  }
  member();
  for (std::thread& t : others) t.join();
  if (error) std::rethrow_exception(error);
}

bool SpeculationCrew::help(std::unique_lock<std::mutex>& lock) {
  if (open_.empty()) return false;
  // The loop with the fewest helpers, so that two idle threads spread over two long loops.
  Opening* o = *std::min_element(open_.begin(), open_.end(),
                                 [](const Opening* a, const Opening* b) { return a->inside < b->inside; });
  ++o->inside;
  lock.unlock();
  (*o->work)();  // catches its own exceptions: the loop's owner rethrows them
  lock.lock();
  --o->inside;
  // The owner may be waiting in withdraw(); a helper that found nothing to do waits for the next change.
  changed_.notify_all();
  return true;
}

void SpeculationCrew::post(Opening& o) {
  std::lock_guard<std::mutex> lock(mutex_);
  open_.push_back(&o);
  changed_.notify_all();
}

void SpeculationCrew::withdraw(Opening& o) {
  std::unique_lock<std::mutex> lock(mutex_);
  open_.erase(std::remove(open_.begin(), open_.end(), &o), open_.end());
  changed_.wait(lock, [&] { return o.inside == 0; });
}

SpeculationStats run_in_order_speculatively(size_t n, int threads, size_t lookahead,
                                            const std::function<bool(size_t)>& covered,
                                            const std::function<void(size_t)>& compute,
                                            const std::function<void(size_t)>& commit,
                                            const std::function<bool(size_t, size_t)>& interacts,
                                            SpeculationCrew* crew) {
  SpeculationStats stats;
  if (crew) threads = crew->threads();
  if (threads <= 1 || n <= 1) {
    for (size_t i = 0; i < n; ++i) {
      if (covered(i)) continue;
      compute(i);
      ++stats.computed;
      commit(i);
    }
    return stats;
  }
  lookahead = std::max<size_t>(lookahead, 1);
  enum : uint8_t { kWaiting, kComputing, kComputed, kSkipped };
  std::vector<uint8_t> state(n, kWaiting);
  // covered() depends only on what has been committed, so a candidate found uncovered with nothing committed since
  // need not be asked again at its turn (one loop per thread, stage 3 of the 152 contigs vs E. coli: the second
  // question was 1% of the run).
  std::vector<uint64_t> checked_at(n, 0);
  uint64_t commits = 0;
  std::mutex mutex;
  std::condition_variable changed;
  size_t next_claim = 0, next_commit = 0;
  std::exception_ptr error;
  using Clock = std::chrono::steady_clock;
  std::vector<std::pair<size_t, Clock::time_point>> running;  // candidates being computed, since when
  // Whether i should wait for its turn: an earlier candidate it interacts with has been computing for long.
  auto beside_long_computation = [&](size_t i) {
    if (!interacts || running.empty()) return false;
    const Clock::time_point now = Clock::now();
    for (const auto& r : running)
      if (r.first < i && now - r.second >= kLongComputation && interacts(i, r.first)) return true;
    return false;
  };

  auto worker = [&] {
    std::unique_lock<std::mutex> lock(mutex);
    auto compute_outside_lock = [&](size_t i) {  // the lock is held on entry and on return, not while computing
      state[i] = kComputing;
      checked_at[i] = commits;
      ++stats.computed;
      running.emplace_back(i, Clock::now());
      auto not_running = [&] {
        running.erase(std::find_if(running.begin(), running.end(), [&](const auto& r) { return r.first == i; }));
      };
      lock.unlock();
      try {
        compute(i);
      } catch (...) {
        lock.lock();
        not_running();
        throw;
      }
      lock.lock();
      not_running();
      state[i] = kComputed;
    };
    for (;;) {
      if (error) return;
      try {
        // Decide every candidate whose turn has come, in order.
        bool decided = false;
        bool recompute = false;
        while (next_commit < next_claim && state[next_commit] >= kComputed) {
          if (state[next_commit] == kComputed) {
            if (checked_at[next_commit] != commits && covered(next_commit)) {
              ++stats.wasted;
            } else {
              commit(next_commit);
              ++commits;
            }
          } else if (!covered(next_commit)) {
            // Skipped when claimed, but what covered it has been dropped since: its turn needs it computed.
            recompute = true;
            break;
          }
          ++next_commit;
          decided = true;
        }
        if (decided) changed.notify_all();
        if (recompute) {
          compute_outside_lock(next_commit);
          continue;
        }
        if (next_commit == n) return;
        if (next_claim < n && next_claim < next_commit + lookahead) {
          const size_t i = next_claim++;
          if (covered(i)) {
            state[i] = kSkipped;
          } else if (beside_long_computation(i)) {
            state[i] = kSkipped;  // decided at its turn: computed then if nothing covers it
            ++stats.postponed;
          } else {
            compute_outside_lock(i);
          }
          continue;
        }
      } catch (...) {
        if (!lock.owns_lock()) lock.lock();
        if (!error) error = std::current_exception();
        changed.notify_all();
        return;
      }
      changed.wait(lock);
    }
  };
  if (crew) {
    const std::function<void()> work = worker;
    SpeculationCrew::Opening opening;
    opening.work = &work;
    crew->post(opening);
    worker();
    crew->withdraw(opening);
  } else {
    std::vector<std::thread> pool;
    for (int t = 1; t < threads && size_t(t) < n; ++t) pool.emplace_back(worker);
    worker();
    for (auto& t : pool) t.join();
  }
  if (error) std::rethrow_exception(error);
  return stats;
}

}  // namespace bloomseq
