#include "bloomseq/app/progress.hpp"

#include <cstdio>
#include <unistd.h>

namespace bloomseq {

bool stderr_is_tty() { return isatty(STDERR_FILENO) == 1; }

void Progress::update(uint64_t done, uint64_t total) {
  if (!enabled_) return;
  std::unique_lock<std::mutex> lock(mutex_, std::try_to_lock);
  if (!lock.owns_lock()) return;  // another thread is drawing
  const auto now = std::chrono::steady_clock::now();
  if (fresh_) {
    fresh_ = false;
    origin_ = done;
  }
  if (drawn_ && now - last_ < std::chrono::milliseconds(250)) return;
  last_ = now;
  drawn_ = true;
  const double secs = std::chrono::duration<double>(now - start_).count();
  const double rate = secs > 0 && done > origin_ ? double(done - origin_) / secs : 0.0;
  if (total) {
    char eta[48] = "";
    if (rate > 0 && done < total) std::snprintf(eta, sizeof eta, ", %.0f s left", double(total - done) / rate);
    std::fprintf(stderr, "\r\033[K%s: %llu / %llu (%.1f%%), %.3g/s%s", what_.c_str(), (unsigned long long)done,
                 (unsigned long long)total, 100.0 * double(done) / double(total), rate, eta);
  } else {
    std::fprintf(stderr, "\r\033[K%s: %llu, %.3g/s", what_.c_str(), (unsigned long long)done, rate);
  }
  std::fflush(stderr);
}

void Progress::restart(std::string what) {
  std::lock_guard<std::mutex> lock(mutex_);
  what_ = std::move(what);
  start_ = std::chrono::steady_clock::now();
  fresh_ = true;
  last_ = {};  // the new phase draws at its first update
}

void Progress::finish() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!enabled_ || !drawn_) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  drawn_ = false;
}

}  // namespace bloomseq
