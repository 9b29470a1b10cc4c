// The database as stage 1a sees it: records streamed in batches of whole records, concatenated into one 2-bit
// code stream with an invalid code after every record (so no w-mer spans two records), then cut into chunks of
// `chunk_bases` w-mer starts that carry w-1 extra bases of overlap.
// A record longer than a batch can instead come in overlapping windows, one batch each (DbBatch::window,
// DatabaseReader::window_long_records), so that memory follows the batch size rather than the record's length.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bloomseq/backend/stage1a.hpp"
#include "bloomseq/blast/subject_bases.hpp"
#include "bloomseq/io/sequence_reader.hpp"
#include "bloomseq/encode/dna.hpp"

namespace bloomseq {

// An allocator whose resize leaves new bytes uninitialised: a batch's codes are written in full right after (a zero
// fill of every batch cost as much as decoding a .2bit database).
template <class T>
struct UninitializedAllocator : std::allocator<T> {
  using value_type = T;
  template <class U>
  struct rebind {
    using other = UninitializedAllocator<U>;
  };
  UninitializedAllocator() = default;
  template <class U>
  UninitializedAllocator(const UninitializedAllocator<U>&) {}
  template <class U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

// Appends the runs of lower-case letters of s[0, n), which starts at position `at`, to `runs` ([begin, end), joined
// to the last run where they touch).
void add_lowercase_runs(const char* s, size_t n, uint64_t at, std::vector<std::pair<uint64_t, uint64_t>>& runs);

struct DbBatch {
  std::vector<std::string> names;       // record names (first word of the header)
  std::vector<uint64_t> lengths;        // bases per record
  std::vector<uint64_t> local_starts;   // where each record starts in `codes`
  std::vector<uint8_t, UninitializedAllocator<uint8_t>> codes;  // records, each followed by kInvalidBase
  uint64_t first_pos = 0;               // stream coordinate of codes[0]
  uint32_t first_record = 0;            // global index of record 0 of this batch
  // Filled only by the .2bit reader when asked (DatabaseReader::keep_packed; empty otherwise, and in a window's
  // batch): the same bases packed 2 bits each (packed_base layout: codes[i] at bits 2 (i % 32) of packed[i / 32];
  // the bits of invalid positions are 0 or T), translated straight from the file's packed bytes, with 8 zero words
  // past the last base; and every position whose code is kInvalidBase, as sorted runs (N blocks, the separator
  // after each record). Stage 1a's exact scan reads these instead of packing the codes again (about a quarter of a
  // 1-kb query's search at w = 28).
  std::vector<uint64_t, UninitializedAllocator<uint64_t>> packed;
  std::vector<CodeRun> invalid_runs;

  // With blastn_bases (set by the reader before the records are added; clear() keeps it): each ambiguity code of a
  // record is read as the base blastn puts there (subject_bases.hpp) instead of kInvalidBase, and `ambiguous` holds
  // those positions (sorted runs, positions in `codes`) with their true codes.
  bool blastn_bases = false;
  std::vector<AmbiguousRun> ambiguous;
  // With lowercase_wanted (set by the reader, as blastn_bases): the runs of lower-case letters of FASTA records,
  // [begin, end) positions in `codes`, sorted. --lcase-masking: blastn -subject masks them too, for seeding only.
  bool lowercase_wanted = false;
  std::vector<std::pair<uint64_t, uint64_t>> lowercase;

  // A window of one record longer than a batch (window.on): the batch holds that record alone, its codes are the
  // record's bases [offset, offset + lengths[0]) (then kInvalidBase) and first_pos is the stream coordinate of base
  // `offset`, so stream coordinates are those of the whole record. The window owns the w-mer starts
  // [own_begin, own_end) (record coordinates; consecutive windows' owned ranges tile the record) and carries at
  // least `margin` bases on either side of them (fewer only at the record's ends): every extension from an owned
  // seed that stage 2 runs stays inside (BlastSearch::window_margin). Offsets are multiples of 4, as blastn's
  // ungapped pre-screen groups bases from the record's start.
  struct Window {
    bool on = false;
    uint64_t offset = 0, own_begin = 0, own_end = 0, record_length = 0;
    bool first() const { return own_begin == 0; }
    bool last() const { return own_end == record_length; }
  };
  Window window;

  void clear();
  // Appends one record given as text (any case; N/IUPAC become kInvalidBase, or blastn's bases: blastn_bases).
  // `encoded`, if given, is called with the bases encoded so far every few Mbases (a chromosome takes a while).
  void add_record(const std::string& name, const std::string& seq,
                  const std::function<void(uint64_t)>& encoded = nullptr);
  // Appends one record whose text comes in pieces (any case; N/IUPAC become kInvalidBase), encoded as it comes:
  // begin_record, append_text..., end_record. `expected_bases`: room reserved up front (0: none); with
  // blastn_bases, the record's length (blastn's random bases are seeded with it).
  void begin_record(const std::string& name, uint64_t expected_bases = 0);
  void append_text(const char* s, size_t n);
  void end_record();
  // Appends a record of `length` bases whose codes fill(out) writes into out[0, length).
  template <class Fill>
  void add_record_codes(const std::string& name, uint64_t length, Fill&& fill) {
    names.push_back(name);
    lengths.push_back(length);
    local_starts.push_back(codes.size());
    const size_t at = codes.size();
    codes.resize(at + length + 1);
    fill(codes.data() + at);
    if (blastn_bases) {
      SubjectBaseResolver resolver(length);
      resolve_subject_codes(codes.data() + at, size_t(length), resolver, at, ambiguous);
    }
    codes[at + length] = kInvalidBase;  // no w-mer spans two records
  }
  size_t size() const { return names.size(); }
  // Index (within the batch) of the record holding local code offset `local`.
  size_t record_at(uint64_t local) const;
  // Stream coordinate of the code after this batch (= first_pos of the next batch).
  uint64_t end_pos() const { return first_pos + codes.size(); }

 private:
  std::optional<SubjectBaseResolver> resolver_;  // the record being appended as text (blastn_bases)
};

// The stage-1a chunks of a batch: chunk i covers w-mer starts [i*chunk_bases, (i+1)*chunk_bases); in a window,
// of the w-mer starts it owns only.
std::vector<DbChunk> chunk_batch(const DbBatch& batch, uint64_t chunk_bases, int w);

// Total size of a database, needed up front for the E-values (blastn uses the whole database's length).
struct DbTotals {
  uint64_t bases = 0;
  uint64_t records = 0;
  uint64_t largest = 0;  // bases of the longest record (a batch holds whole records)
};

// What a plan file keeps of a database (search_plan.hpp) so that a shard needs no counting pass: the totals, the
// layout hash, each record's length and, for a plain file read through its mapping, where each record starts
// (byte offset and lines before it; empty when the file cannot be entered in the middle, e.g. gzip).
struct DbLayout {
  DbTotals totals;
  uint64_t hash = 0;
  uint64_t file_bytes = 0;
  std::vector<uint64_t> lengths, offsets, lines;
};

// Reads a database in batches: FASTA/FASTQ (plain or gzip) or UCSC .2bit. "-" (stdin) is read whole into memory,
// as the totals must be known before the first E-value.
class DatabaseReader {
 public:
  // `counted`, if given, is called with the bases counted so far during the first pass over a FASTA database
  // (every ~1 Mbase, inside long records too).
  explicit DatabaseReader(const std::string& path, const std::function<void(uint64_t)>& counted = nullptr);
  // A database a plan describes: a plain file of the plan's size is not counted again (the totals are the plan's;
  // each record read is checked against the plan's length and a shard starts at its first record's offset). Any
  // other file is read as above, and the caller compares its totals and hash with the plan's.
  DatabaseReader(const std::string& path, const DbLayout& known);
  ~DatabaseReader();
  DatabaseReader(const DatabaseReader&) = delete;
  DatabaseReader& operator=(const DatabaseReader&) = delete;

  // Totals over the whole database (a cheap first pass for FASTA; the index for .2bit).
  const DbTotals& totals() const { return totals_; }
  // Fills `batch` with whole records until it holds at least max_bases bases; false at the end. `progress`, if
  // given, is called with "reading" and the bases of the batch parsed so far (FASTA, inside long records too), then
  // "encoding" and the bases of the record being encoded, every Mbase or so.
  bool next_batch(DbBatch& batch, uint64_t max_bases,
                  const std::function<void(const char*, uint64_t)>& progress = nullptr);
  bool is_twobit() const;
  // Characters of a FASTA database that no nucleotide code has, read as N (the first pass checks every record and
  // refuses a protein one: SequenceReader::check_nucleotide_letters); none for .2bit or a database a plan describes.
  const ForeignLetters& foreign_letters() const { return foreign_; }
  // Records without sequence (a header alone), which no search can hit; `first` gets the first one's number
  // (1-based). blastn warns about them ("Subject sequence contains no data").
  uint64_t empty_records(uint64_t& first) const;
  // About `bases` bases in `pieces` pieces spread evenly over the whole database, each a record of `out` (cut at
  // record ends), read apart from the batches; false (nothing read) unless the database is a .2bit file, the one
  // kind read at any place. For --auto-tune's check: the first batch alone holds what the database starts with.
  bool sample_spread(uint64_t bases, uint64_t pieces, DbBatch& out) const;
  // Whether the batches of a .2bit database also carry their bases packed (DbBatch::packed): only the short-word
  // scan reads them, so the other searches skip the translation and the quarter byte per base. Off by default.
  void keep_packed(bool on);
  // Whether the batches read each ambiguity code as the base blastn puts there (DbBatch::blastn_bases), as a search
  // for HSPs does; off by default (seeds never span an ambiguity code). The tuning sample (sample_spread) never does.
  void blastn_subject_bases(bool on);
  // Whether FASTA batches record their lower-case runs (DbBatch::lowercase); off by default.
  void keep_lowercase(bool on);
  // Whether the reader keeps every record's definition line (name, a blank, comment; a .2bit record's name), for
  // blastn's pairwise report; off by default. title(r): record r's, once read (nullptr before, or when off).
  void keep_titles(bool on);
  const std::string* title(uint64_t record) const;
  // With keep_titles and keep_lowercase: record r's runs of lower-case letters ([begin, end), record coordinates,
  // once read; nullptr for a record without any).
  const std::vector<std::pair<uint64_t, uint64_t>>* lowercase_runs(uint64_t record) const;
  // Whether next_batch parses the file again (a FASTA database too large to keep from the first pass).
  bool parses_again() const;
  // Every record's length, in file order, and a hash of every record's name and length (read with the totals):
  // what a sharded search cuts and fingerprints (shard.hpp).
  const std::vector<uint64_t>& record_lengths() const;
  uint64_t layout_hash() const;
  DbLayout layout() const;  // for a plan file
  // Before the first next_batch: only records [begin, end) are searched; batches keep their global record
  // indices. Records before `begin` are skipped without being encoded (a FASTA file still parses them, unless a
  // plan gave where they end).
  void restrict_records(uint64_t begin, uint64_t end);
  // Before the first next_batch: a record (FASTA plain, gzip or stdin, or .2bit) longer than next_batch's
  // max_bases is not put in a batch whole but handed to `on_window` in windows (DbBatch::window) of max_bases owned
  // bases (rounded up to a multiple of 64) with `margin` bases of context on either side, in order, while
  // next_batch reads it (a .2bit record decoded a slice at a time); next_batch's batches then hold the records
  // around it.
  void window_long_records(uint64_t margin, std::function<void(const DbBatch&)> on_window);

 private:
  // Record r (global index, next in the file) through window_long_records' windows.
  void read_in_windows(uint64_t r, uint64_t max_bases);
  struct Impl;
  std::unique_ptr<Impl> impl_;
  DbTotals totals_;
  ForeignLetters foreign_;
};

}  // namespace bloomseq
