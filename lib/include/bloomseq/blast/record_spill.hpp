// The codes of a record searched in windows (DbBatch::window), kept for stage 3: the gapped extensions of a
// record's gap triggers are decided together (each against the alignments found before it) once all of its
// windows are through stage 2, and an X-drop alignment with gaps has no bound on its reach that this search
// relies on. So every window's owned codes are appended to an unlinked temporary file (in $TMPDIR, else /tmp: the
// pages sit in the page cache, not in this process's memory) and stage 3 reads the whole record through a read-only
// mapping of it (written out and dropped from the page cache first, then read a page at a time without
// read-ahead): the alignments see exactly the codes the whole record has, and only the pages around the triggers
// are read and count as this process's memory.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "bloomseq/blast/subject_bases.hpp"  // AmbiguousRun

namespace bloomseq {

class RecordSpill {
 public:
  RecordSpill();  // an empty file
  ~RecordSpill();
  RecordSpill(const RecordSpill&) = delete;
  RecordSpill& operator=(const RecordSpill&) = delete;

  void append(const uint8_t* codes, size_t n);
  uint64_t size() const { return size_; }
  // The codes appended so far, mapped read-only (valid until the next append or the destructor).
  const uint8_t* map();
  // After map(): the same codes with the true codes at `ambiguous` (sorted runs): the true codes of a record read with
  // blastn's bases (subject_bases.hpp), for the final alignments. A private mapping of the same file: only the pages
  // those runs touch are copied. The map() pointer when there are none. Valid as long as map()'s.
  const uint8_t* map_true(const std::vector<AmbiguousRun>& ambiguous);
  // After map(): starts reading the pages of these code ranges [first, second) back at once (sorted, merged), so
  // that stage 3 waits on one batch of reads instead of on one read per fault.
  void prefetch(std::vector<std::pair<uint64_t, uint64_t>> ranges);

 private:
  void unmap();
  std::string dir_;
  int fd_ = -1;
  uint64_t size_ = 0;
  void* mapped_ = nullptr;
  size_t mapped_bytes_ = 0;
  void* true_mapped_ = nullptr;  // map_true's
};

}  // namespace bloomseq
