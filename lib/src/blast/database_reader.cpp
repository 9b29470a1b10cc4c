// Kept apart from database.cpp so that code using only DbBatch does not pull in the readers.
#include "bloomseq/blast/database.hpp"

#include <algorithm>
#include <functional>
#include <string>

#include "bloomseq/error.hpp"
#include "bloomseq/io/sequence_reader.hpp"
#include "bloomseq/io/twobit.hpp"

namespace bloomseq {

struct DatabaseReader::Impl {
  std::string path;
  bool twobit = false;
  std::unique_ptr<TwoBitReader> tb;
  size_t tb_next = 0;
  std::unique_ptr<SequenceReader> reader;
  std::vector<SequenceRecord> held;  // stdin: everything, read once
  size_t held_next = 0;
  bool use_held = false;
  uint64_t next_pos = 0;
  uint32_t next_record = 0;
  std::vector<uint64_t> lengths;  // parsed again: each record's length from the first pass
};

DatabaseReader::DatabaseReader(const std::string& path, const std::function<void(uint64_t)>& counted)
    : impl_(new Impl) {
  impl_->path = path;
  if (path != "-" && is_twobit_file(path)) {
    impl_->twobit = true;
    impl_->tb.reset(new TwoBitReader(path));
    totals_.records = impl_->tb->size();
    for (size_t i = 0; i < impl_->tb->size(); ++i) {
      totals_.bases += impl_->tb->length(i);
      totals_.largest = std::max<uint64_t>(totals_.largest, impl_->tb->length(i));
    }
  } else if (path == "-") {
    impl_->held = read_all_sequences(path);
    impl_->use_held = true;
    for (const auto& r : impl_->held) {
      totals_.bases += r.seq.size();
      totals_.largest = std::max<uint64_t>(totals_.largest, r.seq.size());
    }
    totals_.records = impl_->held.size();
  } else {
    // First pass: the totals (the E-values need them before the search starts), with the sequence streamed, not
    // held (a chromosome's text is never in memory). A database of up to kHoldBases is kept from this pass
    // instead of being parsed a second time; a larger one leaves each record's length, to reserve its codes.
    constexpr uint64_t kHoldBases = uint64_t(64) << 20;
    SequenceReader first(path);
    if (counted) first.on_bases(counted);
    SequenceRecord rec;
    std::string text;  // the record's sequence while the database may still be held
    uint64_t length = 0;
    bool holding = true;
    const std::function<void(const char*, size_t)> sink = [&](const char* bases, size_t n) {
      length += n;
      if (!holding) return;
      if (totals_.bases + length > kHoldBases) {
        holding = false;
        std::string().swap(text);
        std::vector<SequenceRecord>().swap(impl_->held);
        return;
      }
      text.append(bases, n);
    };
    while (first.next_streamed(rec, sink)) {
      totals_.bases += length;
      totals_.largest = std::max<uint64_t>(totals_.largest, length);
      if (counted) counted(totals_.bases);
      ++totals_.records;
      impl_->lengths.push_back(length);
      if (holding) {
        rec.seq = std::move(text);
        impl_->held.push_back(std::move(rec));
        rec = SequenceRecord();
        text = std::string();
      }
      length = 0;
    }
    if (holding) {
      impl_->use_held = true;
      std::vector<uint64_t>().swap(impl_->lengths);
    } else {
      impl_->reader.reset(new SequenceReader(path));
    }
  }
  if (totals_.records == 0) throw DataError(path + ": no sequences in the database");
}

DatabaseReader::~DatabaseReader() = default;

bool DatabaseReader::is_twobit() const { return impl_->twobit; }

bool DatabaseReader::parses_again() const { return impl_->reader != nullptr; }

bool DatabaseReader::next_batch(DbBatch& batch, uint64_t max_bases,
                                const std::function<void(const char*, uint64_t)>& progress) {
  batch.clear();
  if (impl_->reader) {  // the reader counts all bases it parsed; the batch's start from there
    const uint64_t before = impl_->next_pos - impl_->next_record;  // bases of the earlier batches
    if (progress) impl_->reader->on_bases([&progress, before](uint64_t b) { progress("reading", b - before); });
    else impl_->reader->on_bases(nullptr);
  }
  const std::function<void(uint64_t)> encoded = [&](uint64_t b) { progress("encoding", b); };
  batch.first_pos = impl_->next_pos;
  batch.first_record = impl_->next_record;
  SequenceRecord rec;
  if (impl_->twobit) {
    // The batch's size is known from the index: one allocation, no copies as the code stream grows.
    uint64_t bases = 0;
    for (size_t i = impl_->tb_next; i < impl_->tb->size() && bases < max_bases; ++i) bases += impl_->tb->length(i) + 1;
    batch.codes.reserve(bases);
  }
  while (batch.codes.size() < max_bases) {
    if (impl_->twobit) {
      if (impl_->tb_next >= impl_->tb->size()) break;
      const size_t i = impl_->tb_next++;
      batch.add_record_codes(impl_->tb->name(i), impl_->tb->length(i),
                             [&](uint8_t* out) { impl_->tb->codes(i, out); });
      continue;
    } else if (impl_->use_held) {
      if (impl_->held_next >= impl_->held.size()) break;
      rec = std::move(impl_->held[impl_->held_next++]);
    } else {
      // Parsed again: the text goes straight into codes as it is parsed (no copy of the record as text).
      const size_t r = size_t(batch.first_record) + batch.size();
      const uint64_t expected = r < impl_->lengths.size() ? impl_->lengths[r] : 0;
      bool begun = false;
      const std::function<void(const char*, size_t)> sink = [&](const char* bases, size_t n) {
        if (!begun) batch.begin_record(rec.name, expected);
        begun = true;
        batch.append_text(bases, n);
      };
      if (!impl_->reader->next_streamed(rec, sink)) break;
      if (!begun) batch.begin_record(rec.name, 0);
      batch.end_record();
      continue;
    }
    batch.add_record(rec.name, rec.seq, progress && rec.seq.size() > (size_t(8) << 20) ? encoded : nullptr);
  }
  if (impl_->reader) impl_->reader->on_bases(nullptr);  // `progress` lives only as long as this call
  impl_->next_pos += batch.codes.size();
  impl_->next_record += uint32_t(batch.size());
  return batch.size() > 0;
}

}  // namespace bloomseq
