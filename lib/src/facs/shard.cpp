// Block rules, the choice of scheme and the counting / skipping passes of sharded classify runs (shard.hpp).
#include "bloomseq/facs/shard.hpp"

#include "bloomseq/error.hpp"
#include "bloomseq/io/record_starts.hpp"
#include "bloomseq/io/sequence_reader.hpp"

namespace bloomseq {

const char* shard_scheme_name(ShardScheme s) { return s == ShardScheme::bytes ? "bytes" : "records"; }

RecordBlock shard_block(uint64_t total, uint64_t index, uint64_t count) {
  // 128-bit products: total * count cannot overflow.
  const auto at = [&](uint64_t i) { return uint64_t((unsigned __int128)total * i / count); };
  return {at(index - 1), at(index)};
}

ByteBlock shard_byte_block(std::string_view text, char format, uint64_t index, uint64_t count) {
  const uint64_t size = text.size();
  const auto cut = [&](uint64_t i) -> uint64_t {
    if (i == 0) return 0;
    if (i == count) return size;
    return next_record_start(text, size_t((unsigned __int128)size * i / count), format);
  };
  return {cut(index - 1), cut(index)};
}

namespace {
// Why `r` cannot be cut by bytes, or "" if it can.
std::string byte_cut_obstacle(const SequenceReader& r) {
  const std::string_view t = r.mapped_text();
  if (t.empty()) return r.path() + " is not a plain file (compressed, .2bit, empty or not a regular file)";
  size_t at = 0;
  const char f = text_format(t, at);
  if (f == '@' && !single_line_fastq_at(t, at)) return r.path() + " is multi-line FASTQ (its first record is not four lines)";
  if (f == 0) return r.path() + " does not start with a FASTA or FASTQ record";
  return "";
}
}  // namespace

ShardScheme choose_shard_scheme(ShardBy by, const SequenceReader& reads, const SequenceReader* mates,
                                std::string& note) {
  note.clear();
  if (by == ShardBy::records) return ShardScheme::records;
  std::string why = byte_cut_obstacle(reads);
  if (why.empty() && mates) why = byte_cut_obstacle(*mates);
  if (why.empty()) return ShardScheme::bytes;
  if (by == ShardBy::bytes) throw UsageError("classify: --shard-by bytes: " + why);
  if (why.find("multi-line") != std::string::npos)
    note = "--shard: " + why + ": every shard counts the records instead of seeking to its block (slower)";
  return ShardScheme::records;
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

void reread_block_for_error(const std::string& path, const ByteBlock& block) {
  SequenceReader r(path);
  const std::string_view t = r.mapped_text();
  size_t first = 0;
  const RecordCount before = count_records_before(t, size_t(block.begin), text_format(t, first));
  r.seek(block.begin, before.lines, before.records);
  r.stop_at(block.end);
  SequenceRecord rec;
  while (r.next(rec)) {
  }
}

}  // namespace bloomseq
