// Sharded searches (--db-shard I/N, --query-shard J/M): how a database or a query is cut into N contiguous parts
// of whole records, and the fingerprint that ties the parts of one search together so that `blast-bloom merge`
// can check them and rebuild the single run's output exactly (merge_parts.hpp).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "bloomseq/split/shard_spec.hpp"

namespace bloomseq {

// The cut of records of the given lengths into `count` contiguous parts balanced by bases: record r, whose bases
// span [P, P + L) of the total T, goes to part floor((2P + L) * count / 2T) (its midpoint's part; with T = 0 to
// part floor(r * count / R)). Returns count + 1 boundaries: part i (0-based) holds records [b[i], b[i+1]).
// A part may be empty (more parts than records, or a record longer than T / count).
std::vector<uint64_t> shard_boundaries(const std::vector<uint64_t>& lengths, uint32_t count);

// 64-bit FNV-1a, to fingerprint the inputs (not cryptographic: it catches mix-ups, not forgeries).
class Fnv64 {
 public:
  void add(const void* data, size_t n);
  void add(const std::string& s) {
    add(s.data(), s.size());
    add("\n", 1);  // separator: "ab"+"c" differs from "a"+"bc"
  }
  void add(uint64_t v) { add(&v, sizeof v); }
  uint64_t value() const { return h_; }

 private:
  uint64_t h_ = 1469598103934665603ull;
};

// A double as C's hex-float text ("%a"): read back with strtod bit for bit.
std::string hex_double(double x);

}  // namespace bloomseq
