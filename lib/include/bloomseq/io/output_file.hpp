// Output that appears whole or not at all: written to a temporary file beside the target and renamed over it
// by commit(). Destroying an uncommitted OutputFile removes the temporary, so a failed or interrupted run
// leaves no half-written output and an existing file untouched. "-" writes to stdout directly.
// Paths ending in ".gz" are gzip-compressed.
#pragma once
#include <cstdio>
#include <string>
#include <string_view>

namespace bloomseq {

class OutputFile {
 public:
  OutputFile() = default;
  // Creates the temporary. Throws IoError naming the path if it cannot be created.
  explicit OutputFile(const std::string& path);
  ~OutputFile();
  OutputFile(OutputFile&& other) noexcept;
  OutputFile& operator=(OutputFile&& other) noexcept;
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  bool is_open() const;
  void write(std::string_view data);  // throws IoError (e.g. disk full)
  void commit();                      // flush, fsync-free close, rename; throws IoError
  const std::string& path() const { return path_; }

  // Removes every uncommitted temporary file of this process (called from signal handlers on SIGINT/SIGTERM).
  // Async-signal-safe: only unlink(2) on a fixed table of paths.
  static void remove_all_temporaries() noexcept;
  // Installs SIGINT, SIGTERM and SIGHUP handlers that remove the temporaries and then re-raise the
  // signal with its default action (so the shell sees the usual "killed by SIGINT", exit status 130).
  static void install_signal_cleanup();

 private:
  struct Impl;
  Impl* impl_ = nullptr;
  std::string path_;
};

}  // namespace bloomseq
