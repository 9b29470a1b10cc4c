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
  hash_ = family_.byte_view();
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

  // 1. The canonical w-mers of every read; frames with N are marked as misses in every filter's state array.
  ws.frame_offset.resize(n + 1);
  ws.frames.resize(n);
  size_t total = 0;
  for (size_t r = 0; r < n; ++r) {
    ws.frame_offset[r] = total;
    const int64_t f = int64_t(reads[r].size()) - w + 1;
    ws.frames[r] = f > 0 ? int32_t(std::min<int64_t>(f, INT32_MAX)) : 0;
    total += size_t(ws.frames[r]);
  }
  ws.frame_offset[n] = total;
  ws.keys.resize(total);
  ws.valid.resize(total);
  ws.hashed.assign(total, 0);
  if (ws.hashes.size() < total * kmax) ws.hashes.resize(total * kmax);
  ws.states.resize(total * nf);
  for (size_t r = 0; r < n; ++r) {
    const size_t off = ws.frame_offset[r];
    const size_t nfr = size_t(ws.frames[r]);
    uint64_t* keys = ws.keys.data() + off;
    uint8_t* valid = ws.valid.data() + off;
    std::fill(valid, valid + nfr, uint8_t(0));
    WmerRoller roller(w);
    const std::string_view s = reads[r];
    int32_t nvalid = 0;
    for (size_t i = 0; i < s.size(); ++i) {
      if (roller.push(base_code(s[i]))) {
        const size_t f = i + 1 - size_t(w);
        keys[f] = canonical_wmer(roller.fwd, roller.rc);
        valid[f] = 1;
        ++nvalid;
      }
    }
    valid_frames[r] = nvalid;
    for (size_t j = 0; j < nf; ++j) {
      uint8_t* st = ws.states.data() + off * nf + j * nfr;
      for (size_t f = 0; f < nfr; ++f) st[f] = valid[f] ? kFrameUnknown : kFrameMiss;
    }
  }

  // 2. One scorer per (read, filter), all advanced in lockstep rounds: hash + prefetch, then test.
  const size_t jobs = n * nf;
  ws.scorers.resize(jobs);
  ws.pending.resize(jobs);
  ws.active.clear();
  auto state_of = [&](size_t job) {
    const size_t r = job / nf, j = job % nf;
    return ws.states.data() + ws.frame_offset[r] * nf + j * size_t(ws.frames[r]);
  };
  auto finish = [&](size_t job) {
    const size_t r = job / nf, j = job % nf;
    const ReadScorer& sc = ws.scorers[job];
    points[r * nf + j] = sc.points();
    passed[r * nf + j] = sc.passes(params_.threshold) ? 1 : 0;
    denom[r] = sc.denominator();
    lookups += uint64_t(sc.lookups());
  };
  // Asks the scorer for its next frame; makes sure the frame is hashed and its words are on their way.
  auto advance = [&](size_t job) -> bool {
    const int f = ws.scorers[job].next(state_of(job));
    if (f < 0) {
      finish(job);
      return false;
    }
    const size_t r = job / nf, j = job % nf;
    const size_t fi = ws.frame_offset[r] + size_t(f);
    uint32_t* h = ws.hashes.data() + fi * kmax;
    if (!ws.hashed[fi]) {
      hash_.hash_all(ws.keys[fi], h);
      ws.hashed[fi] = 1;
    }
    const ConstBloomView v = views_[j];
    for (int i = 0; i < ks_[j]; ++i) __builtin_prefetch(v.words + (bloom_slot(h[i], v.m_bits) >> 5));
    ws.pending[job] = f;
    return true;
  };
  for (size_t job = 0; job < jobs; ++job) {
    const size_t r = job / nf;
    ws.scorers[job].start(params_.score, int(std::min<size_t>(reads[r].size(), INT32_MAX / 2)), w, params_.threshold);
    if (advance(job)) ws.active.push_back(uint32_t(job));
  }
  while (!ws.active.empty()) {
    size_t keep = 0;
    for (size_t a = 0; a < ws.active.size(); ++a) {
      const uint32_t job = ws.active[a];
      const size_t r = job / nf, j = job % nf;
      const int f = ws.pending[job];
      const uint32_t* h = ws.hashes.data() + (ws.frame_offset[r] + size_t(f)) * kmax;
      const bool hit = views_[j].contains(h, ks_[j]);
      ws.scorers[job].feed(state_of(job), f, hit);
      if (advance(job)) ws.active[keep++] = job;
    }
    ws.active.resize(keep);
  }
}

}  // namespace bloomseq
