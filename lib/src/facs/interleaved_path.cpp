// The classifier's interleaved path: scores of every read against every filter of a set of interleaved groups
// (FilterSet::groups), with one query per frame for all filters of a group instead of one lookup per filter.
//
// Per group of reads: (1) FACS's quick frames of every read are hashed once and queried in every group, the rows
// of the next few frames prefetched while one is queried; the OR of a read's answers are its candidates, the
// filters with a quick hit (the others score 0, as FACS stops there). The BioBloom score has no quick pass: every
// filter is a candidate. (2) One scorer per (read, candidate) runs the usual lazy scan (read_scorer.hpp); a frame
// it needs is hashed once per read and tested in the candidate's bin alone (its word of each row, up to the first
// row that clears its bit), or, for a read with many candidates, queried once for every bin and the answer kept
// for the others. Scorers advance in rounds: the frames requested in a round are tested together, prefetched a
// few lookups ahead, so their cache misses overlap.
//
// A frame hits a filter when the filter's bit is set in every one of its group's k rows: bit for bit what a
// separate classic filter holding the bin answers (same hash functions, same bloom_slot), so the scores equal
// those of separate filters with the same bits. With a group router (bloom/group_router.hpp) the quick pass
// queries only the groups the router admits for a frame, so a filter is a candidate only through a quick hit in
// an admitted group; a candidate's scan asks its bin for the quick frames the router turned its group away from.
#include <algorithm>
#include <climits>
#include <string>

#include "bloomseq/error.hpp"
#include "classifier_scratch.hpp"

namespace bloomseq {
namespace {

constexpr uint32_t kIbfNone = UINT32_MAX;         // not looked up yet
constexpr uint32_t kIbfInvalid = UINT32_MAX - 1;  // the frame holds an N: a miss without a lookup
constexpr uint32_t kIbfHashed = UINT32_MAX - 2;   // hashed, not looked up for every bin (a scan frame)
constexpr uint32_t kIbfPending = UINT32_MAX - 3;  // to be looked up for every bin in this round
constexpr size_t kQuickInFlight = 16;             // whole-row queries (frame, group) whose rows are in flight
constexpr int kQuickRows = 3;                     // rows a whole-row query reads per stage
constexpr size_t kRoutesInFlight = 12;           // router blocks in flight (each one cache line)
constexpr size_t kLookupsInFlight = 12;           // scan lookups whose next rows are in flight while one is tested
constexpr int kPrefetchRows = 3;                  // rows a scan lookup tests per stage (a false positive's bit
                                                  // usually clears within them)
// From this many candidates on, a read's scan frames are looked up for every bin at once (whole rows, as in the
// quick pass) and the answer shared: many candidates (BioBloom scores every filter) would each read their own words.
constexpr uint32_t kSharedFrom = 8;

// A staged lookup: its item and the first of its rows still to test.
struct Stage {
  uint32_t item;
  int row;
};
// The lookups whose next rows are in flight, tested first in, first out (the quick pass and the scans below).
template <size_t N>
struct StageRing {
  Stage at[N];
  size_t head = 0, size = 0;
  void push(Stage s) { at[(head + size++) % N] = s; }
  Stage pop() {
    const Stage s = at[head];
    head = (head + 1) % N;
    --size;
    return s;
  }
};

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
  ibf_routers_.clear();
  unrouted_groups_ = ~uint64_t(0);
  if (!set_.routers.empty()) {
    if (set_.groups.size() > kRouterMaxGroups)
      throw UsageError("these filter sets have " + std::to_string(set_.groups.size()) + " interleaved groups in all; "
                       "with group routers at most " + std::to_string(kRouterMaxGroups) +
                       " can be classified together: classify the sets in separate runs");
    int k = 0;
    for (const GroupRouter& gr : set_.routers) {
      if (gr.first_group + uint64_t(gr.groups) > set_.groups.size() || gr.blocks.m_bits() != gr.n_blocks ||
          gr.blocks.bins() != 512)
        throw DataError("a group router is not loaded or does not match its groups");
      ibf_routers_.push_back(IbfRouter{gr.view(), gr.first_group});
      for (uint32_t g = 0; g < gr.groups; ++g) unrouted_groups_ &= ~(uint64_t(1) << (gr.first_group + g));
      k = std::max(k, gr.k);
    }
    router_family_ = H3Family(k + 1, set_.w, group_router_seed(set_.seed));
  }
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

uint64_t Classifier::route_key(uint64_t key) const {
  uint32_t h[kMaxHashes];
  router_family_.byte_view().hash_all(key, h);
  uint64_t admitted = unrouted_groups_;
  for (const IbfRouter& r : ibf_routers_) admitted |= r.view.groups_of(h) << r.first_group;
  return admitted;
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
  // The groups the routers admit for each hashed quick frame of `slots` (ibf_route): the routers' hashes of all
  // of them first, then the answers, each block prefetched kRoutesInFlight ahead (the same time as prefetching
  // all of them first, measured; bounded).
  const bool routed = !ibf_routers_.empty();
  const H3ByteView router_hv = routed ? router_family_.byte_view() : H3ByteView{};
  const size_t rk = size_t(router_hv.k);
  if (routed) {
    ws.ibf_route.resize(total);
    ws.ibf_routed.assign(total, 0);
  }
  auto route = [&](const uint32_t* slots, size_t count) {
    if (!routed) return;
    ws.ibf_to_route.clear();
    for (size_t i = 0; i < count; ++i)
      if (!ws.ibf_routed[slots[i]]) {
        ws.ibf_routed[slots[i]] = 1;
        ws.ibf_to_route.push_back(slots[i]);
      }
    const size_t nr = ws.ibf_to_route.size();
    ws.route_hashes.resize(nr * rk);
    for (size_t i = 0; i < nr; ++i) router_hv.hash_all(ws.keys[ws.ibf_to_route[i]], ws.route_hashes.data() + i * rk);
    auto prefetch = [&](size_t i) {
      for (const IbfRouter& r : ibf_routers_) r.view.prefetch(ws.route_hashes.data() + i * rk);
    };
    for (size_t i = 0; i < std::min(nr, kRoutesInFlight); ++i) prefetch(i);
    for (size_t i = 0; i < nr; ++i) {
      if (i + kRoutesInFlight < nr) prefetch(i + kRoutesInFlight);
      const uint32_t* h = ws.route_hashes.data() + i * rk;
      uint64_t admitted = unrouted_groups_;
      for (const IbfRouter& r : ibf_routers_) admitted |= r.view.groups_of(h) << r.first_group;
      ws.ibf_route[ws.ibf_to_route[i]] = admitted;
    }
  };
  // Whether the quick pass answered group `group` for frame `slot` (a group the router turned away is unknown).
  auto answered = [&](size_t slot, size_t group) {
    return !routed || !ws.ibf_routed[slot] || ((ws.ibf_route[slot] >> group) & 1u);
  };
  // Every bin's answer for each frame (slot) of `slots`, appended to ibf_answers (W words each) and recorded in
  // ibf_entry. Returns the first answer's index. Each (frame, group) query goes through a ring, as the scan
  // lookups below do: kQuickRows of its rows in flight, then tested; one with a bin left prefetches its next rows
  // and goes to the back. Most queries of a random frame end within ~6 of a group's 7-9 rows (a third of a row's
  // bits are set), so prefetching all k rows ahead read lines that were never used.
  // `use_router` (the quick pass): only the groups the router admits are queried; the others' words stay zero,
  // and a scan that needs such a word looks its bin up instead.
  auto answer_whole_rows = [&](const std::vector<uint32_t>& slots, bool use_router) {
    const size_t first = ws.ibf_answers.size() / W, count = slots.size();
    ws.ibf_answers.resize((first + count) * W);  // zero: no candidate in a group the router turns away
    if (use_router) route(slots.data(), count);
    auto admits = [&](size_t slot, size_t group) {
      return !use_router || !routed || ((ws.ibf_route[slot] >> group) & 1u);
    };
    const size_t G = ibf_groups_.size(), queries = count * G;
    StageRing<kQuickInFlight> ring;  // items: frame * G + group
    size_t next = 0;
    auto issue = [&](uint32_t q, int row) {
      const IbfGroup& g = ibf_groups_[q % G];
      g.view.prefetch_rows(hashes_of(slots[q / G]), row, std::min(g.k, row + kQuickRows));
      ring.push(Stage{q, row});
    };
    // The next query whose group the router admits.
    auto skip = [&] {
      while (next < queries && !admits(slots[next / G], next % G)) ++next;
    };
    skip();
    while (ring.size < kQuickInFlight && next < queries) {
      issue(uint32_t(next++), 0);
      skip();
    }
    while (ring.size) {
      const Stage st = ring.pop();
      const size_t i = st.item / G;
      const IbfGroup& g = ibf_groups_[st.item % G];
      const int to = std::min(g.k, st.row + kQuickRows);
      uint64_t* out = ws.ibf_answers.data() + (first + i) * W + g.first_word;
      if (g.view.query_rows(hashes_of(slots[i]), st.row, to, out) && to < g.k) {
        issue(st.item, to);
        continue;
      }
      if (next < queries) {
        issue(uint32_t(next++), 0);
        skip();
      }
    }
    for (size_t i = 0; i < count; ++i) ws.ibf_entry[slots[i]] = uint32_t(first + i);
    return first;
  };
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
    const size_t first = answer_whole_rows(ws.ibf_quick, true);
    for (size_t i = 0; i < nq; ++i) {
      const uint64_t* out = ws.ibf_answers.data() + (first + i) * W;
      uint64_t* cand = ws.ibf_candidates.data() + size_t(ws.ibf_quick_read[i]) * W;
      for (size_t c = 0; c < W; ++c) cand[c] |= out[c];
    }
    lookups += nq;
  } else {
    for (size_t r = 0; r < n; ++r)
      if (valid_frames[r]) std::copy(all_columns_.begin(), all_columns_.end(), ws.ibf_candidates.begin() + r * W);
  }

  // 2. One scorer per (read, candidate filter).
  ws.ibf_jobs.clear();
  ws.ibf_read_jobs.assign(n, 0);
  size_t states = 0;
  for (size_t r = 0; r < n; ++r) {
    const int len = int(std::min<size_t>(reads[r].size(), INT32_MAX / 2));
    const int density = model_.quick_density(len);
    ReadScorer blank;
    blank.start(params_.score, len, w, params_.threshold, density);
    denom[r] = blank.denominator();
    const int32_t need = model_.min_covered(len, ws.uncoverable[r]);
    const uint64_t* cand = ws.ibf_candidates.data() + r * W;
    for (size_t c = 0; c < W; ++c) {
      if (!cand[c]) continue;
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
        ++ws.ibf_read_jobs[r];
      }
    }
  }
  ws.ibf_states.assign(states, kFrameUnknown);

  // 3. The scans, in rounds: every scorer runs until it needs a frame that is not known yet; the frames asked for
  //    in a round are then looked up together, each prefetched a few lookups ahead of its test so that their
  //    cache misses overlap. A frame is hashed once per read (its hashes serve every candidate) but tested per
  //    candidate, in that bin's word of each row and only until its bit clears: most candidates are false
  //    positives of the quick pass, whose bits clear after ~2 rows, where one test of all of a read's candidates
  //    together (their words ANDed until every bit cleared) read ~6 rows of ~2 cache lines (measured: 1,024
  //    references, 100,000 reads, see docs/benchmarks.md).
  ws.ibf_active.resize(ws.ibf_jobs.size());
  for (size_t a = 0; a < ws.ibf_active.size(); ++a) ws.ibf_active[a] = uint32_t(a);
  while (!ws.ibf_active.empty()) {
    ws.ibf_pending.clear();        // jobs waiting for a frame of their bin
    ws.ibf_pending_frame.clear();  // the frame each waits for
    ws.ibf_shared.clear();         // frames (slots) to look up for every bin
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
        uint32_t e = ws.ibf_entry[slot];
        if (e == kIbfNone && hash_all(jb.read, f, slot)) e = ws.ibf_entry[slot] = kIbfHashed;
        if (e == kIbfNone || e == kIbfInvalid) {
          st[f] = kFrameMiss;  // an N in the k-mer: not a lookup
          continue;
        }
        if (e == kIbfHashed && ws.ibf_read_jobs[jb.read] >= kSharedFrom) {
          e = ws.ibf_entry[slot] = kIbfPending;
          ws.ibf_shared.push_back(uint32_t(slot));
        }
        if (e == kIbfPending) {
          waiting = true;
          break;
        }
        // A quick frame whose group the router turned away: the candidate's bin was not queried (the router
        // only chooses the candidates; a scanned bin answers for itself, as without a router).
        if (e == kIbfHashed || !answered(slot, word_group_[jb.column >> 6])) {
          ws.ibf_pending.push_back(ws.ibf_active[a]);
          ws.ibf_pending_frame.push_back(uint32_t(f));
          waiting = true;
          break;
        }
        // Answered for every bin: by the quick pass, or shared by the candidates of a read that has many.
        const uint64_t word = ws.ibf_answers[size_t(e) * W + (jb.column >> 6)];
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
    const size_t npending = ws.ibf_pending.size();
    // The bin of a job in its group, and the hashes of the frame it waits for.
    auto lookup_of = [&](size_t p, const IbfGroup*& g, uint32_t& bin, const uint32_t*& h) {
      const Scratch::IbfJob& jb = ws.ibf_jobs[ws.ibf_pending[p]];
      g = &ibf_groups_[word_group_[jb.column >> 6]];
      bin = jb.column - g->first_word * 64;
      h = hashes_of(ws.frame_offset[jb.read] + ws.ibf_pending_frame[p]);
    };
    // The lookups go through a ring of kLookupsInFlight, each holding the next kPrefetchRows of its rows in
    // flight: a lookup whose prefetched bits are all set (a true hit, or a false positive that clears later)
    // prefetches its next rows and goes to the back of the ring instead of waiting on them, so that no lookup
    // stalls the others on a row that was not prefetched.
    const size_t nlookups = npending;
    StageRing<kLookupsInFlight> ring;  // items: indices into ibf_pending
    size_t next = 0;
    auto issue = [&](uint32_t p, int row) {
      const IbfGroup* g;
      uint32_t bin;
      const uint32_t* h;
      lookup_of(p, g, bin, h);
      g->view.prefetch_bin(bin, h, row, std::min(g->k, row + kPrefetchRows));
      ring.push(Stage{p, row});
    };
    while (ring.size < kLookupsInFlight && next < nlookups) issue(uint32_t(next++), 0);
    while (ring.size) {
      const Stage s = ring.pop();
      const IbfGroup* g;
      uint32_t bin;
      const uint32_t* h;
      lookup_of(s.item, g, bin, h);
      const int to = std::min(g->k, s.row + kPrefetchRows);
      const bool set = g->view.contains_rows(bin, h, s.row, to);
      if (set && to < g->k) {
        issue(s.item, to);
        continue;
      }
      Scratch::IbfJob& jb = ws.ibf_jobs[ws.ibf_pending[s.item]];
      jb.scorer.feed(ws.ibf_states.data() + jb.state, int(ws.ibf_pending_frame[s.item]), set);
      if (next < nlookups) issue(uint32_t(next++), 0);
    }
    lookups += npending;
    // Whole-row lookups, for reads with many candidates.
    answer_whole_rows(ws.ibf_shared, false);
    lookups += ws.ibf_shared.size();
  }
}

}  // namespace bloomseq
