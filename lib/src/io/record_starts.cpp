// Record starts without parsing (record_starts.hpp).
#include "bloomseq/io/record_starts.hpp"

#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace bloomseq {
namespace {

const char* find_byte(std::string_view t, size_t from, char c) {
  return from < t.size() ? static_cast<const char*>(std::memchr(t.data() + from, c, t.size() - from)) : nullptr;
}

// The offset after the newline that ends the line at `from`; t.size() if the text ends first.
size_t next_line(std::string_view t, size_t from) {
  const char* nl = find_byte(t, from, '\n');
  return nl ? size_t(nl - t.data()) + 1 : t.size();
}

// A line's length without its '\n' or "\r\n" (the last line may end the text).
size_t content_length(std::string_view t, size_t from, size_t& next) {
  const char* nl = find_byte(t, from, '\n');
  const size_t end = nl ? size_t(nl - t.data()) : t.size();
  next = nl ? end + 1 : t.size();
  return end - from - (end > from && t[end - 1] == '\r');
}

// Bit i: byte p[i] is '\n' (resp. '>'), for n <= 64 bytes.
struct Masks {
  uint64_t nl = 0, gt = 0;
};
Masks block_masks(const char* p, size_t n) {
  Masks m;
#if defined(__SSE2__)
  if (n == 64) {
    const __m128i nl = _mm_set1_epi8('\n'), gt = _mm_set1_epi8('>');
    for (int j = 0; j < 4; ++j) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * j));
      m.nl |= uint64_t(uint32_t(_mm_movemask_epi8(_mm_cmpeq_epi8(v, nl)))) << (16 * j);
      m.gt |= uint64_t(uint32_t(_mm_movemask_epi8(_mm_cmpeq_epi8(v, gt)))) << (16 * j);
    }
    return m;
  }
#endif
  for (size_t i = 0; i < n; ++i) {
    m.nl |= uint64_t(p[i] == '\n') << i;
    m.gt |= uint64_t(p[i] == '>') << i;
  }
  return m;
}

// Walks [0, limit) in blocks of 64 bytes. For each block: its newlines and its counted marks (FASTQ: newlines, a
// record every fourth; FASTA: line starts with '>').
class BlockScan {
 public:
  BlockScan(std::string_view t, size_t limit, char format) : t_(t), limit_(limit), fasta_(format == '>') {}
  bool next() {
    if (at_ >= limit_) return false;
    at_ += n_;
    if (at_ >= limit_) return false;
    n_ = limit_ - at_ < 64 ? limit_ - at_ : 64;
    const Masks m = block_masks(t_.data() + at_, n_);
    nl = m.nl;
    const uint64_t line_starts = (m.nl << 1) | carry_;
    carry_ = m.nl >> 63;
    marks = fasta_ ? line_starts & m.gt : m.nl;
    if (n_ < 64) {
      nl &= (uint64_t(1) << n_) - 1;
      marks &= (uint64_t(1) << n_) - 1;
    }
    return true;
  }
  size_t at() const { return at_; }
  uint64_t nl = 0, marks = 0;

 private:
  std::string_view t_;
  size_t limit_, at_ = 0, n_ = 0;
  bool fasta_;
  uint64_t carry_ = 1;  // the text's first byte starts a line
};

uint64_t below(uint64_t mask, unsigned bit) { return bit >= 64 ? mask : mask & ((uint64_t(1) << bit) - 1); }

}  // namespace

bool single_line_fastq_at(std::string_view t, size_t at) {
  if (at >= t.size() || t[at] != '@') return false;
  const size_t seq = next_line(t, at);
  if (seq >= t.size() || t[seq] == '@' || t[seq] == '+') return false;
  size_t plus = 0, qual = 0, after = 0;
  const size_t bases = content_length(t, seq, plus);
  if (plus >= t.size() || t[plus] != '+') return false;
  qual = next_line(t, plus);
  if (qual == t.size() && t.back() != '\n') return false;  // the '+' line ends the text: no quality line
  return content_length(t, qual, after) == bases;
}

char text_format(std::string_view t, size_t& at) {
  at = 0;
  while (at < t.size() && (t[at] == '\n' || (t[at] == '\r' && at + 1 < t.size() && t[at + 1] == '\n')))
    at += t[at] == '\n' ? 1 : 2;
  return at < t.size() && (t[at] == '@' || t[at] == '>') ? t[at] : 0;
}

size_t next_record_start(std::string_view t, size_t from, char format) {
  size_t p = from;
  if (p > 0 && p < t.size() && t[p - 1] != '\n') p = next_line(t, p);
  if (format == '>') {
    if (p >= t.size() || t[p] == '>') return p < t.size() ? p : t.size();
    // The next '>' that begins a line: '>' is rare outside headers, so look for it rather than for lines.
    const char* gt = find_byte(t, p, '>');
    while (gt && gt[-1] != '\n') gt = find_byte(t, size_t(gt - t.data()) + 1, '>');
    return gt ? size_t(gt - t.data()) : t.size();
  }
  for (; p < t.size(); p = next_line(t, p))
    if (single_line_fastq_at(t, p)) return p;
  return t.size();
}

RecordCount count_records_before(std::string_view t, size_t at, char format) {
  RecordCount c;
  uint64_t marks = 0;
  BlockScan s(t, at < t.size() ? at : t.size(), format);
  while (s.next()) {
    c.lines += uint64_t(__builtin_popcountll(s.nl));
    marks += uint64_t(__builtin_popcountll(s.marks));
  }
  c.records = format == '>' ? marks : marks / 4;
  return c;
}

size_t find_record(std::string_view t, uint64_t k, char format, RecordCount& before) {
  before = RecordCount{};
  if (k == 0 && format != '>') return 0;
  // FASTQ: record k starts after newline 4k; FASTA: at the (k+1)-th line start with '>'.
  const uint64_t target = format == '>' ? k + 1 : 4 * k;
  uint64_t marks = 0;
  BlockScan s(t, t.size(), format);
  while (s.next()) {
    const uint64_t here = uint64_t(__builtin_popcountll(s.marks));
    if (marks + here >= target) {
      uint64_t m = s.marks;
      for (uint64_t skip = target - marks - 1; skip; --skip) m &= m - 1;
      const unsigned bit = unsigned(__builtin_ctzll(m));
      // FASTQ: the mark is the newline before the record; FASTA: the record's '>'.
      const unsigned stop = format == '>' ? bit : bit + 1;
      before.lines += uint64_t(__builtin_popcountll(below(s.nl, stop)));
      before.records = k;
      return s.at() + stop;
    }
    marks += here;
    before.lines += uint64_t(__builtin_popcountll(s.nl));
  }
  before.records = format == '>' ? marks : marks / 4;
  return t.size();
}

}  // namespace bloomseq
