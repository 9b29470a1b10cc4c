// RAII owners of device memory, pinned host memory and streams. Destructors never throw (they run during
// unwinding); allocation and synchronisation failures throw through BLOOMSEQ_CUDA_CHECK.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

#include "cuda_check.hpp"

namespace bloomseq::cuda {

template <class T>
class DeviceArray {
 public:
  DeviceArray() = default;
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  ~DeviceArray() { release(); }
  // Capacity for at least n elements; the contents are not kept.
  void reserve(size_t n) {
    if (n <= capacity_) return;
    release();
    BLOOMSEQ_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&p_), n * sizeof(T)));
    capacity_ = n;
  }
  T* data() const { return p_; }
  size_t capacity() const { return capacity_; }

 private:
  void release() {
    if (p_) cudaFree(p_);
    p_ = nullptr;
    capacity_ = 0;
  }
  T* p_ = nullptr;
  size_t capacity_ = 0;
};

// Page-locked host memory: asynchronous copies from and to it really are asynchronous.
template <class T>
class PinnedArray {
 public:
  PinnedArray() = default;
  PinnedArray(const PinnedArray&) = delete;
  PinnedArray& operator=(const PinnedArray&) = delete;
  ~PinnedArray() { release(); }
  void reserve(size_t n) {
    if (n <= capacity_) return;
    release();
    BLOOMSEQ_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&p_), n * sizeof(T)));
    capacity_ = n;
  }
  T* data() const { return p_; }
  T& operator[](size_t i) const { return p_[i]; }
  size_t capacity() const { return capacity_; }

 private:
  void release() {
    if (p_) cudaFreeHost(p_);
    p_ = nullptr;
    capacity_ = 0;
  }
  T* p_ = nullptr;
  size_t capacity_ = 0;
};

class Stream {
 public:
  Stream() { BLOOMSEQ_CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  Stream(Stream&& o) noexcept : s_(std::exchange(o.s_, nullptr)) {}
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  ~Stream() {
    if (s_) {
      cudaStreamSynchronize(s_);
      cudaStreamDestroy(s_);
    }
  }
  cudaStream_t get() const { return s_; }
  void synchronize() { BLOOMSEQ_CUDA_CHECK(cudaStreamSynchronize(s_)); }

 private:
  cudaStream_t s_ = nullptr;
};

}  // namespace bloomseq::cuda
