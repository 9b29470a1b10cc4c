// Progress on stderr for long runs: on by default only when stderr is a terminal, redrawn at most a few
// times a second, erased at the end so logs stay clean.
#pragma once
#include <chrono>
#include <cstdint>
#include <string>

namespace bloomseq {

bool stderr_is_tty();

class Progress {
 public:
  Progress(bool enabled, std::string what) : enabled_(enabled), what_(std::move(what)) {}
  ~Progress() { finish(); }
  // Reports `done` units (and optionally the total, 0 if unknown); cheap when nothing needs drawing.
  void update(uint64_t done, uint64_t total = 0);
  void finish();

 private:
  bool enabled_;
  bool drawn_ = false;
  std::string what_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_{};
};

}  // namespace bloomseq
