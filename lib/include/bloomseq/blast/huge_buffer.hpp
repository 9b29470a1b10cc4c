// A zero-initialised array for the large query structures (hundreds of MB for genome-sized queries): 2 MiB-aligned
// and, unless asked otherwise, marked for transparent huge pages (fewer TLB misses on random reads, 512 times fewer
// first-touch faults). The bit-sliced matrix and the direct-mapped index ask for ordinary pages (below). Falls back
// to ordinary pages where THP is unavailable.
#pragma once
#include <cstddef>
#include <cstdint>

#include "bloomseq/memory/populate_pages.hpp"  // (its users populate the buffers they fill at once)

namespace bloomseq {

template <class T>
class HugeBuffer {
 public:
  HugeBuffer() = default;
  // `huge` = false leaves the buffer on ordinary pages: on a VM that hands idle memory back to the hypervisor a
  // fresh 2 MiB page costs milliseconds on first touch (about 3.5 ms, against about 0.8 ms for the same
  // bytes in 4 KiB pages), which only pays off on buffers read at random many times.
  explicit HugeBuffer(size_t n, bool huge = true);
  ~HugeBuffer();
  HugeBuffer(HugeBuffer&& o) noexcept : data_(o.data_), size_(o.size_), bytes_(o.bytes_) {
    o.data_ = nullptr;
    o.size_ = o.bytes_ = 0;
  }
  HugeBuffer& operator=(HugeBuffer&& o) noexcept;
  HugeBuffer(const HugeBuffer&) = delete;
  HugeBuffer& operator=(const HugeBuffer&) = delete;

  T* data() { return data_; }
  const T* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }

 private:
  void release();

  T* data_ = nullptr;
  size_t size_ = 0;
  size_t bytes_ = 0;  // mapped bytes; 0 for a small buffer from the heap
};

extern template class HugeBuffer<uint32_t>;
extern template class HugeBuffer<uint64_t>;

}  // namespace bloomseq
