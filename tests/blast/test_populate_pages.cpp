// The large-buffer helpers: populate_pages makes pages resident without changing a byte (and never touches a page
// outside the range, which may not be mapped); reserve_populated grows a vector or string as push_back would, keeping its
// elements; the diagonal table's touch leaves its contents as they were.
#include <catch2/catch.hpp>

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "bloomseq/memory/populate_pages.hpp"
#include "bloomseq/blast/ungapped.hpp"

using namespace bloomseq;

namespace {

// How many of the pages of [p, p + pages * page) are resident (mincore).
size_t resident_pages(void* p, size_t pages) {
  std::vector<unsigned char> in(pages);
  REQUIRE(mincore(p, pages * size_t(sysconf(_SC_PAGESIZE)), in.data()) == 0);
  size_t n = 0;
  for (unsigned char c : in) n += c & 1;
  return n;
}

}  // namespace

TEST_CASE("populate_pages makes a fresh mapping's pages resident and leaves written bytes alone", "[blast][memory]") {
  const size_t page = size_t(sysconf(_SC_PAGESIZE)), pages = 65;  // the last page not written below
  // Guard pages on both sides: a populate that strayed outside its range would fault on them (PROT_NONE).
  char* base = static_cast<char*>(
      mmap(nullptr, (pages + 2) * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  REQUIRE(base != MAP_FAILED);
  REQUIRE(mprotect(base, page, PROT_NONE) == 0);
  REQUIRE(mprotect(base + (pages + 1) * page, page, PROT_NONE) == 0);
  char* p = base + page;
#ifdef MADV_NOHUGEPAGE
  madvise(p, pages * page, MADV_NOHUGEPAGE);  // so that one write does not bring in a whole huge page
#endif
  // A few pages written before: their bytes must survive.
  for (size_t i = 0; i < pages; i += 7) std::memset(p + i * page, int(0x40 + i), page);
  const size_t before = resident_pages(p, pages);
  REQUIRE(before == (pages + 6) / 7);
  // A range that starts and ends inside pages: only the whole pages inside it are populated.
  const bool populated = populate_pages(p + 100, pages * page - 200);
  // (Before any read: reading an untouched page maps the zero page, which mincore counts too.)
  if (populated) {
    // The partial first and last pages were not asked for (the first was written before, the last was not).
    CHECK(resident_pages(p + page, pages - 2) == pages - 2);
    CHECK(resident_pages(p + (pages - 1) * page, 1) == 0);
  } else {
    WARN("this kernel cannot populate pages (MADV_POPULATE_WRITE): callers touch them instead");
  }
  for (size_t i = 0; i < pages; ++i)
    for (size_t j = 0; j < page; j += 997)
      REQUIRE(p[i * page + j] == (i % 7 == 0 ? char(0x40 + i) : char(0)));
  CHECK(populate_pages(p + 10, 20));  // no whole page inside: nothing to do, and that is success
  munmap(base, (pages + 2) * page);
}

TEST_CASE("reserve_populated grows like push_back and keeps the elements", "[blast][memory]") {
  std::vector<uint64_t> v;
  reserve_populated(v, 0);
  CHECK(v.capacity() == 0);
  for (uint64_t i = 0; i < 1000; ++i) v.push_back(i * i);
  const size_t cap = v.capacity();
  reserve_populated(v, v.size());  // already room: unchanged
  CHECK(v.capacity() == cap);
  reserve_populated(v, cap + 1);  // at least doubled, as push_back would
  CHECK(v.capacity() >= 2 * cap);
  reserve_populated(v, 1 << 20);  // more than doubling asks for
  CHECK(v.capacity() >= (size_t(1) << 20));
  REQUIRE(v.size() == 1000);
  for (uint64_t i = 0; i < 1000; ++i) REQUIRE(v[i] == i * i);
  std::string text;  // a long record's text grows this way (sequence_reader.cpp)
  for (int i = 0; i < 100'000; ++i) {
    reserve_populated(text, text.size() + 3);
    text.append(i % 2 ? "ACG" : "TTA");
  }
  REQUIRE(text.size() == 300'000);
  CHECK(text.compare(0, 6, "TTAACG") == 0);
  CHECK(text.compare(299'994, 6, "TTAACG") == 0);
  std::vector<std::string> s{"a", std::string(100, 'b')};
  reserve_populated(s, 1000);  // elements moved, not copied bytewise
  CHECK(s[0] == "a");
  CHECK(s[1] == std::string(100, 'b'));
}

TEST_CASE("a diagonal table's touch keeps what it recorded", "[blast][memory]") {
  const uint64_t q_len = 3'000'000;  // 4 Mi slots, 16 MB: a mapped buffer
  DiagonalTable d(q_len);
  REQUIRE(d.slots() == (uint64_t(1) << 22));
  // Ends recorded on diagonals spread over the table, then every region touched, as stage 2 does before a batch.
  // Diagonal s_stream - q_pos = s + 10^6 - q: one slot each (s steps by more than q varies).
  auto q_of = [](uint64_t s) { return (s / 4'099) % 1'000; };
  for (uint64_t s = 0; s < 4'000'000; s += 4'099) d.record(s + 1'000'000, q_of(s), s + 1'000'011);
  for (uint64_t first = 0; first < d.slots(); first += uint64_t(1) << 16) d.touch(first, uint64_t(1) << 16);
  for (uint64_t s = 0; s < 4'000'000; s += 4'099) {
    // A later seed on the same diagonal inside the recorded extension is skipped; one past its end is not.
    REQUIRE_FALSE(d.should_extend(s + 1'000'010, q_of(s) + 10));
    REQUIRE(d.should_extend(s + 1'000'011, q_of(s) + 11));
  }
}
