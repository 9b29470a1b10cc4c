// The .bf container: one or many Bloom filters that share the word size, the H3 seed and the k-mer convention.
//
// Layout (little-endian), see docs/file-formats.md:
//   header  magic "BLMSQBF\0", format version, w, seed, canonical flag, filter count, command line, and per filter:
//           name, source, source length, element count, k, m bits, payload offset (version 2: and the layout)
//   payload each filter's bits as 32-bit words (see bloom_view.hpp), 64-byte aligned for direct loading;
//           version 3: interleaved groups instead, each the rows of one interleaved Bloom filter as 64-bit words
//   trailer crc32 over header and payload
// Writes go to a temporary file renamed on success. Loading rejects a wrong magic, an unknown version,
// truncation, a bad checksum and absurd sizes with one clear line before allocating anything large.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "bloomseq/bloom/blocked_bloom_view.hpp"
#include "bloomseq/bloom/bloom_vector.hpp"
#include "bloomseq/bloom/group_router.hpp"
#include "bloomseq/bloom/interleaved_bloom.hpp"

namespace bloomseq {

// Version 2 adds a per-filter layout (classic or blocked). Files whose filters are all classic are still written
// as version 1, so older readers keep loading them; version 1 files load as classic. Version 3 holds interleaved
// groups (every filter is a bin of one); it is written only for such sets. Version 4 adds a group router to an
// interleaved set (bloom/group_router.hpp); sets without one are still written as version 3.
constexpr uint32_t kFilterFormatVersion = 4;

inline const char* layout_name(BloomLayout l) { return l == BloomLayout::blocked512 ? "blocked" : "classic"; }

struct FilterEntry {
  std::string name;            // label used in outputs (default: file stem or record name)
  std::string source;          // where it came from (path, or path:record)
  uint64_t source_length = 0;  // bases in the source
  uint64_t elements = 0;       // distinct k-mers inserted
  int k = 0;                   // bits probed per k-mer (classic: hash functions 0..k-1; blocked: 1..k, 0 = block)
  BloomLayout layout = BloomLayout::classic;
  uint64_t m_bits = 0;         // filter size; set by both readers (read_filter_header leaves `bits` empty)
  BloomVector bits;            // empty for a bin of an interleaved group
  int32_t group = -1;          // interleaved: index into FilterSet::groups (its k and m are the group's), else -1
  uint32_t bin = 0;            // interleaved: the filter's bin in that group
};

// One interleaved Bloom filter of a set: bin b holds the classic Bloom filter of filters[members[b]] (k hash
// functions, m bits, bloom_slot); bins of similar size share a group (group_bins_by_size).
struct InterleavedGroup {
  int k = 0;
  uint64_t m_bits = 0;
  uint32_t bins = 0;
  std::vector<uint32_t> members;  // [bin]: filter index in FilterSet::filters
  InterleavedBloom ibf;           // empty after read_filter_header
};

// The router of an interleaved set's groups first_group .. first_group + groups - 1 (group_router.hpp): blocks
// of 512 bits stored as the rows of an InterleavedBloom of 512 bins, m = the block count.
struct GroupRouter {
  int k = 0;                 // bits per (k-mer, group); k + 1 hash functions of the router's family
  uint32_t first_group = 0;  // index into FilterSet::groups (a file's router covers all its groups)
  uint32_t groups = 0;
  uint64_t n_blocks = 0;
  InterleavedBloom blocks;   // n_blocks rows of 512 bins; empty after read_filter_header
  ConstGroupRouterView view() const {
    return {blocks.row_data(), n_blocks, groups, k};
  }
};

struct FilterSet {
  int w = 0;                 // k-mer (word) size
  uint64_t seed = 0;         // H3 seed
  bool canonical = true;     // canonical k-mers inserted
  std::string command_line;  // the command that built it
  uint32_t format_version = kFilterFormatVersion;  // as read (writers choose the lowest version that fits)
  std::vector<FilterEntry> filters;
  std::vector<InterleavedGroup> groups;  // non-empty: every filter is a bin of one of these (format version 3)
  std::vector<GroupRouter> routers;      // interleaved sets only: at most one per file (format version 4)
  bool interleaved() const { return !groups.empty(); }
  bool mapped = false;             // the payloads are borrowed from a read-only mapping of the file
  bool checksum_verified = false;  // the whole-file checksum was checked while loading
};

// How read_filter_file gets the payloads. copy: read into memory of their own (interleaved rows on huge pages)
// and checksummed on the way. map: the filters borrow their words from a read-only mapping of the file (no copy;
// pages are faulted in by the lookups that touch them); the whole-file checksum is verified only for files of
// at most `verify_up_to` bytes, since it reads every page. A file that cannot be mapped (not a regular file) is
// copied. Header checks (magic, version, header checksum, sizes, truncation) are made either way.
enum class FilterLoadMode { copy, map };
struct FilterLoading {
  FilterLoadMode mode = FilterLoadMode::copy;
  uint64_t verify_up_to = UINT64_MAX;
};

// Whether a mapping of the file at `path` is served through 2-MiB pages: the file is mapped with the huge-page hint
// and one 2-MiB page of it touched (read from disk if it is not cached), and the kernel's account of the mapping
// (/proc/self/smaps, FilePmdMapped) says whether that page came mapped whole. Lookups in such a mapping cost what
// they cost in a copy on huge pages (docs/benchmarks.md, "Huge pages for mapped filters"). False for files under
// 4 MiB, files that cannot be mapped, and kernels or file systems without large folios.
bool maps_through_huge_pages(const std::string& path);

// Everything but the bit payloads (for `facs info` and for checks before loading): validates the structure and
// the header checksum, reading only the header and the trailer.
FilterSet read_filter_header(const std::string& path);
// Header and payloads, copied or mapped (FilterLoading); verifies the checksum over the whole file unless a mapped
// file is above the verification limit (FilterSet::checksum_verified says which). Throws NoInputError (cannot
// open) or DataError (not a filter file, unknown version, truncated, corrupt, absurd sizes) naming the file and,
// where relevant, the filter. A mapped file truncated by another process while in use ends the run with one line
// (exit 74, see mapped_input_guard.hpp).
FilterSet read_filter_file(const std::string& path, const FilterLoading& how = {});
// Writes through OutputFile (temporary + rename). Throws UsageError for an inconsistent set (w, k, m out of
// range, empty filter list) and IoError for write failures. `written`, if given, is called with the bytes written
// so far and the file's size every few tens of MB (a genome's filter takes seconds to write).
void write_filter_file(const std::string& path, const FilterSet& set,
                       const std::function<void(uint64_t, uint64_t)>& written = nullptr);
// True if the file starts with the .bf magic.
bool is_filter_file(const std::string& path);

}  // namespace bloomseq
