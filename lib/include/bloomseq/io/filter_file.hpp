// The .bf container: one or many Bloom filters that share the word size, the H3 seed and the k-mer convention.
//
// Layout (little-endian), see docs/file-formats.md:
//   header  magic "BLMSQBF\0", format version, w, seed, canonical flag, filter count, command line, and per filter:
//           name, source, source length, element count, k, m bits, payload offset
//   payload each filter's bits as 32-bit words (see bloom_view.hpp), 64-byte aligned for direct loading
//   trailer crc32 over header and payload
// Writes go to a temporary file renamed on success. Loading rejects a wrong magic, an unknown version,
// truncation, a bad checksum and absurd sizes with one clear line before allocating anything large.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "bloomseq/bloom/bloom_vector.hpp"

namespace bloomseq {

constexpr uint32_t kFilterFormatVersion = 1;

struct FilterEntry {
  std::string name;            // label used in outputs (default: file stem or record name)
  std::string source;          // where it came from (path, or path:record)
  uint64_t source_length = 0;  // bases in the source
  uint64_t elements = 0;       // distinct k-mers inserted
  int k = 0;                   // hash functions used by this filter (the first k of the family)
  uint64_t m_bits = 0;         // filter size; set by both readers (read_filter_header leaves `bits` empty)
  BloomVector bits;
};

struct FilterSet {
  int w = 0;                 // k-mer (word) size
  uint64_t seed = 0;         // H3 seed
  bool canonical = true;     // canonical k-mers inserted
  std::string command_line;  // the command that built it
  std::vector<FilterEntry> filters;
};

// Everything but the bit payloads (for `facs info` and for checks before loading): validates the structure and
// the header checksum, reading only the header and the trailer.
FilterSet read_filter_header(const std::string& path);
// Header and payloads; verifies the checksum over the whole file. Throws NoInputError (cannot open) or DataError
// (not a filter file, unknown version, truncated, corrupt, absurd sizes) naming the file and, where relevant,
// the filter.
FilterSet read_filter_file(const std::string& path);
// Writes through OutputFile (temporary + rename). Throws UsageError for an inconsistent set (w, k, m out of
// range, empty filter list) and IoError for write failures.
void write_filter_file(const std::string& path, const FilterSet& set);
// True if the file starts with the .bf magic.
bool is_filter_file(const std::string& path);

}  // namespace bloomseq
