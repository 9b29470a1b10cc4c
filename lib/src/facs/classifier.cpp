#include "bloomseq/facs/classifier.hpp"

#include <algorithm>

#include "bloomseq/encode/dna.hpp"
#include "bloomseq/error.hpp"

namespace bloomseq {

const char* score_kind_name(ScoreKind k) { return k == ScoreKind::facs ? "facs" : "biobloom"; }
const char* pair_mode_name(PairMode m) { return m == PairMode::both ? "both" : "either"; }

void BatchScores::resize(size_t n, size_t f) {
  reads = n;
  filters = f;
  points.assign(n * f, 0);
  passed.assign(n * f, 0);
  denominator.assign(n, 0);
  call.assign(n, kCallNovel);
  matched.assign(n, 0);
  lookups = 0;
}

double BatchScores::best_score(size_t r) const {
  const int32_t c = call[r];
  if (c >= 0) return score(r, size_t(c));
  if (c != kCallTie) return 0.0;
  int32_t best = 0;
  for (size_t j = 0; j < filters; ++j)
    if (passed[r * filters + j]) best = std::max(best, points[r * filters + j]);
  return denominator[r] ? double(best) / double(denominator[r]) : 0.0;
}

Classifier::Classifier(const FilterSet& set, const ClassifyParams& params) : set_(set), params_(params) {
  if (set.filters.empty()) throw UsageError("no filters to classify against");
  if (set.w < 1 || set.w > kMaxWordSize) throw DataError("filters have an invalid k-mer size " + std::to_string(set.w));
  if (!(params.threshold > 0.0 && params.threshold <= 1.0))
    throw UsageError("score threshold must be in (0, 1], got " + std::to_string(params.threshold));
  if (params.group_reads < 1) throw UsageError("read group size must be at least 1");
  for (const FilterEntry& f : set.filters) {
    if (f.k < 1 || f.k > kMaxHashes) throw DataError("filter '" + f.name + "' has an invalid hash count");
    kmax_ = std::max(kmax_, f.k);
    views_.push_back(f.bits.view());
    ks_.push_back(f.k);
  }
  family_ = H3Family(kmax_, set.w, set.seed);
  // Re-lay the byte-sliced H3 tables: the first two functions (all a missing k-mer usually needs) in one
  // 64-bit word per row, the others in rows padded to whole SIMD vectors.
  const H3ByteView hv = family_.byte_view();
  key_bytes_ = hv.key_bytes;
  const int k = kmax_;
  const int tail = std::max(0, k - kFirstProbes);
  tail_lanes_ = (tail + 3) / 4 * 4;
  head_table_.assign(size_t(key_bytes_) * 256, 0);
  tail_table_.assign(size_t(key_bytes_) * 256 * size_t(tail_lanes_), 0);
  for (size_t row = 0; row < size_t(key_bytes_) * 256; ++row) {
    const uint32_t* src = hv.tables + row * size_t(k);
    head_table_[row] = uint64_t(src[0]) | (k > 1 ? uint64_t(src[1]) << 32 : 0);
    for (int i = 0; i < tail; ++i) tail_table_[row * size_t(tail_lanes_) + size_t(i)] = src[kFirstProbes + i];
  }
}

void Classifier::classify(const std::string_view* reads, size_t n, BatchScores& out, Workspace& ws) const {
  score(reads, n, out, ws);
  call(out, ws.valid_frames);
}

void Classifier::classify_pairs(const std::string_view* mates1, const std::string_view* mates2, size_t n,
                                BatchScores& out, Workspace& ws) const {
  score(mates1, n, out, ws);
  std::vector<int32_t> valid1 = ws.valid_frames;
  BatchScores& m2 = ws.mate_scores;
  score(mates2, n, m2, ws);
  const size_t nf = set_.filters.size();
  for (size_t r = 0; r < n; ++r) {
    out.denominator[r] += m2.denominator[r];
    valid1[r] += ws.valid_frames[r];
    for (size_t j = 0; j < nf; ++j) {
      const size_t i = r * nf + j;
      out.points[i] += m2.points[i];
      out.passed[i] = params_.pair_mode == PairMode::both ? (out.passed[i] & m2.passed[i]) : (out.passed[i] | m2.passed[i]);
    }
  }
  out.lookups += m2.lookups;
  call(out, valid1);
}

void Classifier::call(BatchScores& out, const std::vector<int32_t>& valid_frames) const {
  const size_t nf = out.filters;
  for (size_t r = 0; r < out.reads; ++r) {
    int32_t best = -1, best_points = -1, ties = 0, matched = 0;
    for (size_t j = 0; j < nf; ++j) {
      if (!out.passed[r * nf + j]) continue;
      ++matched;
      const int32_t p = out.points[r * nf + j];
      if (p > best_points) {
        best_points = p;
        best = int32_t(j);
        ties = 1;
      } else if (p == best_points) {
        ++ties;
      }
    }
    out.matched[r] = matched;
    if (valid_frames[r] == 0) out.call[r] = kCallUnscored;
    else if (matched == 0) out.call[r] = kCallNovel;
    else out.call[r] = ties > 1 ? kCallTie : best;
  }
}

void Classifier::score(const std::string_view* reads, size_t n, BatchScores& out, Workspace& ws) const {
  const size_t nf = set_.filters.size();
  out.resize(n, nf);
  ws.valid_frames.assign(n, 0);
  const size_t g = size_t(params_.group_reads);
  for (size_t first = 0; first < n; first += g) {
    const size_t cnt = std::min(g, n - first);
    score_group(reads + first, cnt, &out.points[first * nf], &out.passed[first * nf], &out.denominator[first],
                &ws.valid_frames[first], out.lookups, ws);
  }
}

void Classifier::score_group(const std::string_view* reads, size_t n, int32_t* points, uint8_t* passed,
                             int32_t* denom, int32_t* valid_frames, uint64_t& lookups, Workspace& ws) const {
  const int w = set_.w;
  const size_t nf = views_.size();
  const size_t kmax = size_t(kmax_);

  // 1. 2-bit codes of every read. Keys and hashes are computed lazily, only for the frames the scorers ask for
  //    (an error-free read needs ~L/w of them); a read without any complete k-mer is flagged here.
  ws.base_offset.resize(n + 1);
  ws.frame_offset.resize(n + 1);
  ws.frames.resize(n);
  size_t bases = 0, total = 0;
  for (size_t r = 0; r < n; ++r) {
    ws.base_offset[r] = bases;
    ws.frame_offset[r] = total;
    bases += reads[r].size();
    const int64_t f = int64_t(reads[r].size()) - w + 1;
    ws.frames[r] = f > 0 ? int32_t(std::min<int64_t>(f, INT32_MAX)) : 0;
    total += size_t(ws.frames[r]);
  }
  ws.base_offset[n] = bases;
  ws.frame_offset[n] = total;
  ws.codes.resize(bases);
  for (size_t r = 0; r < n; ++r) {
    const std::string_view s = reads[r];
    uint8_t* c = ws.codes.data() + ws.base_offset[r];
    int run = 0, longest = 0;
    for (size_t i = 0; i < s.size(); ++i) {
      const uint8_t code = base_code(s[i]);
      c[i] = code;
      run = code < 4 ? run + 1 : 0;
      longest = std::max(longest, run);
    }
    valid_frames[r] = longest >= w ? 1 : 0;
  }
  ws.hashed.assign(total, 0);
  ws.keys.resize(total);
  if (ws.hashes.size() < total * kmax) ws.hashes.resize(total * kmax);
  ws.states.assign(total * nf, kFrameUnknown);

  // 2. One scorer per (read, filter), all advanced in rounds: a job's next lookup is hashed and its first words
  //    prefetched in one round and tested in the next, after every other job has issued its own prefetches.
  const size_t njobs = n * nf;
  ws.jobs.resize(njobs);
  ws.active.clear();
  auto finish = [&](const Job& jb) {
    const size_t i = size_t(jb.read) * nf + jb.filter;
    points[i] = jb.scorer.points();
    passed[i] = jb.scorer.passes(params_.threshold) ? 1 : 0;
    denom[jb.read] = jb.scorer.denominator();
    lookups += uint64_t(jb.scorer.lookups());
  };
  auto prefetch = [&](const Job& jb, int from, int to) {
    const ConstBloomView v = views_[jb.filter];
    for (int i = from; i < to; ++i) __builtin_prefetch(v.words + (bloom_slot(jb.hashes[i], v.m_bits) >> 5));
  };
  // Asks the scorer for its next frame (frames with N are answered as misses on the spot), makes sure the frame's
  // first hashes exist (once per read, shared by all filters) and prefetches the first probes.
  auto advance = [&](Job& jb) -> bool {
    for (;;) {
      const int f = jb.scorer.next(jb.state);
      if (f < 0) {
        finish(jb);
        return false;
      }
      if (!hash_head(ws, jb.read, f)) {
        jb.state[f] = kFrameMiss;  // an N in the k-mer: not a lookup
        continue;
      }
      jb.frame = f;
      jb.hashes = ws.hashes.data() + (ws.frame_offset[jb.read] + size_t(f)) * kmax;
      jb.stage = std::min(kFirstProbes, ks_[jb.filter]);
      prefetch(jb, 0, jb.stage);
      return true;
    }
  };
  for (size_t r = 0, job = 0; r < n; ++r) {
    const int len = int(std::min<size_t>(reads[r].size(), INT32_MAX / 2));
    for (size_t j = 0; j < nf; ++j, ++job) {
      Job& jb = ws.jobs[job];
      jb.read = uint32_t(r);
      jb.filter = uint32_t(j);
      jb.state = ws.states.data() + ws.frame_offset[r] * nf + j * size_t(ws.frames[r]);
      jb.scorer.start(params_.score, len, w, params_.threshold);
      if (advance(jb)) ws.active.push_back(uint32_t(job));
    }
  }
  while (!ws.active.empty()) {
    size_t keep = 0;
    for (size_t a = 0; a < ws.active.size(); ++a) {
      const uint32_t job = ws.active[a];
      Job& jb = ws.jobs[job];
      const ConstBloomView v = views_[jb.filter];
      const int k = ks_[jb.filter];
      const int from = jb.stage == k && k > kFirstProbes ? kFirstProbes : 0;
      bool hit = true;
      for (int i = from; i < jb.stage && hit; ++i) hit = test_bit(v.words, bloom_slot(jb.hashes[i], v.m_bits));
      if (hit && jb.stage < k) {  // the first probes passed: fetch the rest and test them next round
        hash_tail(ws, ws.frame_offset[jb.read] + size_t(jb.frame));
        prefetch(jb, jb.stage, k);
        jb.stage = k;
        ws.active[keep++] = job;
        continue;
      }
      jb.scorer.feed(jb.state, jb.frame, hit);
      if (advance(jb)) ws.active[keep++] = job;
    }
    ws.active.resize(keep);
  }
}

bool Classifier::hash_head(Workspace& ws, size_t read, int frame) const {
  const size_t slot = ws.frame_offset[read] + size_t(frame);
  const uint8_t done = ws.hashed[slot];
  if (done) return done != 1;
  const int w = set_.w;
  const uint8_t* c = ws.codes.data() + ws.base_offset[read] + size_t(frame);
  uint64_t fwd = 0, rc = 0;
  uint8_t bad = 0;
  for (int i = 0; i < w; ++i) {
    const uint8_t code = c[i];
    bad |= code;  // codes 0..3 never set bit 2; kInvalidBase (4) does
    fwd = (fwd << 2) | (code & 3);
    rc |= uint64_t(3 - (code & 3)) << (2 * i);
  }
  if (bad & 4) {
    ws.hashed[slot] = 1;
    return false;
  }
  const uint64_t key = canonical_wmer(fwd, rc);
  ws.keys[slot] = key;
  uint64_t h = 0;
  for (int b = 0; b < key_bytes_; ++b) h ^= head_table_[size_t(b) * 256 + ((key >> (8 * b)) & 0xFF)];
  uint32_t* out = ws.hashes.data() + slot * size_t(kmax_);
  out[0] = uint32_t(h);
  if (kmax_ > 1) out[1] = uint32_t(h >> 32);
  ws.hashed[slot] = 2;
  return true;
}

void Classifier::hash_tail(Workspace& ws, size_t slot) const {
  if (ws.hashed[slot] == 3 || kmax_ <= kFirstProbes) return;
  const uint64_t key = ws.keys[slot];
  const size_t lanes = size_t(tail_lanes_);
  uint32_t acc[kMaxHashes] = {};
  for (int b = 0; b < key_bytes_; ++b) {
    const uint32_t* row = tail_table_.data() + (size_t(b) * 256 + ((key >> (8 * b)) & 0xFF)) * lanes;
    for (size_t i = 0; i < lanes; ++i) acc[i] ^= row[i];
  }
  uint32_t* out = ws.hashes.data() + slot * size_t(kmax_) + kFirstProbes;
  for (int i = 0; i < kmax_ - kFirstProbes; ++i) out[i] = acc[i];
  ws.hashed[slot] = 3;
}

}  // namespace bloomseq
