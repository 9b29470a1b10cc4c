// A small ordered parallel pipeline on std::thread: `threads` workers each repeatedly
//   1. read a batch (serialised: one input stream),
//   2. process it (in parallel),
//   3. emit it (serialised, strictly in input order),
// so `threads` is the total number of threads doing work, and outputs are identical for any thread count.
// The first exception thrown by any step stops all workers and is rethrown to the caller.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace bloomseq {

// read(Slot&) -> bool (false at the end of input), process(Slot&), emit(Slot&). Each worker owns one Slot,
// created by make_slot().
template <class MakeSlot, class Read, class Process, class Emit>
void run_ordered_pipeline(int threads, MakeSlot make_slot, Read read, Process process, Emit emit) {
  if (threads < 1) threads = 1;
  std::mutex read_mutex, emit_mutex;
  std::condition_variable emit_cv;
  uint64_t next_read = 0, next_emit = 0;
  std::atomic<bool> failed{false};
  bool end_of_input = false;  // guarded by read_mutex
  std::exception_ptr error;   // guarded by emit_mutex

  auto fail = [&](std::exception_ptr e) {
    std::lock_guard<std::mutex> lock(emit_mutex);
    if (!error) error = e;
    failed = true;
    emit_cv.notify_all();
  };
  auto worker = [&]() {
    auto slot = make_slot();
    for (;;) {
      uint64_t ticket = 0;
      try {
        std::lock_guard<std::mutex> lock(read_mutex);
        if (failed || end_of_input) return;
        if (!read(slot)) {
          end_of_input = true;
          return;
        }
        ticket = next_read++;
      } catch (...) {
        fail(std::current_exception());
        return;
      }
      try {
        process(slot);
      } catch (...) {
        fail(std::current_exception());
        return;
      }
      std::unique_lock<std::mutex> lock(emit_mutex);
      emit_cv.wait(lock, [&] { return failed || next_emit == ticket; });
      if (failed) return;
      try {
        emit(slot);
      } catch (...) {
        if (!error) error = std::current_exception();
        failed = true;
        emit_cv.notify_all();
        return;
      }
      ++next_emit;
      emit_cv.notify_all();
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (std::thread& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace bloomseq
