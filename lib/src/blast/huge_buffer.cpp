#include "bloomseq/blast/huge_buffer.hpp"

#include "bloomseq/blast/subquery_vectors.hpp"  // for the instantiation of its occurrence type

#include <sys/mman.h>

#include <cstdlib>
#include <cstring>
#include <new>

namespace bloomseq {

template <class T>
HugeBuffer<T>::HugeBuffer(size_t n, bool huge) : size_(n) {
  if (n == 0) return;
  constexpr size_t kHuge = size_t(2) << 20;
  if (n * sizeof(T) < kHuge / 2) {
    // Small buffers (a short query record's diagonal table) from the heap: a mapping each would reserve 4 MiB of
    // address space and one of the process's limited mappings per buffer, and a query of 10^5 records has 10^5.
    const size_t bytes = (n * sizeof(T) + 63) / 64 * 64;
    void* p = std::aligned_alloc(64, bytes);
    if (!p) throw std::bad_alloc();
    std::memset(p, 0, bytes);
    data_ = static_cast<T*>(p);
    return;  // bytes_ = 0: not mapped
  }
  bytes_ = (n * sizeof(T) + kHuge - 1) / kHuge * kHuge;
  // Anonymous mappings come zeroed; over-allocate by one huge page to align the start.
  void* p = mmap(nullptr, bytes_ + kHuge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  const uintptr_t base = reinterpret_cast<uintptr_t>(p);
  const uintptr_t aligned = (base + kHuge - 1) / kHuge * kHuge;
  if (aligned > base) munmap(p, aligned - base);
  const uintptr_t end = base + bytes_ + kHuge, aligned_end = aligned + bytes_;
  if (end > aligned_end) munmap(reinterpret_cast<void*>(aligned_end), end - aligned_end);
#ifdef MADV_HUGEPAGE
  madvise(reinterpret_cast<void*>(aligned), bytes_, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
#endif
  data_ = reinterpret_cast<T*>(aligned);
}

template <class T>
HugeBuffer<T>::~HugeBuffer() {
  release();
}

template <class T>
void HugeBuffer<T>::release() {
  if (!data_) return;
  if (bytes_) munmap(data_, bytes_);
  else std::free(data_);
}

template <class T>
HugeBuffer<T>& HugeBuffer<T>::operator=(HugeBuffer&& o) noexcept {
  if (this != &o) {
    release();
    data_ = o.data_;
    size_ = o.size_;
    bytes_ = o.bytes_;
    o.data_ = nullptr;
    o.size_ = o.bytes_ = 0;
  }
  return *this;
}

template class HugeBuffer<uint32_t>;
template class HugeBuffer<uint64_t>;
template class HugeBuffer<SubqueryFilters::Occurrence>;

}  // namespace bloomseq
