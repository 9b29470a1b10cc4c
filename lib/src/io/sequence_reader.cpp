// FASTA/FASTQ reader: htslib's BGZF layer does the input (plain, gzip with concatenated members, bgzip, "-" for
// stdin); the record parser is our own because kseq silently skips text before a header and accepts a FASTQ
// record without '+' as FASTA, while we must reject both with a message naming the file, record and line.
//
// Accepted: multi-line FASTA and FASTQ, CRLF line ends, blank lines between records, lower case (kept).
// Rejected (DataError): a record not starting with '>' or '@', a name that is empty, a FASTQ record without '+',
// a quality string whose length differs from the sequence, a truncated last record, characters that cannot be
// sequence (anything but letters and '-', '*', '.') or quality (outside '!'..'~'), FASTA and FASTQ mixed in one
// file. Rejected (IoError): a truncated or corrupt gzip stream, including garbage after the last gzip member.
#include "bloomseq/io/sequence_reader.hpp"

#include "bloomseq/memory/populate_pages.hpp"

#include <htslib/bgzf.h>
#include <fcntl.h>
#include <htslib/hts.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <functional>
#include <deque>
#include <string_view>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <utility>

#include "bloomseq/error.hpp"
#include "bloomseq/io/twobit.hpp"
#include "gzip_inflater.hpp"
#include "io_common.hpp"
#include "mapped_input_guard.hpp"

namespace bloomseq {

namespace io_detail {
void quiet_htslib() {
  static std::once_flag once;
  std::call_once(once, [] { hts_set_log_level(HTS_LOG_OFF); });
}
}  // namespace io_detail

namespace {

using io_detail::display_name;

constexpr size_t kBufferBytes = size_t(1) << 20;
constexpr size_t kMaxHeaderBytes = size_t(1) << 20;  // a longer "header" is binary garbage, not a name

// Byte classes: which characters may appear in a header, a sequence line and a quality line.
struct CharClasses {
  std::array<bool, 256> header{}, seq{}, qual{};
  CharClasses() {
    for (int c = 0; c < 256; ++c) {
      header[c] = c == '\t' || (c >= 0x20 && c != 0x7f);
      seq[c] = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '-' || c == '*' || c == '.';
      qual[c] = c >= '!' && c <= '~';
    }
  }
};
const CharClasses kClasses;

// For check_nucleotide_letters: 1 for a character that is no nucleotide code, 2 for a letter of protein only.
struct LetterKinds {
  std::array<uint8_t, 256> kind{};
  LetterKinds() {
    for (int c = 0; c < 256; ++c) kind[size_t(c)] = 1;
    for (const char* p = "ACGTURYKMSWBDHVN"; *p; ++p) kind[size_t(*p)] = kind[size_t(*p | 0x20)] = 0;
    for (const char* p = "EFIJLOPQZ"; *p; ++p) kind[size_t(*p)] = kind[size_t(*p | 0x20)] = 2;
  }
};
const LetterKinds kLetterKinds;

// Whether [s, e) holds only A, C, G, T, N in either case (the common case, 16 bytes at a time).
inline bool only_acgtn(const char* s, const char* e) {
#if defined(__SSE2__)
  for (; e - s >= 16; s += 16) {
    const __m128i v = _mm_or_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s)), _mm_set1_epi8(0x20));
    const __m128i ok = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('a')), _mm_cmpeq_epi8(v, _mm_set1_epi8('c'))),
        _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('g')), _mm_cmpeq_epi8(v, _mm_set1_epi8('t'))),
                     _mm_cmpeq_epi8(v, _mm_set1_epi8('n'))));
    if (_mm_movemask_epi8(ok) != 0xFFFF) return false;
  }
#endif
  for (; s < e; ++s) {
    const char c = char(*s | 0x20);
    if (c != 'a' && c != 'c' && c != 'g' && c != 't' && c != 'n') return false;
  }
  return true;
}

#if defined(__SSE2__)
// 16 bytes at a time: whether every byte is in its class (the same sets as CharClasses, as unsigned ranges).
inline bool block_in_class(__m128i v, const std::array<bool, 256>& ok) {
  auto at_most = [](__m128i x, char bound) {  // unsigned x <= bound, per byte
    const __m128i b = _mm_set1_epi8(bound);
    return _mm_cmpeq_epi8(_mm_max_epu8(x, b), b);
  };
  __m128i good;
  if (&ok == &kClasses.seq) {  // letters, '-', '*', '.'
    const __m128i letter = at_most(_mm_sub_epi8(_mm_or_si128(v, _mm_set1_epi8(0x20)), _mm_set1_epi8('a')), 25);
    good = _mm_or_si128(letter, _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('-')),
                                             _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('*')),
                                                          _mm_cmpeq_epi8(v, _mm_set1_epi8('.')))));
  } else if (&ok == &kClasses.qual) {  // '!' .. '~'
    good = at_most(_mm_sub_epi8(v, _mm_set1_epi8('!')), '~' - '!');
  } else {  // header: tab, or >= 0x20 except DEL
    good = _mm_andnot_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(0x7f)),
                            _mm_cmpeq_epi8(_mm_max_epu8(v, _mm_set1_epi8(0x20)), v));
    good = _mm_or_si128(good, _mm_cmpeq_epi8(v, _mm_set1_epi8('\t')));
  }
  return _mm_movemask_epi8(good) == 0xFFFF;
}
#endif

// Whether every byte of [s, e) is allowed by `ok` (one of kClasses' tables).
inline bool all_in_class(const char* s, const char* e, const std::array<bool, 256>& ok) {
#if defined(__SSE2__)
  for (; e - s >= 16; s += 16)
    if (!block_in_class(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s)), ok)) return false;
#endif
  bool good = true;
  for (; s < e; ++s) good &= ok[static_cast<unsigned char>(*s)];
  return good;
}

std::string describe_byte(unsigned char c) {
  char buf[32];
  if (c >= 0x21 && c < 0x7f)
    std::snprintf(buf, sizeof buf, "'%c'", c);
  else
    std::snprintf(buf, sizeof buf, "byte 0x%02x", unsigned(c));
  return buf;
}

// Where the bytes of a streamed input come from: htslib (plain text, BGZF, gzip without ISA-L, stdin) or ISA-L.
struct ByteSource {
  virtual ~ByteSource() = default;
  // Like bgzf_read: bytes copied, 0 at the end, -1 on error (then error_code()/error_errno() say why).
  virtual ssize_t read(char* dst, size_t n) = 0;
  virtual int error_code() const = 0;  // BGZF_ERR_* bits
  virtual int error_errno() const = 0;
};

class BgzfSource final : public ByteSource {
 public:
  explicit BgzfSource(BGZF* fp) : fp_(fp) {}
  ssize_t read(char* dst, size_t n) override {
    const ssize_t got = bgzf_read(fp_, dst, n);
    if (got < 0) errno_ = errno;
    return got;
  }
  int error_code() const override { return fp_->errcode; }
  int error_errno() const override { return errno_; }

 private:
  BGZF* fp_;
  int errno_ = 0;
};

class InflaterSource final : public ByteSource {
 public:
  explicit InflaterSource(std::unique_ptr<io_detail::GzipInflater> z) : z_(std::move(z)) {}
  ssize_t read(char* dst, size_t n) override { return z_->read(dst, n); }
  int error_code() const override { return z_->error_code(); }
  int error_errno() const override { return z_->error_errno(); }

 private:
  std::unique_ptr<io_detail::GzipInflater> z_;
};

// Decompresses ahead on a second thread so that inflating and parsing overlap (inflate alone is slower than the
// parser). Only used for compressed regular files: a blocked read on a pipe would make the destructor wait.
class Prefetcher {
 public:
  static constexpr size_t kChunkBytes = size_t(1) << 20;
  static constexpr size_t kQueued = 4;

  explicit Prefetcher(ByteSource& src) : src_(src), thread_([this] { run(); }) {}
  ~Prefetcher() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

  // Like bgzf_read: bytes copied, 0 at the end, -1 on error (then error_code()/error_errno() say why).
  ssize_t read(char* dst, size_t n) {
    if (pos_ == cur_.size()) {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return !queue_.empty() || done_; });
      if (queue_.empty()) return failed_ ? -1 : 0;
      free_.push_back(std::move(cur_));
      cur_ = std::move(queue_.front());
      queue_.pop_front();
      pos_ = 0;
      lock.unlock();
      cv_.notify_all();
    }
    size_t k = std::min(n, cur_.size() - pos_);
    if (k) std::memcpy(dst, cur_.data() + pos_, k);  // an empty block's data() may be null
    pos_ += k;
    return ssize_t(k);
  }
  int error_code() const { return error_code_; }
  int error_errno() const { return error_errno_; }

 private:
  void run() {
    for (;;) {
      std::vector<char> chunk;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] { return queue_.size() < kQueued || stop_; });
        if (stop_) return;
        if (!free_.empty()) {
          chunk = std::move(free_.back());
          free_.pop_back();
        }
      }
      chunk.resize(kChunkBytes);
      // A full chunk: the source may hand out less per call (ISA-L stops at block ends).
      size_t have = 0;
      ssize_t got = 0;
      while (have < chunk.size() && (got = src_.read(chunk.data() + have, chunk.size() - have)) > 0) have += size_t(got);
      std::lock_guard<std::mutex> lock(mu_);
      if (have > 0) {
        chunk.resize(have);
        queue_.push_back(std::move(chunk));
      }
      if (got <= 0) {
        done_ = true;
        failed_ = got < 0;
        error_code_ = src_.error_code();
        error_errno_ = src_.error_errno();
        cv_.notify_all();
        return;
      }
      cv_.notify_all();
    }
  }

  ByteSource& src_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::vector<char>> queue_;
  std::vector<std::vector<char>> free_;
  bool stop_ = false, done_ = false, failed_ = false;
  int error_code_ = 0, error_errno_ = 0;
  std::vector<char> cur_;  // consumer side only
  size_t pos_ = 0;
  std::thread thread_;  // last: starts after everything above is initialised
};

}  // namespace

struct SequenceReader::Impl {
  BGZF* fp = nullptr;
  std::string name;  // for messages
  std::vector<char> buf;           // sized when the input is streamed
  const char* data = nullptr;     // the bytes being parsed: buf, the whole file when mapped, or a chunk
  void* mapped = nullptr;         // an uncompressed regular file is read through a mapping (no copies)
  size_t mapped_bytes = 0;
  int mapped_slot = -1;  // in the SIGBUS guard's table (a file truncated under us is an error, not a crash)
  size_t released = 0;  // mapped bytes before this are parsed and dropped from memory (bounded resident size)
  size_t release_lag = size_t(8) << 20;  // bytes before pos kept: larger once chunks may be parsed behind pos
  size_t pos = 0, end = 0;
  bool eof = false;
  uint64_t line = 0;  // lines fully consumed
  int format = 0;     // 0 unknown, '>' FASTA, '@' FASTQ
  uint64_t record = 0;
  uint64_t record_line = 0;
  // check_nucleotide_letters: on, the file's foreign characters, and the current record's protein letters.
  bool check_letters = false;
  ForeignLetters foreign;
  uint64_t record_foreign = 0, record_protein = 0;
  char record_first_protein = 0;

  void count_letters(const char* s, const char* e) {
    if (only_acgtn(s, e)) return;
    for (const char* p = s; p < e; ++p) {
      const uint8_t k = kLetterKinds.kind[static_cast<unsigned char>(*p)];
      if (k == 0) continue;
      if (foreign.count == 0) foreign.first = *p, foreign.first_record = record, foreign.first_line = line + 1;
      ++foreign.count;
      ++record_foreign;
      if (k == 2 && record_protein++ == 0) record_first_protein = *p;
    }
  }
  // At the end of a record of `length` characters.
  void finish_letters(uint64_t length) {
    if (!check_letters) return;
    if (record_foreign) ++foreign.records;
    if (length >= 10 && record_protein * 10 >= length)
      data_error("a protein sequence? " + std::to_string(record_protein) + " of its " + std::to_string(length) +
                     " characters (the first '" + std::string(1, record_first_protein) +
                     "') are letters that no nucleotide code has; expected DNA or RNA",
                 record_line);
    record_foreign = record_protein = 0;
  }
  std::string scratch;
  std::vector<SequenceRecord> pool;  // spare records so next_batch() reuses string capacity
  std::unique_ptr<ByteSource> source;  // streamed input (not for a mapped file or .2bit)
  std::unique_ptr<Prefetcher> prefetch;  // reads `source` ahead on its own thread
  std::unique_ptr<TwoBitReader> twobit;  // a .2bit file is served record by record
  size_t twobit_next = 0;
  std::function<void(uint64_t)> on_bases;  // progress inside long FASTA records (SequenceReader::on_bases)
  // next_streamed: where a FASTA record's sequence goes, in pieces of about a Mbase, instead of rec.seq.
  const std::function<void(const char*, size_t)>* seq_sink = nullptr;
  uint64_t bases_done = 0;                 // bases of the records before the current one

  ~Impl() {
    prefetch.reset();  // joins the thread before the stream goes away
    source.reset();
    if (fp) bgzf_close(fp);
    if (mapped) {
      io_detail::unregister_mapping(mapped_slot);
      munmap(mapped, mapped_bytes);
    }
  }

  // Reads an uncompressed regular file through a read-only mapping instead of copying it twice (kernel to
  // htslib's buffer to ours): the parser then sees the whole file at once. False (nothing changed) if mapping
  // is not possible; the stream is then read as before.
  bool map_file(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    struct stat st {};
    void* m = MAP_FAILED;
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
      m = ::mmap(nullptr, size_t(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
    ::close(fd);
    if (m == MAP_FAILED) return false;
    mapped_slot = io_detail::register_mapping(m, size_t(st.st_size), name);
    if (mapped_slot < 0) {  // no guard slot left: stream this file instead
      ::munmap(m, size_t(st.st_size));
      return false;
    }
    ::madvise(m, size_t(st.st_size), MADV_SEQUENTIAL);
    mapped = m;
    mapped_bytes = size_t(st.st_size);
    data = static_cast<const char*>(m);
    pos = 0;
    end = mapped_bytes;
    eof = true;  // everything is in `data`
    return true;
  }

  [[noreturn]] void data_error(const std::string& what, uint64_t at_line) const {
    throw DataError(name + ": record " + std::to_string(record) + " (line " + std::to_string(at_line) + "): " + what);
  }

  // Moves unread bytes to the front and reads more; false when nothing more could be read.
  bool fill() {
    if (eof) return false;
    if (pos > 0) {
      std::memmove(buf.data(), buf.data() + pos, end - pos);
      end -= pos;
      pos = 0;
    }
    if (end == buf.size()) buf.resize(buf.size() * 2);
    data = buf.data();
    ssize_t n = prefetch ? prefetch->read(buf.data() + end, buf.size() - end)
                         : source->read(buf.data() + end, buf.size() - end);
    if (n < 0) {
      // Decompression runs ahead, so the damage is at or after the record being parsed.
      const int ec = prefetch ? prefetch->error_code() : source->error_code();
      errno = prefetch ? prefetch->error_errno() : source->error_errno();
      std::string why;
      if ((ec & BGZF_ERR_ZLIB) && (ec & BGZF_ERR_IO))
        why = "truncated compressed data (incomplete file?)";
      else if (ec & BGZF_ERR_CRC)
        why = "compressed data fails its checksum";
      else if (ec & BGZF_ERR_ZLIB)
        why = "corrupt compressed data (or garbage after the last gzip member)";
      else if (ec & BGZF_ERR_HEADER)
        why = "corrupt compressed data (bad block header)";
      else
        why = io_detail::errno_text(errno);
      throw IoError(name + ": read error at or after record " + std::to_string(record ? record : 1) + ": " + why);
    }
    if (n == 0) {
      eof = true;
      return false;
    }
    end += size_t(n);
    return true;
  }

  int peek() {
    if (pos == end && !fill()) return -1;
    return static_cast<unsigned char>(data[pos]);
  }

  void check(const char* s, const char* e, const std::array<bool, 256>& ok, const char* what) {
    if (all_in_class(s, e, ok)) return;
    for (const char* p = s; p < e; ++p)
      if (!ok[static_cast<unsigned char>(*p)]) {
        std::string hint;
        if ((*p == '>' || *p == '@') && &ok == &kClasses.seq)
          hint = " (two records merged? e.g. files concatenated where one lacks its final newline)";
        data_error(describe_byte(static_cast<unsigned char>(*p)) + " is not allowed in a " + what + hint, line + 1);
      }
  }

  // A long record's text grows into populated storage (populate_pages.hpp): grown by appends alone, a genome's
  // 5 MB took a page fault per 4 KiB of each doubling. The copy of a doubling is populated with it, and the
  // capacity beyond a MiB at a time ahead of the text.
  static void grow_for(std::string& dst, size_t n) {
    if (dst.size() + n > dst.capacity()) reserve_populated(dst, dst.size() + n);
    constexpr size_t kAhead = size_t(1) << 20;
    const size_t to = dst.size() + n;
    if (to / kAhead != dst.size() / kAhead)  // the text enters another MiB: populate the one after it
      populate_pages(&dst[0] + to, std::min(kAhead, dst.capacity() - to));
  }

  // Appends one line (without "\n" or "\r\n") to dst after checking its characters; false at end of input.
  bool read_line(std::string& dst, const std::array<bool, 256>& ok, const char* what, size_t max_len = SIZE_MAX) {
    bool any = false;
    const size_t start = dst.size();
    for (;;) {
      if (pos == end && !fill()) break;
      const char* s = data + pos;
      const char* nl = static_cast<const char*>(std::memchr(s, '\n', end - pos));
      if (nl) {
        const char* e = nl;
        if (e > s && e[-1] == '\r') --e;
        check(s, e, ok, what);
        if (check_letters && &ok == &kClasses.seq) count_letters(s, e);
        grow_for(dst, size_t(e - s));
        dst.append(s, size_t(e - s));  // (pointer, length): cheaper than the iterator overload
        pos = size_t(nl + 1 - data);
        ++line;
        return true;
      }
      const char* e = data + end;
      if (e[-1] == '\r') {  // may be the first half of a CRLF split between two reads
        if (end - pos == 1) {
          if (!fill()) {  // "\r" at the very end of the input
            pos = end;
            any = true;
            break;
          }
          continue;
        }
        --e;
      }
      check(s, e, ok, what);
      if (check_letters && &ok == &kClasses.seq) count_letters(s, e);
      grow_for(dst, size_t(e - s));
      dst.append(s, size_t(e - s));  // (pointer, length): cheaper than the iterator overload
      pos = size_t(e - data);
      any = true;
      if (dst.size() - start > max_len) data_error(std::string(what) + " longer than " + std::to_string(max_len) + " bytes (not a FASTA/FASTQ file?)", line + 1);
    }
    if (any) ++line;
    return any;
  }

  // Consumes a line of only "\n" or "\r\n" if there is one.
  bool skip_blank_line() {
    int c = peek();
    if (c == '\n') {
      ++pos;
      ++line;
      return true;
    }
    if (c == '\r') {
      if (end - pos < 2) fill();
      if (end - pos >= 2 && data[pos + 1] == '\n') {
        pos += 2;
        ++line;
        return true;
      }
      if (end - pos == 1 && eof) {
        ++pos;
        ++line;
        return true;
      }
    }
    return false;
  }

  [[noreturn]] void not_a_record(int c) {
    std::string what = "expected '>' (FASTA) or '@' (FASTQ) at the start of a record, found " +
                       describe_byte(static_cast<unsigned char>(c));
    if (record == 1) {
      if (end - pos < 6) fill();
      const unsigned char* p = reinterpret_cast<const unsigned char*>(data + pos);
      size_t n = end - pos;
      if (n >= 3 && std::memcmp(p, "BZh", 3) == 0) what += " (bzip2-compressed? use gzip or decompress first)";
      else if (n >= 6 && std::memcmp(p, "\xfd" "7zXZ\0", 6) == 0) what += " (xz-compressed? use gzip or decompress first)";
      else if (n >= 4 && std::memcmp(p, "\x28\xb5\x2f\xfd", 4) == 0) what += " (zstd-compressed? use gzip or decompress first)";
      else what += " (not a FASTA/FASTQ file)";
    }
    data_error(what, line + 1);
  }

  // Parsed records are copied out, so the pages behind them can go (or the whole file would stay resident).
  void release_parsed() {
    if (!mapped || pos < released + 2 * release_lag) return;
    const size_t upto = (pos - release_lag) & ~(size_t(4095));
    ::madvise(static_cast<char*>(mapped) + released, upto - released, MADV_DONTNEED);
    released = upto;
  }

  enum PlainRecord { kNotPlain, kPlain, kNeedMore };

  // Whether a plain FASTQ record starts at `p` of `data`: '@' header, one sequence line not starting with '+' or
  // '@', a '+' line, one quality line as long as the sequence, each ending in '\n'. next() would take exactly these
  // four lines as one record (their characters still to be checked), so a run of them can be cut here and parsed
  // elsewhere. kNeedMore: the bytes end before the record does and more input may follow. Sets `e` past the
  // record, `bases` to the sequence length and `line_ends` to the offsets of its four '\n'.
  PlainRecord plain_fastq_at(size_t p, size_t& e, size_t& bases, size_t* line_ends) const {
    if (twobit || format == '>') return kNotPlain;
    if (p >= end) return eof ? kNotPlain : kNeedMore;
    if (data[p] != '@') return kNotPlain;
    const char* const stop = data + end;
    const PlainRecord short_of_data = eof ? kNotPlain : kNeedMore;
    auto line_end = [&](const char* from) -> const char* {
      return from < stop ? static_cast<const char*>(std::memchr(from, '\n', size_t(stop - from))) : nullptr;
    };
    auto content = [](const char* from, const char* nl) { return size_t(nl - from) - (nl > from && nl[-1] == '\r'); };
    const char* nl1 = line_end(data + p);
    if (!nl1) return short_of_data;
    const char* sq = nl1 + 1;
    if (sq >= stop) return short_of_data;
    if (*sq == '+' || *sq == '@') return kNotPlain;
    const char* nl2 = line_end(sq);
    if (!nl2) return short_of_data;
    const char* pl = nl2 + 1;
    if (pl >= stop) return short_of_data;
    if (*pl != '+') return kNotPlain;
    const char* nl3 = line_end(pl);
    if (!nl3) return short_of_data;
    const char* ql = nl3 + 1;
    const char* nl4 = line_end(ql);
    if (!nl4) return short_of_data;
    bases = content(sq, nl2);
    if (content(ql, nl4) != bases) return kNotPlain;
    e = size_t(nl4 + 1 - data);
    line_ends[0] = size_t(nl1 - data);
    line_ends[1] = size_t(nl2 - data);
    line_ends[2] = size_t(nl3 - data);
    line_ends[3] = size_t(nl4 - data);
    return kPlain;
  }

  // plain_fastq_at(pos), reading more of a stream while the record may continue past the buffer (a FASTQ record
  // longer than kMaxPlainBytes is left to next()). fill() may move the unread bytes: offsets from before a call
  // are stale after it.
  static constexpr size_t kMaxPlainBytes = size_t(16) << 20;
  bool plain_fastq_next(size_t& e, size_t& bases, size_t* line_ends) {
    for (;;) {
      const PlainRecord r = plain_fastq_at(pos, e, bases, line_ends);
      if (r != kNeedMore) return r == kPlain;
      if (mapped || end - pos > kMaxPlainBytes || !fill()) return false;
    }
  }

  bool next(SequenceRecord& rec) {
    release_parsed();
    if (twobit) {
      if (twobit_next == twobit->size()) return false;
      rec.name = twobit->name(twobit_next);
      rec.comment.clear();
      rec.blanks.clear();
      rec.seq = twobit->sequence(twobit_next++);
      rec.qual.clear();
      ++record;
      return true;
    }
    int c;
    for (;;) {
      c = peek();
      if (c < 0) return false;
      if (!skip_blank_line()) break;
    }
    ++record;
    record_line = line + 1;
    if (c != '>' && c != '@') not_a_record(c);
    if (format == 0) format = c;
    if (c != format)
      data_error(std::string("starts with '") + char(c) + "' but the file is " + (format == '>' ? "FASTA" : "FASTQ"),
                 line + 1);
    ++pos;  // the marker
    scratch.clear();
    read_line(scratch, kClasses.header, "header", kMaxHeaderBytes);
    size_t cut = scratch.find_first_of(" \t");
    if (cut == 0 || scratch.empty()) data_error("empty sequence name", record_line);
    rec.name.assign(scratch, 0, cut);
    rec.comment.clear();
    rec.blanks.clear();
    if (cut != std::string::npos) {
      size_t from = scratch.find_first_not_of(" \t", cut);
      if (from != std::string::npos) rec.comment.assign(scratch, from, std::string::npos);
      rec.blanks.assign(scratch, cut, std::min(from, scratch.size()) - cut);
    }
    rec.seq.clear();
    rec.qual.clear();
    if (format == '>') {
      constexpr size_t kReportBases = size_t(1) << 20;
      size_t report_at = kReportBases;
      uint64_t streamed = 0;  // bases handed to seq_sink
      for (;;) {
        c = peek();
        if (c < 0 || c == '>') break;
        read_line(rec.seq, kClasses.seq, "sequence");
        if (seq_sink && rec.seq.size() >= kReportBases) {
          (*seq_sink)(rec.seq.data(), rec.seq.size());
          streamed += rec.seq.size();
          rec.seq.clear();
        }
        // A long record in a mapped file: room for the rest of the file at once, instead of doubling copies of
        // hundreds of MB (each a pause of a second, and twice the memory while it lasts). Untouched capacity
        // costs no memory.
        if (!seq_sink && mapped && rec.seq.size() >= kReportBases * 16 &&
            rec.seq.capacity() < rec.seq.size() + (end - pos))
          rec.seq.reserve(rec.seq.size() + (end - pos));
        if (streamed + rec.seq.size() >= report_at) {
          if (on_bases) on_bases(bases_done + streamed + rec.seq.size());
          report_at = streamed + rec.seq.size() + kReportBases;
          release_parsed();  // inside a long record too: its text is copied out
        }
      }
      if (seq_sink) {
        (*seq_sink)(rec.seq.data(), rec.seq.size());
        streamed += rec.seq.size();
        rec.seq.clear();
      }
      bases_done += streamed + rec.seq.size();
      finish_letters(streamed + rec.seq.size());
      return true;
    }
    // FASTQ: sequence lines up to '+', then quality of the same length.
    int seq_lines = 0;
    for (;;) {
      c = peek();
      if (c < 0 || c == '+' || c == '@') break;
      read_line(rec.seq, kClasses.seq, "sequence");
      ++seq_lines;
    }
    if (c < 0) data_error("no '+' line before the end of input (truncated record?)", line + 1);
    if (c != '+') data_error("missing '+' line after the sequence", line + 1);
    ++pos;
    scratch.clear();
    read_line(scratch, kClasses.header, "'+' line", kMaxHeaderBytes);
    if (seq_lines <= 1) {
      if (!read_line(rec.qual, kClasses.qual, "quality line"))
        data_error("truncated record: end of input before the quality line", line + 1);
    } else {  // multi-line FASTQ: quality lines until the length is reached
      while (rec.qual.size() < rec.seq.size()) {
        if (peek() < 0) break;
        read_line(rec.qual, kClasses.qual, "quality line");
      }
    }
    if (rec.qual.size() != rec.seq.size())
      data_error("quality length " + std::to_string(rec.qual.size()) + " differs from sequence length " +
                     std::to_string(rec.seq.size()) + (peek() < 0 ? " (truncated record?)" : ""),
                 line);
    finish_letters(rec.seq.size());
    return true;
  }
};

SequenceReader::SequenceReader(const std::string& path, bool decompress_ahead) : impl_(std::make_unique<Impl>()), path_(path) {
  io_detail::quiet_htslib();
  impl_->name = display_name(path);
  if (path != "-") {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0)
      throw NoInputError(impl_->name + ": cannot open: " + io_detail::errno_text(errno));
    if (S_ISDIR(st.st_mode)) throw NoInputError(impl_->name + ": cannot open: is a directory");
  }
  if (path != "-" && is_twobit_file(path)) {
    impl_->twobit = std::make_unique<TwoBitReader>(path);
    impl_->format = '>';
    return;
  }
  errno = 0;
  impl_->fp = bgzf_open(path.c_str(), "r");
  if (!impl_->fp) {
    int err = errno;
    throw NoInputError(impl_->name + ": cannot open: " +
                       (err ? io_detail::errno_text(err) : std::string("unreadable or corrupt compressed header")));
  }
  if (!impl_->fp->is_compressed && path != "-" && impl_->map_file(path)) {
    bgzf_close(impl_->fp);
    impl_->fp = nullptr;
    return;
  }
  impl_->buf.resize(kBufferBytes);
  // Plain gzip from a regular file: ISA-L where built with it (several times zlib's speed), else htslib.
  if (impl_->fp->is_gzip && path != "-")
    if (auto z = io_detail::GzipInflater::open(path)) impl_->source = std::make_unique<InflaterSource>(std::move(z));
  if (!impl_->source) impl_->source = std::make_unique<BgzfSource>(impl_->fp);
  // Not for stdin: a reader thread blocked on a pipe would make closing wait for input.
  if (decompress_ahead && impl_->fp->is_compressed && path != "-") {
    // BGZF blocks are independent: htslib's thread pool inflates several at once (and reads ahead itself).
    // Plain gzip is one stream: a single thread inflates ahead of the parser.
    if (impl_->fp->is_gzip || bgzf_mt(impl_->fp, 2, 64) != 0)
      impl_->prefetch = std::make_unique<Prefetcher>(*impl_->source);
  }
}

SequenceReader::~SequenceReader() = default;

void SequenceReader::on_bases(std::function<void(uint64_t)> f) { impl_->on_bases = std::move(f); }

bool SequenceReader::next(SequenceRecord& rec) {
  if (!impl_->next(rec)) return false;
  ++records_;
  return true;
}

bool SequenceReader::next_streamed(SequenceRecord& rec, const std::function<void(const char*, size_t)>& sink) {
  impl_->seq_sink = &sink;  // FASTA only: FASTQ and .2bit records come whole in rec.seq
  bool got;
  try {
    got = impl_->next(rec);
  } catch (...) {
    impl_->seq_sink = nullptr;
    throw;
  }
  impl_->seq_sink = nullptr;
  if (!got) return false;
  if (!rec.seq.empty()) sink(rec.seq.data(), rec.seq.size());
  rec.seq.clear();
  ++records_;
  return true;
}

size_t SequenceReader::next_batch(std::vector<SequenceRecord>& batch, uint64_t max_bases) {
  auto& pool = impl_->pool;
  size_t n = 0;
  uint64_t bases = 0;
  do {
    if (n == batch.size()) {
      if (!pool.empty()) {
        batch.push_back(std::move(pool.back()));
        pool.pop_back();
      } else {
        batch.emplace_back();
      }
    }
    if (!next(batch[n])) break;
    bases += batch[n].seq.size();
    ++n;
  } while (bases < max_bases);
  while (batch.size() > n) {
    pool.push_back(std::move(batch.back()));
    batch.pop_back();
  }
  return n;
}

bool SequenceReader::is_fastq() const { return impl_->format == '@'; }

bool SequenceReader::tell(uint64_t& byte, uint64_t& line) const {
  if (!impl_->mapped) return false;
  byte = impl_->pos;
  line = impl_->line;
  return true;
}

bool SequenceReader::seek(uint64_t byte, uint64_t line, uint64_t records_before) {
  if (!impl_->mapped || byte > impl_->mapped_bytes) return false;
  impl_->pos = size_t(byte);
  // Nothing before it is read from here on; pages touched there (counted by a shard) are dropped.
  impl_->released = impl_->pos & ~size_t(4095);
  if (impl_->released) ::madvise(impl_->mapped, impl_->released, MADV_DONTNEED);
  impl_->line = line;
  impl_->record = records_before;
  records_ = records_before;
  return true;
}

bool SequenceReader::stop_at(uint64_t byte) {
  if (!impl_->mapped) return false;
  impl_->end = size_t(std::min<uint64_t>(byte, impl_->mapped_bytes));
  return true;
}

std::string_view SequenceReader::mapped_text() const {
  if (!impl_->mapped) return {};
  return std::string_view(static_cast<const char*>(impl_->mapped), impl_->mapped_bytes);
}

struct SequenceChunk::Impl {
  std::vector<SequenceRecord> parsed;  // records the reader parsed itself; the first `used` are this chunk's
  size_t used = 0;
  SequenceReader::Impl raw;  // a parser over the cut bytes (no stream behind them: their end is its end)
  size_t raw_records = 0;
  uint64_t first_line = 0, first_record = 0;  // lines and records before the cut bytes
  std::vector<uint32_t> ends;  // [raw record][4]: offsets of its line ends in the cut bytes
  std::string own;  // the cut bytes when they come from a stream (compressed input, stdin): the buffer moves on

  // A cut record whose lines pass the reader's checks, without its line-by-line machinery; false (rec undefined)
  // if any check fails: the reader's parser then reports the error.
  bool parse_plain(size_t i, SequenceRecord& rec) const {
    const char* d = raw.data;
    const uint32_t* nl = ends.data() + 4 * i;
    const size_t start = i ? size_t(ends[4 * i - 1]) + 1 : 0;
    auto trim = [&](size_t from, size_t to) { return to > from && d[to - 1] == '\r' ? to - 1 : to; };
    const size_t h0 = start + 1, h1 = trim(h0, nl[0]);
    const size_t s0 = size_t(nl[0]) + 1, s1 = trim(s0, nl[1]);
    const size_t p0 = size_t(nl[1]) + 2, p1 = trim(p0, nl[2]);
    const size_t q0 = size_t(nl[2]) + 1, q1 = trim(q0, nl[3]);
    if (!all_in_class(d + h0, d + h1, kClasses.header) || !all_in_class(d + s0, d + s1, kClasses.seq) ||
        !all_in_class(d + p0, d + p1, kClasses.header) || !all_in_class(d + q0, d + q1, kClasses.qual))
      return false;
    const std::string_view header(d + h0, h1 - h0);
    const size_t cut = header.find_first_of(" \t");
    if (cut == 0 || header.empty()) return false;
    rec.name.assign(header.data(), std::min(cut, header.size()));
    rec.comment.clear();
    rec.blanks.clear();
    if (cut != std::string_view::npos) {
      const size_t from = header.find_first_not_of(" \t", cut);
      if (from != std::string_view::npos) rec.comment.assign(header.data() + from, header.size() - from);
      rec.blanks.assign(header.data() + cut, std::min(from, header.size()) - cut);
    }
    rec.seq.assign(d + s0, s1 - s0);
    rec.qual.assign(d + q0, q1 - q0);
    return true;
  }
};

SequenceChunk::SequenceChunk() : impl_(std::make_unique<Impl>()) {}
SequenceChunk::~SequenceChunk() = default;
SequenceChunk::SequenceChunk(SequenceChunk&&) noexcept = default;
SequenceChunk& SequenceChunk::operator=(SequenceChunk&&) noexcept = default;

size_t SequenceChunk::records() const { return impl_->used + impl_->raw_records; }

size_t SequenceChunk::parse(std::vector<SequenceRecord>& batch) {
  Impl& c = *impl_;
  const size_t n = c.used + c.raw_records;
  if (batch.size() > n) batch.resize(n);
  while (batch.size() < n) batch.emplace_back();
  for (size_t i = 0; i < c.used; ++i) std::swap(batch[i], c.parsed[i]);  // capacity goes back and forth
  for (size_t i = 0; i < c.raw_records; ++i) {
    SequenceRecord& rec = batch[c.used + i];
    if (c.parse_plain(i, rec)) continue;
    // The reader's parser from the record's start: it throws the message SequenceReader::next would.
    c.raw.pos = i ? size_t(c.ends[4 * i - 1]) + 1 : 0;
    c.raw.line = c.first_line + 4 * i;
    c.raw.record = c.first_record + i;
    if (!c.raw.next(rec)) throw std::logic_error("sequence chunk: fewer records than cut");
  }
  c.used = c.raw_records = 0;
  c.raw.pos = c.raw.end = 0;
  return n;
}

bool SequenceReader::next_chunk(SequenceChunk& chunk, uint64_t max_bases, size_t max_records) {
  Impl& in = *impl_;
  SequenceChunk::Impl& c = *chunk.impl_;
  c.used = c.raw_records = 0;
  c.raw.pos = c.raw.end = 0;
  uint64_t bases = 0;
  size_t e = 0, len = 0, nl[4];
  // Records parsed here, up to the first plain FASTQ record.
  while (!in.plain_fastq_next(e, len, nl) || e - in.pos > UINT32_MAX) {
    if (c.used == c.parsed.size()) c.parsed.emplace_back();
    if (!next(c.parsed[c.used])) return c.used > 0;
    bases += c.parsed[c.used++].seq.size();
    if (bases >= max_bases || c.used >= max_records) return true;
  }
  // A run of plain FASTQ records, only cut: a mapped file's bytes stay where they are, a stream's are copied out
  // record by record (its buffer is refilled in between).
  const bool copy = in.mapped == nullptr;
  const size_t from = in.pos;
  c.raw.name = in.name;
  c.raw.eof = true;
  c.raw.format = '@';
  c.first_line = in.line;
  c.first_record = in.record;
  c.ends.clear();
  c.own.clear();
  size_t bytes = 0;  // cut so far
  do {
    const size_t start = in.pos;
    if (copy) c.own.append(in.data + start, e - start);
    for (size_t x : nl) c.ends.push_back(uint32_t(x - start + bytes));
    bytes += e - start;
    in.pos = e;
    bases += len;
    ++c.raw_records;
  } while (bases < max_bases && c.used + c.raw_records < max_records && in.plain_fastq_next(e, len, nl) &&
           bytes + (e - in.pos) <= UINT32_MAX);
  c.raw.data = copy ? c.own.data() : in.data + from;
  c.raw.end = bytes;
  in.line += 4 * c.raw_records;
  in.record += c.raw_records;
  if (in.format == 0) in.format = '@';
  records_ += c.raw_records;
  // Chunks handed out may still be parsed behind pos (one per worker, a worker rarely more than two behind);
  // a page dropped too early only costs a minor fault.
  if (!copy) {
    in.release_lag = std::max(in.release_lag, 3 * bytes);
    in.release_parsed();
  }
  return true;
}

std::vector<SequenceRecord> read_all_sequences(const std::string& path) {
  SequenceReader reader(path);
  std::vector<SequenceRecord> out;
  SequenceRecord rec;
  while (reader.next(rec)) out.push_back(std::move(rec));
  return out;
}

std::vector<SequenceRecord> read_all_nucleotide_sequences(const std::string& path, ForeignLetters& foreign) {
  SequenceReader reader(path);
  reader.check_nucleotide_letters();
  std::vector<SequenceRecord> out;
  SequenceRecord rec;
  while (reader.next(rec)) out.push_back(std::move(rec));
  foreign = reader.foreign_letters();
  return out;
}

std::string ForeignLetters::describe() const {
  if (count == 0) return "";
  return std::to_string(count) + " character" + (count == 1 ? "" : "s") + " that no nucleotide code has (the first '" +
         std::string(1, first) + "' in record " + std::to_string(first_record) + ", line " +
         std::to_string(first_line) + ") read as N";
}

void SequenceReader::check_nucleotide_letters(bool on) { impl_->check_letters = on; }
const ForeignLetters& SequenceReader::foreign_letters() const { return impl_->foreign; }

}  // namespace bloomseq
