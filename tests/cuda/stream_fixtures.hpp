// Streamed stage-1a input and output for the backend tests: a database cut into chunks, and a stream run that
// checks the chunk order and keeps each chunk's hits.
#pragma once
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "bloomseq/backend/backend.hpp"

namespace fixtures {

using namespace bloomseq;

// Chunks of lens[i % lens.size()] starts, each with the w-1 tail bases the database has, at most max_chunks.
inline std::vector<DbChunk> chunks_of(const std::vector<uint8_t>& db, int w, const std::vector<uint64_t>& lens,
                                      size_t max_chunks = SIZE_MAX) {
  std::vector<DbChunk> out;
  for (uint64_t at = 0; at < db.size() && out.size() < max_chunks;) {
    DbChunk c;
    c.codes = db.data() + at;
    c.n_starts = std::min<uint64_t>(lens[out.size() % lens.size()], db.size() - at);
    c.n = std::min<uint64_t>(c.n_starts + uint64_t(w) - 1, db.size() - at);
    c.first_pos = at;
    c.w = w;
    at += c.n_starts;
    out.push_back(c);
  }
  return out;
}

// Each chunk's hits; the sink must see the chunks in input order (std::logic_error otherwise).
inline std::vector<std::vector<Stage1aHit>> run_stage1a_stream(Backend& b, const SubqueryVectors& v,
                                                               const std::vector<DbChunk>& chunks) {
  std::vector<std::vector<Stage1aHit>> out;
  size_t next = 0;
  b.stage1a_stream(
      v,
      [&](DbChunk& c) {
        if (next == chunks.size()) return false;
        c = chunks[next++];
        return true;
      },
      [&](uint64_t index, std::vector<Stage1aHit>& hits) {
        if (index != out.size()) throw std::logic_error("chunks emitted out of order");
        out.push_back(hits);
      });
  return out;
}

}  // namespace fixtures
