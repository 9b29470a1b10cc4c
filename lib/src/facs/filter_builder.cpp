#include "bloomseq/facs/filter_builder.hpp"

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <exception>
#include <mutex>
#include <thread>
#include <utility>

#include "bloomseq/bloom/blocked_bloom.hpp"
#include "bloomseq/encode/dna.hpp"
#include "bloomseq/error.hpp"
#include "bloomseq/hash/h3.hpp"
#include "bloomseq/io/sequence_reader.hpp"

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

// Partitions keys[first, last) in place by the 8 bits at `shift` (American flag sort: count, then follow each
// cycle of misplaced keys); returns the 257 bucket bounds, offsets from `first`. tick() after every key counted or
// moved.
template <class Tick>
std::vector<size_t> flag_partition(uint64_t* keys, size_t n, int shift, Tick&& tick) {
  std::vector<size_t> start(257, 0);
  for (size_t i = 0; i < n; ++i) {
    ++start[size_t((keys[i] >> shift) & 255) + 1];
    tick();
  }
  for (size_t b = 0; b < 256; ++b) start[b + 1] += start[b];
  std::vector<size_t> next(start.begin(), start.end() - 1);
  for (size_t b = 0; b < 256; ++b)
    while (next[b] < start[b + 1]) {  // follow the cycle from the first misplaced key of bucket b
      uint64_t v = keys[next[b]];
      for (size_t d = size_t((v >> shift) & 255); d != b; d = size_t((v >> shift) & 255)) {
        std::swap(v, keys[next[d]++]);
        tick();
      }
      keys[next[b]++] = v;
      tick();
    }
  return start;
}

// Sorts and deduplicates k-mer keys in place with progress: partitioned by their top 8 bits, each part again by the
// next 8 (flag_partition), then the 65,536 small parts sorted one by one (a part holds every copy of its keys). A
// single sort of a large genome's keys takes minutes without a sign of life, and so does a sort of one of 256
// parts of a gigabase's keys at a busy moment; this takes about as long with progress throughout.
void sort_unique_reporting(std::vector<uint64_t>& keys, int w, const BuildProgress& progress, const char* phase) {
  const int shift = std::max(0, 2 * w - 8), shift2 = std::max(0, shift - 8);
  const uint64_t n = keys.size(), work = 5 * n;  // counting and moving twice, sorting
  uint64_t done = 0;
  auto tick = [&] {
    if (progress && ++done % kReportEvery == 0) progress(phase, done, work);
  };
  const std::vector<size_t> start = flag_partition(keys.data(), keys.size(), shift, tick);
  size_t out = 0;
  for (size_t b = 0; b < 256; ++b) {
    uint64_t* const part = keys.data() + start[b];
    const size_t len = start[b + 1] - start[b];
    // Short keys (2w <= 8) have no second byte to split on: the whole part is one sub-part.
    std::vector<size_t> sub = {0, len};
    if (shift > 0) sub = flag_partition(part, len, shift2, tick);
    else done += 2 * len;
    for (size_t c = 0; c + 1 < sub.size(); ++c) {
      uint64_t* const first = part + sub[c];
      uint64_t* const last = part + sub[c + 1];
      std::sort(first, last);
      uint64_t* const end = std::unique(first, last);
      if (keys.data() + out != first) std::move(first, end, keys.data() + out);  // down, into dropped copies' room
      out += size_t(end - first);
      done += size_t(last - first);
      if (progress && (c & 15) == 15) progress(phase, done, work);
    }
    if (progress) progress(phase, done, work);
  }
  keys.resize(out);
}

void check_word_size(int w) {
  if (w < 1 || w > kMaxWordSize) throw UsageError("k-mer size must be 1..32, got " + std::to_string(w));
}

// HyperLogLog over canonical k-mer keys, 2^14 registers. Registers of disjoint parts merge by maximum, so a count
// split over threads equals the serial one exactly.
constexpr int kHllBits = 14;
constexpr uint32_t kHllRegisters = 1u << kHllBits;

inline void hll_add(uint8_t* reg, uint64_t key) {
  const uint64_t h = SplitMix64(key).next();  // a strong 64-bit mix of the key
  const uint32_t idx = uint32_t(h >> (64 - kHllBits));
  const uint64_t rest = (h << kHllBits) | (uint64_t(1) << (kHllBits - 1));  // guard bit keeps the rank bounded
  const uint8_t rank = uint8_t(__builtin_clzll(rest) + 1);
  if (rank > reg[idx]) reg[idx] = rank;
}

uint64_t hll_estimate(const std::vector<uint8_t>& reg) {
  constexpr uint32_t registers = kHllRegisters;
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

std::string gigabytes(uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f GB", double(bytes) / 1e9);
  return buf;
}

// Runs fn(thread, record, from, to) over slices of the records' bases on `threads` threads (the caller is one).
// A slice owns the w-mers ending in [from, to): its roller starts w - 1 bases early.
template <class Fn>
void parallel_slices(const std::vector<SequenceRecord>& recs, int threads, Fn&& fn) {
  constexpr size_t kSlice = size_t(1) << 20;
  std::vector<std::pair<size_t, size_t>> slices;  // (record, from)
  for (size_t r = 0; r < recs.size(); ++r)
    for (size_t from = 0; from < recs[r].seq.size(); from += kSlice) slices.emplace_back(r, from);
  std::atomic<size_t> next{0};
  std::exception_ptr error;
  std::mutex error_mu;
  auto work = [&](int t) {
    try {
      for (size_t i; (i = next.fetch_add(1)) < slices.size();) {
        const auto [r, from] = slices[i];
        fn(t, recs[r].seq, from, std::min(recs[r].seq.size(), from + kSlice));
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mu);
      if (!error) error = std::current_exception();
      next = slices.size();
    }
  };
  const int n = std::max(1, std::min<int>(threads, int(slices.size())));
  std::vector<std::thread> pool;
  for (int t = 1; t < n; ++t) pool.emplace_back(work, t);
  work(0);
  for (std::thread& th : pool) th.join();
  if (error) std::rethrow_exception(error);
}

template <class F>
void for_each_canonical_in(std::string_view s, size_t from, size_t to, int w, F&& f) {
  WmerRoller r(w);
  for (size_t i = from >= size_t(w - 1) ? from - size_t(w - 1) : 0; i < to; ++i)
    if (r.push(base_code(s[i]))) f(canonical_wmer(r.fwd, r.rc));
}

// Sets the bits of one key from several threads at once: OR is the only write, so the result does not depend on
// the order; a bit already set is not written again (most are, late in a build).
inline void atomic_set(uint32_t* word, uint32_t mask) {
  if ((__atomic_load_n(word, __ATOMIC_RELAXED) & mask) != mask) __atomic_fetch_or(word, mask, __ATOMIC_RELAXED);
}

}  // namespace

uint64_t available_memory_bytes() {
  std::FILE* f = std::fopen("/proc/meminfo", "r");
  if (!f) return 0;
  char line[256];
  uint64_t kb = 0;
  while (std::fgets(line, sizeof line, f))
    if (std::sscanf(line, "MemAvailable: %" SCNu64 " kB", &kb) == 1) break;
  std::fclose(f);
  return kb * 1024;
}

void check_filter_memory(uint64_t m_bits, const std::string& name) {
  const uint64_t need = bloom_words(m_bits) * 4;
  const uint64_t have = available_memory_bytes();
  if (have && need > have)
    throw UsageError("filter '" + name + "' needs " + gigabytes(need) + " of memory (" + std::to_string(m_bits) +
                     " bits), only " + gigabytes(have) + " are available; raise --fpr or split the reference "
                     "(--per-record)");
}

void for_each_canonical_wmer(const std::vector<std::string_view>& seqs, int w, const std::function<void(uint64_t)>& fn) {
  check_word_size(w);
  for_each_canonical(seqs, w, fn);
}

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
  std::vector<uint8_t> reg(kHllRegisters, 0);
  for_each_canonical_reporting(seqs, w, progress, "estimating k-mers of", [&](uint64_t key) { hll_add(reg.data(), key); });
  return hll_estimate(reg);
}

void size_filter(uint64_t n, const BuildParams& p, uint64_t& m_bits, int& k) {
  if (p.layout == BloomLayout::blocked512) {
    // Sized by the blocked formula so that the predicted FPR still meets --fpr.
    m_bits = p.m_bits ? round_up_to_blocks(p.m_bits) : blocked_bits_for_fpr(std::max<uint64_t>(n, 1), p.fpr);
    if (m_bits > kMaxBlockedBloomBits)
      throw UsageError("filter for " + std::to_string(n) + " k-mers at FPR " + std::to_string(p.fpr) +
                       " needs more than 2^41 bits; raise --fpr or split the reference (--per-record)");
    k = p.hashes ? p.hashes : blocked_optimal_hashes(std::max<uint64_t>(n, 1), m_bits);
    if (k < 1 || k >= kMaxHashes)
      throw UsageError("a blocked filter needs 1.." + std::to_string(kMaxHashes - 1) + " hash functions, got " +
                       std::to_string(k));
    return;
  }
  m_bits = p.m_bits ? p.m_bits : bits_for_fpr(std::max<uint64_t>(n, 1), p.fpr);
  if (m_bits > kMaxBloomBits)
    throw UsageError("filter for " + std::to_string(n) + " k-mers at FPR " + std::to_string(p.fpr) +
                     " needs more than 2^32 bits, the classic layout's limit; use --layout blocked (up to 2^41), "
                     "raise --fpr or split the reference (--per-record)");
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
  check_filter_memory(m, name);
  f.bits = BloomVector(m, [&](uint64_t done, uint64_t total) {
    if (progress) progress("zeroing the filter of", done, total);
  });
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

FilterEntry build_filter_from_file(const std::string& path, const BuildParams& p, const std::string& name,
                                   int threads, const BuildProgress& progress, ForeignLetters* foreign) {
  check_word_size(p.w);
  if (threads < 1) threads = int(std::max(1u, std::thread::hardware_concurrency()));
  FilterEntry f;
  f.name = name;
  f.source = path;
  f.layout = p.layout;
  constexpr uint64_t kBatchBases = uint64_t(64) << 20;  // records read at a time (a longer record alone)
  // Runs fn(thread, seq, from, to) over every slice of the file, batch by batch; returns the records seen.
  // Progress counts the bases whose slices are done, reported by whichever thread finishes a slice (a chromosome
  // is one batch: minutes of hashing that would otherwise show nothing); while a batch is read the line is
  // redrawn at the count already done.
  bool first_pass = true;
  auto pass = [&](const char* phase, uint64_t total, auto&& fn) {
    SequenceReader reader(path);
    reader.check_nucleotide_letters(first_pass);
    std::vector<SequenceRecord> batch;
    uint64_t records = 0, bases = 0;
    std::atomic<uint64_t> sliced{0};
    std::mutex reporting;
    reader.on_bases([&](uint64_t) {
      if (progress) progress(phase, bases, total);
    });
    while (size_t n = reader.next_batch(batch, kBatchBases)) {
      records += n;
      sliced = 0;
      parallel_slices(batch, threads, [&](int t, std::string_view s, size_t from, size_t to) {
        fn(t, s, from, to);
        const uint64_t done = sliced += to - from;
        if (!progress) return;
        std::unique_lock<std::mutex> lock(reporting, std::try_to_lock);  // the callback is not thread-safe
        if (lock.owns_lock()) progress(phase, bases + done, total);
      });
      for (const SequenceRecord& r : batch) bases += r.seq.size();
      if (progress) progress(phase, bases, total);
    }
    if (first_pass && foreign) *foreign = reader.foreign_letters();
    first_pass = false;
    return std::make_pair(records, bases);
  };

  // Pass 1: the number of distinct k-mers (HyperLogLog per thread, merged), unless -m fixes the size.
  std::vector<std::vector<uint8_t>> regs(size_t(threads), std::vector<uint8_t>(kHllRegisters, 0));
  const auto [records, bases] = pass("estimating k-mers of", 0, [&](int t, std::string_view s, size_t from, size_t to) {
    uint8_t* reg = regs[size_t(t)].data();
    for_each_canonical_in(s, from, to, p.w, [&](uint64_t key) { hll_add(reg, key); });
  });
  if (records == 0) throw DataError(path + ": no sequences");
  for (size_t t = 1; t < regs.size(); ++t)
    for (uint32_t i = 0; i < kHllRegisters; ++i) regs[0][i] = std::max(regs[0][i], regs[t][i]);
  f.source_length = bases;
  f.elements = hll_estimate(regs[0]);
  regs.clear();

  uint64_t m = 0;
  size_filter(f.elements, p, m, f.k);
  check_filter_memory(m, name);
  f.bits = BloomVector(m, [&](uint64_t done, uint64_t total) {
    if (progress) progress("zeroing the filter of", done, total);
  });

  // Pass 2: every k-mer inserted, threads setting bits with atomic ORs.
  const H3Family family(layout_hashes(p.layout, f.k), p.w, p.seed);
  const H3ByteView hv = family.byte_view();
  uint32_t* const words = f.bits.words().data();
  const bool blocked = p.layout == BloomLayout::blocked512;
  const int k = f.k;
  // Blocked: a genome's filter is gigabytes, so nearly every insert misses the cache (and the TLB). Keys are
  // hashed kAhead inserts before their block is written, its line prefetched meanwhile.
  constexpr int kAhead = 16;
  pass("inserting k-mers of", bases, [&](int, std::string_view s, size_t from, size_t to) {
    uint32_t h[kMaxHashes];
    if (!blocked) {
      for_each_canonical_in(s, from, to, p.w, [&](uint64_t key) {
        hv.hash_all(key, h);
        for (int i = 0; i < k; ++i) {
          const uint64_t bit = bloom_slot(h[i], m);
          atomic_set(words + (bit >> 5), 1u << (bit & 31));
        }
      });
      return;
    }
    struct Pending {
      uint32_t* block;
      uint32_t bits[kMaxHashes];
    };
    Pending ring[kAhead];
    size_t queued = 0;
    auto write = [&](const Pending& e) {
      for (int i = 1; i <= k; ++i) atomic_set(e.block + (e.bits[i] >> 5), 1u << (e.bits[i] & 31));
    };
    for_each_canonical_in(s, from, to, p.w, [&](uint64_t key) {
      Pending& e = ring[queued % kAhead];
      if (queued >= kAhead) write(e);
      hv.hash_all(key, h);
      e.block = words + blocked_block_word(h[0], m);
      for (int i = 1; i <= k; ++i) e.bits[i] = blocked_bit(h[i]);
      __builtin_prefetch(e.block, 1);
      ++queued;
    });
    for (size_t i = queued > size_t(kAhead) ? queued - kAhead : 0; i < queued; ++i) write(ring[i % kAhead]);
  });
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
