// Sharded `facs classify`: the reads are cut into N contiguous blocks, one per shard, by one of two schemes.
//
// bytes (plain FASTA or four-line FASTQ files, the default where possible): with S the reads file's size, shard I
// (1-based) takes the records that start in bytes [floor((I-1)S/N), floor(IS/N)). Each shard finds its first and
// last record by looking for record starts near those offsets (io/record_starts.hpp) and reads only its block:
// no pass over the rest of the file. Shard 1 starts at byte 0 and shard N ends at S, so whatever precedes the
// first record or follows the last is read as by the single run. A cut inside a record (possible only in
// multi-line FASTQ) truncates the shard's last record, which the reader refuses. Pairs: the mate file's block
// starts at the same record index, found by counting lines (FASTQ: four per record) or '>' lines (FASTA) of
// both files up to the block, a vectorised pass instead of a parse, or read from a shard plan made once
// (facs/shard_plan.hpp) so that no shard counts.
//
// records (gzip input, .2bit, FASTQ whose first record is not four lines): with R records (pairs), shard I
// classifies records [floor((I-1)R/N), floor(IR/N)); a shard finds R with a counting pass that cuts records
// without parsing them (from the mapped file when it is plain, decompressing when gzip) and skips the records
// before its block the same way.
//
// Both: blocks are contiguous and in input order, their concatenation is the whole input, and N larger than the
// number of records gives empty shards.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "bloomseq/io/record_starts.hpp"
#include "bloomseq/split/shard_spec.hpp"

namespace bloomseq {

class SequenceReader;

enum class ShardScheme { records, bytes };
const char* shard_scheme_name(ShardScheme s);
enum class ShardBy { automatic, records, bytes };  // --shard-by

struct RecordBlock {
  uint64_t begin = 0, end = 0;  // records [begin, end), 0-based
};

// The block of shard `index` (1-based) of `count` over `total` records (rule above).
RecordBlock shard_block(uint64_t total, uint64_t index, uint64_t count);

// Bytes [begin, end) of shard `index` of `count` over a plain text whose records are in `format` ('@' or '>').
struct ByteBlock {
  uint64_t begin = 0, end = 0;
};
ByteBlock shard_byte_block(std::string_view text, char format, uint64_t index, uint64_t count);

// The scheme for these just opened readers (`mates` null for single reads). bytes where asked or allowed and
// every file is mapped (plain, regular) and FASTA or starts with a four-line FASTQ record. Sets `note` when
// automatic falls back to records for a reason worth telling (multi-line FASTQ). Throws UsageError when bytes
// was asked for and is not possible.
// Why the reader's file cannot be cut by bytes (not plain, multi-line FASTQ, ...), or "" if it can.
std::string byte_cut_obstacle(const SequenceReader& r);

ShardScheme choose_shard_scheme(ShardBy by, const SequenceReader& reads, const SequenceReader* mates,
                                std::string& note);

// count_records_before and find_record (io/record_starts.hpp) over a whole plain file, read in blocks: touching a
// mapping page by page costs a few times more CPU than copying the same bytes, and a shard of pairs counts both
// files up to its block. Throws IoError naming the file if it cannot be read.
RecordCount count_file_records_before(const std::string& path, uint64_t at, char format);
uint64_t find_file_record(const std::string& path, uint64_t k, char format, RecordCount& before);
// The same for many places in one pass (facs/shard_plan.hpp): the counts before each of the ascending `offsets`;
// the offsets of records `ks` (ascending), with the counts before each in `before`.
std::vector<RecordCount> count_file_records_at(const std::string& path, const std::vector<uint64_t>& offsets,
                                               char format);
std::vector<uint64_t> find_file_records(const std::string& path, const std::vector<uint64_t>& ks, char format,
                                        std::vector<RecordCount>& before);

// Reads `reader` to its end, cutting records without parsing plain four-line FASTQ (others
// are parsed as next_chunk parses them), `max_bases` per chunk so memory stays bounded; returns the number of
// records.
uint64_t count_records(SequenceReader& reader, uint64_t max_bases);

// Skips `n` records of `reader` the same way (fewer only where the input ends); returns those skipped.
uint64_t skip_records(SequenceReader& reader, uint64_t n, uint64_t max_bases);

// A single-reads shard cut by bytes numbers records from its block's start (counting those before it would cost
// a pass over the file). After a DataError it calls this: the block read again with numbers counted from the
// file's start, so that the error rethrown names the record as the single run would. Returns if nothing throws.
void reread_block_for_error(const std::string& path, const ByteBlock& block);

}  // namespace bloomseq
