// A sequential "skip what an earlier result covers" loop run on several threads with the sequential result.
//
// Stage 3 walks its candidates best first and skips one that an alignment already kept contains, so candidate i
// depends on every kept candidate before it. Each extension is a pure function of its candidate, though, so
// threads may compute later candidates before the earlier ones are decided, as long as every candidate is kept or
// dropped in order, against exactly the results kept before it:
//
//   for i in 0..n: if (!covered(i)) { compute(i); commit(i); }
//
// covered(i) is asked when i is claimed (against the results committed so far) and again when its turn to commit
// comes, unless nothing was committed in between; only the answer at its turn decides. A candidate covered when
// claimed is not computed then, but a commit may drop what covered it (BLAST's interval tree drops an alignment
// that a better one shares an end with), so one no longer covered at its turn is computed then, before anything
// after it is decided. So the kept set, and
// everything derived from it, equals the sequential loop's at any thread count; threads only change how much is
// computed in vain (a candidate computed while an earlier one that will cover it was still being computed).
#pragma once
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <vector>

namespace bloomseq {

// Threads shared by several jobs, each of which runs speculative loops (stage 3: one job per subject and query
// strand). run() hands the jobs out one per thread in the order given (largest first); a thread out of jobs joins
// a loop that another job is running, so a job far larger than the rest (the strand holding a self-match) gets
// every idle thread, while jobs of similar size run one per thread and share no lock.
class SpeculationCrew {
 public:
  explicit SpeculationCrew(int threads) : threads_(threads < 1 ? 1 : threads) {}
  int threads() const { return threads_; }
  // job(i) for i in 0..n on the crew's threads; the first exception a job throws is rethrown once all have ended.
  void run(size_t n, const std::function<void(size_t)>& job);

  // A loop that idle threads may join while it runs (run_in_order_speculatively).
  struct Opening {
    const std::function<void()>* work = nullptr;  // returns once the loop has nothing left to claim or decide
    int inside = 0;                                // helpers in work() now
  };
  void post(Opening& o);
  void withdraw(Opening& o);  // waits for the helpers inside to leave

 private:
  bool help(std::unique_lock<std::mutex>& lock);  // joins a posted loop; false if none is posted

  int threads_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<Opening*> open_;
  size_t jobs_left_ = 0;
};

struct SpeculationStats {
  uint64_t computed = 0;   // compute() calls
  uint64_t wasted = 0;     // of those, candidates covered by the time their turn came
  uint64_t postponed = 0;  // candidates left to their turn beside a long computation they interact with
};

// covered() and commit() are called under one lock (never concurrently), in candidate order for commit();
// compute(i) runs on any thread, concurrently for different i, and must touch only what belongs to candidate i.
// At most `lookahead` candidates past the oldest undecided one are claimed. threads <= 1: the plain loop.
// An exception thrown by a callback stops the loop and is rethrown here.
//
// interacts(i, j), j < i (optional, called under the lock): whether i's result may depend on j's in practice (j's
// may cover i, or i's computation may reuse j's). A candidate claimed while an earlier one it interacts with has been
// computing for kLongComputation or more is not computed ahead, but at its turn, like a candidate covered when
// claimed whose cover went since: a long alignment (a self-match) then does not have its neighbours computed beside
// it in vain. This changes what is computed ahead, never what is kept.
//
// crew (optional): the loop runs on the calling thread and on crew threads that join it; `threads` is then unused.
SpeculationStats run_in_order_speculatively(size_t n, int threads, size_t lookahead,
                                            const std::function<bool(size_t)>& covered,
                                            const std::function<void(size_t)>& compute,
                                            const std::function<void(size_t)>& commit,
                                            const std::function<bool(size_t, size_t)>& interacts = {},
                                            SpeculationCrew* crew = nullptr);

}  // namespace bloomseq
