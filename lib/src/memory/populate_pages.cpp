#include "bloomseq/memory/populate_pages.hpp"

#include <cstdint>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // older headers; a kernel without it answers EINVAL
#endif
#endif

namespace bloomseq {

bool populate_pages(void* p, size_t bytes) {
#if defined(__linux__)
  static const uintptr_t page = uintptr_t(sysconf(_SC_PAGESIZE));
  // Whole pages only: a page shared with memory beyond the range may lie outside any mapping.
  const uintptr_t lo = (reinterpret_cast<uintptr_t>(p) + page - 1) / page * page;
  const uintptr_t hi = (reinterpret_cast<uintptr_t>(p) + bytes) / page * page;
  if (hi <= lo) return true;
  return madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_POPULATE_WRITE) == 0;
#else
  (void)p, (void)bytes;
  return false;
#endif
}

}  // namespace bloomseq
