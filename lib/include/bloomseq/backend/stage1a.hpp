// The stage-1a problem (Mercury BLAST): test every database w-mer against every sub-query Bloom vector.
// Plain data shared by every backend (CPU layouts, CUDA kernels, the emulator); nothing here owns memory.
//
// The database is streamed as chunks of 2-bit codes (kInvalidBase for N/IUPAC and between records, so no w-mer
// spans two records). A chunk reports the w-mers that START in its first `n_starts` bases; it carries w-1 extra
// bases so the last of them are complete. Hits are (db_pos, subquery) pairs with db_pos in the coordinates of the
// concatenated database stream; every backend returns them sorted by (db_pos, subquery).
#pragma once
#include <cstdint>

#include "bloomseq/hd.hpp"
#include "bloomseq/hash/h3.hpp"

namespace bloomseq {

// V sub-query vectors of m bits each, stored one after another (vector v starts at words + v * words_per_vector).
// All share the k H3 functions (hash a w-mer once, probe many vectors). Keys are canonical w-mers.
struct SubqueryVectors {
  const uint32_t* words = nullptr;
  uint32_t count = 0;
  uint64_t m_bits = 0;
  uint64_t words_per_vector = 0;
  int k = 0;
  H3ByteView hash;  // byte tables of the shared H3 family
};

// Bit-sliced form of V vectors: row r holds bit r of every vector, column v = vector v. Stored column block by
// column block: `full_blocks` blocks of 512 columns (m_bits rows of 8 words, one 64-byte line per row), then, when
// the last 1..256 columns need less than a full block (or V <= 256), a narrow block of `tail_words` = 1, 2 or 4
// words per row. Block b's row r is at rows + b * m_bits * 8 + r * 8; the narrow block's at
// rows + full_blocks * m_bits * 8 + r * tail_words.
struct BitslicedMatrix {
  const uint64_t* rows = nullptr;
  uint32_t count = 0;              // V
  uint64_t m_bits = 0;
  uint64_t words_per_row = 0;      // words of one row over all blocks: full_blocks * 8 + tail_words
  uint64_t full_blocks = 0;
  uint64_t tail_words = 0;         // 0 (no narrow block), 1, 2 or 4
  int k = 0;
  H3ByteView hash;

  const uint64_t* block(uint64_t b) const { return rows + b * m_bits * 8; }
  const uint64_t* tail() const { return rows + full_blocks * m_bits * 8; }
};

// A run of positions [begin, end) (of a batch's codes: an N block, a record's separator).
struct CodeRun {
  uint64_t begin = 0, end = 0;
};

struct DbChunk {
  const uint8_t* codes = nullptr;  // n bases of 2-bit codes (kInvalidBase breaks windows)
  uint64_t n = 0;
  uint64_t n_starts = 0;  // w-mers starting at codes[0 .. n_starts) belong to this chunk (n >= n_starts + w - 1)
  uint64_t first_pos = 0;  // stream coordinate of codes[0]
  int w = 0;
  // Only the w-mers starting at a stream coordinate that is a multiple of `stride` are tested: the probe words at a
  // stride (BlastParams::probe_word). Backends (backend.hpp) honour it; the CPU layouts (stage1a_cpu.hpp) take
  // their stride as an argument instead. 0 counts as 1.
  uint64_t stride = 1;
  // Optional, from a .2bit database (DbBatch::packed): the batch's bases packed 2 bits each (packed_base layout),
  // codes[i] at base packed_at + i, and the batch's invalid runs (sorted, in the same base numbering). Scans that
  // read packed words use them instead of packing the codes again; null: pack the codes.
  const uint64_t* packed = nullptr;
  uint64_t packed_at = 0;
  const CodeRun* invalid_runs = nullptr;
  size_t n_invalid_runs = 0;
};

// The tested starts of a chunk are first_tested(c) + i * stride for i < tested_starts(c), all below n_starts.
BLOOMSEQ_HD uint64_t chunk_stride(const DbChunk& c) { return c.stride ? c.stride : 1; }
BLOOMSEQ_HD uint64_t first_tested(const DbChunk& c) {
  const uint64_t s = chunk_stride(c);
  return (s - c.first_pos % s) % s;
}
BLOOMSEQ_HD uint64_t tested_starts(const DbChunk& c) {
  const uint64_t s = chunk_stride(c), at = first_tested(c);
  return c.n_starts > at ? (c.n_starts - at + s - 1) / s : 0;
}

struct Stage1aHit {
  uint64_t db_pos;    // stream coordinate of the w-mer's first base
  uint32_t subquery;  // index of the vector that answered "maybe"

  BLOOMSEQ_HD bool operator<(const Stage1aHit& o) const {
    return db_pos < o.db_pos || (db_pos == o.db_pos && subquery < o.subquery);
  }
  BLOOMSEQ_HD bool operator==(const Stage1aHit& o) const { return db_pos == o.db_pos && subquery == o.subquery; }
};

}  // namespace bloomseq
