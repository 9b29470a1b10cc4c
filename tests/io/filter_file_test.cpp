// .bf container: round trip, layout checked against the documented byte offsets, and every rejection path on
// files corrupted here (fields patched with the checksums recomputed, so each semantic check is reached).
#include <zlib.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <vector>

#include "bloomseq/error.hpp"
#include "bloomseq/hash/h3.hpp"
#include "bloomseq/io/filter_file.hpp"
#include "io_test_util.hpp"

using namespace bloomseq;
using bloomseq_test::read_bytes;
using bloomseq_test::TempDir;
using bloomseq_test::write_bytes;

namespace {

FilterSet sample_set(std::mt19937_64& rng) {
  FilterSet set;
  set.w = 21;
  set.seed = 0x0123456789abcdefULL;
  set.canonical = true;
  set.command_line = "facs build -k 21 -o x.bf lambda.fa ecoli.fa";
  for (uint64_t m : {uint64_t(1), uint64_t(33), uint64_t(1000), uint64_t(1) << 16, uint64_t(100003)}) {
    FilterEntry e;
    e.name = "filter_m" + std::to_string(m);
    e.source = "data/source_" + std::to_string(m) + ".fa";
    e.source_length = m * 3 + 7;
    e.elements = m / 2;
    e.k = int(1 + rng() % 12);
    e.bits = BloomVector(m);
    for (uint64_t i = 0; i < m; ++i)
      if (rng() % 3 == 0) e.bits.words()[i / 32] |= 1u << (i % 32);
    set.filters.push_back(std::move(e));
  }
  return set;
}

template <class T>
T get(const std::string& b, size_t off) {
  T v;
  std::memcpy(&v, b.data() + off, sizeof v);
  return v;
}
template <class T>
void put(std::string& b, size_t off, T v) {
  std::memcpy(&b[off], &v, sizeof v);
}

// Recomputes both trailer checksums as documented: crc32 of the header, crc32 of everything before the trailer.
void fix_checksums(std::string& b) {
  uint32_t header = get<uint32_t>(b, 12);
  uint32_t hc = uint32_t(crc32(0, reinterpret_cast<const Bytef*>(b.data()), header));
  uint32_t fc = uint32_t(crc32(0, reinterpret_cast<const Bytef*>(b.data()), uInt(b.size() - 8)));
  put(b, b.size() - 8, hc);
  put(b, b.size() - 4, fc);
}

// Byte offset of filter i's entry (documented layout: 48-byte fixed header, command line, then entries).
size_t entry_offset(const std::string& b, int i) {
  size_t off = 48 + get<uint32_t>(b, 44);
  for (int j = 0; j < i; ++j) {
    off += 4 + get<uint32_t>(b, off);
    off += 4 + get<uint32_t>(b, off);
    off += 44;
  }
  return off;
}
// Offset of a numeric field in entry i: after name and source come source length (0), elements (8), k (16),
// m (20), payload offset (28), payload size (36).
size_t entry_field(const std::string& b, int i, size_t field) {
  size_t off = entry_offset(b, i);
  off += 4 + get<uint32_t>(b, off);
  off += 4 + get<uint32_t>(b, off);
  return off + field;
}

// Every rejection holds whether the payloads are copied or mapped (mode 2).
void expect_reject(const std::string& path, const std::string& fragment, bool header_only_too = true) {
  for (int mode = 0; mode < 3; ++mode) {
    if (mode == 1 && !header_only_too) continue;
    try {
      if (mode == 0) read_filter_file(path);
      else if (mode == 1) read_filter_header(path);
      else read_filter_file(path, FilterLoading{FilterLoadMode::map, UINT64_MAX});
      FAIL("accepted a bad filter file, expected: " << fragment);
    } catch (const Error& e) {
      std::string msg = e.what();
      INFO(msg);
      CHECK(msg.find(path) != std::string::npos);
      CHECK(msg.find(fragment) != std::string::npos);
      CHECK(msg.find('\n') == std::string::npos);
      CHECK((e.code() == ExitCode::data || e.code() == ExitCode::no_input));
    }
  }
}

}  // namespace

TEST_CASE("filter file: round trip of several filters", "[io][bf]") {
  TempDir dir;
  std::mt19937_64 rng(21);
  FilterSet set = sample_set(rng);
  auto path = dir.file("x.bf");
  write_filter_file(path, set);
  CHECK(is_filter_file(path));
  CHECK(dir.entries() == std::vector<std::string>{"x.bf"});
  // The trailer holds zlib's CRC-32 of the header and of everything before the trailer, whichever CRC code the
  // build uses (files stay readable across builds).
  {
    const std::string b = read_bytes(path);
    const uint32_t header = get<uint32_t>(b, 12);
    CHECK(get<uint32_t>(b, b.size() - 8) == uint32_t(crc32(0, reinterpret_cast<const Bytef*>(b.data()), header)));
    CHECK(get<uint32_t>(b, b.size() - 4) ==
          uint32_t(crc32(0, reinterpret_cast<const Bytef*>(b.data()), uInt(b.size() - 8))));
  }

  FilterSet back = read_filter_file(path);
  CHECK(back.w == set.w);
  CHECK(back.seed == set.seed);
  CHECK(back.canonical == set.canonical);
  CHECK(back.command_line == set.command_line);
  REQUIRE(back.filters.size() == set.filters.size());
  for (size_t i = 0; i < set.filters.size(); ++i) {
    const auto &a = set.filters[i], &b = back.filters[i];
    CHECK(b.name == a.name);
    CHECK(b.source == a.source);
    CHECK(b.source_length == a.source_length);
    CHECK(b.elements == a.elements);
    CHECK(b.k == a.k);
    CHECK(b.m_bits == a.bits.m_bits());
    CHECK(b.bits.m_bits() == a.bits.m_bits());
    CHECK(b.bits.words() == a.bits.words());
  }
  FilterSet head = read_filter_header(path);
  REQUIRE(head.filters.size() == set.filters.size());
  CHECK(head.filters[3].m_bits == (uint64_t(1) << 16));
  CHECK(head.filters[3].bits.words().empty());

  // The bytes follow docs/file-formats.md: magic, version, sizes, 64-byte aligned payloads, zlib crc32 trailer.
  std::string b = read_bytes(path);
  CHECK(std::memcmp(b.data(), "BLMSQBF\0", 8) == 0);
  CHECK(get<uint32_t>(b, 8) == 1u);  // all filters classic: written as version 1, readable by older programs
  CHECK(back.format_version == 1u);
  CHECK(get<uint64_t>(b, 16) == b.size());
  CHECK(get<uint64_t>(b, 24) == set.seed);
  CHECK(get<uint32_t>(b, 32) == 21);
  CHECK(get<uint32_t>(b, 36) == 1);
  CHECK(get<uint32_t>(b, 40) == set.filters.size());
  for (int i = 0; i < int(set.filters.size()); ++i) {
    uint64_t off = get<uint64_t>(b, entry_field(b, i, 28));
    CHECK(off % 64 == 0);
    CHECK(get<uint64_t>(b, entry_field(b, i, 20)) == set.filters[i].bits.m_bits());
    CHECK(std::memcmp(b.data() + off, set.filters[i].bits.words().data(), set.filters[i].bits.words().size() * 4) == 0);
  }
  std::string fixed = b;
  fix_checksums(fixed);
  CHECK(fixed == b);
}

TEST_CASE("filter file: loading by mapping borrows the words the writer was given", "[io][bf]") {
  TempDir dir;
  std::mt19937_64 rng(31);
  FilterSet set = sample_set(rng);
  const auto v1 = dir.file("v1.bf");
  write_filter_file(v1, set);
  FilterEntry blocked;
  blocked.name = "blocked";
  blocked.k = 7;
  blocked.layout = BloomLayout::blocked512;
  blocked.bits = BloomVector(512 * 5);
  for (auto& word : blocked.bits.words()) word = uint32_t(rng());
  set.filters.push_back(blocked);
  const auto v2 = dir.file("v2.bf");
  write_filter_file(v2, set);
  for (const auto& path : {v1, v2}) {
    INFO(path);
    const FilterSet mapped = read_filter_file(path, FilterLoading{FilterLoadMode::map, UINT64_MAX});
    CHECK(mapped.mapped);
    CHECK(mapped.checksum_verified);
    CHECK(mapped.format_version == (path == v1 ? 1u : 2u));
    REQUIRE(mapped.filters.size() == (path == v1 ? set.filters.size() - 1 : set.filters.size()));
    for (size_t i = 0; i < mapped.filters.size(); ++i) {
      const BloomVector& b = mapped.filters[i].bits;
      INFO(i);
      CHECK(b.is_borrowed());
      CHECK(b.m_bits() == set.filters[i].bits.m_bits());
      CHECK(std::vector<uint32_t>(b.data(), b.data() + b.word_count()) == set.filters[i].bits.words());
      CHECK(b.popcount() == set.filters[i].bits.popcount());
      CHECK_THROWS_AS(b.words(), std::logic_error);  // a const borrowed vector has no vector of its own
    }
    // Writing copies first: the mapping (and the file) stay as they were.
    FilterSet writable = read_filter_file(path, FilterLoading{FilterLoadMode::map, UINT64_MAX});
    const std::string before = read_bytes(path);
    writable.filters[2].bits.words()[0] ^= 1u;
    CHECK(!writable.filters[2].bits.is_borrowed());
    CHECK(writable.filters[2].bits.words()[0] == (set.filters[2].bits.words()[0] ^ 1u));
    CHECK(read_bytes(path) == before);
    const FilterSet copied = read_filter_file(path);
    CHECK(!copied.mapped);
    CHECK(copied.checksum_verified);
    CHECK(!copied.filters[0].bits.is_borrowed());
  }
  // A flipped payload byte: copying always finds it; mapping above the verification limit does not look.
  std::string b = read_bytes(v1);
  b[size_t(get<uint64_t>(b, entry_field(b, 4, 28)))] ^= 0x20;  // filter 5's first payload byte
  const auto flipped = dir.file("flipped.bf");
  write_bytes(flipped, b);
  const FilterSet unchecked = read_filter_file(flipped, FilterLoading{FilterLoadMode::map, b.size() - 1});
  CHECK(!unchecked.checksum_verified);
  CHECK(unchecked.filters[4].bits.data()[0] == (set.filters[4].bits.words()[0] ^ 0x20u));
  for (const FilterLoading how : {FilterLoading{}, FilterLoading{FilterLoadMode::map, b.size()}})
    CHECK_THROWS_WITH(read_filter_file(flipped, how), Catch::Contains("flipped.bf: corrupt: checksum mismatch"));
}

// The VmFlags line of the mapping of this process that holds `p` ("" if none is found).
static std::string vm_flags_of(const void* p) {
  std::ifstream smaps("/proc/self/smaps");
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    unsigned long lo = 0, hi = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &lo, &hi) == 2 && line.find('-') < line.find(' ')) {
      inside = a >= lo && a < hi;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return line;
    }
  }
  return "";
}

TEST_CASE("filter file: a large file is mapped with the hint for huge pages", "[io][bf]") {
  // Where the kernel has no transparent huge pages the hint cannot be given, and there is nothing to check.
  if (!std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled")) return;
  TempDir dir;
  FilterSet set;
  set.w = 21;
  FilterEntry big;
  big.name = "big";
  big.k = 3;
  big.bits = BloomVector(uint64_t(1) << 25);  // 4 MiB of words: a 2-MiB folio fits
  big.bits.words()[12345] = 0x5a5a5a5au;
  set.filters.push_back(big);
  FilterEntry small = big;
  small.name = "small";
  small.bits = BloomVector(4096);
  FilterSet small_set = set;
  small_set.filters = {small};
  const auto path = dir.file("big.bf"), small_path = dir.file("small.bf");
  write_filter_file(path, set);
  write_filter_file(small_path, small_set);
  const FilterSet mapped = read_filter_file(path, FilterLoading{FilterLoadMode::map, UINT64_MAX});
  REQUIRE(mapped.mapped);
  CHECK(mapped.filters[0].bits.data()[12345] == 0x5a5a5a5au);
  const std::string flags = vm_flags_of(mapped.filters[0].bits.data());
  INFO(flags);
  REQUIRE(!flags.empty());
  CHECK(flags.find(" hg") != std::string::npos);
  // The probe of the page cache: a file too small for a 2-MiB page of its own, or none at all, is not served
  // through them; a large one may be (it depends on the kernel and the file system), and probing leaves it intact.
  CHECK(!maps_through_huge_pages(small_path));
  CHECK(!maps_through_huge_pages(dir.file("absent.bf")));
  const std::string before = read_bytes(path);
  (void)maps_through_huge_pages(path);
  CHECK(read_bytes(path) == before);
  // A file smaller than a huge page gets no hint.
  const FilterSet small_mapped = read_filter_file(small_path, FilterLoading{FilterLoadMode::map, UINT64_MAX});
  REQUIRE(small_mapped.mapped);
  const std::string small_flags = vm_flags_of(small_mapped.filters[0].bits.data());
  INFO(small_flags);
  REQUIRE(!small_flags.empty());
  CHECK(small_flags.find(" hg") == std::string::npos);
}

TEST_CASE("filter file: version 2 stores each filter's layout", "[io][bf]") {
  TempDir dir;
  std::mt19937_64 rng(23);
  FilterSet set = sample_set(rng);
  FilterEntry blocked;
  blocked.name = "blocked";
  blocked.source = "b.fa";
  blocked.elements = 100;
  blocked.k = 31;  // k + 1 hash functions: the most a blocked filter may use
  blocked.layout = BloomLayout::blocked512;
  blocked.bits = BloomVector(512 * 3);
  for (auto& word : blocked.bits.words()) word = uint32_t(rng());
  set.filters.insert(set.filters.begin() + 2, blocked);
  const auto path = dir.file("v2.bf");
  write_filter_file(path, set);
  const std::string b = read_bytes(path);
  CHECK(get<uint32_t>(b, 8) == 2u);
  const FilterSet back = read_filter_file(path);
  CHECK(back.format_version == 2u);
  REQUIRE(back.filters.size() == set.filters.size());
  for (size_t i = 0; i < set.filters.size(); ++i) {
    INFO(i);
    CHECK(back.filters[i].layout == set.filters[i].layout);
    CHECK(back.filters[i].k == set.filters[i].k);
    CHECK(back.filters[i].bits.words() == set.filters[i].bits.words());
  }
  CHECK(read_filter_header(path).filters[2].layout == BloomLayout::blocked512);
  // The layout field follows k (entry field 20 in version 2; m moves to 24).
  const size_t entry = entry_offset(b, 0);
  size_t at = entry + 4 + get<uint32_t>(b, entry);
  at += 4 + get<uint32_t>(b, at);
  CHECK(get<uint32_t>(b, at + 20) == 0u);
  CHECK(get<uint64_t>(b, at + 24) == set.filters[0].bits.m_bits());

  // A blocked filter must be whole blocks and leave room for the block-picking hash function.
  FilterSet bad = set;
  bad.filters[2].k = kMaxHashes;
  CHECK_THROWS_AS(write_filter_file(dir.file("bad.bf"), bad), UsageError);
  bad.filters[2].k = 4;
  bad.filters[2].bits = BloomVector(500);
  CHECK_THROWS_AS(write_filter_file(dir.file("bad.bf"), bad), UsageError);

  // Corrupt layouts are rejected by the reader too.
  auto patched = [&](auto f, const std::string& fragment) {
    std::string c = b;
    f(c);
    fix_checksums(c);
    const auto p = dir.file("patched.bf");
    write_bytes(p, c);
    expect_reject(p, fragment);
  };
  size_t e2 = entry_offset(b, 0);
  for (int j = 0; j < 2; ++j) {  // entry 2 (entries are 4 bytes longer in version 2)
    e2 += 4 + get<uint32_t>(b, e2);
    e2 += 4 + get<uint32_t>(b, e2);
    e2 += 48;
  }
  size_t f2 = e2 + 4 + get<uint32_t>(b, e2);
  f2 += 4 + get<uint32_t>(b, f2);
  CHECK(get<uint32_t>(b, f2 + 20) == 1u);
  patched([&](std::string& c) { put<uint32_t>(c, f2 + 20, 7); }, "unknown layout 7");
  patched([&](std::string& c) { put<uint32_t>(c, f2 + 16, 32); }, "blocked filter allows");
}

TEST_CASE("filter file: real-sized vector and non-canonical flag", "[io][bf]") {
  TempDir dir;
  FilterSet set;
  set.w = 32;
  set.canonical = false;
  FilterEntry e;
  e.name = "big";
  e.k = 32;
  e.bits = BloomVector(uint64_t(1) << 24);
  e.bits.words()[12345] = 0xdeadbeef;
  set.filters.push_back(std::move(e));
  write_filter_file(dir.file("b.bf"), set);
  auto back = read_filter_file(dir.file("b.bf"));
  CHECK_FALSE(back.canonical);
  CHECK(back.w == 32);
  CHECK(back.filters[0].bits.words() == set.filters[0].bits.words());
}

TEST_CASE("filter file: writer rejects inconsistent sets and leaves nothing behind", "[io][bf]") {
  TempDir dir;
  std::mt19937_64 rng(22);
  FilterSet set = sample_set(rng);
  set.w = 33;
  CHECK_THROWS_AS(write_filter_file(dir.file("a.bf"), set), UsageError);
  set.w = 21;
  set.filters[1].k = 0;
  CHECK_THROWS_AS(write_filter_file(dir.file("a.bf"), set), UsageError);
  set.filters.clear();
  CHECK_THROWS_AS(write_filter_file(dir.file("a.bf"), set), UsageError);
  CHECK(dir.entries().empty());
  CHECK_THROWS_AS(write_filter_file("/dev/full", sample_set(rng)), IoError);
}

TEST_CASE("filter file: every rejection path", "[io][bf]") {
  TempDir dir;
  std::mt19937_64 rng(23);
  auto good_path = dir.file("good.bf");
  write_filter_file(good_path, sample_set(rng));
  const std::string good = read_bytes(good_path);
  auto bad = dir.file("bad.bf");
  auto with = [&](auto patch) {
    std::string b = good;
    patch(b);
    write_bytes(bad, b);
  };

  SECTION("missing file and directory") {
    expect_reject(dir.file("none.bf"), "No such file");
    expect_reject(dir.path(), "directory");
  }
  SECTION("empty and tiny files") {
    write_bytes(bad, "");
    expect_reject(bad, "not a bloomseq filter file");
    write_bytes(bad, "BLM");
    expect_reject(bad, "not a bloomseq filter file");
  }
  SECTION("wrong magic") {
    with([](std::string& b) { b[0] = 'X'; });
    expect_reject(bad, "wrong magic");
    write_bytes(bad, ">seq\nACGT\n");
    expect_reject(bad, "wrong magic");
  }
  SECTION("future and zero version") {
    with([](std::string& b) { put<uint32_t>(b, 8, kFilterFormatVersion + 1), fix_checksums(b); });
    expect_reject(bad, "newer than this program");
    with([](std::string& b) { put<uint32_t>(b, 8, 0), fix_checksums(b); });
    expect_reject(bad, "version 0");
  }
  SECTION("truncation anywhere") {
    for (size_t keep : {size_t(8), size_t(40), size_t(60), good.size() / 2, good.size() - 9, good.size() - 1}) {
      write_bytes(bad, good.substr(0, keep));
      expect_reject(bad, keep < 56 ? "" : "truncated");
    }
  }
  SECTION("trailing data") {
    with([](std::string& b) { b += "extra"; });
    expect_reject(bad, "trailing data");
  }
  SECTION("flipped bytes: payload, header, trailer") {
    uint64_t payload = get<uint64_t>(good, entry_field(good, 4, 28));
    with([&](std::string& b) { b[payload + 5] ^= 0x10; });
    expect_reject(bad, "checksum mismatch", false);
    CHECK_NOTHROW(read_filter_header(bad));  // the header itself is intact
    with([&](std::string& b) { b[50] ^= 0x01; });  // inside the command line
    expect_reject(bad, "header checksum mismatch");
    with([&](std::string& b) { b[b.size() - 1] ^= 0x80; });
    expect_reject(bad, "checksum mismatch", false);
    // A zero byte between two payloads (alignment padding) is covered as well.
    uint64_t end0 = get<uint64_t>(good, entry_field(good, 0, 28)) + 4;
    with([&](std::string& b) { b[end0] = 1; });
    expect_reject(bad, "checksum mismatch", false);
  }
  SECTION("absurd sizes are rejected before allocating") {
    with([&](std::string& b) { put<uint64_t>(b, entry_field(b, 2, 20), uint64_t(1) << 60), fix_checksums(b); });
    expect_reject(bad, "out of range");
    with([&](std::string& b) { put<uint32_t>(b, 40, 1u << 31), fix_checksums(b); });
    expect_reject(bad, "more than its");
    with([&](std::string& b) { put<uint32_t>(b, 12, 0xffffffc0u); });  // checked before any checksum
    expect_reject(bad, "header size");
    with([&](std::string& b) { put<uint64_t>(b, 16, uint64_t(1) << 62), fix_checksums(b); });
    expect_reject(bad, "truncated");
    with([&](std::string& b) { put<uint32_t>(b, 44, 0x7fffffffu), fix_checksums(b); });
    expect_reject(bad, "command line");
    with([&](std::string& b) { put<uint32_t>(b, entry_offset(b, 1), 0xfffffff0u), fix_checksums(b); });
    expect_reject(bad, "name");
  }
  SECTION("payload offsets outside the file or overlapping") {
    with([&](std::string& b) { put<uint64_t>(b, entry_field(b, 4, 28), uint64_t(1) << 40), fix_checksums(b); });
    expect_reject(bad, "outside the file");
    with([&](std::string& b) {
      put<uint64_t>(b, entry_field(b, 1, 28), get<uint64_t>(b, entry_field(b, 0, 28))), fix_checksums(b);
    });
    expect_reject(bad, "outside the file");
    with([&](std::string& b) { put<uint64_t>(b, entry_field(b, 0, 28), get<uint64_t>(b, entry_field(b, 0, 28)) + 4), fix_checksums(b); });
    expect_reject(bad, "filter 1");
    with([&](std::string& b) { put<uint64_t>(b, entry_field(b, 2, 36), 12), fix_checksums(b); });
    expect_reject(bad, "does not match m");
  }
  SECTION("w, k, flags and filter count out of range") {
    with([](std::string& b) { put<uint32_t>(b, 32, 40), fix_checksums(b); });
    expect_reject(bad, "w = 40");
    with([](std::string& b) { put<uint32_t>(b, 32, 0), fix_checksums(b); });
    expect_reject(bad, "w = 0");
    with([&](std::string& b) { put<uint32_t>(b, entry_field(b, 0, 16), 0), fix_checksums(b); });
    expect_reject(bad, "k = 0");
    with([&](std::string& b) { put<uint32_t>(b, entry_field(b, 0, 16), 1000), fix_checksums(b); });
    expect_reject(bad, "k = 1000");
    with([](std::string& b) { put<uint32_t>(b, 36, 6), fix_checksums(b); });
    expect_reject(bad, "unknown flags");
    with([](std::string& b) { put<uint32_t>(b, 40, 0), fix_checksums(b); });
    expect_reject(bad, "no filters");
  }
  SECTION("bits set beyond m in the last word") {
    // Filter 1 has m = 33: word 1 may only use bit 0.
    uint64_t off = get<uint64_t>(good, entry_field(good, 1, 28));
    with([&](std::string& b) { b[off + 4 + 1] |= 0x01, fix_checksums(b); });
    expect_reject(bad, "beyond m", false);
  }
}
