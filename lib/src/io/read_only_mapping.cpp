#include "read_only_mapping.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "bloomseq/io/filter_file.hpp"
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
  // faults it in and maps them whole (1,024 references, 1.4 GB, read cold: later runs 0.69x the wall time). A
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

bool maps_through_huge_pages(const std::string& path) {
  constexpr uint64_t kHuge = io_detail::ReadOnlyMapping::kHugePageBytes;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st {};
  void* m = MAP_FAILED;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && uint64_t(st.st_size) >= 2 * kHuge)
    m = ::mmap(nullptr, size_t(st.st_size), PROT_READ, MAP_SHARED, fd, 0);
  ::close(fd);
  if (m == MAP_FAILED) return false;
  const size_t bytes = size_t(st.st_size);
  const uintptr_t base = reinterpret_cast<uintptr_t>(m);
  // A 2-MiB page maps a 2-MiB-aligned piece of the file at a 2-MiB-aligned address: only a mapping that starts
  // aligned (the kernel aligns large file mappings where it can map them whole) can have one.
  bool huge = false;
  const int slot = base % kHuge == 0 ? io_detail::register_mapping(m, bytes, path) : -1;
  if (slot >= 0) {
    ::madvise(m, bytes, MADV_HUGEPAGE);
    // A page from the middle: the first ones also hold the header, which loaders read() (small folios).
    const volatile char touched = static_cast<const volatile char*>(m)[bytes / 2 / kHuge * kHuge];
    (void)touched;
    std::ifstream smaps("/proc/self/smaps");
    bool inside = false;
    for (std::string line; std::getline(smaps, line);) {
      unsigned long lo = 0, hi = 0;
      char dash = 0;
      if (std::sscanf(line.c_str(), "%lx%c%lx ", &lo, &dash, &hi) == 3 && dash == '-') {
        inside = lo == base;
      } else if (inside && line.rfind("FilePmdMapped:", 0) == 0) {
        huge = std::strtoull(line.c_str() + 14, nullptr, 10) > 0;
        break;
      }
    }
    io_detail::unregister_mapping(slot);
  }
  ::munmap(m, bytes);
  return huge;
}

}  // namespace bloomseq
