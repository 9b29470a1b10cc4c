// Block rule and the counting / skipping passes of sharded classify runs (shard.hpp).
#include "bloomseq/facs/shard.hpp"

#include "bloomseq/error.hpp"
#include "bloomseq/io/sequence_reader.hpp"

namespace bloomseq {

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
