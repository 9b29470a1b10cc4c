// UCSC .2bit files (https://genome.ucsc.edu/FAQ/FAQformat.html#format7): the database encoded once.
// N blocks and soft-mask (lower-case) blocks are preserved, so FASTA -> .2bit -> FASTA is exact.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bloomseq/io/sequence_reader.hpp"

namespace bloomseq {

// True if the file starts with the .2bit signature (either byte order).
bool is_twobit_file(const std::string& path);

class TwoBitReader {
 public:
  // Opens and validates the header and index (signature, version, record count, offsets within the file).
  // Throws NoInputError / DataError naming the file and, where relevant, the record.
  // `populate`: map the whole file's pages up front (fast decoding of all of it); false for a reader of a few
  // records (a shard), whose pages are then read as they are decoded.
  explicit TwoBitReader(const std::string& path, bool populate = true);
  ~TwoBitReader();
  TwoBitReader(const TwoBitReader&) = delete;
  TwoBitReader& operator=(const TwoBitReader&) = delete;

  size_t size() const;
  const std::string& name(size_t i) const;
  uint64_t length(size_t i) const;  // reads the record's header on first use
  // The record as text: ACGT, N in N blocks, lower case in mask blocks.
  std::string sequence(size_t i);
  SequenceRecord record(size_t i);
  // The record's bases as 2-bit codes (encode/dna.hpp: A=0 C=1 G=2 T=3, kInvalidBase in N blocks) into
  // out[0, length(i)): decoded straight from the file's memory mapping (no read into a buffer, no text), a table
  // look-up per packed byte.
  void codes(size_t i, uint8_t* out);
  // Bases [from, from + n) of the record the same way into out[0, n); `from` a multiple of 4.
  void codes(size_t i, uint64_t from, uint64_t n, uint8_t* out);
  // The record's bases packed 2 bits each in the packed_base layout (encode/dna.hpp: A=0 C=1 G=2 T=3), base j at
  // position at + j of `words`: the bits before `at` in its word are kept, the rest written up to the word after
  // the record's last base, zero past that base (size `words` for at + length(i) bases plus two words). Returns the
  // index one past the last word written. Translated byte by byte from the file's packed bases, never decoded;
  // N-block bases come out as T (n_runs lists them).
  uint64_t packed(size_t i, uint64_t* words, uint64_t at);
  // The record's N blocks as [start, end) base ranges, ascending.
  std::vector<std::pair<uint64_t, uint64_t>> n_runs(size_t i);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Writes records as .2bit through a temporary file renamed on success. Names must be unique and <= 255 bytes.
// Bases other than ACGTN (any case) are stored as N, as UCSC's faToTwoBit does; throws DataError naming the
// record if that would lose information and `allow_lossy` is false.
void write_twobit(const std::string& path, const std::vector<SequenceRecord>& records, bool allow_lossy = false);

}  // namespace bloomseq
