#include "bloomseq/app/progress.hpp"

#include <cstdio>
#include <unistd.h>

namespace bloomseq {

bool stderr_is_tty() { return isatty(STDERR_FILENO) == 1; }

void Progress::update(uint64_t done, uint64_t total) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && now - last_ < std::chrono::milliseconds(250)) return;
  last_ = now;
  drawn_ = true;
  const double secs = std::chrono::duration<double>(now - start_).count();
  const double rate = secs > 0 ? double(done) / secs : 0.0;
  if (total)
    std::fprintf(stderr, "\r%s: %llu / %llu (%.1f%%), %.3g/s   ", what_.c_str(), (unsigned long long)done,
                 (unsigned long long)total, 100.0 * double(done) / double(total), rate);
  else
    std::fprintf(stderr, "\r%s: %llu, %.3g/s   ", what_.c_str(), (unsigned long long)done, rate);
  std::fflush(stderr);
}

void Progress::finish() {
  if (!enabled_ || !drawn_) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  drawn_ = false;
}

}  // namespace bloomseq
