// parallel_for on a pool of worker threads that lives as long as the process.
//
// The pipeline calls parallel_for several times per database batch (stage 1a chunks, stage 1b, stage 2), and a
// short query against a large database runs hundreds of batches: starting and joining a thread per call cost
// ~100 µs of system time each (1,600 thread starts, 0.18 s of system time for a 0.1-s search with two threads).
// The pool's workers wait on a condition variable between calls; the caller works too, as one of the threads.
// Waking a sleeping thread costs this VM ~0.1-0.2 ms per call (measured: stage 2 of a 48-kb query against 200
// Mbases, 100 batches of three loops, lost 0.03 s of its 0.16 s to wake-ups with two threads), while the next
// loop usually comes within microseconds. So a worker spins for kSpin after a loop before it sleeps, and the
// caller spins as long for the workers to finish: bounded, at most kSpin of CPU per call.
// A call made while the pool is busy (from inside a parallel_for, or from another thread at the same time) runs
// on threads of its own, as before, so the pool never waits on itself.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "bloomseq/blast/pipeline.hpp"

namespace bloomseq {
namespace {

thread_local bool t_in_worker = false;

constexpr std::chrono::microseconds kSpin{50};

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#else
  std::this_thread::yield();
#endif
}

// Spins while `busy()` holds, for at most kSpin; true if it stopped holding.
template <class Busy>
bool spin_while(Busy busy) {
  const auto until = std::chrono::steady_clock::now() + kSpin;
  for (int i = 0;; ++i) {
    if (!busy()) return true;
    cpu_relax();
    if ((i & 63) == 63 && std::chrono::steady_clock::now() > until) return false;
  }
}

// One loop shared by the threads of a call: units handed out in order; the first exception stops the rest.
struct Loop {
  size_t n = 0;
  const std::function<void(size_t)>* f = nullptr;
  std::atomic<size_t> next{0};
  std::mutex error_mutex;
  std::exception_ptr error;

  void work() {
    try {
      for (size_t i; (i = next.fetch_add(1)) < n;) (*f)(i);
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mutex);
      if (!error) error = std::current_exception();
      next = n;
    }
  }
};

class WorkerPool {
 public:
  ~WorkerPool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
      published_.store(~uint64_t(0), std::memory_order_release);
    }
    wake_.notify_all();
    for (std::thread& t : workers_) t.join();
  }

  // Runs the loop on `helpers` workers and the caller; false (nothing run) if the pool is in use.
  bool run(Loop& loop, int helpers) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      if (busy_ || t_in_worker) return false;
      busy_ = true;
      while (int(workers_.size()) < helpers) {
        const int index = int(workers_.size());
        workers_.emplace_back([this, index] { serve(index); });
      }
      loop_ = &loop;
      helpers_ = helpers;
      running_ = helpers;
      ++generation_;
      published_.store(generation_, std::memory_order_release);
    }
    wake_.notify_all();
    loop.work();
    spin_while([this] { return running_.load(std::memory_order_acquire) != 0; });
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return running_ == 0; });
    loop_ = nullptr;
    busy_ = false;
    return true;
  }

 private:
  void serve(int index) {
    t_in_worker = true;
    uint64_t seen = 0;
    for (;;) {
      spin_while([&] { return published_.load(std::memory_order_acquire) == seen; });
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      if (index >= helpers_) continue;  // this call wants fewer threads
      Loop* loop = loop_;
      lock.unlock();
      loop->work();
      lock.lock();
      if (--running_ == 0) done_.notify_one();
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_, done_;
  std::vector<std::thread> workers_;
  Loop* loop_ = nullptr;
  int helpers_ = 0;
  std::atomic<int> running_{0};  // written under mutex_; read without it while the caller spins
  uint64_t generation_ = 0;
  std::atomic<uint64_t> published_{0};  // generation_ (all ones once stopping), for spinning workers
  bool busy_ = false, stop_ = false;
};

WorkerPool& pool() {
  static WorkerPool p;
  return p;
}

}  // namespace

void parallel_for(size_t n, int threads, const std::function<void(size_t)>& f) {
  if (threads <= 1 || n <= 1) {
    for (size_t i = 0; i < n; ++i) f(i);
    return;
  }
  Loop loop;
  loop.n = n;
  loop.f = &f;
  const int helpers = int(std::min<size_t>(size_t(threads), n)) - 1;
  if (!pool().run(loop, helpers)) {
    std::vector<std::thread> extra;
    for (int t = 0; t < helpers; ++t) extra.emplace_back([&loop] { loop.work(); });
    loop.work();
    for (std::thread& t : extra) t.join();
  }
  if (loop.error) std::rethrow_exception(loop.error);
}

RunBeside::RunBeside(std::function<void()> f) : f_(std::move(f)) {
  auto run = [this] {
    try {
      f_();
    } catch (...) {
      error_ = std::current_exception();
    }
  };
  try {
    thread_ = std::thread(run);
  } catch (const std::system_error&) {
    run();  // no thread to be had: here, before the caller's work
  }
}

RunBeside::~RunBeside() {
  if (thread_.joinable()) thread_.join();
}

void RunBeside::join() {
  if (thread_.joinable()) thread_.join();
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

}  // namespace bloomseq
