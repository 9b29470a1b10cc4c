// Block rules, the choice of scheme and the counting / skipping passes of sharded classify runs (shard.hpp).
#include "bloomseq/facs/shard.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "bloomseq/error.hpp"
#include "bloomseq/io/record_starts.hpp"
#include "bloomseq/io/sequence_reader.hpp"

namespace bloomseq {

const char* shard_scheme_name(ShardScheme s) { return s == ShardScheme::bytes ? "bytes" : "records"; }

RecordBlock shard_block(uint64_t total, uint64_t index, uint64_t count) {
  // 128-bit products: total * count cannot overflow.
  const auto at = [&](uint64_t i) { return uint64_t((unsigned __int128)total * i / count); };
  return {at(index - 1), at(index)};
}

ByteBlock shard_byte_block(std::string_view text, char format, uint64_t index, uint64_t count) {
  const uint64_t size = text.size();
  const auto cut = [&](uint64_t i) -> uint64_t {
    if (i == 0) return 0;
    if (i == count) return size;
    return next_record_start(text, size_t((unsigned __int128)size * i / count), format);
  };
  return {cut(index - 1), cut(index)};
}

std::string byte_cut_obstacle(const SequenceReader& r) {
  const std::string_view t = r.mapped_text();
  if (t.empty()) return r.path() + " is not a plain file (compressed, .2bit, empty or not a regular file)";
  size_t at = 0;
  const char f = text_format(t, at);
  if (f == '@' && !single_line_fastq_at(t, at)) return r.path() + " is multi-line FASTQ (its first record is not four lines)";
  if (f == 0) return r.path() + " does not start with a FASTA or FASTQ record";
  return "";
}

ShardScheme choose_shard_scheme(ShardBy by, const SequenceReader& reads, const SequenceReader* mates,
                                std::string& note) {
  note.clear();
  if (by == ShardBy::records) return ShardScheme::records;
  std::string why = byte_cut_obstacle(reads);
  if (why.empty() && mates) why = byte_cut_obstacle(*mates);
  if (why.empty()) return ShardScheme::bytes;
  if (by == ShardBy::bytes) throw UsageError("classify: --shard-by bytes: " + why);
  if (why.find("multi-line") != std::string::npos)
    note = "--shard: " + why + ": every shard counts the records instead of seeking to its block (slower)";
  return ShardScheme::records;
}

namespace {
// Reads a file block by block; next() hands out the next block (empty at the end).
class BlockFile {
 public:
  explicit BlockFile(const std::string& path) : path_(path), fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {
    if (fd_ < 0) throw IoError(path + ": cannot open: " + std::strerror(errno));
    ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
    buf_.resize(size_t(1) << 20);
  }
  ~BlockFile() { ::close(fd_); }
  BlockFile(const BlockFile&) = delete;
  BlockFile& operator=(const BlockFile&) = delete;
  std::string_view next(uint64_t limit) {
    const size_t want = size_t(std::min<uint64_t>(buf_.size(), limit - offset_));
    if (!want) return {};
    const ssize_t n = ::pread(fd_, buf_.data(), want, off_t(offset_));
    if (n < 0) throw IoError(path_ + ": read error: " + std::strerror(errno));
    offset_ += uint64_t(n);
    return std::string_view(buf_.data(), size_t(n));
  }
  uint64_t offset() const { return offset_; }
  void seek(uint64_t offset) { offset_ = offset; }

 private:
  std::string path_;
  int fd_;
  std::vector<char> buf_;
  uint64_t offset_ = 0;
};

// Marks of a block, from its counts, as record_starts.hpp counts them: FASTQ newlines, FASTA line starts with '>'
// (a block's first byte starts a line only if the previous block ended one).
uint64_t block_marks(std::string_view b, const RecordCount& c, char format, bool line_start) {
  if (format != '>') return c.lines;
  return c.records - (!line_start && !b.empty() && b[0] == '>');
}
}  // namespace

// The one-place forms are the many-place passes with one place.
RecordCount count_file_records_before(const std::string& path, uint64_t at, char format) {
  return count_file_records_at(path, {at}, format).front();
}

uint64_t find_file_record(const std::string& path, uint64_t k, char format, RecordCount& before) {
  std::vector<RecordCount> counts;
  const uint64_t at = find_file_records(path, {k}, format, counts).front();
  before = counts.front();
  return at;
}

std::vector<RecordCount> count_file_records_at(const std::string& path, const std::vector<uint64_t>& offsets,
                                               char format) {
  BlockFile f(path);
  std::vector<RecordCount> counts;
  RecordCount c;
  uint64_t marks = 0;
  bool line_start = true;
  for (const uint64_t at : offsets) {
    if (at < f.offset()) throw std::logic_error("count_file_records_at: offsets must ascend");
    for (std::string_view b; !(b = f.next(at)).empty();) {
      const RecordCount here = count_records_before(b, b.size(), format);
      c.lines += here.lines;
      marks += block_marks(b, here, format, line_start);
      line_start = b.back() == '\n';
    }
    c.records = format == '>' ? marks : marks / 4;
    counts.push_back(c);
  }
  return counts;
}

std::vector<uint64_t> find_file_records(const std::string& path, const std::vector<uint64_t>& ks, char format,
                                        std::vector<RecordCount>& before) {
  BlockFile f(path);
  std::vector<uint64_t> at;
  before.clear();
  // Marks and lines before f.offset(), which always starts a line once a record was found.
  uint64_t marks = 0, lines = 0;
  bool line_start = true, ended = false;
  for (const uint64_t k : ks) {
    if (k == 0 && format != '>') {
      at.push_back(0);
      before.push_back(RecordCount{});
      continue;
    }
    const uint64_t target = format == '>' ? k + 1 : 4 * k;  // as find_record
    if (target < marks) throw std::logic_error("find_file_records: record indices must ascend");
    if (format != '>' && target == marks && !at.empty() && !ended) {  // the record just found, again
      at.push_back(at.back());
      before.push_back(before.back());
      continue;
    }
    bool found = false;
    for (std::string_view b; !ended && !found;) {
      b = f.next(UINT64_MAX);
      if (b.empty()) {
        ended = true;
        break;
      }
      const RecordCount counts = count_records_before(b, b.size(), format);
      const uint64_t here = block_marks(b, counts, format, line_start);
      if (marks + here < target) {
        marks += here;
        lines += counts.lines;
        line_start = b.back() == '\n';
        continue;
      }
      const uint64_t base = f.offset() - b.size();
      for (size_t i = 0;; ++i) {
        const bool starts_line = i == 0 ? line_start : b[i - 1] == '\n';
        if (format == '>' ? (starts_line && b[i] == '>') : b[i] == '\n') ++marks;
        if (marks == target) {
          const size_t stop = format == '>' ? i : i + 1;
          lines += count_records_before(b, stop, '@').lines;
          at.push_back(base + stop);
          before.push_back(RecordCount{lines, k});
          // The next search reads on from the record found (FASTA: its '>' is counted again there).
          if (format == '>') --marks;
          f.seek(base + stop);
          line_start = true;
          found = true;
          break;
        }
      }
    }
    if (!found) {
      at.push_back(f.offset());
      before.push_back(RecordCount{lines, format == '>' ? marks : marks / 4});
    }
  }
  return at;
}

uint64_t count_records(SequenceReader& reader, uint64_t max_bases) {
  SequenceChunk chunk;
  while (reader.next_chunk(chunk, max_bases)) {
  }
  return reader.records_read();
}

uint64_t skip_records(SequenceReader& reader, uint64_t n, uint64_t max_bases) {
  SequenceChunk chunk;
  const uint64_t start = reader.records_read();
  while (reader.records_read() - start < n)
    if (!reader.next_chunk(chunk, max_bases, size_t(n - (reader.records_read() - start)))) break;
  return reader.records_read() - start;
}

void reread_block_for_error(const std::string& path, const ByteBlock& block) {
  SequenceReader r(path);
  const std::string_view t = r.mapped_text();
  size_t first = 0;
  const RecordCount before = count_records_before(t, size_t(block.begin), text_format(t, first));
  r.seek(block.begin, before.lines, before.records);
  r.stop_at(block.end);
  SequenceRecord rec;
  while (r.next(rec)) {
  }
}

}  // namespace bloomseq
