#include "bloomseq/facs/filter_builder.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "bloomseq/bloom/blocked_bloom.hpp"
#include "bloomseq/encode/dna.hpp"
#include "bloomseq/error.hpp"
#include "bloomseq/hash/h3.hpp"

namespace bloomseq {
namespace {

template <class F>
void for_each_canonical(const std::vector<std::string_view>& seqs, int w, F&& f) {
  for (std::string_view s : seqs) {
    WmerRoller r(w);
    for (char c : s)
      if (r.push(base_code(c))) f(canonical_wmer(r.fwd, r.rc));
  }
}

// Progress every 256 K units (a few ms of work: the line moves even when the process gets a small share of a busy
// machine).
constexpr uint64_t kReportEvery = uint64_t(1) << 18;

// for_each_canonical with progress in bases.
template <class F>
void for_each_canonical_reporting(const std::vector<std::string_view>& seqs, int w, const BuildProgress& progress,
                                  const char* phase, F&& f) {
  if (!progress) return for_each_canonical(seqs, w, f);
  uint64_t total = 0, done = 0;
  for (std::string_view s : seqs) total += s.size();
  for (std::string_view s : seqs)
    for (size_t from = 0; from < s.size(); from += kReportEvery) {
      // A slice's w-mers are those ending in it: the roller starts w - 1 bases early and first yields at `from`.
      const size_t start = from >= size_t(w - 1) ? from - size_t(w - 1) : 0;
      const size_t to = std::min(s.size(), from + kReportEvery);
      WmerRoller r(w);
      for (size_t i = start; i < to; ++i)
        if (r.push(base_code(s[i]))) f(canonical_wmer(r.fwd, r.rc));
      done += to - from;
      progress(phase, done, total);
    }
}

// Sorts and deduplicates k-mer keys in place with progress: partitioned by their top 8 bits (American flag sort,
// two passes), then bucket by bucket, each a small sort (a bucket holds every copy of its keys). A single sort of
// a large genome's keys takes minutes without a sign of life; this takes about as long with progress throughout.
void sort_unique_reporting(std::vector<uint64_t>& keys, int w, const BuildProgress& progress, const char* phase) {
  const int shift = std::max(0, 2 * w - 8);
  const uint64_t n = keys.size(), work = 3 * n;  // counting, moving, sorting
  uint64_t done = 0;
  auto tick = [&] {
    if (progress && ++done % kReportEvery == 0) progress(phase, done, work);
  };
  std::vector<size_t> start(257, 0);
  for (uint64_t k : keys) {
    ++start[size_t(k >> shift) + 1];
    tick();
  }
  for (size_t b = 0; b < 256; ++b) start[b + 1] += start[b];
  std::vector<size_t> next(start.begin(), start.end() - 1);
  for (size_t b = 0; b < 256; ++b)
    while (next[b] < start[b + 1]) {  // follow the cycle from the first misplaced key of bucket b
      uint64_t v = keys[next[b]];
      for (size_t d = size_t(v >> shift); d != b; d = size_t(v >> shift)) {
        std::swap(v, keys[next[d]++]);
        tick();
      }
      keys[next[b]++] = v;
      tick();
    }
  size_t out = 0;
  for (size_t b = 0; b < 256; ++b) {
    const auto first = keys.begin() + long(start[b]), last = keys.begin() + long(start[b + 1]);
    std::sort(first, last);
    const auto end = std::unique(first, last);
    if (out != start[b]) std::move(first, end, keys.begin() + long(out));  // down, into the room of dropped copies
    out += size_t(end - first);
    done += start[b + 1] - start[b];
    if (progress) progress(phase, done, work);
  }
  keys.resize(out);
}

void check_word_size(int w) {
  if (w < 1 || w > kMaxWordSize) throw UsageError("k-mer size must be 1..32, got " + std::to_string(w));
}

}  // namespace

std::vector<uint64_t> distinct_canonical_wmers(const std::vector<std::string_view>& seqs, int w) {
  check_word_size(w);
  size_t total = 0;
  for (std::string_view s : seqs) total += s.size();
  std::vector<uint64_t> keys;
  keys.reserve(total);
  for_each_canonical(seqs, w, [&](uint64_t key) { keys.push_back(key); });
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

uint64_t estimate_distinct_wmers(const std::vector<std::string_view>& seqs, int w, const BuildProgress& progress) {
  check_word_size(w);
  constexpr int p = 14;
  constexpr uint32_t registers = 1u << p;
  std::vector<uint8_t> reg(registers, 0);
  for_each_canonical_reporting(seqs, w, progress, "estimating k-mers of", [&](uint64_t key) {
    const uint64_t h = SplitMix64(key).next();  // a strong 64-bit mix of the key
    const uint32_t idx = uint32_t(h >> (64 - p));
    const uint64_t rest = (h << p) | (uint64_t(1) << (p - 1));  // guard bit keeps the rank bounded
    const uint8_t rank = uint8_t(__builtin_clzll(rest) + 1);
    if (rank > reg[idx]) reg[idx] = rank;
  });
  double sum = 0;
  uint32_t zeros = 0;
  for (uint8_t r : reg) {
    sum += std::ldexp(1.0, -int(r));
    zeros += r == 0;
  }
  const double m = registers;
  const double alpha = 0.7213 / (1.0 + 1.079 / m);
  double e = alpha * m * m / sum;
  if (e <= 2.5 * m && zeros > 0) e = m * std::log(m / double(zeros));  // small-range (linear counting) correction
  return uint64_t(std::llround(e));
}

void size_filter(uint64_t n, const BuildParams& p, uint64_t& m_bits, int& k) {
  if (p.layout == BloomLayout::blocked512) {
    // Sized by the blocked formula so that the predicted FPR still meets --fpr.
    m_bits = p.m_bits ? round_up_to_blocks(p.m_bits) : blocked_bits_for_fpr(std::max<uint64_t>(n, 1), p.fpr);
    if (m_bits > kMaxBloomBits)
      throw UsageError("filter for " + std::to_string(n) + " k-mers at FPR " + std::to_string(p.fpr) +
                       " needs more than 2^32 bits; raise --fpr or split the reference (--per-record)");
    k = p.hashes ? p.hashes : blocked_optimal_hashes(std::max<uint64_t>(n, 1), m_bits);
    if (k < 1 || k >= kMaxHashes)
      throw UsageError("a blocked filter needs 1.." + std::to_string(kMaxHashes - 1) + " hash functions, got " +
                       std::to_string(k));
    return;
  }
  m_bits = p.m_bits ? p.m_bits : bits_for_fpr(std::max<uint64_t>(n, 1), p.fpr);
  if (m_bits > kMaxBloomBits)
    throw UsageError("filter for " + std::to_string(n) + " k-mers at FPR " + std::to_string(p.fpr) +
                     " needs more than 2^32 bits; raise --fpr or split the reference (--per-record)");
  k = p.hashes ? p.hashes : optimal_hashes(std::max<uint64_t>(n, 1), m_bits);
  if (k < 1 || k > kMaxHashes) throw UsageError("number of hash functions must be 1..32, got " + std::to_string(k));
}

FilterEntry build_filter(const std::vector<std::string_view>& seqs, const BuildParams& p, const std::string& name,
                         const std::string& source, const BuildProgress& progress) {
  check_word_size(p.w);
  FilterEntry f;
  f.name = name;
  f.source = source;
  for (std::string_view s : seqs) f.source_length += s.size();

  // Exact count: all keys, sorted and deduplicated with progress (sort_unique_reporting).
  std::vector<uint64_t> keys;
  if (p.count == KmerCount::exact) {
    keys.reserve(f.source_length);
    for_each_canonical_reporting(seqs, p.w, progress, "reading k-mers of", [&](uint64_t key) { keys.push_back(key); });
    sort_unique_reporting(keys, p.w, progress, "sorting k-mers of");
    f.elements = keys.size();
  } else {
    f.elements = estimate_distinct_wmers(seqs, p.w, progress);
  }
  uint64_t m = 0;
  size_filter(f.elements, p, m, f.k);
  f.bits = BloomVector(m);
  f.layout = p.layout;

  const bool blocked = p.layout == BloomLayout::blocked512;
  const H3Family family(layout_hashes(p.layout, f.k), p.w, p.seed);
  const H3ByteView hv = family.byte_view();
  BloomView view = f.bits.view();
  const BlockedBloomView blocked_view{view.words, view.m_bits};
  uint32_t h[kMaxHashes];
  auto insert = [&](uint64_t key) {
    hv.hash_all(key, h);
    if (blocked) blocked_view.insert(h, f.k);
    else view.insert(h, f.k);
  };
  if (p.count == KmerCount::exact) {
    for (size_t i = 0; i < keys.size(); ++i) {
      insert(keys[i]);
      if (progress && (i + 1) % kReportEvery == 0) progress("inserting k-mers of", i + 1, keys.size());
    }
  } else {
    for_each_canonical_reporting(seqs, p.w, progress, "inserting k-mers of", insert);
  }
  return f;
}

FilterSet make_filter_set(const BuildParams& p, const std::string& command_line) {
  check_word_size(p.w);
  FilterSet set;
  set.w = p.w;
  set.seed = p.seed;
  set.canonical = true;
  set.command_line = command_line;
  return set;
}

void check_compatible(const FilterSet& set, const BuildParams& p, const std::string& path) {
  if (set.w != p.w)
    throw UsageError(path + ": filters use k-mer size " + std::to_string(set.w) + ", this run asked for " +
                     std::to_string(p.w) + " (pass -w " + std::to_string(set.w) + ")");
  if (set.seed != p.seed) throw UsageError(path + ": filters use a different hash seed than this run");
  if (!set.canonical) throw UsageError(path + ": filters hold non-canonical k-mers; facs needs canonical ones");
}

double predicted_fpr(const FilterEntry& f) {
  const uint64_t m = f.bits.m_bits() ? f.bits.m_bits() : f.m_bits;
  if (f.layout == BloomLayout::blocked512) return blocked_expected_fpr(f.elements, m, f.k);
  return expected_fpr(f.elements, m, f.k);
}
double fill_fpr(const FilterEntry& f) {
  if (f.layout != BloomLayout::blocked512) return fpr_from_fill(f.bits.fill_fraction(), f.k);
  // Blocks fill unevenly, so fill^k understates a blocked filter's FPR: infer the key count the fill implies
  // (fill = 1 - (1 - 1/m)^(k n)) and apply the blocked formula to it.
  const double fill = f.bits.fill_fraction();
  const double m = double(f.bits.m_bits());
  if (fill <= 0.0) return 0.0;
  if (fill >= 1.0) return 1.0;
  const double n = std::log1p(-fill) / (double(f.k) * std::log1p(-1.0 / m));
  return blocked_expected_fpr(uint64_t(std::llround(n)), f.bits.m_bits(), f.k);
}

}  // namespace bloomseq
