#include "bloomseq/blast/record_spill.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "bloomseq/error.hpp"

namespace bloomseq {

RecordSpill::RecordSpill() {
  const char* tmp = std::getenv("TMPDIR");
  dir_ = tmp && *tmp ? tmp : "/tmp";
  std::string pattern = dir_ + "/bloomseq-record-XXXXXX";
  std::vector<char> path(pattern.begin(), pattern.end());
  path.push_back('\0');
  fd_ = mkstemp(path.data());
  if (fd_ < 0)
    throw IoError(dir_ + ": cannot make a temporary file for a long database record: " + std::strerror(errno));
  unlink(path.data());  // nothing is left behind, however the search ends
}

RecordSpill::~RecordSpill() {
  unmap();
  if (fd_ >= 0) close(fd_);
}

void RecordSpill::append(const uint8_t* codes, size_t n) {
  unmap();
  while (n > 0) {
    const ssize_t k = write(fd_, codes, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0)
      throw IoError(dir_ + ": cannot write a temporary file for a long database record: " +
                    std::strerror(k < 0 ? errno : ENOSPC));
    codes += k;
    n -= size_t(k);
    size_ += uint64_t(k);
  }
}

const uint8_t* RecordSpill::map() {
  if (mapped_ || size_ == 0) return static_cast<const uint8_t*>(mapped_);
  // The page cache holds the written codes in large folios, and a fault maps a whole folio (2 MB here: a stage 3
  // with triggers all over a 200-Mbase record faulted in all of it). Written out and dropped from the cache, the
  // file is then read a 4-KB page at a time where the alignments look, without read-ahead.
  if (fdatasync(fd_) != 0)
    throw IoError(dir_ + ": cannot write a temporary file for a long database record: " + std::strerror(errno));
  posix_fadvise(fd_, 0, 0, POSIX_FADV_DONTNEED);
  void* p = mmap(nullptr, size_t(size_), PROT_READ, MAP_SHARED, fd_, 0);
  if (p == MAP_FAILED)
    throw IoError(dir_ + ": cannot map a temporary file for a long database record: " + std::strerror(errno));
  madvise(p, size_t(size_), MADV_RANDOM);
  mapped_ = p;
  mapped_bytes_ = size_t(size_);
  return static_cast<const uint8_t*>(mapped_);
}

const uint8_t* RecordSpill::map_true(const std::vector<AmbiguousRun>& ambiguous) {
  const uint8_t* codes = map();
  if (ambiguous.empty() || !codes) return codes;
  if (!true_mapped_) {
    void* p = mmap(nullptr, size_t(size_), PROT_READ | PROT_WRITE, MAP_PRIVATE, fd_, 0);
    if (p == MAP_FAILED)
      throw IoError(dir_ + ": cannot map a temporary file for a long database record: " + std::strerror(errno));
    madvise(p, size_t(size_), MADV_RANDOM);
    for (const AmbiguousRun& r : ambiguous)
      if (r.begin < size_) std::memset(static_cast<uint8_t*>(p) + r.begin, r.code, size_t(std::min(r.end, size_) - r.begin));
    true_mapped_ = p;
  }
  return static_cast<const uint8_t*>(true_mapped_);
}

void RecordSpill::prefetch(std::vector<std::pair<uint64_t, uint64_t>> ranges) {
  if (!mapped_) return;
  const uint64_t page = uint64_t(sysconf(_SC_PAGESIZE));
  std::sort(ranges.begin(), ranges.end());
  uint64_t from = 0, to = 0;
  auto flush = [&] {
    if (to > from) madvise(static_cast<uint8_t*>(mapped_) + from, size_t(to - from), MADV_WILLNEED);
  };
  for (const auto& r : ranges) {
    const uint64_t a = r.first / page * page, b = std::min(size_, (r.second + page - 1) / page * page);
    if (a >= b) continue;
    if (a > to) flush(), from = a;
    to = std::max(to, b);
  }
  flush();
}

void RecordSpill::unmap() {
  if (mapped_) munmap(mapped_, mapped_bytes_);
  if (true_mapped_) munmap(true_mapped_, mapped_bytes_);
  true_mapped_ = nullptr;
  mapped_ = nullptr;
  mapped_bytes_ = 0;
}

}  // namespace bloomseq
