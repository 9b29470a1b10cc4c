// UCSC .2bit reader and writer. Layout (UCSC FAQ, format 7): a 16-byte header (signature 0x1A412743, version,
// sequence count, reserved), an index of (name length, name, offset) entries, then per sequence: DNA size,
// N-block count, starts, sizes, mask-block count, starts, sizes, reserved, and the bases packed four per byte
// (T=0 C=1 A=2 G=3, first base in the high bits). Version 1 stores 64-bit offsets (files over 4 GiB).
// Files written on a big-endian machine have the signature byte-swapped; the reader swaps every field then.
// Every count, offset and size is checked against the file size before anything is allocated.
#include "bloomseq/io/twobit.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <immintrin.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <unordered_set>

#include "bloomseq/encode/dna.hpp"
#include "bloomseq/error.hpp"
#include "bloomseq/io/output_file.hpp"
#include "io_common.hpp"
#include "mapped_input_guard.hpp"

namespace bloomseq {

namespace {

constexpr uint32_t kSignature = 0x1A412743;
constexpr uint32_t kSignatureSwapped = 0x4327411A;
constexpr uint64_t kHeaderBytes = 16;
constexpr uint64_t kRecordHeaderMin = 16;  // dnaSize, nBlockCount, maskBlockCount, reserved

uint32_t bswap(uint32_t v) { return __builtin_bswap32(v); }
uint64_t bswap(uint64_t v) { return __builtin_bswap64(v); }

// Base codes of the .2bit packing and their inverse, in lower and upper case.
constexpr char kBases[4] = {'T', 'C', 'A', 'G'};
int twobit_code(char c) {
  switch (c) {
    case 'T': case 't': case 'U': case 'u': return 0;
    case 'C': case 'c': return 1;
    case 'A': case 'a': return 2;
    case 'G': case 'g': return 3;
    default: return -1;
  }
}

// 4 decoded bases for each packed byte.
struct DecodeTable {
  char quad[256][4];
  DecodeTable() {
    for (int b = 0; b < 256; ++b)
      for (int j = 0; j < 4; ++j) quad[b][j] = kBases[(b >> (6 - 2 * j)) & 3];
  }
};
const DecodeTable kDecode;

// The file's 2-bit codes (T C A G) as the codes of encode/dna.hpp (A=0 C=1 G=2 T=3).
constexpr uint8_t kCode[4] = {3, 1, 0, 2};

// 4 base codes (encode/dna.hpp) for each packed byte, as the 4 bytes of a word in memory order.
struct CodeTable {
  uint32_t quad[256];
  CodeTable() {
    for (int b = 0; b < 256; ++b) {
      uint8_t q[4];
      for (int j = 0; j < 4; ++j) q[j] = kCode[(b >> (6 - 2 * j)) & 3];
      std::memcpy(&quad[b], q, 4);
    }
  }
};
const CodeTable kCodes;

// Decodes packed bytes [0, n) into 4 codes each: the scalar table, and 16 bytes at a time with AVX2 where the CPU
// has it (3.6x the table loop on 200 Mbases: 6 ms against 21 ms). Each code is picked
// from a nibble: base 0 and 1 from the high nibble, 2 and 3 from the low one, by a 16-entry table of its top or
// bottom 2 bits.
__attribute__((target("avx2"))) uint64_t decode_packed_avx2(const unsigned char* src, uint64_t n, uint8_t* out) {
  alignas(16) uint8_t top[16], bottom[16];
  for (int x = 0; x < 16; ++x) top[x] = kCode[(x >> 2) & 3], bottom[x] = kCode[x & 3];
  const __m256i lut_top = _mm256_broadcastsi128_si256(_mm_load_si128(reinterpret_cast<const __m128i*>(top)));
  const __m256i lut_bottom = _mm256_broadcastsi128_si256(_mm_load_si128(reinterpret_cast<const __m128i*>(bottom)));
  const __m256i nibble = _mm256_set1_epi8(0x0F);
  // Output byte 4i + j comes from packed byte i: the low nibble for j = 2, 3; the bottom 2 bits for j = 1, 3.
  const __m256i low_nibble = _mm256_set1_epi32(int32_t(0x80800000u));
  const __m256i bottom_bits = _mm256_set1_epi32(int32_t(0x80008000u));
  // Output block k (32 bytes) takes packed bytes 8k..8k+3 in its low lane and 8k+4..8k+7 in its high lane.
  const __m256i spread0 = _mm256_setr_epi8(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3,
                                           4, 4, 4, 4, 5, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7);
  const __m256i spread1 = _mm256_add_epi8(spread0, _mm256_set1_epi8(8));
  uint64_t b = 0;
  for (; b + 16 <= n; b += 16) {
    const __m256i in = _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + b)));
    const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(in, 4), nibble), lo = _mm256_and_si256(in, nibble);
    for (int k = 0; k < 2; ++k) {
      const __m256i spread = k ? spread1 : spread0;
      const __m256i n4 = _mm256_blendv_epi8(_mm256_shuffle_epi8(hi, spread), _mm256_shuffle_epi8(lo, spread),
                                            low_nibble);
      const __m256i codes = _mm256_blendv_epi8(_mm256_shuffle_epi8(lut_top, n4), _mm256_shuffle_epi8(lut_bottom, n4),
                                               bottom_bits);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + b * 4 + uint64_t(k) * 32), codes);
    }
  }
  return b;
}
const bool kHaveAvx2 = [] {
  __builtin_cpu_init();
  return bool(__builtin_cpu_supports("avx2"));
}();

void decode_packed(const unsigned char* src, uint64_t n, uint8_t* out) {
  const uint64_t done = kHaveAvx2 ? decode_packed_avx2(src, n, out) : 0;
  for (uint64_t b = done; b < n; ++b) std::memcpy(out + b * 4, &kCodes.quad[src[b]], 4);
}

// A packed byte of the file (4 bases, the first in the top 2 bits; T=0 C=1 A=2 G=3) as a byte of the packed_base
// layout (the first base in the low 2 bits; A=0 C=1 G=2 T=3): each nibble (two bases) through a 16-entry table.
constexpr uint8_t nibble_as_packed(int nibble) {
  return uint8_t(kCode[(nibble >> 2) & 3] | kCode[nibble & 3] << 2);
}
inline uint8_t byte_as_packed(uint8_t b) { return uint8_t(nibble_as_packed(b >> 4) | nibble_as_packed(b & 15) << 4); }

// 32 bytes per step: the table read by a byte shuffle, once per nibble. Returns the bytes done.
__attribute__((target("avx2"))) uint64_t translate_packed_avx2(const unsigned char* src, uint64_t n, uint8_t* out) {
  alignas(16) uint8_t table[16];
  for (int x = 0; x < 16; ++x) table[x] = nibble_as_packed(x);
  const __m256i lut = _mm256_broadcastsi128_si256(_mm_load_si128(reinterpret_cast<const __m128i*>(table)));
  const __m256i nibble = _mm256_set1_epi8(0x0F);
  uint64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i));
    const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(v, 4), nibble), lo = _mm256_and_si256(v, nibble);
    // Table values are below 16: shifting the low nibble's 16-bit lanes by 4 keeps every byte in its own byte.
    const __m256i r = _mm256_or_si256(_mm256_shuffle_epi8(lut, hi), _mm256_slli_epi16(_mm256_shuffle_epi8(lut, lo), 4));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), r);
  }
  return i;
}

struct Block {
  uint32_t start, size;
};

}  // namespace

struct TwoBitReader::Impl {
  std::string path;
  std::FILE* f = nullptr;
  uint64_t file_size = 0;
  bool swapped = false;
  struct Entry {
    std::string name;
    uint64_t offset = 0;
    bool loaded = false;
    uint32_t dna_size = 0;
    std::vector<Block> n_blocks, mask_blocks;
    uint64_t dna_offset = 0;
  };
  std::vector<Entry> entries;

  // The whole file mapped read-only (null when mapping failed: records are then read with fread).
  const unsigned char* mapped = nullptr;
  int mapped_slot = -1;

  ~Impl() {
    if (f) std::fclose(f);
    if (mapped) {
      io_detail::unregister_mapping(mapped_slot);
      ::munmap(const_cast<unsigned char*>(mapped), size_t(file_size));
    }
  }

  bool populate = true;  // false: pages are read as records are decoded (a reader of a few records)

  void map_file() {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    // Populated up front: one pass of page-table set-up instead of a fault per page while decoding.
    void* m = ::mmap(nullptr, size_t(file_size), PROT_READ, MAP_PRIVATE | (populate ? MAP_POPULATE : 0), fd, 0);
    ::close(fd);
    if (m == MAP_FAILED) return;
    mapped_slot = io_detail::register_mapping(m, size_t(file_size), path);
    if (mapped_slot < 0) {
      ::munmap(m, size_t(file_size));
      return;
    }
    ::madvise(m, size_t(file_size), MADV_SEQUENTIAL);
    mapped = static_cast<const unsigned char*>(m);
  }

  // Packed bytes [first, first + n) of a record: in the mapping, or read into `buffer` when the file is not mapped.
  const unsigned char* packed_bytes(const Entry& e, uint64_t first, uint64_t n, std::string& buffer) {
    if (mapped) return mapped + e.dna_offset + first;
    buffer.resize(n);
    seek(e.dna_offset + first);
    read(buffer.data(), n, "packed bases");
    return reinterpret_cast<const unsigned char*>(buffer.data());
  }

  void codes(size_t i, uint8_t* out) {
    Entry& e = load(i);
    const uint64_t packed = (uint64_t(e.dna_size) + 3) / 4;
    std::string buffer;
    const unsigned char* src = packed_bytes(e, 0, packed, buffer);
    const uint64_t whole = e.dna_size / 4;
    // A long record's decoded pages of the mapping are dropped as the decoding moves on: they are not read again
    // (a later read faults them back in from the page cache), and a chromosome's packed bytes would otherwise stay
    // resident beside its codes.
    constexpr uint64_t kSlice = uint64_t(16) << 20;
    for (uint64_t from = 0; from < whole; from += kSlice) {
      const uint64_t to = std::min(whole, from + kSlice);
      decode_packed(src + from, to - from, out + from * 4);
      if (mapped && to < whole) {
        const uintptr_t lo = (reinterpret_cast<uintptr_t>(src + from) + 4095) & ~uintptr_t(4095);
        const uintptr_t hi = reinterpret_cast<uintptr_t>(src + to) & ~uintptr_t(4095);
        if (hi > lo) ::madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_DONTNEED);
      }
    }
    if (whole < packed) {
      uint8_t q[4];
      std::memcpy(q, &kCodes.quad[src[whole]], 4);
      std::memcpy(out + whole * 4, q, e.dna_size - whole * 4);
    }
    for (auto& b : e.n_blocks) std::memset(out + b.start, kInvalidBase, b.size);
  }

  void codes(size_t i, uint64_t from, uint64_t n, uint8_t* out) {
    Entry& e = load(i);
    if (from % 4 != 0 || from > e.dna_size || n > e.dna_size - from)
      throw std::logic_error("twobit: a range of codes outside the record, or not from a multiple of 4");
    const uint64_t first = from / 4, last = (from + n + 3) / 4;  // packed bytes holding [from, from + n)
    std::string buffer;
    const unsigned char* src = packed_bytes(e, first, last - first, buffer);
    const uint64_t whole = n / 4;
    decode_packed(src, whole, out);
    if (whole * 4 < n) {
      uint8_t q[4];
      std::memcpy(q, &kCodes.quad[src[whole]], 4);
      std::memcpy(out + whole * 4, q, n - whole * 4);
    }
    if (mapped) {  // decoded pages are not read again (see above)
      const uintptr_t lo = (reinterpret_cast<uintptr_t>(src) + 4095) & ~uintptr_t(4095);
      const uintptr_t hi = reinterpret_cast<uintptr_t>(src + whole) & ~uintptr_t(4095);
      if (hi > lo) ::madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_DONTNEED);
    }
    for (auto& b : e.n_blocks) {
      const uint64_t lo = std::max<uint64_t>(b.start, from), hi = std::min<uint64_t>(uint64_t(b.start) + b.size, from + n);
      if (lo < hi) std::memset(out + (lo - from), kInvalidBase, size_t(hi - lo));
    }
  }

  uint64_t packed(size_t i, uint64_t* words, uint64_t at) {
    Entry& e = load(i);
    const uint64_t n = e.dna_size, bytes = (n + 3) / 4;
    std::string buffer;
    const unsigned char* src = packed_bytes(e, 0, bytes, buffer);
    // The record's own bit stream first (base j at bits 2j), then written from bit 2 at on: whole words, shifted.
    thread_local std::vector<uint64_t> own;
    const uint64_t n_words = (2 * n + 63) / 64;
    own.resize(n_words + 1);
    own[n_words - 1] = own[n_words] = 0;  // the bytes past the record's last one
    auto* own_bytes = reinterpret_cast<uint8_t*>(own.data());
    uint64_t b = kHaveAvx2 ? translate_packed_avx2(src, bytes, own_bytes) : 0;
    for (; b < bytes; ++b) own_bytes[b] = byte_as_packed(src[b]);
    if ((2 * n) % 64) own[n_words - 1] &= (uint64_t(1) << ((2 * n) % 64)) - 1;  // the last byte's padding (T)
    const uint64_t w0 = at / 32, shift = 2 * (at % 32);
    if (shift == 0) {
      std::memcpy(words + w0, own.data(), n_words * 8);
      words[w0 + n_words] = 0;
      return w0 + n_words + 1;
    }
    words[w0] = (words[w0] & ((uint64_t(1) << shift) - 1)) | own[0] << shift;  // keeps the bases before `at`
    for (uint64_t k = 1; k <= n_words; ++k) words[w0 + k] = own[k] << shift | own[k - 1] >> (64 - shift);
    return w0 + n_words + 1;
  }

  std::vector<std::pair<uint64_t, uint64_t>> n_runs(size_t i) {
    Entry& e = load(i);
    std::vector<std::pair<uint64_t, uint64_t>> out;
    for (const Block& b : e.n_blocks)
      if (b.size > 0) out.emplace_back(b.start, uint64_t(b.start) + b.size);
    std::sort(out.begin(), out.end());
    return out;
  }

  [[noreturn]] void fail(const std::string& what) const { throw DataError(path + ": " + what); }
  [[noreturn]] void fail_record(size_t i, const std::string& what) const {
    fail("record " + std::to_string(i + 1) + " '" + entries[i].name + "': " + what);
  }

  void seek(uint64_t off) {
    if (fseeko(f, off_t(off), SEEK_SET) != 0) fail("cannot seek: " + io_detail::errno_text(errno));
  }
  void read(void* dst, size_t n, const char* what) {
    if (n && std::fread(dst, 1, n, f) != n) {
      if (std::ferror(f)) throw IoError(path + ": read error: " + io_detail::errno_text(errno));
      fail(std::string("truncated while reading ") + what);
    }
  }
  uint32_t u32(const char* what) {
    uint32_t v;
    read(&v, 4, what);
    return swapped ? bswap(v) : v;
  }
  uint64_t u64(const char* what) {
    uint64_t v;
    read(&v, 8, what);
    return swapped ? bswap(v) : v;
  }

  void open(const std::string& p) {
    path = p;
    struct stat st {};
    if (::stat(p.c_str(), &st) != 0) throw NoInputError(p + ": cannot open: " + io_detail::errno_text(errno));
    if (S_ISDIR(st.st_mode)) throw NoInputError(p + ": cannot open: is a directory");
    f = std::fopen(p.c_str(), "rb");
    if (!f) throw NoInputError(p + ": cannot open: " + io_detail::errno_text(errno));
    if (fseeko(f, 0, SEEK_END) != 0) fail("cannot seek (not a regular file?)");
    file_size = uint64_t(ftello(f));
    std::rewind(f);
    if (file_size < kHeaderBytes) fail("not a .2bit file (" + std::to_string(file_size) + " bytes)");
    map_file();
    uint32_t sig;
    read(&sig, 4, "the signature");
    if (sig == kSignatureSwapped) swapped = true;
    else if (sig != kSignature) fail("not a .2bit file (bad signature)");
    uint32_t version = u32("the version");
    if (version > 1) fail("unsupported .2bit version " + std::to_string(version));
    uint32_t count = u32("the sequence count");
    uint32_t reserved = u32("the header");
    if (reserved != 0) fail("corrupt header (reserved field is " + std::to_string(reserved) + ")");
    const uint64_t offset_bytes = version == 1 ? 8 : 4;
    // Each index entry takes at least 1 + offset bytes and each record at least 16: bound the count first.
    if (uint64_t(count) * (1 + offset_bytes + kRecordHeaderMin) > file_size - kHeaderBytes)
      fail("corrupt header: " + std::to_string(count) + " sequences cannot fit in " + std::to_string(file_size) +
           " bytes");
    entries.resize(count);
    std::unordered_set<std::string> seen;
    for (uint32_t i = 0; i < count; ++i) {
      unsigned char len;
      read(&len, 1, "the index");
      entries[i].name.resize(len);
      read(entries[i].name.data(), len, "the index");
      entries[i].offset = version == 1 ? u64("the index") : u32("the index");
      if (entries[i].offset < kHeaderBytes || entries[i].offset > file_size ||
          file_size - entries[i].offset < kRecordHeaderMin)
        fail_record(i, "offset " + std::to_string(entries[i].offset) + " is beyond the end of the file (" +
                           std::to_string(file_size) + " bytes)");
      if (!seen.insert(entries[i].name).second) fail_record(i, "duplicate sequence name");
    }
  }

  std::vector<Block> read_blocks(size_t i, uint32_t count, uint32_t dna_size, const char* kind) {
    const uint64_t pos = uint64_t(ftello(f));
    if (uint64_t(count) * 8 > file_size - pos)
      fail_record(i, std::to_string(count) + " " + kind + " blocks cannot fit in the file (corrupt)");
    std::vector<Block> blocks(count);
    for (auto& b : blocks) b.start = u32(kind);
    for (auto& b : blocks) b.size = u32(kind);
    for (size_t j = 0; j < blocks.size(); ++j)
      if (uint64_t(blocks[j].start) + blocks[j].size > dna_size)
        fail_record(i, std::string(kind) + " block " + std::to_string(j + 1) + " (" + std::to_string(blocks[j].start) +
                           "+" + std::to_string(blocks[j].size) + ") runs past the sequence length " +
                           std::to_string(dna_size));
    return blocks;
  }

  Entry& load(size_t i) {
    if (i >= entries.size()) throw UsageError(path + ": record index " + std::to_string(i) + " out of range");
    Entry& e = entries[i];
    if (e.loaded) return e;
    seek(e.offset);
    e.dna_size = u32("a sequence header");
    uint32_t n_count = u32("a sequence header");
    e.n_blocks = read_blocks(i, n_count, e.dna_size, "N");
    uint32_t m_count = u32("a sequence header");
    e.mask_blocks = read_blocks(i, m_count, e.dna_size, "mask");
    u32("a sequence header");  // reserved
    e.dna_offset = uint64_t(ftello(f));
    const uint64_t packed = (uint64_t(e.dna_size) + 3) / 4;
    if (packed > file_size - e.dna_offset)
      fail_record(i, "sequence of " + std::to_string(e.dna_size) + " bases runs past the end of the file (truncated?)");
    e.loaded = true;
    return e;
  }

  std::string sequence(size_t i) {
    Entry& e = load(i);
    std::string packed((uint64_t(e.dna_size) + 3) / 4, '\0');
    seek(e.dna_offset);
    read(packed.data(), packed.size(), "packed bases");
    std::string s(size_t(packed.size()) * 4, 'N');
    for (size_t b = 0; b < packed.size(); ++b)
      std::memcpy(&s[b * 4], kDecode.quad[static_cast<unsigned char>(packed[b])], 4);
    s.resize(e.dna_size);
    for (auto& b : e.n_blocks) std::memset(&s[b.start], 'N', b.size);
    for (auto& b : e.mask_blocks)
      for (uint32_t j = 0; j < b.size; ++j) s[b.start + j] = char(s[b.start + j] | 0x20);  // to lower case
    return s;
  }
};

TwoBitReader::TwoBitReader(const std::string& path, bool populate) : impl_(std::make_unique<Impl>()) {
  impl_->populate = populate;
  impl_->open(path);
}
TwoBitReader::~TwoBitReader() = default;
size_t TwoBitReader::size() const { return impl_->entries.size(); }
const std::string& TwoBitReader::name(size_t i) const { return impl_->entries.at(i).name; }
uint64_t TwoBitReader::length(size_t i) const { return impl_->load(i).dna_size; }
std::string TwoBitReader::sequence(size_t i) { return impl_->sequence(i); }
void TwoBitReader::codes(size_t i, uint8_t* out) { impl_->codes(i, out); }
void TwoBitReader::codes(size_t i, uint64_t from, uint64_t n, uint8_t* out) { impl_->codes(i, from, n, out); }
uint64_t TwoBitReader::packed(size_t i, uint64_t* words, uint64_t at) { return impl_->packed(i, words, at); }
std::vector<std::pair<uint64_t, uint64_t>> TwoBitReader::n_runs(size_t i) { return impl_->n_runs(i); }
SequenceRecord TwoBitReader::record(size_t i) {
  SequenceRecord r;
  r.seq = sequence(i);
  r.name = name(i);
  return r;
}

bool is_twobit_file(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  uint32_t sig = 0;
  bool ok = std::fread(&sig, 1, 4, f) == 4 && (sig == kSignature || sig == kSignatureSwapped);
  std::fclose(f);
  return ok;
}

namespace {

// Runs of positions where pred(char) holds.
template <class Pred>
std::vector<Block> runs(const std::string& s, Pred pred) {
  std::vector<Block> out;
  for (size_t i = 0; i < s.size();) {
    if (!pred(s[i])) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < s.size() && pred(s[j])) ++j;
    out.push_back({uint32_t(i), uint32_t(j - i)});
    i = j;
  }
  return out;
}

void put32(std::string& out, uint32_t v) { out.append(reinterpret_cast<const char*>(&v), 4); }

}  // namespace

void write_twobit(const std::string& path, const std::vector<SequenceRecord>& records, bool allow_lossy) {
  struct Prepared {
    std::vector<Block> n_blocks, mask_blocks;
    uint64_t bytes = 0;
  };
  std::vector<Prepared> prep(records.size());
  std::unordered_set<std::string> names;
  uint64_t index_bytes = 0;
  for (size_t i = 0; i < records.size(); ++i) {
    const auto& r = records[i];
    const std::string where = path + ": record " + std::to_string(i + 1) + " '" + r.name.substr(0, 64) + "'";
    if (r.name.empty() || r.name.size() > 255) throw DataError(where + ": .2bit names must be 1..255 bytes");
    if (!names.insert(r.name).second) throw DataError(where + ": duplicate name");
    if (r.seq.size() > 0xffffffffu) throw DataError(where + ": longer than 2^32-1 bases, the .2bit limit");
    if (!allow_lossy)
      for (size_t j = 0; j < r.seq.size(); ++j) {
        char c = r.seq[j];
        if (twobit_code(c) < 0 && c != 'N' && c != 'n')
          throw DataError(where + ": position " + std::to_string(j + 1) + " is '" + std::string(1, c) +
                          "', which .2bit can only store as N");
      }
    auto& p = prep[i];
    p.n_blocks = runs(r.seq, [](char c) { return twobit_code(c) < 0; });
    p.mask_blocks = runs(r.seq, [](char c) { return c >= 'a' && c <= 'z'; });
    p.bytes = kRecordHeaderMin + 8 * (p.n_blocks.size() + p.mask_blocks.size()) + (r.seq.size() + 3) / 4;
    index_bytes += 1 + r.name.size();
  }
  // Version 0 (32-bit offsets) unless the file would be larger than 4 GiB.
  uint64_t total = kHeaderBytes + index_bytes + 4 * records.size();
  for (auto& p : prep) total += p.bytes;
  const uint32_t version = total > 0xffffffffu ? 1 : 0;
  const uint64_t offset_bytes = version ? 8 : 4;

  OutputFile out(path);
  std::string buf;
  put32(buf, kSignature);
  put32(buf, version);
  put32(buf, uint32_t(records.size()));
  put32(buf, 0);
  uint64_t offset = kHeaderBytes + index_bytes + offset_bytes * records.size();
  for (size_t i = 0; i < records.size(); ++i) {
    buf += char(records[i].name.size());
    buf += records[i].name;
    if (version) buf.append(reinterpret_cast<const char*>(&offset), 8);
    else put32(buf, uint32_t(offset));
    offset += prep[i].bytes;
  }
  out.write(buf);
  for (size_t i = 0; i < records.size(); ++i) {
    const std::string& s = records[i].seq;
    const auto& p = prep[i];
    buf.clear();
    put32(buf, uint32_t(s.size()));
    for (const auto* blocks : {&p.n_blocks, &p.mask_blocks}) {
      put32(buf, uint32_t(blocks->size()));
      for (auto& b : *blocks) put32(buf, b.start);
      for (auto& b : *blocks) put32(buf, b.size);
    }
    put32(buf, 0);
    out.write(buf);
    // Bases four per byte, first in the high bits; N and other codes are stored as T (0), as UCSC does.
    std::string packed((s.size() + 3) / 4, '\0');
    for (size_t j = 0; j < s.size(); ++j) {
      int code = twobit_code(s[j]);
      packed[j / 4] = char(packed[j / 4] | ((code < 0 ? 0 : code) << (6 - 2 * (j % 4))));
    }
    out.write(packed);
  }
  out.commit();
}

}  // namespace bloomseq
