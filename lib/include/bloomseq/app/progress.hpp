// Progress on stderr for long runs: on by default only when stderr is a terminal, redrawn at most a few
// times a second, erased at the end so logs stay clean. update() may be called from several threads (a thread
// that finds another one drawing skips its redraw).
#pragma once
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>

namespace bloomseq {

bool stderr_is_tty();

class Progress {
 public:
  Progress(bool enabled, std::string what) : enabled_(enabled), what_(std::move(what)) {}
  ~Progress() { finish(); }
  // Reports `done` units (and optionally the total, 0 if unknown); cheap when nothing needs drawing.
  void update(uint64_t done, uint64_t total = 0);
  // A new phase on the same line: another label; the rate counts from here.
  void restart(std::string what);
  void finish();
  bool enabled() const { return enabled_; }

 private:
  bool enabled_;
  bool drawn_ = false;
  bool fresh_ = true;       // no update since the start or restart: the first one sets the rate's origin
  uint64_t origin_ = 0;     // units done when the phase started
  std::string what_;
  std::mutex mutex_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_{};
};

}  // namespace bloomseq
