// Typed exceptions thrown by the library. The library never exits; the apps map these to sysexits codes
// and print the message, which names the file and the record or line where that is known.
#pragma once
#include <stdexcept>
#include <string>

namespace bloomseq {

enum class ExitCode : int { ok = 0, usage = 64, data = 65, no_input = 66, internal = 70, io = 74, interrupted = 130 };

class Error : public std::runtime_error {
 public:
  Error(ExitCode code, const std::string& what) : std::runtime_error(what), code_(code) {}
  ExitCode code() const noexcept { return code_; }

 private:
  ExitCode code_;
};

// Bad option values or combinations.
struct UsageError : Error {
  explicit UsageError(const std::string& w) : Error(ExitCode::usage, w) {}
};
// Malformed input data (a FASTQ record without '+', a corrupt filter file, ...).
struct DataError : Error {
  explicit DataError(const std::string& w) : Error(ExitCode::data, w) {}
};
// An input that cannot be opened (missing, a directory, unreadable).
struct NoInputError : Error {
  explicit NoInputError(const std::string& w) : Error(ExitCode::no_input, w) {}
};
// A failed read or write (disk full, truncated stream).
struct IoError : Error {
  explicit IoError(const std::string& w) : Error(ExitCode::io, w) {}
};

}  // namespace bloomseq
