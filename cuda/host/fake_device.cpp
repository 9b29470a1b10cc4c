#include "bloomseq/cuda/fake_device.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <random>
#include <stdexcept>
#include <thread>

#include "bloomseq/cuda/emu_backend.hpp"
#include "bloomseq/cuda/emu_ctx.hpp"
#include "bloomseq/cuda/kernels/stage1a_bitsliced_kernel.hpp"
#include "bloomseq/cuda/packed_seq.hpp"
#include "bloomseq/error.hpp"

namespace bloomseq::cuda {
namespace {

constexpr size_t kToEnd = ~size_t(0);  // an access from p to the end of its allocation
constexpr unsigned char kFreshByte = 0xCD, kFreedByte = 0xDD;

// Ordering knowledge: clock[s] = number of operations of stream s known to be finished before (or ordered
// before) whatever holds the clock.
using Clock = std::vector<uint64_t>;

void join(Clock& a, const Clock& b) {
  if (a.size() < b.size()) a.resize(b.size(), 0);
  for (size_t i = 0; i < b.size(); ++i) a[i] = std::max(a[i], b[i]);
}
uint64_t at(const Clock& c, uint32_t s) { return s < c.size() ? c[s] : 0; }

struct Access {
  const void* p;
  size_t bytes;
  bool write;
};

struct Use {
  uint32_t stream;
  uint64_t seq;
  bool write;
  uintptr_t lo, hi;
};

struct Allocation {
  size_t bytes = 0;
  bool pinned = false;
  bool live = true;
  std::unique_ptr<uint64_t[]> storage;
  std::vector<Use> uses;  // device uses the host does not yet know to be finished
};

// One stream: a worker thread running its operations in order, each after a random delay.
struct Worker {
  std::thread thread;
  std::mutex m;
  std::condition_variable cv;
  std::deque<std::function<void()>> queue;
  bool destroyed = false;  // host side, under the device mutex; the worker outlives it for late waits
  uint64_t enqueued = 0;  // host side, under the device mutex
  uint64_t done = 0;      // under m
  bool stop = false;
  Clock order;  // what the stream's next operation is ordered after (host side)
};

struct EventState {
  bool recorded = false;
  uint32_t stream = 0;
  uint64_t seq = 0;
  Clock order;
};

}  // namespace

struct FakeDevice::State {
  FakeDeviceOptions o;
  mutable std::mutex m;  // everything below except the workers' queues
  std::map<uintptr_t, Allocation> memory;
  std::vector<std::unique_ptr<Worker>> streams;  // index = handle; 0 is not a stream
  std::vector<EventState> events{1};
  Clock host;  // what the host knows to be finished
  std::vector<std::string> violations;
  FakeDeviceStats stats;
  std::map<std::pair<int, int>, size_t> max_dynamic_shared;
  std::mt19937_64 rng;
  uint64_t domain = 0;

  void violation(const std::string& what, bool may_throw) {
    violations.push_back(what);
    if (may_throw) throw std::logic_error("fake device: " + what);
  }

  Allocation* find(const void* p, uintptr_t& start) {
    const uintptr_t a = reinterpret_cast<uintptr_t>(p);
    auto it = memory.upper_bound(a);
    if (it == memory.begin()) return nullptr;
    --it;
    if (a >= it->first + std::max<size_t>(it->second.bytes, 1)) return nullptr;
    start = it->first;
    return &it->second;
  }

  // Drops the uses the host knows to be finished: everything enqueued later is ordered after them.
  void prune(Allocation& a) {
    a.uses.erase(std::remove_if(a.uses.begin(), a.uses.end(),
                                [&](const Use& u) { return at(host, u.stream) >= u.seq; }),
                 a.uses.end());
  }

  // Checks one access by operation (stream, seq) ordered after `order` (stream 0: the host). The use is added to
  // `uses` for record() once every access of the operation has passed: a refused operation leaves no trace.
  using Pending = std::vector<std::pair<Allocation*, Use>>;
  void check(const Access& x, uint32_t stream, uint64_t seq, const Clock& order, bool pinned_expected,
             const char* what, bool may_throw, Pending* uses = nullptr) {
    if (x.bytes == 0) return;
    uintptr_t start = 0;
    Allocation* a = find(x.p, start);
    const uintptr_t lo = reinterpret_cast<uintptr_t>(x.p);
    if (!a) return violation(std::string(what) + ": address is not memory of this device", may_throw);
    const uintptr_t hi = x.bytes == kToEnd ? start + a->bytes : lo + x.bytes;
    if (!a->live) return violation(std::string(what) + ": use after free", may_throw);
    if (a->pinned != pinned_expected)
      return violation(std::string(what) + (pinned_expected ? ": not pinned host memory" : ": not device memory"),
                       may_throw);
    if (hi > start + a->bytes)
      return violation(std::string(what) + ": " + std::to_string(hi - lo) + " bytes at offset " +
                           std::to_string(lo - start) + " overrun an allocation of " + std::to_string(a->bytes),
                       may_throw);
    prune(*a);
    for (const Use& u : a->uses) {
      if (!(u.write || x.write) || u.hi <= lo || hi <= u.lo) continue;
      if (stream != 0 && u.stream == stream) continue;  // same stream: in order
      if (at(order, u.stream) < u.seq)
        return violation(std::string(what) + ": " + (x.write ? "writes" : "reads") + " memory that a " +
                             (u.write ? "write" : "read") + " on another stream is not ordered before",
                         may_throw);
    }
    if (uses) uses->emplace_back(a, Use{stream, seq, x.write, lo, hi});
  }
  static void record(const Pending& uses) {
    for (const auto& [a, u] : uses) a->uses.push_back(u);
  }

  Worker& stream(StreamHandle s) {
    if (s == 0 || s >= streams.size() || streams[s]->destroyed) throw std::logic_error("fake device: unknown stream");
    return *streams[s];
  }

  // Enqueues op on stream s after checking its accesses (host mutex held).
  void enqueue(StreamHandle s, const std::vector<Access>& accesses, const char* what, std::function<void()> op) {
    Worker& w = stream(s);
    join(w.order, host);
    const uint32_t id = uint32_t(s);
    const uint64_t seq = w.enqueued + 1;
    Pending uses;
    for (const Access& x : accesses) check(x, id, seq, w.order, false, what, true, &uses);
    record(uses);
    w.enqueued = seq;
    if (w.order.size() <= id) w.order.resize(id + 1, 0);
    w.order[id] = seq;
    push(w, std::move(op));
  }

  void push(Worker& w, std::function<void()> op) {
    {
      std::lock_guard<std::mutex> lock(w.m);
      w.queue.push_back(std::move(op));
    }
    w.cv.notify_all();
  }

  void* allocate(size_t bytes, bool pinned) {
    std::lock_guard<std::mutex> lock(m);
    const uint64_t n = stats.allocations++;
    if (o.fail_allocation && o.fail_allocation(n, bytes)) {
      ++stats.failed_allocations;
      throw Error(ExitCode::internal, std::string("fake device: ") + (pinned ? "cudaMallocHost" : "cudaMalloc") +
                                          " failed: out of memory (injected)");
    }
    Allocation a;
    a.bytes = bytes;
    a.pinned = pinned;
    a.storage.reset(new uint64_t[bytes / 8 + 1]);
    std::memset(a.storage.get(), kFreshByte, (bytes / 8 + 1) * 8);  // never-written memory reads as garbage
    void* p = a.storage.get();
    memory.emplace(reinterpret_cast<uintptr_t>(p), std::move(a));
    return p;
  }

  void release(void* p, bool pinned) {
    if (!p) return;
    std::vector<std::pair<Worker*, uint64_t>> pending;
    {
      std::lock_guard<std::mutex> lock(m);
      const auto it = memory.find(reinterpret_cast<uintptr_t>(p));
      if (it == memory.end() || !it->second.live || it->second.pinned != pinned) {
        violations.push_back("free of a pointer this device did not hand out (or freed twice)");
        return;
      }
      Allocation& a = it->second;
      prune(a);
      if (!a.uses.empty()) violations.push_back("memory freed while a stream may still use it");
      for (const Use& u : a.uses) pending.emplace_back(streams[u.stream].get(), u.seq);
      for (size_t s = 1; s < streams.size(); ++s)
        if (at(host, uint32_t(s)) < streams[s]->enqueued) {
          ++stats.frees_while_busy;
          break;
        }
      a.live = false;
      a.uses.clear();
    }
    // Reported above; the poison waits for those uses so that the fake itself never races with its workers.
    for (const auto& [w, seq] : pending) wait_done(*w, seq);
    std::lock_guard<std::mutex> lock(m);
    Allocation& a = memory.at(reinterpret_cast<uintptr_t>(p));
    // Poisoned and kept: the address is never handed out again, so a late use is reported as such.
    std::memset(a.storage.get(), kFreedByte, (a.bytes / 8 + 1) * 8);
  }

  static void run(Worker& w, uint64_t seed, uint32_t max_delay_us, State* self) {
    std::mt19937_64 rng(seed);
    for (;;) {
      std::function<void()> op;
      {
        std::unique_lock<std::mutex> lock(w.m);
        w.cv.wait(lock, [&] { return w.stop || !w.queue.empty(); });
        if (w.queue.empty()) return;
        op = std::move(w.queue.front());
        w.queue.pop_front();
      }
      if (max_delay_us) std::this_thread::sleep_for(std::chrono::microseconds(rng() % (max_delay_us + 1)));
      try {
        op();
      } catch (const std::exception& e) {
        std::lock_guard<std::mutex> lock(self->m);
        self->violations.push_back(std::string("operation failed on the device: ") + e.what());
      }
      {
        std::lock_guard<std::mutex> lock(w.m);
        ++w.done;
      }
      w.cv.notify_all();
    }
  }

  static void wait_done(Worker& w, uint64_t seq) {
    std::unique_lock<std::mutex> lock(w.m);
    w.cv.wait(lock, [&] { return w.done >= seq; });
  }

  size_t shared_allowed(KernelKind kind, int regs) const {
    const auto it = max_dynamic_shared.find({int(kind), regs});
    return it == max_dynamic_shared.end() ? size_t(o.profile.shared_per_block_default) : it->second;
  }

  void check_launch(KernelKind kind, int regs, const LaunchConfig& c, const char* name) {
    if (c.blocks == 0 || c.threads == 0 || c.threads % kWarpSize != 0 ||
        int(c.threads) > o.profile.max_threads_per_block)
      throw Error(ExitCode::internal, std::string("fake device: launch of ") + name + ": invalid configuration");
    if (c.shared_bytes > shared_allowed(kind, regs))
      throw Error(ExitCode::internal, std::string("fake device: launch of ") + name + " asks " +
                                          std::to_string(c.shared_bytes) +
                                          " bytes of dynamic shared memory, the kernel allows " +
                                          std::to_string(shared_allowed(kind, regs)));
    ++stats.launches;
  }
};

FakeDevice::FakeDevice(FakeDeviceOptions options) : st_(std::make_unique<State>()) {
  st_->o = std::move(options);
  st_->streams.push_back(std::make_unique<Worker>());
  st_->streams[0]->destroyed = true;
  st_->rng.seed(st_->o.seed);
  static std::atomic<uint64_t> next_domain{uint64_t(1) << 32};
  st_->domain = next_domain++;
}

FakeDevice::~FakeDevice() {
  for (auto& w : st_->streams)
    if (w->thread.joinable()) {
      {
        std::lock_guard<std::mutex> lock(w->m);
        w->stop = true;
      }
      w->cv.notify_all();
      w->thread.join();
    }
}

// Distinct from every CUDA device ordinal and from every other fake device, even one at the same address.
uint64_t FakeDevice::attribute_domain() const { return st_->domain; }

model::DeviceProfile FakeDevice::profile() const { return st_->o.profile; }
std::string FakeDevice::label() const { return "fake"; }

void* FakeDevice::allocate(size_t bytes) { return st_->allocate(bytes, false); }
void FakeDevice::release(void* p) noexcept { st_->release(p, false); }
void* FakeDevice::allocate_pinned(size_t bytes) { return st_->allocate(bytes, true); }
void FakeDevice::release_pinned(void* p) noexcept { st_->release(p, true); }

StreamHandle FakeDevice::create_stream() {
  std::lock_guard<std::mutex> lock(st_->m);
  auto w = std::make_unique<Worker>();
  Worker* raw = w.get();
  const uint64_t seed = st_->rng();
  State* self = st_.get();
  const uint32_t delay = st_->o.max_delay_us;
  w->thread = std::thread([raw, seed, delay, self] { State::run(*raw, seed, delay, self); });
  st_->streams.push_back(std::move(w));
  return st_->streams.size() - 1;
}

// Like cudaStreamDestroy: queued work still runs; the host learns nothing about its completion.
void FakeDevice::destroy_stream(StreamHandle s) noexcept {
  std::lock_guard<std::mutex> lock(st_->m);
  if (s == 0 || s >= st_->streams.size() || st_->streams[s]->destroyed)
    st_->violations.push_back("destroy of an unknown stream");
  else
    st_->streams[s]->destroyed = true;
}

EventHandle FakeDevice::create_event() {
  std::lock_guard<std::mutex> lock(st_->m);
  st_->events.emplace_back();
  return st_->events.size() - 1;
}

void FakeDevice::destroy_event(EventHandle) noexcept {}

void FakeDevice::copy_async(void* dst, const void* src, size_t bytes, CopyKind kind, StreamHandle s) {
  std::lock_guard<std::mutex> lock(st_->m);
  if (bytes == 0) return;
  Worker& w = st_->stream(s);
  join(w.order, st_->host);
  const uint32_t id = uint32_t(s);
  const uint64_t seq = w.enqueued + 1;
  State::Pending uses;
  if (kind == CopyKind::host_to_device) {
    st_->stats.host_to_device_bytes += bytes;
    uintptr_t start = 0;
    const Allocation* a = st_->find(src, start);
    if (a && a->pinned) st_->check({src, bytes, false}, id, seq, w.order, true, "copy from pinned memory", true, &uses);
    st_->check({dst, bytes, true}, id, seq, w.order, false, "copy to the device", true, &uses);
  } else {
    st_->check({src, bytes, false}, id, seq, w.order, false, "copy from the device", true, &uses);
    st_->check({dst, bytes, true}, id, seq, w.order, true, "asynchronous copy to the host", true, &uses);
  }
  State::record(uses);
  w.enqueued = seq;
  if (w.order.size() <= id) w.order.resize(id + 1, 0);
  w.order[id] = seq;
  // The source is read when the copy runs: a host buffer changed before then changes what lands.
  st_->push(w, [dst, src, bytes] { std::memcpy(dst, src, bytes); });
}

void FakeDevice::memset_async(void* dst, int value, size_t bytes, StreamHandle s) {
  std::lock_guard<std::mutex> lock(st_->m);
  st_->enqueue(s, {{dst, bytes, true}}, "memset", [dst, value, bytes] { std::memset(dst, value, bytes); });
}

void FakeDevice::launch_stage1a(int hash_registers, const LaunchConfig& c, const Stage1aKernelParams& p,
                                StreamHandle s) {
  std::lock_guard<std::mutex> lock(st_->m);
  st_->check_launch(KernelKind::stage1a, hash_registers, c, "stage1a_kernel");
  std::vector<Access> uses = {
      p.rows ? Access{p.rows, (p.row_full_blocks * 8 + p.row_tail_words) * p.m_bits * 8, false}
             : Access{p.vector_words, uint64_t(p.vector_count) * p.words_per_vector * 4, false},
      {p.nibble_tables, uint64_t(p.key_nibbles) * 16 * uint64_t(p.k) * 4, false},
      {p.hit_count, sizeof(HitCounter), true},
      {p.hit_pos, size_t(p.capacity) * 4, true},
      {p.hit_sub, size_t(p.capacity) * 4, true}};
  if (p.n_starts) {
    uses.push_back({p.packed, ((p.n_starts - 1) / 32 + 2) * 8, false});
    uses.push_back({p.invalid, ((p.n_starts - 1) / 64 + 2) * 8, false});
  }
  st_->enqueue(s, uses, "stage1a_kernel", [c, p, hash_registers] {
    with_hash_registers(hash_registers, [&](auto regs) {
      emulate_launch(c.blocks, c.threads, c.shared_bytes,
                     [&](HostCtx& ctx) { stage1a_kernel_body<decltype(regs)::value>(ctx, p); });
    });
  });
}

void FakeDevice::launch_classify(int hash_registers, const LaunchConfig& c, const ClassifyKernelParams& p,
                                 StreamHandle s) {
  std::lock_guard<std::mutex> lock(st_->m);
  st_->check_launch(classify_kernel_kind(p), hash_registers, c, "classify_kernel");
  const std::vector<Access> uses = {
      {p.filter_words, kToEnd, false},
      {p.filters, uint64_t(p.n_filters) * sizeof(FilterDesc), false},
      {p.groups, uint64_t(p.n_groups) * sizeof(GroupDesc), false},
      {p.nibble_tables, uint64_t(p.key_nibbles) * 16 * uint64_t(p.k_max) * 4, false},
      {p.packed, kToEnd, false},
      {p.invalid, kToEnd, false},
      {p.read_offset, (uint64_t(p.n_reads) + 1) * 8, false},
      {p.bitmap_offset, (uint64_t(p.n_reads) + 1) * 8, false},
      {p.bitmaps, kToEnd, true},
      {p.hit_frames, uint64_t(p.n_reads) * p.n_filters * 4, true}};
  st_->enqueue(s, uses, "classify_kernel", [c, p, hash_registers] {
    with_hash_registers(hash_registers, [&](auto regs) {
      emulate_launch(c.blocks, c.threads, c.shared_bytes,
                     [&](HostCtx& ctx) {
                       if (p.n_groups) classify_body<decltype(regs)::value, true>(ctx, p);
                       else classify_body<decltype(regs)::value, false>(ctx, p);
                     });
    });
  });
}

void FakeDevice::record(EventHandle e, StreamHandle s) {
  std::lock_guard<std::mutex> lock(st_->m);
  Worker& w = st_->stream(s);
  if (e == 0 || e >= st_->events.size()) throw std::logic_error("fake device: unknown event");
  EventState& ev = st_->events[e];
  ev.recorded = true;
  ev.stream = uint32_t(s);
  ev.seq = w.enqueued;
  ev.order = w.order;
  join(ev.order, st_->host);
}

void FakeDevice::wait(StreamHandle s, EventHandle e) {
  std::lock_guard<std::mutex> lock(st_->m);
  Worker& w = st_->stream(s);
  if (e == 0 || e >= st_->events.size()) throw std::logic_error("fake device: unknown event");
  const EventState ev = st_->events[e];
  if (!ev.recorded) return;  // as in CUDA: waiting for a never-recorded event waits for nothing
  join(w.order, ev.order);
  Worker* source = st_->streams[ev.stream].get();
  if (source == &w) return;
  // The worker of s blocks until the event's stream has run that far (ordering on the device, not the host).
  const uint64_t seq = ev.seq;
  ++w.enqueued;
  if (w.order.size() <= s) w.order.resize(s + 1, 0);
  w.order[s] = w.enqueued;
  st_->push(w, [source, seq] { State::wait_done(*source, seq); });
}

void FakeDevice::synchronize(StreamHandle s) {
  Worker* w;
  uint64_t seq;
  Clock order;
  {
    std::lock_guard<std::mutex> lock(st_->m);
    w = &st_->stream(s);
    seq = w->enqueued;
    order = w->order;
  }
  State::wait_done(*w, seq);
  std::lock_guard<std::mutex> lock(st_->m);
  join(st_->host, order);
}

KernelAttributes FakeDevice::kernel_attributes(KernelKind, int) { return KernelAttributes{}; }

void FakeDevice::set_max_dynamic_shared(KernelKind kind, int hash_registers, size_t bytes) {
  std::lock_guard<std::mutex> lock(st_->m);
  if (bytes > st_->o.profile.shared_per_block_max)
    throw Error(ExitCode::internal, "fake device: cudaFuncSetAttribute failed: " + std::to_string(bytes) +
                                        " bytes of shared memory exceed the opt-in limit");
  st_->max_dynamic_shared[{int(kind), hash_registers}] = bytes;
}

uint32_t FakeDevice::blocks_per_sm(KernelKind, int, uint32_t threads, size_t shared_bytes) {
  const uint32_t n = cuda::blocks_per_sm(st_->o.profile, KernelAttributes{}, threads, shared_bytes);
  if (n == 0) return 0;
  return n > st_->o.occupancy_deficit ? n - st_->o.occupancy_deficit : 1;
}

void FakeDevice::host_access(const void* p, size_t bytes, bool write) {
  std::lock_guard<std::mutex> lock(st_->m);
  if (bytes == 0) return;
  const char* what = write ? "the host writes pinned memory" : "the host reads pinned memory";
  st_->check({p, bytes, write}, 0, 0, st_->host, true, what, true);
}

std::vector<std::string> FakeDevice::violations() const {
  std::lock_guard<std::mutex> lock(st_->m);
  return st_->violations;
}

FakeDeviceStats FakeDevice::stats() const {
  std::lock_guard<std::mutex> lock(st_->m);
  return st_->stats;
}

}  // namespace bloomseq::cuda
