// The .bf container (layout in docs/file-formats.md). Every size read from a header is checked against the file
// size and against hard limits before anything is allocated, so a corrupt or hostile file costs at most the
// header bytes (capped at kMaxHeaderBytes) to reject.
#include "bloomseq/io/filter_file.hpp"

#include <sys/stat.h>
#include <zlib.h>
#ifdef BLOOMSEQ_HAVE_ISAL
#include <isa-l/crc.h>
#endif

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "bloomseq/error.hpp"
#include "bloomseq/hash/h3.hpp"
#include "bloomseq/io/output_file.hpp"
#include "io_common.hpp"
#include "read_only_mapping.hpp"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the .bf reader/writer assumes a little-endian host (payload words are stored as in memory)"
#endif

namespace bloomseq {

namespace {

constexpr char kMagic[8] = {'B', 'L', 'M', 'S', 'Q', 'B', 'F', '\0'};
constexpr uint64_t kFixedHeaderBytes = 48;
constexpr uint64_t kMinEntryBytes = 4 + 4 + 8 + 8 + 4 + 8 + 8 + 8;  // lengths of name/source + numbers
constexpr uint64_t kBinEntryBytes = 4 + 4 + 8 + 8 + 4 + 4;          // version 3: name/source, numbers, group, bin
constexpr uint64_t kGroupEntryBytes = 4 + 8 + 4 + 4 + 8 + 8;        // k, m, bins, words per row, offset, size
constexpr uint32_t kMaxGroupBins = 1u << 24;
constexpr uint64_t kRouterEntryBytes = 4 + 4 + 8 + 8 + 8;            // version 4: k, groups, blocks, offset, size
constexpr uint64_t kTrailerBytes = 8;
constexpr uint64_t kAlign = 64;
constexpr uint64_t kMaxHeaderBytes = uint64_t(64) << 20;  // names and command lines, never more
constexpr uint32_t kMaxStringBytes = 1u << 20;
constexpr uint32_t kFlagCanonical = 1;

uint64_t align_up(uint64_t x) { return (x + kAlign - 1) / kAlign * kAlign; }
uint64_t payload_bytes(uint64_t m_bits) { return bloom_words(m_bits) * 4; }
uint64_t group_payload_bytes(uint64_t m_bits, uint32_t bins) { return m_bits * interleaved_row_words(bins) * 8; }

// Little-endian serialisation into a byte string.
struct Writer {
  std::string bytes;
  template <class T>
  void num(T v) {
    char b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));
    bytes.append(b, sizeof(T));
  }
  void str(const std::string& s) {
    num<uint32_t>(uint32_t(s.size()));
    bytes += s;
  }
};

// Bounds-checked reading from the header bytes; every failure is a DataError naming file and field.
struct Cursor {
  const std::string& file;
  const std::string& bytes;
  size_t pos = 0;
  std::string where;  // "filter 3" while reading an entry

  [[noreturn]] void fail(const std::string& what) const {
    throw DataError(file + ": " + (where.empty() ? "" : where + ": ") + what);
  }
  template <class T>
  T num(const char* field) {
    if (bytes.size() - pos < sizeof(T)) fail(std::string("header ends inside ") + field + " (truncated or corrupt)");
    T v;
    std::memcpy(&v, bytes.data() + pos, sizeof(T));
    pos += sizeof(T);
    return v;
  }
  std::string str(const char* field) {
    uint32_t n = num<uint32_t>(field);
    if (n > kMaxStringBytes || n > bytes.size() - pos)
      fail(std::string(field) + " claims " + std::to_string(n) + " bytes, more than the header holds (corrupt)");
    std::string s = bytes.substr(pos, n);
    pos += n;
    return s;
  }
};

class InputFile {
 public:
  explicit InputFile(const std::string& path) : name_(path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) throw NoInputError(path + ": cannot open: " + io_detail::errno_text(errno));
    if (S_ISDIR(st.st_mode)) throw NoInputError(path + ": cannot open: is a directory");
    f_ = std::fopen(path.c_str(), "rb");
    if (!f_) throw NoInputError(path + ": cannot open: " + io_detail::errno_text(errno));
    if (std::fseek(f_, 0, SEEK_END) != 0) fail("cannot seek (not a regular file?)");
    long sz = std::ftell(f_);
    if (sz < 0) fail("cannot determine the file size");
    size_ = uint64_t(sz);
    std::rewind(f_);
  }
  ~InputFile() {
    if (f_) std::fclose(f_);
  }
  uint64_t size() const { return size_; }
  void seek(uint64_t off) {
    if (std::fseek(f_, long(off), SEEK_SET) != 0) fail("cannot seek");
  }
  void read(void* dst, size_t n) {
    if (n && std::fread(dst, 1, n, f_) != n) {
      if (std::ferror(f_)) fail("read error: " + io_detail::errno_text(errno));
      fail("truncated (unexpected end of file)");
    }
  }
  [[noreturn]] void fail(const std::string& what) const { throw DataError(name_ + ": " + what); }

 private:
  std::string name_;
  std::FILE* f_ = nullptr;
  uint64_t size_ = 0;
};

struct ParsedHeader {
  FilterSet set;
  std::vector<uint64_t> offsets;        // per filter (versions 1, 2) or per group (version 3)
  std::vector<uint64_t> router_offsets;  // per router (version 4)
  uint64_t header_bytes = 0;
  uint64_t file_bytes = 0;
  uint32_t header_crc = 0, file_crc = 0;
};

// zlib's CRC-32 (the format's); ISA-L computes the same one about 4x faster where it is built in (a mapped set's
// verification reads every byte before the first read is classified).
uint32_t crc_of(uint32_t crc, const void* p, size_t n) {
#ifdef BLOOMSEQ_HAVE_ISAL
  return crc32_gzip_refl(crc, static_cast<const unsigned char*>(p), uint64_t(n));
#else
  const auto* b = static_cast<const Bytef*>(p);
  while (n > 0) {  // zlib's crc32 takes uInt lengths
    uInt chunk = n > (1u << 30) ? (1u << 30) : uInt(n);
    crc = uint32_t(::crc32(crc, b, chunk));
    b += chunk;
    n -= chunk;
  }
  return crc;
#endif
}

// Version 3: the groups (k, m, bins, payload), then one entry per filter naming its group and bin; every bin of
// every group belongs to exactly one filter.
void parse_interleaved(Cursor& c, ParsedHeader& h, uint32_t version, uint32_t count, uint64_t& next_free,
                       uint64_t payload_end) {
  const uint32_t groups = c.num<uint32_t>("group count");
  if (groups == 0 || uint64_t(groups) * kGroupEntryBytes > h.header_bytes)
    c.fail("corrupt: " + std::to_string(groups) + " interleaved groups");
  uint64_t total_bins = 0;
  for (uint32_t g = 0; g < groups; ++g) {
    c.where = "group " + std::to_string(g + 1);
    InterleavedGroup grp;
    const uint32_t k = c.num<uint32_t>("k");
    grp.m_bits = c.num<uint64_t>("m");
    grp.bins = c.num<uint32_t>("bins");
    const uint32_t words = c.num<uint32_t>("words per row");
    const uint64_t offset = c.num<uint64_t>("payload offset");
    const uint64_t bytes = c.num<uint64_t>("payload size");
    if (k < 1 || k > uint32_t(kMaxHashes))
      c.fail("k = " + std::to_string(k) + " (must be 1.." + std::to_string(kMaxHashes) + ")");
    grp.k = int(k);
    if (grp.m_bits < 1 || grp.m_bits > kMaxBloomBits)
      c.fail("m = " + std::to_string(grp.m_bits) + " bits is out of range (1..2^32)");
    if (grp.bins < 1 || grp.bins > kMaxGroupBins || words != interleaved_row_words(grp.bins))
      c.fail(std::to_string(grp.bins) + " bins in rows of " + std::to_string(words) + " words (corrupt)");
    if (bytes != group_payload_bytes(grp.m_bits, grp.bins))
      c.fail("payload size " + std::to_string(bytes) + " does not match m = " + std::to_string(grp.m_bits) +
             " and " + std::to_string(grp.bins) + " bins");
    if (offset % kAlign != 0 || offset < next_free || offset > payload_end || bytes > payload_end - offset)
      c.fail("payload at " + std::to_string(offset) + " (+" + std::to_string(bytes) +
             " bytes) lies outside the file's payload area");
    next_free = offset + bytes;
    total_bins += grp.bins;
    grp.members.assign(grp.bins, UINT32_MAX);
    h.offsets.push_back(offset);
    h.set.groups.push_back(std::move(grp));
  }
  // Version 4: the routers (at most one, over all of the file's groups), their payloads after the groups'.
  const uint32_t routers = version >= 4 ? c.num<uint32_t>("router count") : 0;
  if (routers > 1) c.fail("corrupt: " + std::to_string(routers) + " group routers (at most one)");
  for (uint32_t r = 0; r < routers; ++r) {
    c.where = "group router";
    GroupRouter gr;
    const uint32_t k = c.num<uint32_t>("k");
    gr.groups = c.num<uint32_t>("groups");
    const uint64_t blocks = c.num<uint64_t>("blocks");
    const uint64_t offset = c.num<uint64_t>("payload offset");
    const uint64_t bytes = c.num<uint64_t>("payload size");
    if (k < 1 || k >= uint32_t(kMaxHashes))
      c.fail("k = " + std::to_string(k) + " (must be 1.." + std::to_string(kMaxHashes - 1) + ")");
    gr.k = int(k);
    if (gr.groups != groups || gr.groups > kRouterMaxGroups)
      c.fail(std::to_string(gr.groups) + " groups for a set of " + std::to_string(groups) + " (corrupt)");
    if (blocks < 1 || blocks > kMaxBloomBits) c.fail(std::to_string(blocks) + " blocks is out of range (1..2^32)");
    if (bytes != blocks * kRouterBlockWords * 8)
      c.fail("payload size " + std::to_string(bytes) + " does not match " + std::to_string(blocks) + " blocks");
    if (offset % kAlign != 0 || offset < next_free || offset > payload_end || bytes > payload_end - offset)
      c.fail("payload at " + std::to_string(offset) + " (+" + std::to_string(bytes) +
             " bytes) lies outside the file's payload area");
    next_free = offset + bytes;
    h.router_offsets.push_back(offset);
    gr.n_blocks = blocks;
    h.set.routers.push_back(std::move(gr));
  }
  c.where.clear();
  if (total_bins != count)
    c.fail("corrupt: " + std::to_string(count) + " filters for " + std::to_string(total_bins) + " interleaved bins");
  for (uint32_t i = 0; i < count; ++i) {
    c.where = "filter " + std::to_string(i + 1);
    FilterEntry e;
    e.name = c.str("name");
    e.source = c.str("source");
    if (!e.name.empty()) c.where += " '" + e.name + "'";
    e.source_length = c.num<uint64_t>("source length");
    e.elements = c.num<uint64_t>("element count");
    const uint32_t g = c.num<uint32_t>("group");
    e.bin = c.num<uint32_t>("bin");
    if (g >= groups || e.bin >= h.set.groups[g].bins)
      c.fail("group " + std::to_string(g + 1) + " bin " + std::to_string(e.bin) + " does not exist");
    InterleavedGroup& grp = h.set.groups[g];
    if (grp.members[e.bin] != UINT32_MAX) c.fail("shares its bin with another filter (corrupt)");
    grp.members[e.bin] = i;
    e.group = int32_t(g);
    e.k = grp.k;
    e.m_bits = grp.m_bits;
    h.set.filters.push_back(std::move(e));
  }
}

ParsedHeader parse_header(InputFile& in, const std::string& path) {
  const uint64_t size = in.size();
  char magic[8] = {};
  if (size < sizeof magic) in.fail("not a bloomseq filter file (only " + std::to_string(size) + " bytes)");
  in.read(magic, sizeof magic);
  if (std::memcmp(magic, kMagic, sizeof magic) != 0) in.fail("not a bloomseq filter file (wrong magic)");
  if (size < kFixedHeaderBytes + kTrailerBytes) in.fail("truncated (" + std::to_string(size) + " bytes)");
  std::string fixed(kFixedHeaderBytes - 8, '\0');
  in.read(fixed.data(), fixed.size());
  std::string all = std::string(magic, 8) + fixed;
  Cursor c{path, all, 8, {}};
  ParsedHeader h;
  uint32_t version = c.num<uint32_t>("version");
  if (version > kFilterFormatVersion)
    in.fail("format version " + std::to_string(version) + " is newer than this program reads (" +
            std::to_string(kFilterFormatVersion) + "); use a newer bloomseq");
  if (version == 0) in.fail("unknown format version 0 (corrupt)");
  h.header_bytes = c.num<uint32_t>("header size");
  h.file_bytes = c.num<uint64_t>("file size");
  h.set.seed = c.num<uint64_t>("seed");
  uint32_t w = c.num<uint32_t>("w");
  uint32_t flags = c.num<uint32_t>("flags");
  uint32_t count = c.num<uint32_t>("filter count");
  // The trailer (the last 8 bytes) is read before the rest so that truncation is reported as such.
  if (h.file_bytes != size) {
    if (size < h.file_bytes)
      in.fail("truncated: the header says " + std::to_string(h.file_bytes) + " bytes, the file has " +
              std::to_string(size));
    in.fail("corrupt: the header says " + std::to_string(h.file_bytes) + " bytes, the file has " +
            std::to_string(size) + " (trailing data?)");
  }
  if (h.header_bytes < kFixedHeaderBytes || h.header_bytes > kMaxHeaderBytes ||
      h.header_bytes + kTrailerBytes > size || h.header_bytes % kAlign != 0)
    in.fail("corrupt: header size " + std::to_string(h.header_bytes) + " is impossible for a file of " +
            std::to_string(size) + " bytes");
  all.resize(h.header_bytes);
  in.read(all.data() + kFixedHeaderBytes, h.header_bytes - kFixedHeaderBytes);
  char trailer[kTrailerBytes];
  in.seek(size - kTrailerBytes);
  in.read(trailer, sizeof trailer);
  std::memcpy(&h.header_crc, trailer, 4);
  std::memcpy(&h.file_crc, trailer + 4, 4);
  if (crc_of(0, all.data(), all.size()) != h.header_crc)
    in.fail("corrupt: header checksum mismatch (damaged file)");
  if (w < 1 || w > 32) in.fail("corrupt: w = " + std::to_string(w) + " (must be 1..32)");
  if (flags & ~kFlagCanonical) in.fail("corrupt: unknown flags 0x" + std::to_string(flags));
  if (count == 0) in.fail("holds no filters");
  if (uint64_t(count) * (version >= 3 ? kBinEntryBytes : kMinEntryBytes) > h.header_bytes - kFixedHeaderBytes)
    in.fail("corrupt: header claims " + std::to_string(count) + " filters, more than its " +
            std::to_string(h.header_bytes) + " bytes can describe");
  h.set.w = int(w);
  h.set.format_version = version;
  h.set.canonical = flags & kFlagCanonical;


  h.set.command_line = c.str("command line");
  uint64_t next_free = h.header_bytes;
  const uint64_t payload_end = size - kTrailerBytes;
  if (version >= 3) {
    parse_interleaved(c, h, version, count, next_free, payload_end);
    return h;
  }
  for (uint32_t i = 0; i < count; ++i) {
    c.where = "filter " + std::to_string(i + 1);
    FilterEntry e;
    e.name = c.str("name");
    e.source = c.str("source");
    if (!e.name.empty()) c.where += " '" + e.name + "'";
    e.source_length = c.num<uint64_t>("source length");
    e.elements = c.num<uint64_t>("element count");
    uint32_t k = c.num<uint32_t>("k");
    uint32_t layout = version >= 2 ? c.num<uint32_t>("layout") : 0;
    if (layout > uint32_t(BloomLayout::blocked512)) c.fail("unknown layout " + std::to_string(layout));
    e.layout = BloomLayout(layout);
    if (e.layout == BloomLayout::blocked512 && k >= uint32_t(kMaxHashes))
      c.fail("k = " + std::to_string(k) + " (a blocked filter allows 1.." + std::to_string(kMaxHashes - 1) + ")");
    e.m_bits = c.num<uint64_t>("m");
    uint64_t offset = c.num<uint64_t>("payload offset");
    uint64_t bytes = c.num<uint64_t>("payload size");
    if (k < 1 || k > uint32_t(kMaxHashes))
      c.fail("k = " + std::to_string(k) + " (must be 1.." + std::to_string(kMaxHashes) + ")");
    e.k = int(k);
    const bool blocked = e.layout == BloomLayout::blocked512;
    if (e.m_bits < 1 || e.m_bits > (blocked ? kMaxBlockedBloomBits : kMaxBloomBits))
      c.fail("m = " + std::to_string(e.m_bits) + " bits is out of range (1.." + (blocked ? "2^41" : "2^32") +
             " for the " + layout_name(e.layout) + " layout)");
    if (e.layout == BloomLayout::blocked512 && e.m_bits % kBloomBlockBits != 0)
      c.fail("m = " + std::to_string(e.m_bits) + " bits is not a whole number of 512-bit blocks");
    if (bytes != payload_bytes(e.m_bits))
      c.fail("payload size " + std::to_string(bytes) + " does not match m = " + std::to_string(e.m_bits));
    if (offset % kAlign != 0 || offset < next_free || offset > payload_end || bytes > payload_end - offset)
      c.fail("payload at " + std::to_string(offset) + " (+" + std::to_string(bytes) +
             " bytes) lies outside the file's payload area");
    next_free = offset + bytes;
    h.offsets.push_back(offset);
    h.set.filters.push_back(std::move(e));
  }
  return h;
}

}  // namespace

FilterSet read_filter_header(const std::string& path) {
  InputFile in(path);
  return parse_header(in, path).set;
}

namespace {

// Bits past the last bin of a row must be clear (a bin's popcount relies on it; the classifier ignores them).
void check_spare_bits(const InterleavedGroup& grp, size_t g, const InputFile& in) {
  if (grp.bins % 64 == 0) return;
  const uint32_t wpr = grp.ibf.words_per_row();
  const uint64_t spare = ~uint64_t(0) << (grp.bins % 64);
  const uint64_t* rows = grp.ibf.row_data();
  for (uint64_t r = 0; r < grp.m_bits; ++r)
    if (rows[r * wpr + wpr - 1] & spare)
      in.fail("corrupt: interleaved group " + std::to_string(g + 1) + " has bits set beyond its bins");
}

// Bits beyond m in the last word must be clear (popcount and equality rely on it).
void check_last_word(const FilterEntry& e, size_t i, const InputFile& in) {
  if (e.m_bits % 32 && (e.bits.data()[e.bits.word_count() - 1] >> (e.m_bits % 32)) != 0)
    in.fail("corrupt: filter " + std::to_string(i + 1) + " has bits set beyond m");
}

// Checksum over header and payload, read in file order; the payload bytes land directly in the vectors.
FilterSet copy_payloads(InputFile& in, ParsedHeader& h) {
  in.seek(0);
  std::string buf(h.header_bytes, '\0');
  in.read(buf.data(), buf.size());
  uint32_t crc = crc_of(0, buf.data(), buf.size());
  uint64_t at = h.header_bytes;
  std::vector<char> gap;
  auto skip_to = [&](uint64_t target) {
    gap.resize(target - at);
    in.read(gap.data(), gap.size());
    crc = crc_of(crc, gap.data(), gap.size());
    at = target;
  };
  for (size_t g = 0; g < h.set.groups.size(); ++g) {
    InterleavedGroup& grp = h.set.groups[g];
    skip_to(h.offsets[g]);
    grp.ibf = InterleavedBloom::for_loading(grp.bins, grp.m_bits);
    const uint64_t bytes = grp.ibf.size_bytes();
    in.read(grp.ibf.data(), bytes);
    crc = crc_of(crc, grp.ibf.row_data(), bytes);
    at += bytes;
    check_spare_bits(grp, g, in);
  }
  for (size_t r = 0; r < h.set.routers.size(); ++r) {
    GroupRouter& gr = h.set.routers[r];
    skip_to(h.router_offsets[r]);
    gr.blocks = InterleavedBloom::for_loading(512, gr.n_blocks);
    const uint64_t bytes = gr.blocks.size_bytes();
    in.read(gr.blocks.data(), bytes);
    crc = crc_of(crc, gr.blocks.row_data(), bytes);
    at += bytes;
  }
  for (size_t i = 0; i < h.set.filters.size() && !h.set.interleaved(); ++i) {
    FilterEntry& e = h.set.filters[i];
    skip_to(h.offsets[i]);
    e.bits = BloomVector(e.m_bits);
    auto& words = e.bits.words();
    in.read(words.data(), words.size() * 4);
    crc = crc_of(crc, words.data(), words.size() * 4);
    at += words.size() * 4;
    check_last_word(e, i, in);
  }
  skip_to(h.file_bytes - kTrailerBytes);
  if (crc != h.file_crc) in.fail("corrupt: checksum mismatch (damaged file)");
  h.set.checksum_verified = true;
  return std::move(h.set);
}

// The payloads stay in the mapping: filters borrow their words from it. The header is checked again as mapped
// (the file could have been replaced since it was parsed); the whole-file checksum only if `verify`, since it
// reads every page.
FilterSet map_payloads(const InputFile& in, ParsedHeader& h, std::shared_ptr<const io_detail::ReadOnlyMapping> map,
                       bool verify) {
  const char* base = map->data();
  if (crc_of(0, base, h.header_bytes) != h.header_crc) in.fail("corrupt: header checksum mismatch (file replaced?)");
  for (size_t g = 0; g < h.set.groups.size(); ++g) {
    InterleavedGroup& grp = h.set.groups[g];
    grp.ibf = InterleavedBloom::borrowed(grp.bins, grp.m_bits, reinterpret_cast<const uint64_t*>(base + h.offsets[g]),
                                         map);
  }
  for (size_t r = 0; r < h.set.routers.size(); ++r) {
    GroupRouter& gr = h.set.routers[r];
    gr.blocks = InterleavedBloom::borrowed(512, gr.n_blocks,
                                           reinterpret_cast<const uint64_t*>(base + h.router_offsets[r]), map);
  }
  for (size_t i = 0; i < h.set.filters.size() && !h.set.interleaved(); ++i) {
    FilterEntry& e = h.set.filters[i];
    e.bits = BloomVector::borrowed(reinterpret_cast<const uint32_t*>(base + h.offsets[i]), e.m_bits, map);
    check_last_word(e, i, in);
  }
  if (verify) {
    if (crc_of(0, base, h.file_bytes - kTrailerBytes) != h.file_crc)
      in.fail("corrupt: checksum mismatch (damaged file)");
    for (size_t g = 0; g < h.set.groups.size(); ++g) check_spare_bits(h.set.groups[g], g, in);
  }
  h.set.checksum_verified = verify;
  h.set.mapped = true;
  return std::move(h.set);
}

}  // namespace

FilterSet read_filter_file(const std::string& path, const FilterLoading& how) {
  InputFile in(path);
  ParsedHeader h = parse_header(in, path);
  if (how.mode == FilterLoadMode::map) {
    if (auto map = io_detail::ReadOnlyMapping::open(path, h.file_bytes))
      return map_payloads(in, h, std::move(map), h.file_bytes <= how.verify_up_to);
  }
  return copy_payloads(in, h);
}

namespace {

// Header fields common to every version, with the header and file sizes left for patch_sizes().
Writer begin_header(const FilterSet& set, uint32_t version) {
  Writer w;
  w.bytes.append(kMagic, sizeof kMagic);
  w.num<uint32_t>(version);
  w.num<uint32_t>(0);  // header size, patched below
  w.num<uint64_t>(0);  // file size, patched below
  w.num<uint64_t>(set.seed);
  w.num<uint32_t>(uint32_t(set.w));
  w.num<uint32_t>(set.canonical ? kFlagCanonical : 0);
  w.num<uint32_t>(uint32_t(set.filters.size()));
  w.str(set.command_line);
  return w;
}

void patch_sizes(Writer& w, uint64_t header, uint64_t file_bytes) {
  w.bytes.resize(header, '\0');
  const uint32_t hb = uint32_t(header);
  std::memcpy(&w.bytes[12], &hb, 4);
  std::memcpy(&w.bytes[16], &file_bytes, 8);
}

// Header, then each payload (64-byte aligned, in slices so that progress can be shown), then the trailer.
void write_container(const std::string& path, Writer& w, uint64_t header,
                     const std::vector<std::string_view>& payloads, uint64_t file_bytes,
                     const std::function<void(uint64_t, uint64_t)>& written) {
  OutputFile out(path);
  const uint32_t header_crc = crc_of(0, w.bytes.data(), w.bytes.size());
  uint32_t crc = header_crc;
  out.write(w.bytes);
  uint64_t at = header;
  const std::string zeros(kAlign, '\0');
  for (const std::string_view payload : payloads) {
    constexpr size_t kSlice = size_t(32) << 20;
    for (size_t from = 0; from < payload.size(); from += kSlice) {
      const std::string_view slice = payload.substr(from, kSlice);
      out.write(slice);
      crc = crc_of(crc, slice.data(), slice.size());
      if (written) written(at + from + slice.size(), file_bytes);
    }
    at += payload.size();
    uint64_t pad = align_up(at) - at;
    out.write(std::string_view(zeros.data(), pad));
    crc = crc_of(crc, zeros.data(), pad);
    at += pad;
  }
  char trailer[kTrailerBytes];
  std::memcpy(trailer, &header_crc, 4);
  std::memcpy(trailer + 4, &crc, 4);
  out.write(std::string_view(trailer, sizeof trailer));
  out.commit();
}

// Version 3: groups, then the filters' entries (group and bin), then the groups' rows.
void write_interleaved(const std::string& path, const FilterSet& set,
                       const std::function<void(uint64_t, uint64_t)>& written) {
  const size_t nf = set.filters.size();
  std::vector<uint8_t> seen(nf, 0);
  for (size_t g = 0; g < set.groups.size(); ++g) {
    const InterleavedGroup& grp = set.groups[g];
    const std::string what = "filter file: interleaved group " + std::to_string(g + 1);
    if (grp.k < 1 || grp.k > kMaxHashes) throw UsageError(what + ": k = " + std::to_string(grp.k));
    if (grp.bins < 1 || grp.bins > kMaxGroupBins || grp.members.size() != grp.bins || grp.ibf.bins() != grp.bins ||
        grp.ibf.m_bits() != grp.m_bits || grp.m_bits < 1 || grp.m_bits > kMaxBloomBits)
      throw UsageError(what + ": its bins, members and rows disagree");
    for (uint32_t b = 0; b < grp.bins; ++b) {
      const uint32_t j = grp.members[b];
      if (j >= nf || seen[j] || set.filters[j].group != int32_t(g) || set.filters[j].bin != b)
        throw UsageError(what + ": bin " + std::to_string(b) + " does not name its filter");
      seen[j] = 1;
    }
  }
  for (size_t j = 0; j < nf; ++j)
    if (!seen[j]) throw UsageError("filter file: filter '" + set.filters[j].name + "' is in no interleaved group");
  if (set.routers.size() > 1) throw UsageError("filter file: an interleaved set has at most one group router");
  for (const GroupRouter& gr : set.routers)
    if (gr.k < 1 || gr.k >= kMaxHashes || gr.first_group != 0 || gr.groups != set.groups.size() ||
        gr.groups > kRouterMaxGroups || gr.n_blocks < 1 || gr.n_blocks > kMaxBloomBits ||
        gr.blocks.bins() != 512 || gr.blocks.m_bits() != gr.n_blocks)
      throw UsageError("filter file: the group router does not cover the set's groups");
  const bool routed = !set.routers.empty();
  Writer w = begin_header(set, routed ? 4 : 3);  // version 3 readers keep reading sets without a router
  w.num<uint32_t>(uint32_t(set.groups.size()));
  uint64_t header = w.bytes.size() + set.groups.size() * kGroupEntryBytes +
                    (routed ? 4 + set.routers.size() * kRouterEntryBytes : 0);
  for (const FilterEntry& e : set.filters) {
    if (e.name.size() > kMaxStringBytes || e.source.size() > kMaxStringBytes)
      throw UsageError("filter file: name or source of '" + e.name.substr(0, 64) + "' too long");
    header += e.name.size() + e.source.size() + kBinEntryBytes;
  }
  header = align_up(header);
  if (header > kMaxHeaderBytes) throw UsageError("filter file: too many filters or names too long");
  uint64_t offset = header;
  std::vector<std::string_view> payloads;
  for (const InterleavedGroup& grp : set.groups) {
    const uint64_t bytes = group_payload_bytes(grp.m_bits, grp.bins);
    w.num<uint32_t>(uint32_t(grp.k));
    w.num<uint64_t>(grp.m_bits);
    w.num<uint32_t>(grp.bins);
    w.num<uint32_t>(interleaved_row_words(grp.bins));
    w.num<uint64_t>(offset);
    w.num<uint64_t>(bytes);
    payloads.emplace_back(reinterpret_cast<const char*>(grp.ibf.row_data()), bytes);
    offset = align_up(offset + bytes);
  }
  if (routed) {
    w.num<uint32_t>(uint32_t(set.routers.size()));
    for (const GroupRouter& gr : set.routers) {
      const uint64_t bytes = gr.blocks.size_bytes();
      w.num<uint32_t>(uint32_t(gr.k));
      w.num<uint32_t>(gr.groups);
      w.num<uint64_t>(gr.n_blocks);
      w.num<uint64_t>(offset);
      w.num<uint64_t>(bytes);
      payloads.emplace_back(reinterpret_cast<const char*>(gr.blocks.row_data()), bytes);
      offset = align_up(offset + bytes);
    }
  }
  for (const FilterEntry& e : set.filters) {
    w.str(e.name);
    w.str(e.source);
    w.num<uint64_t>(e.source_length);
    w.num<uint64_t>(e.elements);
    w.num<uint32_t>(uint32_t(e.group));
    w.num<uint32_t>(e.bin);
  }
  const uint64_t file_bytes = offset + kTrailerBytes;
  patch_sizes(w, header, file_bytes);
  write_container(path, w, header, payloads, file_bytes, written);
}

}  // namespace

void write_filter_file(const std::string& path, const FilterSet& set,
                       const std::function<void(uint64_t, uint64_t)>& written) {
  if (set.w < 1 || set.w > 32) throw UsageError("filter file: w = " + std::to_string(set.w) + " (must be 1..32)");
  if (set.filters.empty()) throw UsageError("filter file " + path + ": no filters to write");
  if (set.command_line.size() > kMaxStringBytes) throw UsageError("filter file: command line too long");
  if (set.interleaved()) {
    write_interleaved(path, set, written);
    return;
  }
  // Version 1 unless some filter needs the layout field, so that all-classic files stay readable by old readers.
  bool any_blocked = false;
  for (auto& e : set.filters) any_blocked |= e.layout != BloomLayout::classic;
  const uint32_t version = any_blocked ? 2 : 1;
  const uint64_t entry_extra = version >= 2 ? 4 : 0;
  Writer w = begin_header(set, version);
  // Entries have a fixed size once the strings are known, so offsets can be laid out first.
  uint64_t header = w.bytes.size();
  for (auto& e : set.filters) {
    if (e.name.size() > kMaxStringBytes || e.source.size() > kMaxStringBytes)
      throw UsageError("filter file: name or source of '" + e.name.substr(0, 64) + "' too long");
    if (e.bits.m_bits() > (e.layout == BloomLayout::classic ? kMaxBloomBits : kMaxBlockedBloomBits))
      throw UsageError("filter file: '" + e.name.substr(0, 64) + "' has more bits than its layout addresses");
    header += 8 + e.name.size() + e.source.size() + kMinEntryBytes - 8 + entry_extra;
  }
  header = align_up(header);
  if (header > kMaxHeaderBytes) throw UsageError("filter file: too many filters or names too long");
  uint64_t offset = header;
  std::vector<uint64_t> offsets;
  for (auto& e : set.filters) {
    if (e.k < 1 || e.k > kMaxHashes) throw UsageError("filter '" + e.name + "': k = " + std::to_string(e.k));
    if (e.bits.m_bits() < 1) throw UsageError("filter '" + e.name + "': empty Bloom vector");
    if (e.layout == BloomLayout::blocked512 && (e.bits.m_bits() % kBloomBlockBits != 0 || e.k >= kMaxHashes))
      throw UsageError("filter '" + e.name + "': a blocked filter needs whole 512-bit blocks and k < " +
                       std::to_string(kMaxHashes));
    offsets.push_back(offset);
    offset = align_up(offset + payload_bytes(e.bits.m_bits()));
  }
  const uint64_t file_bytes = offset + kTrailerBytes;
  for (size_t i = 0; i < set.filters.size(); ++i) {
    const auto& e = set.filters[i];
    w.str(e.name);
    w.str(e.source);
    w.num<uint64_t>(e.source_length);
    w.num<uint64_t>(e.elements);
    w.num<uint32_t>(uint32_t(e.k));
    if (version >= 2) w.num<uint32_t>(uint32_t(e.layout));
    w.num<uint64_t>(e.bits.m_bits());
    w.num<uint64_t>(offsets[i]);
    w.num<uint64_t>(payload_bytes(e.bits.m_bits()));
  }
  patch_sizes(w, header, file_bytes);
  std::vector<std::string_view> payloads;
  for (const FilterEntry& e : set.filters)
    payloads.emplace_back(reinterpret_cast<const char*>(e.bits.data()), e.bits.word_count() * 4);
  write_container(path, w, header, payloads, file_bytes, written);
}

bool is_filter_file(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  char magic[8] = {};
  bool ok = std::fread(magic, 1, 8, f) == 8 && std::memcmp(magic, kMagic, 8) == 0;
  std::fclose(f);
  return ok;
}

}  // namespace bloomseq
