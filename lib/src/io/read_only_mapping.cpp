#include "read_only_mapping.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mapped_input_guard.hpp"

namespace bloomseq {
namespace io_detail {

std::shared_ptr<const ReadOnlyMapping> ReadOnlyMapping::open(const std::string& path, uint64_t expected_bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return nullptr;
  struct stat st {};
  void* m = MAP_FAILED;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && uint64_t(st.st_size) == expected_bytes)
    m = ::mmap(nullptr, size_t(expected_bytes), PROT_READ, MAP_SHARED, fd, 0);
  ::close(fd);
  if (m == MAP_FAILED) return nullptr;
  // Lookups land on random rows of the filters: through 4-KiB pages nearly every one also misses the TLB. With
  // this hint, a kernel whose file system caches files in large folios reads the file into 2-MiB folios when it
  // faults it in and maps them whole (1,024 references, 1.4 GB, read cold: later runs 0.67x the CPU time). A
  // hint only: where it is not supported nothing changes.
  if (expected_bytes >= kHugePageBytes) ::madvise(m, size_t(expected_bytes), MADV_HUGEPAGE);
  const int slot = register_mapping(m, size_t(expected_bytes), path);
  if (slot < 0) {
    ::munmap(m, size_t(expected_bytes));
    return nullptr;
  }
  std::shared_ptr<ReadOnlyMapping> mapping(new ReadOnlyMapping);
  mapping->data_ = static_cast<const char*>(m);
  mapping->bytes_ = expected_bytes;
  mapping->guard_slot_ = slot;
  return mapping;
}

ReadOnlyMapping::~ReadOnlyMapping() {
  unregister_mapping(guard_slot_);
  ::munmap(const_cast<char*>(data_), size_t(bytes_));
}

}  // namespace io_detail
}  // namespace bloomseq
