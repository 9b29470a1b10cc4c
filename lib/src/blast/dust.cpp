#include "bloomseq/blast/dust.hpp"

#include <algorithm>
#include <array>
#include <deque>

#include "bloomseq/encode/dna.hpp"

namespace bloomseq {
namespace {

// BLAST+'s DUST reads an N as a base drawn at random each time it reads the letter (its IUPACNA-to-2-bit converter
// returns GetRand() & 3 for 'N', and A for any other ambiguity code), from the NCBI toolkit's lagged Fibonacci
// generator (lags 33 and 13, modulo 2^32) in its fixed default state, one generator per query record. So the draws
// are the same on every run, and an N-containing stretch is masked exactly as blastn masks it only if the letters
// are read in BLAST+'s order, which dust_intervals keeps (it reads the two bases before each restart again).
class BlastRandom {
 public:
  uint8_t next_base() {
    const uint32_t r = state_[k_] + state_[j_];
    state_[k_] = r;
    --j_;
    if (--k_ < 0) k_ = kSize - 1;
    else if (j_ < 0) j_ = kSize - 1;
    return uint8_t((r >> 1) & 3u);  // GetRand() drops the lowest bit
  }

 private:
  static constexpr int kSize = 33;
  // The generator's default state (a fact of the toolkit, as published).
  uint32_t state_[kSize] = {0xd53f1852, 0xdfc78b83, 0x4f256096, 0x0e643df7, 0x82c359bf, 0xc7794dfa, 0xd5e9ffaa,
                            0x2c8cb64a, 0x2f07b334, 0xad5a7eb5, 0x96dc0cde, 0x6fc24589, 0xa5853646, 0xe71576e2,
                            0x0dae30df, 0xb09ce711, 0x5e56ef87, 0x4b4b0082, 0x6f4f340e, 0xc5bb17e8, 0xd788d765,
                            0x67498087, 0x9d7aba26, 0x261351d4, 0x411ee7ea, 0x0393a263, 0x2c5a5835, 0xc115fcd8,
                            0x25e9132c, 0xd0c6e906, 0xc2bc5b2d, 0x6c065c98, 0x6e37bd55};
  int j_ = 12, k_ = kSize - 1;
};

struct Perfect {
  int64_t first, last;  // bases, inclusive, relative to the run's start
  uint32_t score;       // sum of c_t (c_t - 1) / 2
  uint32_t len;         // triplets - 1
};

// The triplets of the current window (at most window - 2 of them, positions [start, stop)), with the counts and
// scores of the whole window (w) and of its longest suffix in which no triplet occurs more than low_k times (v,
// starting at L).
class TripletWindow {
 public:
  TripletWindow(const DustParams& p, std::deque<Perfect>& perfect, const std::vector<uint32_t>& thresholds)
      : max_size_(p.window - 2), low_k_(uint32_t(p.level / 5)), perfect_(perfect), thresholds_(thresholds) {
    c_w_.fill(0);
    c_v_.fill(0);
  }
  int64_t start() const { return start_; }

  // Slides the window one base on; false when the window is full and holds a single triplet value (the whole
  // window is then one perfect interval, and the caller slides on without searching).
  bool shift(uint8_t t) {
    if (size() >= max_size_) {
      if (distinct_ <= 1) return shift_uniform(t);
      const uint8_t s = at(start_);
      remove(r_w_, c_w_, s);
      if (c_w_[s] == 0) --distinct_;
      if (L_ == start_) {
        ++L_;
        remove(r_v_, c_v_, s);
      }
      ++start_;
    }
    ring_[size_t(stop_) & 63] = t;
    if (c_w_[t] == 0) ++distinct_;
    add(r_w_, c_w_, t);
    add(r_v_, c_v_, t);
    if (c_v_[t] > low_k_) {
      // Shorten the suffix past the previous occurrence of t.
      uint8_t gone;
      do {
        gone = at(L_);
        remove(r_v_, c_v_, gone);
        ++L_;
      } while (gone != t);
    }
    ++stop_;
    if (size() >= max_size_ && distinct_ <= 1) {
      perfect_.clear();
      perfect_.push_front(Perfect{start_, stop_ + 1, 0, 0});
      return false;
    }
    return true;
  }

  // Proposition 2: unless the whole window scores above the threshold of the suffix's length, no suffix longer than
  // the low_k suffix can be perfect.
  bool worth_searching() const {
    const int64_t count = stop_ - L_;
    return count < size() && 10 * r_w_ > thresholds_[size_t(count)];
  }

  // Adds the perfect intervals ending at the window's last triplet, longest suffixes last: each suffix longer than
  // the low_k one above the threshold whose score per length is at least the best of the perfect intervals inside
  // it. The list stays ordered by start, latest first.
  void find_perfect() {
    std::array<uint8_t, 64> counts = c_v_;
    uint32_t score = r_v_;
    uint32_t best_score = 0, best_len = 0;
    uint32_t count = uint32_t(stop_ - L_);
    size_t next = 0;  // the first interval of perfect_ not yet known to lie inside the current suffix
    for (int64_t pos = L_ - 1; pos >= start_; --pos, ++count) {
      const uint8_t t = at(pos);
      const uint8_t seen = counts[t];
      add(score, counts, t);
      if (seen == 0 || !(10 * score > thresholds_[count])) continue;
      for (; next < perfect_.size() && pos <= perfect_[next].first; ++next) {
        const Perfect& inside = perfect_[next];
        if (best_score == 0 || uint64_t(best_len) * inside.score > uint64_t(best_score) * inside.len) {
          best_score = inside.score;
          best_len = inside.len;
        }
      }
      if (best_score == 0 || uint64_t(score) * best_len >= uint64_t(best_score) * count) {
        best_score = score;
        best_len = count;
        perfect_.insert(perfect_.begin() + long(next), Perfect{pos, stop_ + 1, score, count});
      }
    }
  }

 private:
  int64_t size() const { return stop_ - start_; }
  uint8_t at(int64_t pos) const { return ring_[size_t(pos) & 63]; }
  static void add(uint32_t& r, std::array<uint8_t, 64>& c, uint8_t t) { r += c[t]++; }
  static void remove(uint32_t& r, std::array<uint8_t, 64>& c, uint8_t t) { r -= --c[t]; }

  // A uniform window slides without a search: it stays one perfect interval while the new triplet is the same.
  bool shift_uniform(uint8_t t) {
    const uint8_t s = at(start_);
    remove(r_w_, c_w_, s);
    if (c_w_[s] == 0) --distinct_;
    ++start_;
    ring_[size_t(stop_) & 63] = t;
    if (c_w_[t] == 0) ++distinct_;
    add(r_w_, c_w_, t);
    ++stop_;
    if (distinct_ > 1) return true;
    perfect_.push_front(Perfect{start_, stop_ + 1, 0, 0});
    return false;
  }

  const int64_t max_size_;
  const uint32_t low_k_;
  std::deque<Perfect>& perfect_;
  const std::vector<uint32_t>& thresholds_;
  std::array<uint8_t, 64> ring_{};
  std::array<uint8_t, 64> c_w_, c_v_;
  int64_t start_ = 0, stop_ = 0, L_ = 0;
  uint32_t r_w_ = 0, r_v_ = 0;
  int distinct_ = 0;
};

}  // namespace

MaskIntervals dust_intervals(const uint8_t* codes, uint64_t n, const DustParams& p) {
  MaskIntervals masked;
  if (n == 0) return masked;
  // 10 x score must exceed level x (triplets - 1); 1 for a single triplet.
  std::vector<uint32_t> thresholds(size_t(p.window - 2));
  thresholds[0] = 1;
  for (size_t i = 1; i < thresholds.size(); ++i) thresholds[i] = uint32_t(i) * uint32_t(p.level);
  BlastRandom draws;
  const bool draw_n = p.n_bases == DustN::blast_draw;
  auto base = [&](uint64_t i) -> uint8_t {
    if (codes[i] < 4) return codes[i];
    return codes[i] == kInvalidBase && draw_n ? draws.next_base() : 0;
  };
  std::deque<Perfect> perfect;
  // The oldest perfect interval that starts before the window joins the mask (the others starting there are
  // dropped: they lie inside it or were superseded by it).
  auto flush_oldest = [&](int64_t window_start, uint64_t run_start) {
    if (perfect.empty() || perfect.back().first >= window_start) return;
    const uint64_t first = run_start + uint64_t(perfect.back().first), last = run_start + uint64_t(perfect.back().last);
    if (!masked.empty() && masked.back().second + uint64_t(p.linker) >= first)
      masked.back().second = std::max(masked.back().second, last);
    else
      masked.emplace_back(first, last);
    while (!perfect.empty() && perfect.back().first < window_start) perfect.pop_back();
  };
  const uint64_t stop = n - 1;
  uint64_t start = 0;
  while (stop > start + 2) {
    perfect.clear();
    TripletWindow w(p, perfect, thresholds);
    const uint8_t first = base(start);  // BLAST+ converts the first of the two letters first
    uint8_t t = uint8_t((first << 2) | base(start + 1));
    uint64_t at = start + 2;
    bool restart = false;
    while (!restart && at <= stop) {
      flush_oldest(w.start(), start);
      t = uint8_t(((t << 2) & 63) | base(at));
      ++at;
      if (w.shift(t)) {
        if (w.worth_searching()) w.find_perfect();
        continue;
      }
      // A uniform window: slide until it is not, then search afresh from the window's start.
      while (at <= stop) {
        flush_oldest(w.start(), start);
        t = uint8_t(((t << 2) & 63) | base(at));
        if (w.shift(t)) {
          restart = true;
          break;
        }
        ++at;
      }
    }
    for (int64_t from = w.start(); !perfect.empty(); ++from) flush_oldest(from, start);
    // BLAST+ searches again from the last window's start (also after the record's end): kept for equal masks.
    if (w.start() == 0) break;
    start += uint64_t(w.start());
  }
  return masked;
}

}  // namespace bloomseq
