// Block rule and the counting / skipping passes of sharded classify runs (shard.hpp).
#include "bloomseq/facs/shard.hpp"

#include <cerrno>
#include <cstdlib>

#include "bloomseq/error.hpp"
#include "bloomseq/io/sequence_reader.hpp"

namespace bloomseq {
namespace {

bool parse_u64(const std::string& s, uint64_t& v) {
  if (s.empty() || s.size() > 7) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  v = std::strtoull(s.c_str(), nullptr, 10);
  return true;
}

}  // namespace

ShardSpec parse_shard_spec(const std::string& text) {
  const size_t slash = text.find('/');
  ShardSpec s;
  s.given = true;
  if (slash == std::string::npos || !parse_u64(text.substr(0, slash), s.index) ||
      !parse_u64(text.substr(slash + 1), s.count) || s.count < 1 || s.count > 1000000 || s.index < 1 ||
      s.index > s.count)
    throw UsageError("classify: --shard must be I/N with 1 <= I <= N <= 1000000, got '" + text + "'");
  return s;
}

RecordBlock shard_block(uint64_t total, uint64_t index, uint64_t count) {
  // 128-bit products: total * count cannot overflow.
  const auto at = [&](uint64_t i) { return uint64_t((unsigned __int128)total * i / count); };
  return {at(index - 1), at(index)};
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

}  // namespace bloomseq
