// Sharded `facs classify`: the reads are cut into N contiguous blocks of records, balanced by record count.
// Rule: with R records (pairs) and N shards, shard I (1-based) classifies records [floor((I-1)R/N), floor(IR/N)),
// so blocks differ by at most one record, their concatenation in shard order is the whole input, and N > R gives
// empty shards. A shard finds R with a counting pass that cuts records without parsing them (from the mapped file
// when it is plain, decompressing when gzip) and skips the records before its block the same way.
#pragma once
#include <cstdint>
#include <string>

#include "bloomseq/split/shard_spec.hpp"

namespace bloomseq {

class SequenceReader;

struct RecordBlock {
  uint64_t begin = 0, end = 0;  // records [begin, end), 0-based
};

// The block of shard `index` (1-based) of `count` over `total` records (rule above).
RecordBlock shard_block(uint64_t total, uint64_t index, uint64_t count);

// Reads `reader` to its end, cutting records without parsing plain four-line FASTQ (others are parsed as
// next_chunk parses them), `max_bases` per chunk so memory stays bounded; returns the number of records.
uint64_t count_records(SequenceReader& reader, uint64_t max_bases);

// Skips `n` records of `reader` the same way (fewer only where the input ends); returns those skipped.
uint64_t skip_records(SequenceReader& reader, uint64_t n, uint64_t max_bases);

}  // namespace bloomseq
