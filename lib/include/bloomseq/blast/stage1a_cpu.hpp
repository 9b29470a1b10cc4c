// Stage 1a on the CPU: every database w-mer of a chunk against every sub-query vector. All functions append the
// hits of one chunk sorted by (db_pos, subquery) — the order every backend returns — and return the number of
// valid database w-mers they tested (w-mers with an invalid base are not tested). With `stride` > 1 only the w-mers
// starting at a stream coordinate that is a multiple of it are tested (the probes of BlastParams::probe_word).
#pragma once
#include <cstdint>
#include <vector>

#include "bloomseq/backend/stage1a.hpp"
#include "bloomseq/blast/subquery_vectors.hpp"

namespace bloomseq {

// The paper's vector-by-vector layout, the reference for the model and for the GPU shared-memory kernel:
// hashes of each database w-mer computed once, then each vector probed in turn (early exit on a zero bit).
uint64_t stage1a_vector_layout(const SubqueryVectors& vectors, const DbChunk& chunk, std::vector<Stage1aHit>& hits,
                           uint64_t stride = 1);

// Vectors that are exact sets (BlastParams::exact_filter: k = 1, m = 4^w, the injective H3 function, so a key's
// bit is the key itself): no hashing, one bit read per vector and tested w-mer, straight from the rolling scan.
// Returns what stage1a_vector_layout returns for those vectors.
uint64_t stage1a_exact(const SubqueryVectors& vectors, const DbChunk& chunk, std::vector<Stage1aHit>& hits,
                       uint64_t stride = 1);

// The exact filters re-indexed for the scan: one bit per p-mer of either strand, addressed by the word's codes packed
// first base lowest (sum b_j 4^j, what a load of the chunk's code bytes gives after three shift-or steps). A database
// word then needs neither its reverse complement nor its canonical form: x is in S or rc(S) exactly when its
// canonical form is in the canonical set S. Built once per search (4^p bits per sub-query, p <= 12).
struct ExactScanTables {
  std::vector<uint64_t> bits;  // sub-query v's table at bits[v * words_per_table]
  uint64_t words_per_table = 0;
  uint32_t count = 0;
  int p = 0;
};
ExactScanTables make_exact_scan_tables(const SubqueryVectors& vectors, int p);

// stage1a_exact on prepared tables (the backend's path; the overload above builds them per call).
uint64_t stage1a_exact(const ExactScanTables& tables, const DbChunk& chunk, std::vector<Stage1aHit>& hits,
                       uint64_t stride = 1);

// The instruction set stage1a_exact uses for one sub-query: "avx512" (with VBMI) or "scalar". Forcing "scalar"
// (tests compare both paths; "" restores the best) returns false for a name this CPU cannot run.
const char* exact_scan_isa();
bool force_exact_scan_isa(const char* isa);

// The paper's Algorithm 1 literally: for each vector, for each w-mer, each hash function evaluated when probed.
uint64_t stage1a_paper_vector(const SubqueryVectors& vectors, const DbChunk& chunk, std::vector<Stage1aHit>& hits,
                           uint64_t stride = 1);

// The bit-sliced layout: k row reads per w-mer ANDed 64 columns (or 256/512 with AVX2/AVX-512) at a time.
uint64_t stage1a_bitsliced(const BitslicedMatrix& matrix, const DbChunk& chunk, std::vector<Stage1aHit>& hits,
                           uint64_t stride = 1);

// Which SIMD path stage1a_bitsliced takes on this CPU ("avx512", "avx2" or "scalar").
const char* bitsliced_isa();
// Forces a path for tests and benchmarks ("avx512", "avx2", "scalar", or "" for the best available).
// Returns false if the CPU lacks it.
bool force_bitsliced_isa(const char* isa);

}  // namespace bloomseq
