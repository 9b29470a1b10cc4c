// The fake asynchronous device catches what a real GPU would get wrong silently: uses of memory that CUDA does
// not order, host access to pinned memory the device may still use, frees while in use, use after free and
// overruns. Without these the host-side tests of the CUDA backend would prove nothing.
#include <catch2/catch.hpp>

#include <cstring>
#include <stdexcept>
#include <vector>

#include "bloomseq/cuda/fake_device.hpp"
#include "bloomseq/error.hpp"

using namespace bloomseq::cuda;

namespace {

FakeDeviceOptions slow() {
  FakeDeviceOptions o;
  o.max_delay_us = 200;  // long enough that unordered work really runs late
  return o;
}

}  // namespace

TEST_CASE("fake device threads: a copy on one stream is not ordered before another stream's use", "[cuda][fake]") {
  FakeDevice d(slow());
  const StreamHandle a = d.create_stream(), b = d.create_stream();
  void* buf = d.allocate(64);
  void* out = d.allocate_pinned(64);
  std::vector<unsigned char> src(64, 7);
  d.copy_async(buf, src.data(), 64, CopyKind::host_to_device, a);
  CHECK_THROWS_AS(d.copy_async(out, buf, 64, CopyKind::device_to_host, b), std::logic_error);
  CHECK(d.violations().size() == 1);
  d.synchronize(a);
  d.synchronize(b);
  d.destroy_stream(a);
  d.destroy_stream(b);
  d.release(buf);
  d.release_pinned(out);
}

TEST_CASE("fake device threads: an event orders one stream after another", "[cuda][fake]") {
  FakeDevice d(slow());
  const StreamHandle a = d.create_stream(), b = d.create_stream();
  const EventHandle e = d.create_event();
  void* buf = d.allocate(64);
  auto* out = static_cast<unsigned char*>(d.allocate_pinned(64));
  std::vector<unsigned char> src(64, 7);
  d.copy_async(buf, src.data(), 64, CopyKind::host_to_device, a);
  d.record(e, a);
  d.wait(b, e);
  d.copy_async(out, buf, 64, CopyKind::device_to_host, b);
  // Reading before the stream is synchronised is a race; after, the data has landed.
  CHECK_THROWS_AS(d.host_access(out, 64, false), std::logic_error);
  d.synchronize(b);
  d.host_access(out, 64, false);
  CHECK(out[0] == 7);
  CHECK(out[63] == 7);
  CHECK(d.violations().size() == 1);
  d.synchronize(a);
  d.release(buf);
  d.release_pinned(out);
}

TEST_CASE("fake device threads: frees, use after free and overruns are reported", "[cuda][fake]") {
  FakeDevice d(slow());
  const StreamHandle a = d.create_stream();
  void* buf = d.allocate(64);
  std::vector<unsigned char> src(128, 1);
  CHECK_THROWS_AS(d.copy_async(buf, src.data(), 128, CopyKind::host_to_device, a), std::logic_error);  // overrun
  d.copy_async(buf, src.data(), 64, CopyKind::host_to_device, a);
  d.release(buf);  // the copy may still run
  CHECK(d.stats().frees_while_busy == 1);
  CHECK_THROWS_AS(d.memset_async(buf, 0, 8, a), std::logic_error);  // use after free
  CHECK_THROWS_AS(d.memset_async(src.data(), 0, 8, a), std::logic_error);  // not device memory
  d.synchronize(a);
  const auto v = d.violations();
  REQUIRE(v.size() == 4);
  CHECK(v[1] == "memory freed while a stream may still use it");
}

TEST_CASE("fake device: injected allocation failures and the shared-memory opt-in", "[cuda][fake]") {
  FakeDeviceOptions o;
  o.fail_allocation = [](uint64_t n, size_t) { return n == 1; };
  FakeDevice d(o);
  void* p = d.allocate(8);
  CHECK_THROWS_AS(d.allocate(8), bloomseq::Error);
  void* q = d.allocate(8);
  CHECK(d.stats().failed_allocations == 1);
  d.release(p);
  d.release(q);
  // Above the opt-in limit the device refuses, as cudaFuncSetAttribute does.
  CHECK_THROWS_AS(d.set_max_dynamic_shared(KernelKind::classify, 8, o.profile.shared_per_block_max + 1),
                  bloomseq::Error);
  CHECK(d.violations().empty());
}
