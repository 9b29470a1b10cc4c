#include "bloomseq/blast/database.hpp"

#include <algorithm>

#include "bloomseq/encode/dna.hpp"
#include "bloomseq/encode/sequence.hpp"
#include "bloomseq/error.hpp"

namespace bloomseq {

void DbBatch::clear() {
  names.clear();
  lengths.clear();
  local_starts.clear();
  codes.clear();
  packed.clear();
  invalid_runs.clear();
  ambiguous.clear();
  lowercase.clear();
  resolver_.reset();
  window = Window();
}

void add_lowercase_runs(const char* s, size_t n, uint64_t at, std::vector<std::pair<uint64_t, uint64_t>>& runs) {
  for (size_t i = 0; i < n; ++i) {
    if (s[i] < 'a' || s[i] > 'z') continue;
    if (!runs.empty() && runs.back().second == at + i) ++runs.back().second;
    else runs.emplace_back(at + i, at + i + 1);
  }
}

void DbBatch::add_record(const std::string& name, const std::string& seq,
                         const std::function<void(uint64_t)>& encoded) {
  begin_record(name, seq.size());
  // In slices, so that progress can be shown inside a long record.
  constexpr size_t kSlice = size_t(4) << 20;
  for (size_t from = 0; from < seq.size(); from += kSlice) {
    const size_t to = std::min(seq.size(), from + kSlice);
    append_text(seq.data() + from, to - from);
    if (encoded) encoded(to);
  }
  end_record();
}

void DbBatch::begin_record(const std::string& name, uint64_t expected_bases) {
  names.push_back(name);
  lengths.push_back(0);
  local_starts.push_back(codes.size());
  if (blastn_bases) resolver_.emplace(expected_bases);
  const size_t need = codes.size() + size_t(expected_bases) + 1;
  if (codes.capacity() < need) codes.reserve(std::max(need, 2 * codes.capacity()));
}

void DbBatch::append_text(const char* s, size_t n) {
  const size_t at = codes.size();
  codes.resize(at + n);  // within the reserved room: no copy
  uint8_t* out = codes.data() + at;
  if (resolver_) encode_subject_text(s, n, out, *resolver_, at, ambiguous);
  else
    for (size_t i = 0; i < n; ++i) out[i] = base_code(s[i]);
  if (lowercase_wanted) add_lowercase_runs(s, n, at, lowercase);
  lengths.back() += n;
}

void DbBatch::end_record() {
  codes.push_back(kInvalidBase);  // record separator: no w-mer spans two records
  resolver_.reset();
}

size_t DbBatch::record_at(uint64_t local) const {
  return size_t(std::upper_bound(local_starts.begin(), local_starts.end(), local) - local_starts.begin()) - 1;
}

std::vector<DbChunk> chunk_batch(const DbBatch& batch, uint64_t chunk_bases, int w) {
  std::vector<DbChunk> out;
  const uint64_t total = batch.codes.size();
  uint64_t from = 0, to = total;
  if (batch.window.on) from = batch.window.own_begin - batch.window.offset, to = batch.window.own_end - batch.window.offset;
  for (uint64_t c = from; c < to; c += chunk_bases) {
    DbChunk ch;
    ch.codes = batch.codes.data() + c;
    ch.n_starts = std::min(chunk_bases, to - c);
    ch.n = std::min(total - c, ch.n_starts + uint64_t(w) - 1);
    ch.first_pos = batch.first_pos + c;
    ch.w = w;
    if (!batch.packed.empty()) {
      ch.packed = batch.packed.data();
      ch.packed_at = c;
      ch.invalid_runs = batch.invalid_runs.data();
      ch.n_invalid_runs = batch.invalid_runs.size();
    }
    out.push_back(ch);
  }
  return out;
}

}  // namespace bloomseq
