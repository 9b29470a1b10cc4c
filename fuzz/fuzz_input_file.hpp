// Fuzz inputs arrive as bytes; the readers under test take paths. This puts the bytes in an anonymous
// in-memory file and hands out its /proc path, so no disk files pile up during long fuzz runs.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <sys/mman.h>
#include <unistd.h>

namespace bloomseq::fuzz {

class InputFile {
 public:
  InputFile(const uint8_t* data, size_t size) {
    fd_ = memfd_create("bloomseq-fuzz", 0);
    if (fd_ < 0) return;
    size_t done = 0;
    while (done < size) {
      const ssize_t n = ::write(fd_, data + done, size - done);
      if (n <= 0) break;
      done += size_t(n);
    }
    ::lseek(fd_, 0, SEEK_SET);
  }
  ~InputFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  bool ok() const { return fd_ >= 0; }
  std::string path() const { return "/proc/self/fd/" + std::to_string(fd_); }

 private:
  int fd_ = -1;
};

}  // namespace bloomseq::fuzz
