// The lean CPU path of the classifier: FACS score, every filter blocked (the defaults).
//
// Same scores as the generic path (FacsScorer's quick pass and lazy full scan, frame for frame), with far less
// work per lookup:
// - a frame's key is hashed once for all filters; the byte-sliced tables hold hash 0 (which picks the block)
//   and only the top 9 bits of hashes 1..k (all a bit inside a 512-bit block needs), in 16-bit lanes;
// - a quick frame (tested in every filter) turns its k bits into one 512-bit mask, and a lookup is then "are all
//   mask bits set in the block": four 128-bit AND-NOTs, no per-bit branches (whether a bit is set is a coin toss
//   that a branch would mispredict) and no per-bit shifts;
// - the quick pass tests every filter on the group's quick frames in one loop, with the blocks of the large
//   filters prefetched about two reads ahead, one prefetch per test; a read whose quick frames all hit a filter is
//   covered entirely (score L) without further lookups; only (read, filter) pairs with some but not all quick
//   hits are scanned;
// - the full scans follow FacsScorer's order, skip the w - 1 known misses FacsScorer re-reads for each uncovered
//   base, look frames up in small windows (hashed together, blocks prefetched together) and are interleaved
//   across the group so that their cache misses overlap; in a run of uncovered bases the frames above are fetched
//   a few turns ahead; scans of the small filters (in the cache) test their frames at once, without turns.
#include <algorithm>
#include <cmath>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "bloomseq/encode/dna.hpp"
#include "bloomseq/facs/classifier.hpp"
#include "classifier_scratch.hpp"

namespace bloomseq {
namespace {

constexpr size_t kMaskWords = kBloomBlockWords;  // one bit per bit of a block

// Whether every bit of `mask` is set in the 512-bit block.
inline bool block_has(const uint32_t* block, const uint32_t* mask) {
#if defined(__SSE2__)
  const __m128i* b = reinterpret_cast<const __m128i*>(block);  // blocks are 64-byte aligned
  const __m128i* m = reinterpret_cast<const __m128i*>(mask);
  __m128i missing = _mm_andnot_si128(_mm_load_si128(b), _mm_load_si128(m));
  missing = _mm_or_si128(missing, _mm_andnot_si128(_mm_load_si128(b + 1), _mm_load_si128(m + 1)));
  missing = _mm_or_si128(missing, _mm_andnot_si128(_mm_load_si128(b + 2), _mm_load_si128(m + 2)));
  missing = _mm_or_si128(missing, _mm_andnot_si128(_mm_load_si128(b + 3), _mm_load_si128(m + 3)));
  return _mm_movemask_epi8(_mm_cmpeq_epi8(missing, _mm_setzero_si128())) == 0xFFFF;
#else
  uint32_t missing = 0;
  for (size_t i = 0; i < kMaskWords; ++i) missing |= mask[i] & ~block[i];
  return missing == 0;
#endif
}

// XOR of the key's table rows (one per key byte), kLanes 16-bit lanes each.
template <size_t kLanes, int kKeyBytes = 0>
inline void xor_rows(const uint16_t* table, uint64_t key, int runtime_key_bytes, uint16_t* acc) {
  const int key_bytes = kKeyBytes ? kKeyBytes : runtime_key_bytes;  // fixed: the loop unrolls
#if defined(__SSE2__)
  constexpr size_t kVec = kLanes / 8;
  __m128i a[kVec];
  for (size_t v = 0; v < kVec; ++v) a[v] = _mm_setzero_si128();
  for (int b = 0; b < key_bytes; ++b) {
    const __m128i* row = reinterpret_cast<const __m128i*>(table + (size_t(b) * 256 + ((key >> (8 * b)) & 0xFF)) * kLanes);
    for (size_t v = 0; v < kVec; ++v) a[v] = _mm_xor_si128(a[v], _mm_loadu_si128(row + v));
  }
  for (size_t v = 0; v < kVec; ++v) _mm_storeu_si128(reinterpret_cast<__m128i*>(acc) + v, a[v]);
#else
  for (size_t i = 0; i < kLanes; ++i) acc[i] = 0;
  for (int b = 0; b < key_bytes; ++b) {
    const uint16_t* row = table + (size_t(b) * 256 + ((key >> (8 * b)) & 0xFF)) * kLanes;
    for (size_t i = 0; i < kLanes; ++i) acc[i] ^= row[i];
  }
#endif
}

// XOR of the key's head-table rows; KB (the key's bytes) fixed so that the loop unrolls.
template <int KB>
inline uint64_t xor_head_rows(const uint64_t* table, uint64_t key) {
  uint64_t head = 0;
  for (int b = 0; b < KB; ++b) head ^= table[size_t(b) * 256 + ((key >> (8 * b)) & 0xFF)];
  return head;
}

inline uint64_t xor_head(const uint64_t* table, uint64_t key, int key_bytes) {
  switch (key_bytes) {  // w = 13..16 -> 4 bytes, 17..20 -> 5, 21..24 -> 6, 25..28 -> 7, 29..32 -> 8
    case 6: return xor_head_rows<6>(table, key);
    case 5: return xor_head_rows<5>(table, key);
    case 7: return xor_head_rows<7>(table, key);
    case 8: return xor_head_rows<8>(table, key);
    case 4: return xor_head_rows<4>(table, key);
    default: {
      uint64_t head = 0;
      for (int b = 0; b < key_bytes; ++b) head ^= table[size_t(b) * 256 + ((key >> (8 * b)) & 0xFF)];
      return head;
    }
  }
}

// The head of a frame's hash from its lanes: hash 0 (bits 0-31) and the block bits of hashes 1..3 (9 bits each).
inline uint64_t pack_lean_head(const uint16_t* lanes) {
  uint64_t head = uint64_t(lanes[0]) | uint64_t(lanes[1]) << 16;
  for (int i = 1; i <= Classifier::kLeanHeadBits; ++i) head |= uint64_t(lanes[1 + i] & 511u) << (32 + 9 * (i - 1));
  return head;
}

}  // namespace

bool Classifier::hash_frame(Scratch& ws, size_t read, int frame, bool full) const {
  const size_t slot = ws.frame_offset[read] + size_t(frame);
  const uint8_t done = ws.hashed[slot];
  if (done == 1) return false;
  if (done) {
    if (full && done == 2) {
      hash_lanes(ws, ws.lean_index[slot]);
      ws.hashed[slot] = 3;
    }
    return true;
  }
  uint64_t key = 0;
  if (!frame_key(ws, read, frame, key)) {
    ws.hashed[slot] = 1;
    return false;
  }
  // Compact storage, in the order frames are hashed (sized for every frame of the group in score_group_lean).
  const uint32_t idx = ws.lean_used++;
  ws.lean_index[slot] = idx;
  ws.lean_key[idx] = key;
  if (full) {
    hash_lanes(ws, idx);
    ws.hashed[slot] = 3;
    return true;
  }
  ws.lean_head[idx] = xor_head(lean_head_table_.data(), key, key_bytes_);
  ws.hashed[slot] = 2;
  return true;
}

void Classifier::hash_lanes(Scratch& ws, uint32_t idx) const {
  alignas(64) uint16_t acc[32];
  const uint64_t key = ws.lean_key[idx];
  if (lean_stride_ == 16 && key_bytes_ == 6) xor_rows<16, 6>(lean_table_.data(), key, key_bytes_, acc);  // w 21-24
  else if (lean_stride_ == 16) xor_rows<16>(lean_table_.data(), key, key_bytes_, acc);
  else xor_rows<32>(lean_table_.data(), key, key_bytes_, acc);
  uint16_t* lanes = ws.lean_lanes.data() + size_t(idx) * size_t(lean_stride_);
  if (lean_stride_ == 16) std::memcpy(lanes, acc, 32);  // fixed sizes: inlined copies
  else std::memcpy(lanes, acc, 64);
  ws.lean_head[idx] = pack_lean_head(acc);
}

void Classifier::score_group_lean(const std::string_view* reads, size_t n, int32_t* points, uint8_t* passed,
                                  int32_t* denom, int32_t* valid_frames, uint64_t& lookups, Scratch& ws,
                                  bool exact_failing) const {
  const int w = set_.w;
  const size_t nf = views_.size();
  const size_t nk = lean_ks_.size();
  pack_group(reads, n, valid_frames, ws);
  const size_t total = ws.frame_offset[n];
  ws.hashed.assign(total, 0);
  ws.lean_index.resize(total);
  ws.lean_used = 0;
  if (ws.lean_head.size() < total) ws.lean_head.resize(total);
  if (ws.lean_key.size() < total) ws.lean_key.resize(total);
  if (ws.lean_lanes.size() < total * size_t(lean_stride_)) ws.lean_lanes.resize(total * size_t(lean_stride_));
  auto block_of = [&](size_t j, uint32_t idx) {
    return views_[j].words + blocked_block_word(uint32_t(ws.lean_head[idx]), views_[j].m_bits);
  };
  auto lanes_of = [&](uint32_t idx) { return ws.lean_lanes.data() + size_t(idx) * size_t(lean_stride_); };
  // A scan frame in one filter: the head's bits first (a missing k-mer usually fails one of them), the other
  // hashes only for frames that pass them.
  auto scan_frame_hit = [&](const uint32_t* words, uint64_t blocks, size_t slot, int k) {
    const uint32_t idx = ws.lean_index[slot];
    const uint64_t head = ws.lean_head[idx];
    const uint32_t* block = words + ((uint64_t(uint32_t(head)) * blocks) >> 32) * kBloomBlockWords;
    auto bit_set = [&](uint32_t bit) { return (block[bit >> 5] >> (bit & 31)) & 1u; };
    uint32_t all = 1;
    for (int i = 1; i <= kLeanHeadBits; ++i)
      if (i <= k) all &= bit_set(uint32_t(head >> (32 + 9 * (i - 1))) & 511u);
    if (!all) return false;
    if (k <= kLeanHeadBits) return true;
    if (ws.hashed[slot] != 3) {
      hash_lanes(ws, idx);
      ws.hashed[slot] = 3;
    }
    const uint16_t* lanes = lanes_of(idx);
    for (int i = kLeanHeadBits + 1; i <= k; ++i) all &= bit_set(lanes[1 + i]);
    return all != 0;
  };

  // 1. Quick frames of every read, hashed once for all filters.
  ws.quick_slots.clear();
  ws.quick_first.resize(n + 1);
  for (size_t r = 0; r < n; ++r) {
    ws.quick_first[r] = uint32_t(ws.quick_slots.size());
    const int F = ws.frames[r];
    const int density = model_.quick_density(F + w - 1);
    for (int q = 0; q < F; q = FacsScorer::next_quick_frame(q, F, w, density))
      if (hash_frame(ws, r, q, true))  // a k-mer with N is a miss everywhere, not a lookup
        ws.quick_slots.push_back(ws.lean_index[ws.frame_offset[r] + size_t(q)]);
  }
  ws.quick_first[n] = uint32_t(ws.quick_slots.size());
  const size_t nq = ws.quick_slots.size();
  // Quick frames are tested in every filter: their k bits become one 512-bit mask (per distinct k).
  if (ws.quick_masks.size() < nq * nk * kMaskWords) ws.quick_masks.resize(nq * nk * kMaskWords);
  // Set in place: a mask built on the stack and copied out is read back 16 bytes at a time right after its
  // 4-byte stores, which cannot be forwarded (measured: the copy cost more than the bits).
  if (nq) std::memset(ws.quick_masks.data(), 0, nq * nk * kMaskWords * sizeof(uint32_t));  // data() may be null
  for (size_t qi = 0; qi < nq; ++qi) {
    const uint16_t* lanes = lanes_of(ws.quick_slots[qi]);
    for (size_t s = 0; s < nk; ++s) {
      uint32_t* m = ws.quick_masks.data() + (qi * nk + s) * kMaskWords;
      const int k = lean_ks_[s];  // in a local: the stores into m may alias an int
      for (int i = 1; i <= k; ++i) {
        const uint32_t bit = lanes[1 + i];
        m[bit >> 5] |= 1u << (bit & 31);
      }
    }
  }
  lookups += nq * nf;
  // The blocks of the large filters are prefetched about two reads ahead of their tests, one prefetch per test
  // rather than a read's worth at once: a burst of prefetches fills the miss buffers and stalls (measured: the
  // burst hid almost none of the latency, spreading halved the quick pass on the E. coli + S. suis filters).
  constexpr size_t kPrefetchAhead = 2;
  ws.prefetch_queue.clear();
  ws.prefetch_end.resize(n);
  for (size_t r = 0; r < n; ++r) {
    for (uint32_t qi = ws.quick_first[r]; qi < ws.quick_first[r + 1]; ++qi)
      for (uint32_t j : big_filters_) ws.prefetch_queue.push_back(block_of(j, ws.quick_slots[qi]));
    ws.prefetch_end[r] = uint32_t(ws.prefetch_queue.size());
  }
  size_t prefetched = 0;
  const uint32_t* const* queue = ws.prefetch_queue.data();

  // 2. The quick pass: every filter on every quick frame. Per read and filter: no hit -> score 0 (FACS stops
  //    there); every quick frame hits -> together they cover every base (score L, as FacsScorer finds without
  //    further lookups); otherwise a full scan decides.
  ws.quick_hits.resize(nq * nf);
  ws.scans.clear();
  size_t state_bytes = 0;
  // Pointers and per-filter constants in locals: the byte stores of hit flags may alias anything, so whatever is
  // read through `this` or `ws` would be loaded again after each of them.
  uint8_t* const quick_hits = ws.quick_hits.data();
  const uint32_t* const quick_slots = ws.quick_slots.data();
  const uint64_t* const heads = ws.lean_head.data();
  const uint32_t* const masks = ws.quick_masks.data();
  const size_t mask_stride = nk * kMaskWords;
  for (size_t r = 0; r < n; ++r) {
    const size_t prefetch_to = ws.prefetch_end[std::min(n - 1, r + kPrefetchAhead)];
    const int len = int(std::min<size_t>(reads[r].size(), INT32_MAX / 2));
    denom[r] = len;
    const uint32_t q0 = ws.quick_first[r], q1 = ws.quick_first[r + 1];
    const int F = ws.frames[r];
    const int quick_frames = FacsScorer::quick_frame_count(F, w, model_.quick_density(len));
    const int32_t need = model_.min_covered(len, ws.uncoverable[r]);
    for (size_t j = 0; j < nf; ++j) {
      const uint32_t* const words = views_[j].words;
      const uint64_t blocks = views_[j].m_bits / kBloomBlockBits;
      const uint32_t* const mask = masks + lean_kidx_[j] * kMaskWords;
      uint32_t hits = 0;
      for (uint32_t qi = q0; qi < q1; ++qi) {
        if (prefetched < prefetch_to) __builtin_prefetch(queue[prefetched++]);
        const uint64_t block = (uint64_t(uint32_t(heads[quick_slots[qi]])) * blocks) >> 32;  // blocked_block_word
        const uint8_t hit = block_has(words + block * kBloomBlockWords, mask + qi * mask_stride) ? 1 : 0;
        quick_hits[size_t(qi) * nf + j] = hit;
        hits += hit;
      }
      const size_t i = r * nf + j;
      if (hits == 0) {
        points[i] = 0;
        passed[i] = 0;
      } else if (int(hits) == quick_frames) {
        points[i] = len;
        passed[i] = len >= need ? 1 : 0;
      } else {
        ws.scans.push_back(FastScan{uint32_t(r), uint32_t(j), state_bytes});
        state_bytes += size_t(F);
      }
    }
  }
  if (ws.scans.empty()) return;

  // 3. Full scans. The coverage is decided base by base in FacsScorer's order (for base b, the highest hit frame
  //    among those covering it, searched downwards; a hit at frame c covers b .. c + w - 1), with one shortcut:
  //    after a base without a hit, the next base only needs the one frame the previous search did not see
  //    (FacsScorer re-reads w - 1 known misses per uncovered base). An unknown frame is looked up with the
  //    unknown frames below it (a window: the search usually goes on there), hashed in one loop and their blocks
  //    prefetched; the scan then yields and the group's other scans take their turn before the window is tested,
  //    so that the cache misses of all scans overlap.
  constexpr int kWindow = kScanWindow;  // in the large filters (4 measured best of 2/4/8); 1 in the small ones,
                                       // where an extra lookup is just work
  ws.states.resize(state_bytes);
  ws.active.clear();
  for (size_t s = 0; s < ws.scans.size(); ++s) {
    FastScan& sc = ws.scans[s];
    const size_t r = sc.read, j = sc.filter;
    const int F = ws.frames[r];
    uint8_t* st = ws.states.data() + sc.state;
    std::memset(st, kFrameUnknown, size_t(F));
    uint32_t qi = ws.quick_first[r];
    const int density = model_.quick_density(F + w - 1);
    for (int q = 0; q < F; q = FacsScorer::next_quick_frame(q, F, w, density)) {  // quick frames are known
      const size_t slot = ws.frame_offset[r] + size_t(q);
      if (ws.hashed[slot] == 3) st[q] = ws.quick_hits[size_t(qi++) * nf + j] ? kFrameHit : kFrameMiss;
      else st[q] = kFrameMiss;  // N
    }
    sc.length = int32_t(std::min<size_t>(reads[r].size(), INT32_MAX / 2));
    sc.max_uncovered = exact_failing ? INT32_MAX : sc.length - model_.min_covered(sc.length, ws.uncoverable[r]);
    ws.active.push_back(uint32_t(s));
  }
  // Runs a scan until it needs frames that are not known yet (then they are hashed and prefetched and it returns
  // true) or until its score is final (false).
  auto advance = [&](FastScan& sc) -> bool {
    const size_t r = sc.read, j = sc.filter;
    const int F = ws.frames[r], L = sc.length;
    uint8_t* st = ws.states.data() + sc.state;
    const size_t first = ws.frame_offset[r];
    const bool big = big_[j] != 0;
    const int window = big ? kWindow : 1;
    for (;;) {
      if (sc.cursor < 0) {  // start the search for base b
        if (sc.base >= L) return false;
        // Even with every undecided base covered the read would fail: its points need not be exact.
        if (sc.base - sc.covered > sc.max_uncovered) return false;
        const int b = sc.base;
        sc.top = b < F - 1 ? b : F - 1;
        const int lo = b - w + 1 > 0 ? b - w + 1 : 0;
        sc.stop = sc.seen_misses_to >= lo ? sc.seen_misses_to : lo - 1;  // search frames top down to stop + 1
        sc.cursor = sc.top;
      }
      int c = sc.cursor;
      for (; c > sc.stop; --c) {
        if (st[c] == kFrameUnknown && !big) {
          // A small filter's blocks are in the cache: the frame is tested at once, without a turn.
          const uint8_t done = ws.hashed[first + size_t(c)];
          if (done == 1 || (done == 0 && !hash_frame(ws, r, c, false))) {
            st[c] = kFrameMiss;  // an N in the k-mer: not a lookup
          } else {
            st[c] = scan_frame_hit(views_[j].words, views_[j].m_bits / kBloomBlockBits, first + size_t(c), ks_[j])
                        ? kFrameHit
                        : kFrameMiss;
            ++sc.tested;
          }
        }
        if (st[c] == kFrameUnknown) {
          sc.cursor = c;
          sc.pending = 0;
          for (int g = c; g > sc.stop && g > c - window; --g) {
            if (st[g] != kFrameUnknown) continue;
            const uint8_t done = ws.hashed[first + size_t(g)];  // hashed for another filter already?
            if (done == 1 || (done == 0 && !hash_frame(ws, r, g, false))) {
              st[g] = kFrameMiss;  // an N in the k-mer: not a lookup
              continue;
            }
            __builtin_prefetch(block_of(j, ws.lean_index[first + size_t(g)]));
            sc.todo[sc.pending++] = g;
          }
          // A run of uncovered bases asks for one frame per base, the next one up each time, so in a large
          // filter its tests would wait on memory one after the other: the frames above are hashed and their
          // blocks fetched a few rounds early (not lookups: a hit ends the run and they are then mostly unused).
          if (sc.pending && sc.seen_misses_to == c - 1) {
            const int to = std::min(F - 1, c + kScanAhead);
            for (int g = std::max(c + 1, sc.ahead + 1); g <= to; ++g) {
              const uint8_t done = ws.hashed[first + size_t(g)];
              if (st[g] != kFrameUnknown || done == 1 || (done == 0 && !hash_frame(ws, r, g, false))) continue;
              __builtin_prefetch(block_of(j, ws.lean_index[first + size_t(g)]));
            }
            sc.ahead = std::max(sc.ahead, to);
          }
          if (sc.pending) return true;
        }
        if (st[c] == kFrameHit) break;
      }
      if (c > sc.stop) {  // frame c covers bases base .. c + w - 1
        sc.covered += c + w - sc.base;
        sc.base = c + w;
        sc.seen_misses_to = -1;
      } else {
        sc.seen_misses_to = sc.top;
        ++sc.base;
      }
      sc.cursor = -1;
    }
  };
  auto finish = [&](const FastScan& sc) {
    const size_t i = size_t(sc.read) * nf + sc.filter;
    points[i] = sc.covered;
    passed[i] = sc.covered > 0 && sc.covered >= model_.min_covered(sc.length, ws.uncoverable[sc.read]);
    lookups += sc.tested;
  };
  size_t live = 0;
  for (uint32_t s : ws.active) {
    if (advance(ws.scans[s])) ws.active[live++] = s;
    else finish(ws.scans[s]);
  }
  ws.active.resize(live);
  while (!ws.active.empty()) {
    live = 0;
    for (uint32_t s : ws.active) {
      FastScan& sc = ws.scans[s];
      const size_t first = ws.frame_offset[sc.read];
      uint8_t* st = ws.states.data() + sc.state;
      const int k = ks_[sc.filter];
      const uint32_t* const words = views_[sc.filter].words;
      const uint64_t blocks = views_[sc.filter].m_bits / kBloomBlockBits;
      const int pending = sc.pending;
      for (int t = 0; t < pending; ++t) {
        const int f = sc.todo[t];
        st[f] = scan_frame_hit(words, blocks, first + size_t(f), k) ? kFrameHit : kFrameMiss;
      }
      sc.tested += uint32_t(pending);
      sc.pending = 0;
      if (advance(sc)) ws.active[live++] = s;
      else finish(sc);
    }
    ws.active.resize(live);
  }
}

}  // namespace bloomseq
