// Sequence input through htslib: FASTA and FASTQ, plain, gzip or bgzip, a path or "-" for stdin; a UCSC .2bit
// file (recognised by its signature) is read as FASTA records, with N runs and lower case restored.
// Records come in batches sized in bases so memory stays bounded whatever the file size.
// Every error names the file and the record number (1-based) and, where known, the line.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace bloomseq {

struct SequenceRecord {
  std::string name;     // up to the first whitespace
  std::string comment;  // the rest of the header line, if any
  std::string seq;      // as in the file (case kept, no line breaks, no '\r')
  std::string qual;     // empty for FASTA
  std::string blanks{};  // the spaces and tabs between name and comment, as in the file
};

class SequenceChunk;

// Characters of the records read that are no nucleotide code (IUPAC A C G T U R Y K M S W B D H V N, either case).
struct ForeignLetters {
  uint64_t count = 0;    // such characters
  uint64_t records = 0;  // records holding any
  uint64_t first_record = 0, first_line = 0;  // 1-based: where the first one is
  char first = 0;
  // "N characters that are no nucleotide code (first 'X' in record R, line L) were read as N", or "" for none.
  std::string describe() const;
};

class SequenceReader {
 public:
  // Opens `path` ("-" = stdin). Throws NoInputError if it cannot be opened (missing, a directory, unreadable).
  // Compressed regular files are decompressed ahead on a second thread unless `decompress_ahead` is false.
  explicit SequenceReader(const std::string& path, bool decompress_ahead = true);
  ~SequenceReader();
  SequenceReader(const SequenceReader&) = delete;
  SequenceReader& operator=(const SequenceReader&) = delete;

  // Reads the next record into `rec`; false at a clean end of input. Throws DataError on malformed input
  // (e.g. quality length != sequence length, missing '+', not FASTA/FASTQ) and IoError on a truncated or
  // corrupt gzip stream.
  bool next(SequenceRecord& rec);

  // As next(), but the sequence goes to sink(bases, n) in pieces as it is parsed (about a Mbase each for FASTA;
  // FASTQ and .2bit records in one piece) and rec.seq is left empty: a chromosome is never held as text.
  bool next_streamed(SequenceRecord& rec, const std::function<void(const char*, size_t)>& sink);

  // Appends records to `batch` until it holds at least `max_bases` bases or the input ends; returns the number
  // of records appended (0 at the end). `batch` is cleared first; its strings' capacity is reused.
  size_t next_batch(std::vector<SequenceRecord>& batch, uint64_t max_bases);

  // Hands out the next run of whole records (at least `max_bases` bases unless the input ends or the run reaches
  // `max_records` records: a mate file's chunk takes as many records as its partner's); false at the end.
  // Plain four-line FASTQ records are only cut here, at record boundaries, and parsed by whoever holds the chunk
  // (a worker thread): from a mapped (uncompressed, regular) file in place, from a stream (compressed input,
  // stdin) copied into the chunk. Other records (FASTA, multi-line or malformed FASTQ, blank lines, .2bit) are
  // parsed here as next() parses them. Either way the chunk yields
  // the records, checks and error messages (file, record and line) of next(). Throws as next() does.
  bool next_chunk(SequenceChunk& chunk, uint64_t max_bases, size_t max_records = SIZE_MAX);

  // Calls `f` with the bases read so far (earlier records and the current one) every ~1 Mbase of FASTA
  // sequence, so that progress can move inside a long record such as a chromosome.
  void on_bases(std::function<void(uint64_t)> f);

  // A plain file read through its mapping: where the next record starts (byte offset, lines before it), so that a
  // later reader of the same file can start there (seek). False for streamed input (compressed, stdin, .2bit).
  bool tell(uint64_t& byte, uint64_t& line) const;
  // Before the first record: go on from a position that tell() gave on this file, as if `records_before` records
  // had been read; the mapped pages before it are dropped from memory. False (nothing changed) for streamed input
  // or a position past the end of the file.
  bool seek(uint64_t byte, uint64_t line, uint64_t records_before);
  // A plain file read through its mapping: reading ends at `byte` as if the file ended there (a shard's block).
  // A record cut by it is refused as truncated. False (nothing changed) for streamed input.
  bool stop_at(uint64_t byte);
  // A plain file read through its mapping: all its bytes (for record_starts.hpp); empty for streamed input.
  std::string_view mapped_text() const;

  // Checks that sequences are DNA or RNA (on from the next record; callers that read references and queries turn it
  // on, the read paths of facs classify do not). A record in which at least a tenth of its (10 or more) characters
  // are letters of protein only (E F I J L O P Q Z) is refused as a protein sequence (DataError naming record and
  // line); other characters that are no nucleotide code (those letters in fewer numbers, X, '-', '*', '.') are
  // counted in foreign_letters() and read as N by the encoders (blastn drops them instead, with a warning).
  void check_nucleotide_letters(bool on = true);
  const ForeignLetters& foreign_letters() const;
  const std::string& path() const { return path_; }
  uint64_t records_read() const { return records_; }
  bool is_fastq() const;  // meaningful after the first record

 private:
  friend class SequenceChunk;
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string path_;
  uint64_t records_ = 0;
};

// Records cut by SequenceReader::next_chunk. A mapped file's bytes stay in the reader's mapping: the reader must
// outlive the chunk's parsing.
class SequenceChunk {
 public:
  SequenceChunk();
  ~SequenceChunk();
  SequenceChunk(SequenceChunk&&) noexcept;
  SequenceChunk& operator=(SequenceChunk&&) noexcept;

  // Parses every record of the chunk into `batch` (cleared first; its strings' capacity is reused) and returns
  // the count. Throws DataError at the first malformed record, with the message SequenceReader::next gives.
  size_t parse(std::vector<SequenceRecord>& batch);
  size_t records() const;  // records in the chunk

 private:
  friend class SequenceReader;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Reads a whole file (convenience for queries and references, which fit in memory).
std::vector<SequenceRecord> read_all_sequences(const std::string& path);
// The same with check_nucleotide_letters on: a protein record is refused, other foreign characters reported.
std::vector<SequenceRecord> read_all_nucleotide_sequences(const std::string& path, ForeignLetters& foreign);

}  // namespace bloomseq
