// The streaming order, as a plain template over a stream type so that it is tested on the host with a fake
// stream (tests/cuda/test_pipeline.cpp) and used unchanged with CUDA streams.
//
// Item i goes to slot i % S (a stream plus its pinned host and device buffers). Before slot s takes a new item,
// the item it held (i - S, the oldest in flight) is waited for and completed, so items complete strictly in
// input order while up to S are in flight: with S >= 2 the copy-in of item i+1, the kernel of item i and the
// copy-back of item i-1 are queued on different streams and overlap on the device.
//
//   submit(stream, slot, index) -> bool   pull input `index` (false: no more input), pack it into the slot's
//                                         host buffer and enqueue copy-in, kernel, copy-back on the stream
//   complete(stream, slot, index)         after stream.synchronize(): consume the slot's results for `index`
//                                         (may enqueue and wait for more work on the same stream, e.g. a rerun
//                                         after an output-buffer overflow)
#pragma once
#include <cstddef>
#include <cstdint>
#include <deque>
#include <utility>
#include <vector>

namespace bloomseq::cuda {

template <class Stream, class Submit, class Complete>
uint64_t run_in_order(std::vector<Stream>& streams, Submit&& submit, Complete&& complete) {
  const size_t slots = streams.size();
  std::deque<std::pair<uint64_t, size_t>> in_flight;  // (index, slot), oldest first
  uint64_t index = 0;
  auto retire_oldest = [&] {
    const auto [oldest, slot] = in_flight.front();
    in_flight.pop_front();
    streams[slot].synchronize();
    complete(streams[slot], slot, oldest);
  };
  for (;; ++index) {
    const size_t slot = size_t(index % slots);
    if (in_flight.size() == slots) retire_oldest();  // frees `slot`: it held index - slots
    if (!submit(streams[slot], slot, index)) break;
    in_flight.emplace_back(index, slot);
  }
  while (!in_flight.empty()) retire_oldest();
  return index;
}

}  // namespace bloomseq::cuda
