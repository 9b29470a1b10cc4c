// Owners of what a Device hands out: device arrays, pinned host arrays, streams and events. Growing an array
// never frees the old memory on the spot: freeing synchronises a real device and would stall the streams still
// in flight, so old memory goes to a Retired list that the backend frees once its streams are idle.
#pragma once
#include <cstddef>
#include <utility>
#include <vector>

#include "bloomseq/cuda/device.hpp"

namespace bloomseq::cuda {

class Retired {
 public:
  explicit Retired(Device& device) : device_(device) {}
  Retired(const Retired&) = delete;
  Retired& operator=(const Retired&) = delete;
  ~Retired() { free_all(); }
  void add(void* p, bool pinned) { list_.emplace_back(p, pinned); }
  // Only once no stream uses the memory any more.
  void free_all() noexcept {
    for (auto [p, pinned] : list_) pinned ? device_.release_pinned(p) : device_.release(p);
    list_.clear();
  }

 private:
  Device& device_;
  std::vector<std::pair<void*, bool>> list_;
};

// Device (Pinned = false) or page-locked host (Pinned = true) memory for at least capacity() elements.
template <class T, bool Pinned>
class Buffer {
 public:
  Buffer(Device& device, Retired& retired) : device_(&device), retired_(&retired) {}
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  Buffer(Buffer&& o) noexcept
      : device_(o.device_),
        retired_(o.retired_),
        p_(std::exchange(o.p_, nullptr)),
        capacity_(std::exchange(o.capacity_, 0)) {}
  // The owner synchronises the streams that used it before it goes (CudaBackend's destructor).
  ~Buffer() {
    if (p_) Pinned ? device_->release_pinned(p_) : device_->release(p_);
  }
  // Room for n elements; the contents are not kept. On an allocation failure the buffer is empty.
  void reserve(size_t n) {
    if (n <= capacity_) return;
    if (p_) retired_->add(p_, Pinned);
    p_ = nullptr;
    capacity_ = 0;
    void* q = Pinned ? device_->allocate_pinned(n * sizeof(T)) : device_->allocate(n * sizeof(T));
    p_ = static_cast<T*>(q);
    capacity_ = n;
  }
  T* data() const { return p_; }
  size_t capacity() const { return capacity_; }

  // Host view of n elements of pinned memory, after the device has finished with them.
  T* host(size_t n, bool write) const {
    static_assert(Pinned, "only pinned memory is host-accessible");
    device_->host_access(p_, n * sizeof(T), write);
    return p_;
  }

 private:
  Device* device_;
  Retired* retired_;
  T* p_ = nullptr;
  size_t capacity_ = 0;
};

template <class T>
using DeviceArray = Buffer<T, false>;
template <class T>
using PinnedArray = Buffer<T, true>;

class Stream {
 public:
  explicit Stream(Device& device) : device_(&device), s_(device.create_stream()) {}
  Stream(Stream&& o) noexcept : device_(o.device_), s_(std::exchange(o.s_, 0)) {}
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  ~Stream() {
    if (s_) device_->destroy_stream(s_);
  }
  StreamHandle get() const { return s_; }
  void synchronize() { device_->synchronize(s_); }

 private:
  Device* device_;
  StreamHandle s_;
};

class Event {
 public:
  explicit Event(Device& device) : device_(&device), e_(device.create_event()) {}
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  ~Event() { device_->destroy_event(e_); }
  EventHandle get() const { return e_; }

 private:
  Device* device_;
  EventHandle e_;
};

}  // namespace bloomseq::cuda
