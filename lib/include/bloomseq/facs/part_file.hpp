// Part files of a sharded `facs classify` run (--shard I/N), which `facs merge` turns into the single run's outputs.
// Each output (-o, --summary, --json) of a shard is one part file of its kind, text, line by line:
//   #bloomseq-facs-part <TAB> format=2 <TAB> kind=calls|summary|json <TAB> shard=I/N <TAB> fingerprint=<16 hex>
//   #info <TAB> key <TAB> value                  parameters (ClassifyRunInfo; values escaped: \\ \t \n)
//   #filter <TAB> name <TAB> source <TAB> kmers <TAB> hashes <TAB> bits <TAB> predicted_fpr
//   #reads <TAB> records <TAB> sizes             the input's record count ('-' when cut by bytes) and file sizes
//   #cut <TAB> bytes|records                     how the input was cut into blocks (facs/shard.hpp)
//   ... calls parts only: the per-read TSV lines of the shard's block, no header ...
//   #bloomseq-facs-block <TAB> first record <TAB> begin <TAB> end <TAB> mate begin <TAB> mate end   ('-': unknown)
//   #bloomseq-facs-counters <TAB> total ... <TAB> hits,... <TAB> shared,... <TAB> best,...   raw integers
//   #bloomseq-facs-end
// The fingerprint hashes the #info (less threads), #filter, #reads and #cut lines and N: parts merge only with
// parts of the same parameters, filters, input, scheme and shard count. The last three lines (the trailer) are
// found from the file's end, so that the calls between header and trailer can be copied without reading them as
// lines. Doubles are written with 17 digits so they read back exactly.
#pragma once
#include <cstdint>
#include <string>

#include "bloomseq/error.hpp"
#include "bloomseq/facs/classify_json.hpp"
#include "bloomseq/facs/report.hpp"
#include "bloomseq/facs/shard.hpp"

namespace bloomseq {

enum class PartKind { calls, summary, json };
const char* part_kind_name(PartKind k);

struct PartHeader {
  PartKind kind = PartKind::calls;
  uint64_t shard = 1, shards = 1;
  uint64_t fingerprint = 0;
  ClassifyRunInfo info;
  uint64_t records = 0;  // in the whole input (scheme records; 0 and written '-' for bytes)
  std::string sizes;     // the input files' sizes, comma-separated
  ShardScheme scheme = ShardScheme::records;
};

// What one shard covered (the trailer's block line); kUnknown where the scheme does not say.
struct PartBlock {
  static constexpr uint64_t kUnknown = UINT64_MAX;
  uint64_t first_record = kUnknown;             // records (pairs) before the block; unknown for single reads cut by bytes
  uint64_t begin = kUnknown, end = kUnknown;    // bytes of the reads file (cut by bytes)
  uint64_t mate_begin = kUnknown, mate_end = kUnknown;  // bytes of the mate file (pairs cut by bytes)
};

// Counters of one shard (the merge sums them).
struct PartCounters {
  ClassifySummary summary;
  uint64_t bases = 0;
  double load_seconds = 0, seconds = 0;  // run-specific
};

// The fingerprint of a header's run (all but kind, shard and threads).
uint64_t part_fingerprint(const PartHeader& h);
// The header lines (fingerprint computed here).
std::string part_header_text(const PartHeader& h);
std::string part_counters_text(const PartCounters& c);
std::string part_block_text(const PartBlock& b);
extern const char* const kPartEnd;  // the last line, newline included

// Parses a header line by line: `next_line` gives the next line without its newline, false at the end.
// `first` is the first line. Throws DataError naming `path` if it is not a part file or is malformed. Returns the
// first line after the header (the first call line or the counters line) in `rest`.
template <class NextLine>
PartHeader parse_part_header(const std::string& path, const std::string& first, NextLine next_line,
                             std::string& rest);
bool is_counters_line(const std::string& line);
bool is_block_line(const std::string& line);
PartBlock parse_part_block(const std::string& path, const std::string& line);
PartCounters parse_part_counters(const std::string& path, const std::string& line, size_t filters);

// Implementation detail of parse_part_header: one line of the header into `h`; false if `line` ends the header.
bool parse_part_header_line(const std::string& path, const std::string& line, PartHeader& h);
PartHeader parse_part_first_line(const std::string& path, const std::string& line);
void finish_part_header(const std::string& path, PartHeader& h);

template <class NextLine>
PartHeader parse_part_header(const std::string& path, const std::string& first, NextLine next_line,
                             std::string& rest) {
  PartHeader h = parse_part_first_line(path, first);
  for (;;) {
    if (!next_line(rest)) throw DataError(path + ": truncated part file (no counters line)");
    if (!parse_part_header_line(path, rest, h)) break;
  }
  finish_part_header(path, h);
  return h;
}

}  // namespace bloomseq
