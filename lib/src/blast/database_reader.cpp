// Kept apart from database.cpp so that code using only DbBatch does not pull in the readers.
#include "bloomseq/blast/database.hpp"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <string>
#include <unordered_map>

#include "bloomseq/blast/record_windows.hpp"
#include "bloomseq/blast/shard.hpp"
#include "bloomseq/error.hpp"
#include "bloomseq/io/sequence_reader.hpp"
#include "bloomseq/io/twobit.hpp"

namespace bloomseq {

struct DatabaseReader::Impl {
  std::string path;
  bool twobit = false;
  bool keep_packed = false;  // DbBatch::packed for .2bit batches
  bool blastn_bases = false;  // DbBatch::blastn_bases
  bool lowercase = false;     // DbBatch::lowercase_wanted
  bool keep_titles = false;   // titles: the records' definition lines, for blastn's pairwise report
  std::vector<std::string> titles;
  uint64_t titles_first = 0;  // record number of titles[0]
  // With keep_titles and lowercase: each record's runs of lower-case letters ([begin, end), record coordinates), for
  // the report's letters (blastn -lcase_masking shows them in lower case); records without any are absent.
  std::unordered_map<uint64_t, std::vector<std::pair<uint64_t, uint64_t>>> lowercase_of;
  bool keep_lowercase_runs() const { return keep_titles && lowercase; }
  void note_title(uint64_t record, const SequenceRecord& rec) {
    if (!keep_titles) return;
    if (titles.empty()) titles_first = record;
    if (record != titles_first + titles.size()) return;  // read once: a record parsed again keeps its first title
    titles.push_back(rec.comment.empty() ? rec.name : rec.name + " " + rec.comment);
  }
  std::unique_ptr<TwoBitReader> tb;
  size_t tb_next = 0;
  std::unique_ptr<SequenceReader> reader;
  std::vector<SequenceRecord> held;  // stdin: everything, read once
  size_t held_next = 0;
  bool use_held = false;
  uint64_t next_pos = 0;
  uint32_t next_record = 0;
  uint64_t end_record = UINT64_MAX;  // restrict_records
  std::vector<uint64_t> lengths;     // per record
  Fnv64 layout;                      // names and lengths
  std::vector<uint64_t> offsets, lines;  // where each record starts in a plain file (DbLayout)
  uint64_t file_bytes = 0;
  bool planned = false;  // totals and lengths from a plan: records are checked as they are read
  uint64_t planned_hash = 0;
  uint64_t window_margin = 0;                     // window_long_records
  std::function<void(const DbBatch&)> on_window;  // empty: records are batched whole
  void note(const std::string& name, uint64_t length) {
    lengths.push_back(length);
    layout.add(name);
    layout.add(length);
  }
};

uint64_t DatabaseReader::empty_records(uint64_t& first) const {
  uint64_t n = 0;
  for (size_t i = impl_->lengths.size(); i-- > 0;)
    if (impl_->lengths[i] == 0) ++n, first = i + 1;
  return n;
}

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
      impl_->note(impl_->tb->name(i), impl_->tb->length(i));
    }
  } else if (path == "-") {
    impl_->held = read_all_nucleotide_sequences(path, foreign_);
    impl_->use_held = true;
    for (const auto& r : impl_->held) {
      totals_.bases += r.seq.size();
      totals_.largest = std::max<uint64_t>(totals_.largest, r.seq.size());
      impl_->note(r.name, r.seq.size());
    }
    totals_.records = impl_->held.size();
  } else {
    // First pass: the totals (the E-values need them before the search starts), with the sequence streamed, not
    // held (a chromosome's text is never in memory). A database of up to kHoldBases is kept from this pass
    // instead of being parsed a second time; a larger one leaves each record's length, to reserve its codes.
    constexpr uint64_t kHoldBases = uint64_t(64) << 20;
    SequenceReader first(path);
    first.check_nucleotide_letters();
    if (counted) first.on_bases(counted);
    SequenceRecord rec;
    std::string text;  // the record's sequence while the database may still be held
    uint64_t length = 0;
    bool holding = true;
    // Where each record starts, for a plan file (bounded: a plan of many millions of reads would be huge).
    constexpr uint64_t kMaxIndexedRecords = uint64_t(1) << 22;
    uint64_t at = 0, at_line = 0;
    bool indexed = first.tell(at, at_line);
    // A file larger than 3 bytes per base of kHoldBases cannot hold that few bases unless its headers are huge
    // (FASTA takes a byte per base, FASTQ two; gzip only makes text smaller): it is not held at all. Holding its
    // first kHoldBases of text (and the string's doubling copy) took ~130 MB, the peak of a search of one long
    // record in windows.
    std::error_code size_error;
    const uint64_t file_bytes = std::filesystem::file_size(path, size_error);
    if (!size_error && file_bytes > 3 * kHoldBases) holding = false;
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
      if (indexed && impl_->offsets.size() < kMaxIndexedRecords) {
        impl_->offsets.push_back(at);
        impl_->lines.push_back(at_line);
        first.tell(at, at_line);
      } else if (indexed) {
        indexed = false;
        std::vector<uint64_t>().swap(impl_->offsets);
        std::vector<uint64_t>().swap(impl_->lines);
      }
      totals_.bases += length;
      totals_.largest = std::max<uint64_t>(totals_.largest, length);
      if (counted) counted(totals_.bases);
      ++totals_.records;
      impl_->note(rec.name, length);
      if (holding) {
        rec.seq = std::move(text);
        impl_->held.push_back(std::move(rec));
        rec = SequenceRecord();
        text = std::string();
      }
      length = 0;
    }
    foreign_ = first.foreign_letters();
    if (holding) {
      impl_->use_held = true;  // the lengths stay: the shard cut and the plan read them
    } else {
      impl_->reader.reset(new SequenceReader(path));
    }
  }
  if (totals_.records == 0) throw DataError(path + ": no sequences in the database");
  if (!impl_->offsets.empty()) {
    std::error_code ec;
    impl_->file_bytes = std::filesystem::file_size(path, ec);
    if (ec) impl_->offsets.clear(), impl_->lines.clear();
  }
}

DatabaseReader::DatabaseReader(const std::string& path, const DbLayout& known) : impl_(new Impl) {
  if (path != "-" && is_twobit_file(path) && known.lengths.size() == known.totals.records) {
    // The index gives the names at once; the lengths sit in each record's header, spread over the whole file:
    // taken from the plan (the names and lengths must hash as the plan says), checked for the records read.
    impl_->twobit = true;
    impl_->tb.reset(new TwoBitReader(path, /*populate=*/false));
    if (impl_->tb->size() == known.totals.records) {
      Fnv64 h;
      for (size_t i = 0; i < impl_->tb->size(); ++i) {
        h.add(impl_->tb->name(i));
        h.add(known.lengths[i]);
      }
      if (h.value() == known.hash) {
        impl_->path = path;
        impl_->planned = true;
        impl_->planned_hash = known.hash;
        impl_->lengths = known.lengths;
        totals_ = known.totals;
        return;
      }
    }
    impl_.reset(new Impl);
  }
  std::error_code ec;
  const uint64_t bytes = path == "-" ? 0 : std::filesystem::file_size(path, ec);
  const bool usable = !ec && bytes == known.file_bytes && known.totals.records > 0 &&
                      known.lengths.size() == known.totals.records && known.offsets.size() == known.totals.records &&
                      known.lines.size() == known.totals.records && !is_twobit_file(path);
  std::unique_ptr<SequenceReader> reader;
  uint64_t at = 0, at_line = 0;
  if (usable) reader.reset(new SequenceReader(path));
  if (!reader || !reader->tell(at, at_line)) {  // not a mapped plain file: counted as any other
    DatabaseReader counted(path);
    impl_ = std::move(counted.impl_);
    totals_ = counted.totals_;
    foreign_ = counted.foreign_;
    return;
  }
  impl_->path = path;
  impl_->reader = std::move(reader);
  impl_->planned = true;
  impl_->lengths = known.lengths;
  impl_->offsets = known.offsets;
  impl_->lines = known.lines;
  impl_->file_bytes = known.file_bytes;
  impl_->planned_hash = known.hash;
  totals_ = known.totals;
}

DatabaseReader::~DatabaseReader() = default;

bool DatabaseReader::is_twobit() const { return impl_->twobit; }

void DatabaseReader::keep_packed(bool on) { impl_->keep_packed = on; }

void DatabaseReader::blastn_subject_bases(bool on) { impl_->blastn_bases = on; }
void DatabaseReader::keep_lowercase(bool on) { impl_->lowercase = on; }

void DatabaseReader::keep_titles(bool on) { impl_->keep_titles = on; }

const std::vector<std::pair<uint64_t, uint64_t>>* DatabaseReader::lowercase_runs(uint64_t record) const {
  const auto it = impl_->lowercase_of.find(record);
  return it == impl_->lowercase_of.end() ? nullptr : &it->second;
}

const std::string* DatabaseReader::title(uint64_t record) const {
  if (record < impl_->titles_first || record - impl_->titles_first >= impl_->titles.size()) return nullptr;
  return &impl_->titles[size_t(record - impl_->titles_first)];
}

bool DatabaseReader::parses_again() const { return impl_->reader != nullptr; }

const std::vector<uint64_t>& DatabaseReader::record_lengths() const { return impl_->lengths; }

uint64_t DatabaseReader::layout_hash() const { return impl_->planned ? impl_->planned_hash : impl_->layout.value(); }

DbLayout DatabaseReader::layout() const {
  DbLayout l;
  l.totals = totals_;
  l.hash = layout_hash();
  l.file_bytes = impl_->file_bytes;
  l.lengths = impl_->lengths;
  l.offsets = impl_->offsets;
  l.lines = impl_->lines;
  return l;
}

void DatabaseReader::restrict_records(uint64_t begin, uint64_t end) {
  begin = std::min<uint64_t>(begin, totals_.records);
  impl_->end_record = std::max(begin, end);
  impl_->next_record = uint32_t(begin);
  if (impl_->twobit) {
    impl_->tb_next = size_t(begin);
  } else if (impl_->use_held) {
    impl_->held_next = size_t(begin);
  } else if (impl_->planned) {
    if (begin < totals_.records && !impl_->reader->seek(impl_->offsets[begin], impl_->lines[begin], begin))
      throw DataError(impl_->path + ": changed since the plan was made (make the plan again)");
  } else {
    SequenceRecord skipped;
    for (uint64_t r = 0; r < begin; ++r)
      if (!impl_->reader->next(skipped)) throw DataError(impl_->path + ": changed while it was read");
  }
}

bool DatabaseReader::sample_spread(uint64_t bases, uint64_t pieces, DbBatch& out) const {
  if (!impl_->twobit || pieces == 0 || totals_.bases == 0) return false;
  out.clear();
  out.blastn_bases = false;
  const std::vector<uint64_t>& lengths = impl_->lengths;
  const uint64_t piece = std::max<uint64_t>(1, std::min(bases, totals_.bases) / pieces);
  size_t r = 0;
  uint64_t record_start = 0;  // of record r, counting bases only
  for (uint64_t i = 0; i < pieces; ++i) {
    const uint64_t at = i * (totals_.bases / pieces);  // a base of the whole database
    while (r < lengths.size() && record_start + lengths[r] <= at) record_start += lengths[r++];
    if (r == lengths.size()) break;
    const uint64_t from = (at - record_start) & ~uint64_t(3);  // the .2bit is read from whole bytes
    const uint64_t n = std::min(piece, lengths[r] - from);
    out.add_record_codes("sample" + std::to_string(i + 1), n,
                         [&](uint8_t* codes) { impl_->tb->codes(r, from, n, codes); });
  }
  return out.size() > 0;
}

void DatabaseReader::window_long_records(uint64_t margin, std::function<void(const DbBatch&)> on_window) {
  impl_->window_margin = margin;
  impl_->on_window = std::move(on_window);
}

void DatabaseReader::read_in_windows(uint64_t r, uint64_t max_bases) {
  const uint64_t length = impl_->lengths[r];
  std::unique_ptr<RecordWindows> windows;
  SequenceRecord rec;
  uint64_t text_at = 0;  // the record's letters passed so far, for its lower-case runs
  std::vector<std::pair<uint64_t, uint64_t>> lower;
  const auto text = [&](const char* s, size_t n) {
    if (impl_->keep_lowercase_runs()) add_lowercase_runs(s, n, text_at, lower);
    text_at += n;
    windows->append_text(s, n);
  };
  auto start = [&] {
    windows.reset(new RecordWindows(rec.name, uint32_t(r), impl_->next_pos, length, max_bases, impl_->window_margin,
                                    impl_->on_window, impl_->blastn_bases, impl_->lowercase));
  };
  if (impl_->twobit) {
    // Decoded a slice at a time straight from the file's mapping.
    const size_t i = impl_->tb_next++;
    rec.name = impl_->tb->name(i);
    if (impl_->planned && impl_->tb->length(i) != length)
      throw DataError(impl_->path + ": record " + std::to_string(r + 1) + " (" + rec.name +
                      ") is not as the plan says (changed since the plan was made? make the plan again)");
    start();
    constexpr uint64_t kSlice = uint64_t(1) << 20;
    std::vector<uint8_t> slice(size_t(std::min(length, kSlice)));
    for (uint64_t from = 0; from < length; from += kSlice) {
      const uint64_t n = std::min(kSlice, length - from);
      impl_->tb->codes(i, from, n, slice.data());
      windows->append_codes(slice.data(), size_t(n));
    }
  } else if (impl_->use_held) {
    rec = std::move(impl_->held[impl_->held_next++]);
    start();
    constexpr size_t kSlice = size_t(4) << 20;
    for (size_t from = 0; from < rec.seq.size(); from += kSlice)
      text(rec.seq.data() + from, std::min(kSlice, rec.seq.size() - from));
  } else {
    impl_->reader->on_bases(nullptr);  // the windows are searched as they are read: no separate reading phase
    const std::function<void(const char*, size_t)> sink = [&](const char* bases, size_t n) {
      if (!windows) start();
      text(bases, n);
    };
    if (!impl_->reader->next_streamed(rec, sink))
      throw DataError(impl_->path + ": fewer records than counted (changed while it was read?)");
    if (!windows) start();
  }
  if (!windows->finish())
    throw DataError(impl_->path + ": record " + std::to_string(r + 1) + " (" + rec.name + ") is not " +
                    (impl_->planned ? "as the plan says (changed since the plan was made? make the plan again)"
                                    : "as long as counted (changed while it was read?)"));
  impl_->note_title(r, rec);
  if (!lower.empty()) impl_->lowercase_of[r] = std::move(lower);
  impl_->next_pos += length + 1;  // its codes and the separator after them, as in a batch
  impl_->next_record += 1;
}

bool DatabaseReader::next_batch(DbBatch& batch, uint64_t max_bases,
                                const std::function<void(const char*, uint64_t)>& progress) {
  batch.clear();
  batch.blastn_bases = impl_->blastn_bases;
  batch.lowercase_wanted = impl_->lowercase;
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
    for (size_t i = impl_->tb_next; i < impl_->tb->size() && i < impl_->end_record && bases < max_bases; ++i) {
      if (impl_->on_window && impl_->tb->length(i) > max_bases) break;  // searched in windows, not batched
      bases += impl_->tb->length(i) + 1;
    }
    batch.codes.reserve(bases);
    if (impl_->keep_packed) batch.packed.reserve(bases / 32 + 16);
  }
  while (batch.codes.size() < max_bases && impl_->next_record + batch.size() < impl_->end_record) {
    const uint64_t next = impl_->next_record + batch.size();
    if (impl_->on_window && next < impl_->lengths.size() && impl_->lengths[next] > max_bases) {
      if (batch.size() > 0) break;  // the records before it are searched first
      read_in_windows(next, max_bases);
      batch.first_pos = impl_->next_pos;
      batch.first_record = impl_->next_record;
      continue;
    }
    if (impl_->twobit) {
      if (impl_->tb_next >= impl_->tb->size()) break;
      const size_t i = impl_->tb_next++;
      if (impl_->planned && impl_->tb->length(i) != impl_->lengths[i])
        throw DataError(impl_->path + ": record " + std::to_string(i + 1) + " (" + impl_->tb->name(i) +
                        ") is not as the plan says (changed since the plan was made? make the plan again)");
      batch.add_record_codes(impl_->tb->name(i), impl_->tb->length(i),
                             [&](uint8_t* out) { impl_->tb->codes(i, out); });
      if (impl_->keep_titles) {
        rec.name = impl_->tb->name(i);
        impl_->note_title(batch.first_record + batch.size() - 1, rec);
      }
      if (!impl_->keep_packed) continue;
      // The same bases packed, and where the codes are invalid (DbBatch::packed). The words after the record's are
      // zeroed: the vector path's loads reach 64 bytes past the batch's last base.
      const uint64_t at = batch.local_starts.back(), length = batch.lengths.back();
      batch.packed.resize(size_t((at + length) / 32 + 2 + 8));
      const uint64_t written = impl_->tb->packed(i, batch.packed.data(), at);
      std::fill(batch.packed.begin() + long(written), batch.packed.end(), 0);
      if (batch.blastn_bases) {
        // The N blocks hold blastn's bases in the codes (add_record_codes): the same bases packed.
        for (auto run = std::lower_bound(batch.ambiguous.begin(), batch.ambiguous.end(), at,
                                         [](const AmbiguousRun& x, uint64_t v) { return x.end <= v; });
             run != batch.ambiguous.end(); ++run)
          for (uint64_t k = run->begin; k < run->end; ++k) {
            uint64_t& word = batch.packed[size_t(k / 32)];
            const unsigned shift = unsigned(2 * (k % 32));
            word = (word & ~(uint64_t(3) << shift)) | (uint64_t(batch.codes[size_t(k)]) << shift);
          }
      } else {
        for (const auto& run : impl_->tb->n_runs(i)) batch.invalid_runs.push_back({at + run.first, at + run.second});
      }
      batch.invalid_runs.push_back({at + length, at + length + 1});  // the separator
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
      if (!impl_->reader->next_streamed(rec, sink)) {
        if (impl_->planned &&
            impl_->next_record + batch.size() < std::min<uint64_t>(impl_->end_record, totals_.records))
          throw DataError(impl_->path + ": fewer records than the plan says (changed since the plan was made?)");
        break;
      }
      if (!begun) batch.begin_record(rec.name, 0);
      batch.end_record();
      impl_->note_title(batch.first_record + batch.size() - 1, rec);
      if (impl_->planned && (r >= impl_->lengths.size() || batch.lengths.back() != impl_->lengths[r]))
        throw DataError(impl_->path + ": record " + std::to_string(r + 1) + " (" + rec.name +
                        ") is not as the plan says (changed since the plan was made? make the plan again)");
      continue;
    }
    if (impl_->planned) {
      const uint64_t r = impl_->next_record + batch.size();
      if (r >= impl_->lengths.size() || rec.seq.size() != impl_->lengths[r])
        throw DataError(impl_->path + ": record " + std::to_string(r + 1) + " (" + rec.name +
                        ") is not as the plan says (changed since the plan was made? make the plan again)");
    }
    batch.add_record(rec.name, rec.seq, progress && rec.seq.size() > (size_t(8) << 20) ? encoded : nullptr);
    impl_->note_title(batch.first_record + batch.size() - 1, rec);
  }
  if (impl_->reader) impl_->reader->on_bases(nullptr);  // `progress` lives only as long as this call
  if (impl_->keep_lowercase_runs())
    for (const auto& run : batch.lowercase) {  // batch positions to record coordinates (no run spans two records)
      const size_t r = batch.record_at(run.first);
      const uint64_t at = batch.local_starts[r];
      impl_->lowercase_of[batch.first_record + r].emplace_back(run.first - at, run.second - at);
    }
  impl_->next_pos += batch.codes.size();
  impl_->next_record += uint32_t(batch.size());
  return batch.size() > 0;
}

}  // namespace bloomseq
