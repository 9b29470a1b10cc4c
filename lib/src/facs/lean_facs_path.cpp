// The lean CPU path of the classifier: FACS score, every filter blocked (the defaults).
//
// Same scores as the generic path (FacsScorer is the reference and still decides every full scan), with less
// machinery per lookup: a frame's key is hashed once with all kmax functions (one SIMD loop over table rows)
// and shared by every filter; the quick pass tests every filter on the group's quick frames in one tight loop
// after prefetching the blocks of the large filters; a read whose quick frames all hit a filter is covered
// entirely without further work; only (read, filter) pairs with some but not all quick hits need a full scan,
// and those scans are advanced round-robin so that their cache misses overlap.
#include <algorithm>
#include <cstring>

#include "bloomseq/encode/dna.hpp"
#include "bloomseq/facs/classifier.hpp"

namespace bloomseq {
namespace {

// Whether the block of hashes[0] has the bits of hashes[1..k] (blocked512 layout).
inline bool block_contains(const ConstBloomView& v, const uint32_t* h, int k) {
  const uint32_t* block = v.words + blocked_block_word(h[0], v.m_bits);
  for (int i = 1; i <= k; ++i) {
    const uint32_t bit = blocked_bit(h[i]);
    if (!((block[bit >> 5] >> (bit & 31)) & 1u)) return false;
  }
  return true;
}

template <size_t kLanes>
inline void xor_rows_all(const uint32_t* table, uint64_t key, int key_bytes, uint32_t* out) {
  uint32_t acc[kLanes] = {};
  for (int b = 0; b < key_bytes; ++b) {
    const uint32_t* row = table + (size_t(b) * 256 + ((key >> (8 * b)) & 0xFF)) * kLanes;
    for (size_t i = 0; i < kLanes; ++i) acc[i] ^= row[i];
  }
  std::memcpy(out, acc, sizeof acc);
}

}  // namespace

bool Classifier::hash_frame(Workspace& ws, size_t read, int frame) const {
  const size_t slot = ws.frame_offset[read] + size_t(frame);
  const uint8_t done = ws.hashed[slot];
  if (done) return done != 1;
  const int w = set_.w;
  const uint64_t* pk = ws.packed.data() + ws.base_offset[read];
  const uint64_t* inv = ws.invalid.data() + ws.base_offset[read];
  const size_t pos = size_t(frame);
  const size_t iw = pos >> 6;
  const int ish = int(pos & 63);
  uint64_t bad = inv[iw] >> ish;
  if (ish && ish + w > 64) bad |= inv[iw + 1] << (64 - ish);
  if (bad & ((uint64_t(1) << w) - 1)) {
    ws.hashed[slot] = 1;
    return false;
  }
  // As in hash_head: the window with its first base in the low bits is the complement of the reverse complement.
  const size_t pw = pos >> 5;
  const int psh = int(2 * (pos & 31));
  uint64_t x = pk[pw] >> psh;
  if (psh && psh + 2 * w > 64) x |= pk[pw + 1] << (64 - psh);
  const uint64_t rc = ~x & wmer_mask(w);
  const uint64_t key = canonical_wmer(revcomp_wmer(rc, w), rc);
  uint32_t* out = ws.hashes.data() + slot * size_t(lean_stride_);
  if (lean_stride_ == 16) xor_rows_all<16>(lean_table_.data(), key, key_bytes_, out);
  else xor_rows_all<32>(lean_table_.data(), key, key_bytes_, out);
  ws.hashed[slot] = 2;
  return true;
}

void Classifier::score_group_lean(const std::string_view* reads, size_t n, int32_t* points, uint8_t* passed,
                                  int32_t* denom, int32_t* valid_frames, uint64_t& lookups, Workspace& ws) const {
  const int w = set_.w;
  const size_t nf = views_.size();
  const size_t stride = size_t(lean_stride_);
  pack_group(reads, n, valid_frames, ws);
  const size_t total = ws.frame_offset[n];
  ws.hashed.assign(total, 0);
  if (ws.hashes.size() < total * stride) ws.hashes.resize(total * stride);

  // 1. Quick frames of every read: hashed once for all filters; the blocks of the large filters prefetched.
  ws.quick_slots.clear();
  ws.quick_first.resize(n + 1);
  for (size_t r = 0; r < n; ++r) {
    ws.quick_first[r] = uint32_t(ws.quick_slots.size());
    const int F = ws.frames[r];
    for (int q = 0; q < F; q = FacsScorer::next_quick_frame(q, F, w)) {
      if (!hash_frame(ws, r, q)) continue;  // an N in the k-mer: a miss everywhere, not a lookup
      const size_t slot = ws.frame_offset[r] + size_t(q);
      ws.quick_slots.push_back(uint32_t(slot));
      const uint32_t h0 = ws.hashes[slot * stride];
      for (size_t j = 0; j < nf; ++j)
        if (big_[j]) __builtin_prefetch(views_[j].words + blocked_block_word(h0, views_[j].m_bits));
    }
  }
  ws.quick_first[n] = uint32_t(ws.quick_slots.size());
  const size_t nq = ws.quick_slots.size();
  lookups += nq * nf;

  // 2. The quick pass: every filter on every quick frame. Per read and filter: no hit -> score 0 (FACS stops);
  //    every quick frame of the read hits -> the quick frames alone cover every base (score L); otherwise the
  //    full scan decides.
  ws.quick_hits.resize(nq * nf);
  ws.scans.clear();
  ws.scan_states.clear();
  size_t state_bytes = 0;
  for (size_t r = 0; r < n; ++r) {
    const int len = int(std::min<size_t>(reads[r].size(), INT32_MAX / 2));
    denom[r] = len;
    const uint32_t q0 = ws.quick_first[r], q1 = ws.quick_first[r + 1];
    const int F = ws.frames[r];
    int quick_frames = 0;  // including those with N
    for (int q = 0; q < F; q = FacsScorer::next_quick_frame(q, F, w)) ++quick_frames;
    for (size_t j = 0; j < nf; ++j) {
      const ConstBloomView v = views_[j];
      const int k = ks_[j];
      uint32_t hits = 0;
      for (uint32_t qi = q0; qi < q1; ++qi) {
        const uint8_t hit = block_contains(v, ws.hashes.data() + size_t(ws.quick_slots[qi]) * stride, k) ? 1 : 0;
        ws.quick_hits[size_t(qi) * nf + j] = hit;
        hits += hit;
      }
      const size_t i = r * nf + j;
      if (hits == 0) {
        points[i] = 0;
        passed[i] = 0;
      } else if (int(hits) == quick_frames) {
        points[i] = len;
        passed[i] = double(len) >= params_.threshold * double(len) ? 1 : 0;
      } else {
        FastScan sc;
        sc.read = uint32_t(r);
        sc.filter = uint32_t(j);
        ws.scans.push_back(sc);
        ws.scan_states.push_back(uint32_t(state_bytes));
        state_bytes += size_t(F);
      }
    }
  }
  if (ws.scans.empty()) return;

  // 3. Full scans, round-robin: a scan's next frame is hashed (once per read) and its block prefetched in one
  //    round and tested in the next, after the other scans have issued theirs.
  ws.states.resize(state_bytes);
  for (size_t s = 0; s < ws.scans.size(); ++s) {
    FastScan& sc = ws.scans[s];
    const size_t r = sc.read, j = sc.filter;
    const int F = ws.frames[r];
    sc.state = ws.states.data() + ws.scan_states[s];
    std::memset(sc.state, kFrameUnknown, size_t(F));
    // Quick frames are known: hits and misses from step 2, frames with N are misses.
    uint32_t qi = ws.quick_first[r];
    for (int q = 0; q < F; q = FacsScorer::next_quick_frame(q, F, w)) {
      const size_t slot = ws.frame_offset[r] + size_t(q);
      if (qi < ws.quick_first[r + 1] && ws.quick_slots[qi] == slot)
        sc.state[q] = ws.quick_hits[size_t(qi++) * nf + j] ? kFrameHit : kFrameMiss;
      else
        sc.state[q] = kFrameMiss;
    }
    sc.scorer.start(int(std::min<size_t>(reads[r].size(), INT32_MAX / 2)), w);
  }
  auto advance = [&](FastScan& sc) -> bool {
    for (;;) {
      const int f = sc.scorer.next(sc.state);
      if (f < 0) {
        const size_t i = size_t(sc.read) * nf + sc.filter;
        points[i] = sc.scorer.points();
        passed[i] = sc.scorer.covered > 0 && double(sc.scorer.covered) >= params_.threshold * double(sc.scorer.length);
        lookups += uint64_t(sc.scorer.lookups);
        return false;
      }
      if (!hash_frame(ws, sc.read, f)) {
        sc.state[f] = kFrameMiss;
        continue;
      }
      sc.frame = f;
      const ConstBloomView& v = views_[sc.filter];
      __builtin_prefetch(v.words + blocked_block_word(ws.hashes[(ws.frame_offset[sc.read] + size_t(f)) * stride], v.m_bits));
      return true;
    }
  };
  ws.active.clear();
  for (size_t s = 0; s < ws.scans.size(); ++s)
    if (advance(ws.scans[s])) ws.active.push_back(uint32_t(s));
  while (!ws.active.empty()) {
    size_t keep = 0;
    for (size_t a = 0; a < ws.active.size(); ++a) {
      FastScan& sc = ws.scans[ws.active[a]];
      const uint32_t* h = ws.hashes.data() + (ws.frame_offset[sc.read] + size_t(sc.frame)) * stride;
      sc.scorer.feed(sc.state, sc.frame, block_contains(views_[sc.filter], h, ks_[sc.filter]));
      if (advance(sc)) ws.active[keep++] = ws.active[a];
    }
    ws.active.resize(keep);
  }
}

}  // namespace bloomseq
