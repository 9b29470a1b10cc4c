// Cuts one database record, whose text comes in pieces, into the overlapping windows of DbBatch::window: window k
// owns the record positions [k * step, (k + 1) * step) and holds [k * step - margin, (k + 1) * step + margin),
// clipped to the record. Only one window's codes are in memory (step + 2 * margin bases): each is handed on as soon
// as its last base is read, and its front is then dropped, keeping the 2 * margin bases the next window shares.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "bloomseq/blast/database.hpp"

namespace bloomseq {

class RecordWindows {
 public:
  // `step` and `margin` are rounded up to multiples of 64 (so every window's offset is a multiple of 4).
  // `record_stream`: the stream coordinate of the record's first base; `record`: its global index.
  // `blastn_bases`: ambiguity codes become blastn's bases (DbBatch::blastn_bases), each window's `ambiguous` says
  // where they are.
  RecordWindows(const std::string& name, uint32_t record, uint64_t record_stream, uint64_t length, uint64_t step,
                uint64_t margin, std::function<void(const DbBatch&)> on_window, bool blastn_bases = false,
                bool lowercase = false);
  // The record's text, any case; N/IUPAC become kInvalidBase (or blastn's bases).
  void append_text(const char* s, size_t n);
  // The record's codes (encode/dna.hpp), e.g. decoded from a .2bit file.
  void append_codes(const uint8_t* codes, size_t n);
  // Bases received so far.
  uint64_t received() const { return received_; }
  // After the last piece; false (nothing handed on for the missing part) when the text was not `length` bases.
  bool finish();

 private:
  template <class T, class Encode>
  void append(const T* s, size_t n, Encode&& encode);  // encode(s, k, out): k codes into out
  void hand_on();  // the current window, whose codes are complete

  std::function<void(const DbBatch&)> on_window_;
  DbBatch win_;
  uint64_t length_, step_, margin_, record_stream_;
  uint64_t received_ = 0;
  uint64_t window_end_ = 0;  // record position one past the current window's last base
  bool done_ = false;        // the last window was handed on
  std::optional<SubjectBaseResolver> resolver_;  // blastn_bases
  std::vector<AmbiguousRun> ambiguous_;              // with blastn_bases: the positions (record coordinates) so far
  std::vector<std::pair<uint64_t, uint64_t>> lowercase_;  // with lowercase: the runs (record coordinates) so far
};

}  // namespace bloomseq
