// The classifier's interleaved path: scores of every read against every filter of a set of interleaved groups
// (FilterSet::groups), with one query per frame for all filters of a group instead of one lookup per filter.
//
// Per group of reads: (1) FACS's quick frames of every read are hashed once and queried in every group, the rows
// of the next few frames prefetched while one is queried; the OR of a read's answers are its candidates, the
// filters with a quick hit (the others score 0, as FACS stops there). The BioBloom score has no quick pass: every
// filter is a candidate. (2) One scorer per (read, candidate) runs the usual lazy scan (read_scorer.hpp); a frame
// it needs is queried once for all candidates of its read (only their words of a row, stopping as soon as none is
// left) and the answer is kept for the other scorers. Scorers advance in rounds: the frames requested in a round
// are hashed and their rows prefetched, then queried together, so their cache misses overlap.
//
// A frame hits a filter when the filter's bit is set in every one of its group's k rows: bit for bit what a
// separate classic filter holding the bin answers (same hash functions, same bloom_slot), so the scores equal
// those of separate filters with the same bits.
#include <algorithm>
#include <climits>
#include <string>

#include "bloomseq/error.hpp"
#include "classifier_scratch.hpp"

namespace bloomseq {
namespace {

constexpr uint32_t kIbfNone = UINT32_MAX;         // not looked up yet
constexpr uint32_t kIbfInvalid = UINT32_MAX - 1;  // the frame holds an N: a miss without a lookup
constexpr uint32_t kIbfPending = UINT32_MAX - 2;  // requested in this round
constexpr size_t kQuickAhead = 4;                 // quick frames whose rows are in flight while one is queried

}  // namespace

void Classifier::set_up_interleaved() {
  interleaved_ = true;
  uint32_t words = 0;
  word_group_.clear();
  for (size_t g = 0; g < set_.groups.size(); ++g) {
    const InterleavedGroup& grp = set_.groups[g];
    if (grp.ibf.bins() != grp.bins || grp.ibf.m_bits() != grp.m_bits || grp.members.size() != grp.bins)
      throw DataError("interleaved group " + std::to_string(g + 1) + " is not loaded or is inconsistent");
    ibf_groups_[g].first_word = words;
    for (uint32_t i = 0; i < grp.ibf.words_per_row(); ++i) word_group_.push_back(uint32_t(g));
    words += grp.ibf.words_per_row();
  }
  ibf_words_ = words;
  column_filter_.assign(size_t(words) * 64, -1);
  all_columns_.assign(words, 0);
  for (size_t j = 0; j < set_.filters.size(); ++j) {
    const FilterEntry& f = set_.filters[j];
    if (f.group < 0 || size_t(f.group) >= set_.groups.size() || f.bin >= set_.groups[size_t(f.group)].bins)
      throw UsageError("filter '" + f.name + "' is not in an interleaved group, unlike others of the set: classify "
                       "interleaved and separate filters in separate runs");
    const uint32_t c = ibf_groups_[size_t(f.group)].first_word * 64 + f.bin;
    column_filter_[c] = int32_t(j);
    all_columns_[c >> 6] |= uint64_t(1) << (c & 63);
  }
}

void Classifier::score_group_interleaved(const std::string_view* reads, size_t n, int32_t* points, uint8_t* passed,
                                         int32_t* denom, int32_t* valid_frames, uint64_t& lookups, Scratch& ws,
                                         bool exact_failing) const {
  const int w = set_.w;
  const size_t nf = set_.filters.size();
  const size_t kmax = size_t(kmax_);
  const size_t W = ibf_words_;
  const bool facs = params_.score == ScoreKind::facs;

  pack_group(reads, n, valid_frames, ws);
  const size_t total = ws.frame_offset[n];
  ws.hashed.assign(total, 0);
  ws.keys.resize(total);
  if (ws.hashes.size() < total * kmax) ws.hashes.resize(total * kmax);
  ws.ibf_entry.assign(total, kIbfNone);
  ws.ibf_answers.clear();
  auto hashes_of = [&](size_t slot) { return ws.hashes.data() + slot * kmax; };
  // All kmax hashes of a frame (every group may need them); false for a frame with N.
  auto hash_all = [&](size_t read, int frame, size_t slot) {
    if (!hash_head(ws, read, frame)) {
      ws.ibf_entry[slot] = kIbfInvalid;
      return false;
    }
    hash_more(ws, slot, kmax_);
    return true;
  };

  // 1. Candidates: filters with a quick hit (FACS), or all filters (BioBloom).
  ws.ibf_candidates.assign(n * W, 0);
  if (facs) {
    ws.ibf_quick.clear();
    ws.ibf_quick_read.clear();
    for (size_t r = 0; r < n; ++r) {
      const int F = ws.frames[r];
      const int density = model_.quick_density(F + w - 1);
      for (int q = 0; q < F; q = FacsScorer::next_quick_frame(q, F, w, density)) {
        const size_t slot = ws.frame_offset[r] + size_t(q);
        if (!hash_all(r, q, slot)) continue;
        ws.ibf_quick.push_back(uint32_t(slot));
        ws.ibf_quick_read.push_back(uint32_t(r));
      }
    }
    const size_t nq = ws.ibf_quick.size();
    ws.ibf_answers.resize(nq * W);
    auto prefetch = [&](size_t i) {
      const uint32_t* h = hashes_of(ws.ibf_quick[i]);
      for (const IbfGroup& g : ibf_groups_) g.view.prefetch(h, g.k);
    };
    for (size_t i = 0; i < std::min(nq, kQuickAhead); ++i) prefetch(i);
    for (size_t i = 0; i < nq; ++i) {
      if (i + kQuickAhead < nq) prefetch(i + kQuickAhead);
      const uint32_t* h = hashes_of(ws.ibf_quick[i]);
      uint64_t* out = ws.ibf_answers.data() + i * W;
      for (const IbfGroup& g : ibf_groups_) g.view.query(h, g.k, out + g.first_word);
      uint64_t* cand = ws.ibf_candidates.data() + size_t(ws.ibf_quick_read[i]) * W;
      for (size_t c = 0; c < W; ++c) cand[c] |= out[c];
      ws.ibf_entry[ws.ibf_quick[i]] = uint32_t(i);
    }
    lookups += nq;
  } else {
    for (size_t r = 0; r < n; ++r)
      if (valid_frames[r]) std::copy(all_columns_.begin(), all_columns_.end(), ws.ibf_candidates.begin() + r * W);
  }

  // 2. One scorer per (read, candidate filter).
  ws.ibf_words.clear();
  ws.ibf_words_first.assign(n + 1, 0);
  ws.ibf_jobs.clear();
  size_t states = 0;
  for (size_t r = 0; r < n; ++r) {
    const int len = int(std::min<size_t>(reads[r].size(), INT32_MAX / 2));
    const int density = model_.quick_density(len);
    ReadScorer blank;
    blank.start(params_.score, len, w, params_.threshold, density);
    denom[r] = blank.denominator();
    ws.ibf_words_first[r] = uint32_t(ws.ibf_words.size());
    const int32_t need = model_.min_covered(len, ws.uncoverable[r]);
    const uint64_t* cand = ws.ibf_candidates.data() + r * W;
    for (size_t c = 0; c < W; ++c) {
      if (!cand[c]) continue;
      ws.ibf_words.push_back(uint32_t(c));
      for (uint64_t bits = cand[c]; bits; bits &= bits - 1) {
        const uint32_t column = uint32_t(c * 64) + uint32_t(__builtin_ctzll(bits));
        const int32_t filter = column_filter_[column];
        if (filter < 0) continue;
        Scratch::IbfJob jb;
        jb.read = uint32_t(r);
        jb.filter = uint32_t(filter);
        jb.column = column;
        jb.state = states;
        jb.need = need;
        // Uncovered bases only grow during the scan: past L - need the filter cannot pass, and unless every
        // filter's points must be exact the scan stops there (calls and passing scores stay the same).
        jb.max_uncovered = facs && !exact_failing ? len - std::max(need, 1) : INT32_MAX;
        jb.scorer = blank;
        states += size_t(std::max(ws.frames[r], 1));
        ws.ibf_jobs.push_back(jb);
      }
    }
  }
  ws.ibf_words_first[n] = uint32_t(ws.ibf_words.size());
  ws.ibf_states.assign(states, kFrameUnknown);

  // The candidate words of a read in group g's row: [from, to) of ws.ibf_words.
  auto for_each_group_span = [&](size_t read, auto&& fn) {
    const uint32_t first = ws.ibf_words_first[read], last = ws.ibf_words_first[read + 1];
    for (uint32_t a = first; a < last;) {
      const uint32_t g = word_group_[ws.ibf_words[a]];
      uint32_t b = a;
      ws.ibf_local.clear();
      while (b < last && word_group_[ws.ibf_words[b]] == g) ws.ibf_local.push_back(ws.ibf_words[b++] - ibf_groups_[g].first_word);
      fn(ibf_groups_[g], a, b);
      a = b;
    }
  };

  ws.ibf_active.resize(ws.ibf_jobs.size());
  for (size_t a = 0; a < ws.ibf_active.size(); ++a) ws.ibf_active[a] = uint32_t(a);
  while (!ws.ibf_active.empty()) {
    ws.ibf_pending.clear();
    ws.ibf_pending_read.clear();
    size_t keep = 0;
    for (size_t a = 0; a < ws.ibf_active.size(); ++a) {
      Scratch::IbfJob& jb = ws.ibf_jobs[ws.ibf_active[a]];
      uint8_t* st = ws.ibf_states.data() + jb.state;
      bool waiting = false;
      for (;;) {
        const FacsScorer& fs = jb.scorer.facs;
        if (fs.phase == 1 && fs.base - fs.covered > jb.max_uncovered) break;  // cannot pass any more
        const int f = jb.scorer.next(st);
        if (f < 0) break;
        const size_t slot = ws.frame_offset[jb.read] + size_t(f);
        const uint32_t e = ws.ibf_entry[slot];
        if (e == kIbfPending) {
          waiting = true;
          break;
        }
        if (e == kIbfNone) {
          if (hash_all(jb.read, f, slot)) {
            ws.ibf_entry[slot] = kIbfPending;
            ws.ibf_pending.push_back(uint32_t(slot));
            ws.ibf_pending_read.push_back(jb.read);
            const uint32_t* h = hashes_of(slot);
            for_each_group_span(jb.read, [&](const IbfGroup& g, uint32_t, uint32_t) {
              g.view.prefetch_words(h, g.k, ws.ibf_local.data(), uint32_t(ws.ibf_local.size()));
            });
            waiting = true;
            break;
          }
        }
        if (ws.ibf_entry[slot] == kIbfInvalid) {
          st[f] = kFrameMiss;  // an N in the k-mer: not a lookup
          continue;
        }
        const uint64_t word = ws.ibf_answers[size_t(ws.ibf_entry[slot]) * W + (jb.column >> 6)];
        jb.scorer.feed(st, f, (word >> (jb.column & 63)) & 1u);
      }
      if (waiting) {
        ws.ibf_active[keep++] = ws.ibf_active[a];
        continue;
      }
      const size_t i = size_t(jb.read) * nf + jb.filter;
      points[i] = jb.scorer.points();
      passed[i] = jb.scorer.passes(jb.need) ? 1 : 0;
    }
    ws.ibf_active.resize(keep);
    // The frames requested in this round, each for all candidates of its read.
    for (size_t p = 0; p < ws.ibf_pending.size(); ++p) {
      const size_t slot = ws.ibf_pending[p], read = ws.ibf_pending_read[p];
      const uint32_t e = uint32_t(ws.ibf_answers.size() / W);
      ws.ibf_answers.resize(ws.ibf_answers.size() + W, 0);
      uint64_t* out = ws.ibf_answers.data() + size_t(e) * W;
      const uint64_t* cand = ws.ibf_candidates.data() + read * W;
      const uint32_t* h = hashes_of(slot);
      for_each_group_span(read, [&](const IbfGroup& g, uint32_t from, uint32_t to) {
        const uint32_t cnt = to - from;
        ws.ibf_mask.resize(cnt);
        ws.ibf_out.resize(cnt);
        for (uint32_t x = 0; x < cnt; ++x) ws.ibf_mask[x] = cand[ws.ibf_words[from + x]];
        g.view.query_words(h, g.k, ws.ibf_local.data(), cnt, ws.ibf_mask.data(), ws.ibf_out.data());
        for (uint32_t x = 0; x < cnt; ++x) out[ws.ibf_words[from + x]] = ws.ibf_out[x];
      });
      ws.ibf_entry[slot] = e;
    }
    lookups += ws.ibf_pending.size();
  }
}

}  // namespace bloomseq
