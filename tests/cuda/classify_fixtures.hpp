// Filter banks and read batches for the classify tests: filters over random references, reads taken from them
// (hits), random reads, reads shorter than w, all-N and empty reads.
#pragma once
#include <algorithm>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "bloomseq/backend/classify.hpp"
#include "fixtures.hpp"

namespace fixtures {

struct Bank {
  H3Family family;
  std::vector<std::vector<uint8_t>> refs;
  std::vector<BloomVector> bits;
  std::vector<ClassifyFilter> filters;
  FilterBank view;
};

// Filters of different sizes and k (prime m) over random references.
inline Bank make_bank(std::mt19937_64& rng, int w, const std::vector<std::pair<uint64_t, int>>& shapes, int family_k) {
  Bank b;
  b.family = H3Family(family_k, w, rng());
  for (auto [m, k] : shapes) {
    b.refs.push_back(random_codes(rng, 3000));
    b.bits.emplace_back(m);
    insert_all(b.family, b.bits.back().words().data(), m, k, b.refs.back().data(), b.refs.back().size());
  }
  for (size_t f = 0; f < shapes.size(); ++f) b.filters.push_back({b.bits[f].view(), shapes[f].second});
  b.view = {b.filters.data(), uint32_t(b.filters.size()), &b.family};
  return b;
}

// Reads: pieces of the references (hits), random reads, reads shorter than w, all-N reads, empty reads.
struct Reads {
  std::vector<uint8_t> codes;
  std::vector<uint64_t> offsets{0};
  ReadBatchView view() const { return {codes.data(), offsets.data(), uint32_t(offsets.size() - 1)}; }
  void add(const std::vector<uint8_t>& r) {
    codes.insert(codes.end(), r.begin(), r.end());
    offsets.push_back(codes.size());
  }
};

inline Reads make_reads(std::mt19937_64& rng, const Bank& b, int w, size_t n) {
  Reads reads;
  for (size_t i = 0; i < n; ++i) {
    const size_t kind = rng() % 8;
    size_t len = 20 + rng() % 180;
    std::vector<uint8_t> r;
    if (kind == 0) {
      len = rng() % size_t(w);  // shorter than w (possibly empty)
      r = random_codes(rng, len);
    } else if (kind == 1) {
      r.assign(len, kInvalidBase);
    } else if (kind <= 4) {
      const auto& ref = b.refs[rng() % b.refs.size()];
      const size_t from = rng() % (ref.size() - len);
      r.assign(ref.begin() + std::ptrdiff_t(from), ref.begin() + std::ptrdiff_t(from + len));
      if (rng() & 1) {  // reverse strand
        std::reverse(r.begin(), r.end());
        for (auto& c : r) c = complement_code(c);
      }
      for (size_t e = 0; e < 3; ++e) r[rng() % len] = uint8_t(rng() % 5);  // errors and N
    } else {
      r = random_codes(rng, len, 0.02);
    }
    reads.add(r);
  }
  return reads;
}

}  // namespace fixtures
