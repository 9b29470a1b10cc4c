#include "bloomseq/blast/record_windows.hpp"

#include <algorithm>
#include <cstring>

#include "bloomseq/encode/dna.hpp"

namespace bloomseq {

namespace {
uint64_t round_up_64(uint64_t x) { return std::max<uint64_t>(64, (x + 63) / 64 * 64); }
}  // namespace

RecordWindows::RecordWindows(const std::string& name, uint32_t record, uint64_t record_stream, uint64_t length,
                             uint64_t step, uint64_t margin, std::function<void(const DbBatch&)> on_window,
                             bool blastn_bases, bool lowercase)
    : on_window_(std::move(on_window)),
      length_(length),
      step_(round_up_64(step)),
      margin_(round_up_64(margin)),
      record_stream_(record_stream) {
  win_.names.push_back(name);
  win_.lengths.push_back(0);
  win_.local_starts.push_back(0);
  win_.first_record = record;
  win_.window.on = true;
  win_.window.record_length = length;
  win_.window.own_end = std::min(length, step_);
  window_end_ = std::min(length, step_ + margin_);
  win_.codes.reserve(size_t(std::min(length, step_ + 2 * margin_) + 1));
  win_.blastn_bases = blastn_bases;
  win_.lowercase_wanted = lowercase;
  if (blastn_bases) resolver_.emplace(length);
}

void RecordWindows::append_text(const char* s, size_t n) {
  append(s, n, [this](const char* from, size_t k, uint8_t* out) {
    if (resolver_) encode_subject_text(from, k, out, *resolver_, received_, ambiguous_);
    else
      for (size_t i = 0; i < k; ++i) out[i] = base_code(from[i]);
    if (win_.lowercase_wanted) add_lowercase_runs(from, k, received_, lowercase_);
  });
}

void RecordWindows::append_codes(const uint8_t* c, size_t n) {
  append(c, n, [this](const uint8_t* from, size_t k, uint8_t* out) {
    std::memcpy(out, from, k);
    if (resolver_) resolve_subject_codes(out, k, *resolver_, received_, ambiguous_);
  });
}

template <class T, class Encode>
void RecordWindows::append(const T* s, size_t n, Encode&& encode) {
  while (n > 0 && received_ < length_) {
    // Up to the current window's end only, so the window is handed on before the next one's bases arrive.
    const size_t take = size_t(std::min<uint64_t>(n, window_end_ - received_));
    const size_t at = win_.codes.size();
    win_.codes.resize(at + take);  // within the reserved room
    encode(s, take, win_.codes.data() + at);
    received_ += take;
    s += take;
    n -= take;
    // Near the record's end the next window may need no more bases than this one did.
    while (!done_ && received_ == window_end_) hand_on();
  }
  received_ += n;  // more text than the record's length: finish() says so
}

void RecordWindows::hand_on() {
  DbBatch::Window& w = win_.window;
  win_.lengths[0] = win_.codes.size();
  win_.first_pos = record_stream_ + w.offset;
  win_.codes.push_back(kInvalidBase);  // no w-mer runs past the window's data
  if (resolver_) {
    // The ambiguous positions in this window's codes; those before it are no longer needed.
    const uint64_t end = w.offset + win_.lengths[0];
    ambiguous_.erase(ambiguous_.begin(),
                     std::find_if(ambiguous_.begin(), ambiguous_.end(), [&](const AmbiguousRun& r) { return r.end > w.offset; }));
    win_.ambiguous.clear();
    for (const AmbiguousRun& r : ambiguous_) {
      if (r.begin >= end) break;
      win_.ambiguous.push_back(
          AmbiguousRun{std::max(r.begin, w.offset) - w.offset, std::min(r.end, end) - w.offset, r.code});
    }
  }
  if (win_.lowercase_wanted) {  // likewise the lower-case runs
    const uint64_t end = w.offset + win_.lengths[0];
    lowercase_.erase(lowercase_.begin(), std::find_if(lowercase_.begin(), lowercase_.end(),
                                                      [&](const std::pair<uint64_t, uint64_t>& r) { return r.second > w.offset; }));
    win_.lowercase.clear();
    for (const auto& r : lowercase_) {
      if (r.first >= end) break;
      win_.lowercase.emplace_back(std::max(r.first, w.offset) - w.offset, std::min(r.second, end) - w.offset);
    }
  }
  on_window_(win_);
  win_.codes.pop_back();
  done_ = w.last();
  if (done_) return;
  // The next window: its owned range follows this one; its data starts `margin` bases before it.
  const uint64_t offset = w.own_end > margin_ ? w.own_end - margin_ : 0;
  win_.codes.erase(win_.codes.begin(), win_.codes.begin() + long(offset - w.offset));
  w.offset = offset;
  w.own_begin = w.own_end;
  w.own_end = std::min(length_, w.own_begin + step_);
  window_end_ = std::min(length_, w.own_end + margin_);
}

bool RecordWindows::finish() { return received_ == length_ && done_; }

}  // namespace bloomseq
