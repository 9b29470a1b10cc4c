#include "bloomseq/facs/classifier.hpp"

#include "classifier_scratch.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <utility>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "bloomseq/backend/backend.hpp"
#include "bloomseq/encode/dna.hpp"
#include "bloomseq/error.hpp"

namespace bloomseq {
namespace {

struct CodeTable {
  uint8_t code[256];
  constexpr CodeTable() : code() {
    for (int c = 0; c < 256; ++c) code[c] = base_code(char(c));
  }
  constexpr uint8_t operator[](uint8_t c) const { return code[c]; }
};
constexpr CodeTable kCodeOf{};

// 2-bit codes of 32 characters, first character in the low bits (A/a = 0, C/c = 1, G/g = 2, T/t and U/u = 3 are
// bits 1-2 of the ASCII code XORed with bits 2-3; other characters get some code and are flagged by invalid32). Eight
// characters at a time in a 64-bit word: no table look-up per base.
inline uint64_t pack32_codes(const char* s) {
  uint64_t out = 0;
  for (int part = 0; part < 4; ++part) {
    uint64_t x;
    std::memcpy(&x, s + 8 * part, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    x = __builtin_bswap64(x);
#endif
    uint64_t c = ((x >> 1) ^ (x >> 2)) & 0x0303030303030303ULL;  // code of byte i at bits 8i, 8i + 1
    c = (c | (c >> 6)) & 0x000F000F000F000FULL;
    c = (c | (c >> 12)) & 0x000000FF000000FFULL;
    c = (c | (c >> 24)) & 0xFFFFULL;
    out |= c << (16 * part);
  }
  return out;
}

// One bit per character of 32 that is not A, C, G, T or U (either case).
inline uint64_t invalid32(const char* s) {
#if defined(__SSE2__)
  uint64_t bad = 0;
  for (int part = 0; part < 2; ++part) {
    const __m128i v = _mm_and_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 16 * part)), _mm_set1_epi8(char(0xDF)));
    const __m128i ok = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('A')), _mm_cmpeq_epi8(v, _mm_set1_epi8('C'))),
                                    _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('G')), _mm_cmpeq_epi8(v, _mm_set1_epi8('T'))),
                                                 _mm_cmpeq_epi8(v, _mm_set1_epi8('U'))));
    bad |= uint64_t(~_mm_movemask_epi8(ok) & 0xFFFF) << (16 * part);
  }
  return bad;
#else
  uint64_t bad = 0;
  for (int i = 0; i < 32; ++i) bad |= uint64_t(kCodeOf[uint8_t(s[i])] >> 2) << i;
  return bad;
#endif
}

#if defined(__SSE2__)
// pack32_codes and invalid32 together from two 16-byte loads: the codes of 32 characters are formed in all bytes
// at once and then narrowed (16 -> 8 -> 4 -> 2 bits per character) with shifts and saturating packs.
inline void pack32(const char* s, uint64_t& word, uint64_t& bad) {
  const __m128i lo = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s));
  const __m128i hi = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 16));
  auto codes = [](__m128i x) {
    // 16-bit shifts carry bits in from the neighbouring byte only above bit 5: the mask keeps each byte's own.
    __m128i c = _mm_and_si128(_mm_xor_si128(_mm_srli_epi16(x, 1), _mm_srli_epi16(x, 2)), _mm_set1_epi8(3));
    c = _mm_and_si128(_mm_or_si128(c, _mm_srli_epi16(c, 6)), _mm_set1_epi16(0x000F));   // 2 characters per 16 bits
    return _mm_and_si128(_mm_or_si128(c, _mm_srli_epi32(c, 12)), _mm_set1_epi32(0xFF));  // 4 per 32 bits
  };
  const __m128i bytes = _mm_packus_epi16(_mm_packs_epi32(codes(lo), codes(hi)), _mm_setzero_si128());
  word = uint64_t(_mm_cvtsi128_si64(bytes));
  auto ok = [](__m128i x) {
    const __m128i v = _mm_and_si128(x, _mm_set1_epi8(char(0xDF)));
    return _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('A')), _mm_cmpeq_epi8(v, _mm_set1_epi8('C'))),
                                          _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('G')), _mm_cmpeq_epi8(v, _mm_set1_epi8('T'))),
                                                       _mm_cmpeq_epi8(v, _mm_set1_epi8('U')))));
  };
  bad = ~(uint64_t(uint32_t(ok(lo))) | uint64_t(uint32_t(ok(hi))) << 16) & 0xFFFFFFFFULL;
}
#else
inline void pack32(const char* s, uint64_t& word, uint64_t& bad) {
  word = pack32_codes(s);
  bad = invalid32(s);
}
#endif

}  // namespace

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

int32_t BatchScores::best_points(size_t r) const {
  const int32_t c = call[r];
  if (c >= 0) return points[r * filters + size_t(c)];
  if (c != kCallTie) return 0;
  int32_t best = 0;
  for (size_t j = 0; j < filters; ++j)
    if (passed[r * filters + j]) best = std::max(best, points[r * filters + j]);
  return best;
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

namespace {

// The model's threshold for FACS scores unless a fixed one is given; BioBloom's s only needs checking.
FacsErrorModel make_error_model(const FilterSet& set, const ClassifyParams& params) {
  if (set.filters.empty()) throw UsageError("no filters to classify against");
  if (set.w < 1 || set.w > kMaxWordSize) throw DataError("filters have an invalid k-mer size " + std::to_string(set.w));
  const bool model = params.score == ScoreKind::facs && params.threshold == 0.0;
  if (!model && !(params.threshold > 0.0 && params.threshold <= 1.0))
    throw UsageError("score threshold must be in (0, 1], got " + std::to_string(params.threshold));
  return FacsErrorModel(set.w, params.error_rate, model ? 0.0 : params.threshold);
}

}  // namespace

Classifier::Classifier(const FilterSet& set, const ClassifyParams& params, Backend* device)
    : set_(set), params_(params), model_(make_error_model(set, params)), backend_(device) {
  if (params.group_reads < 1) throw UsageError("read group size must be at least 1");
  for (const FilterEntry& f : set.filters) {
    if (f.k < 1 || layout_hashes(f.layout, f.k) > kMaxHashes)
      throw DataError("filter '" + f.name + "' has an invalid hash count");
    if (f.layout == BloomLayout::blocked512 && f.bits.m_bits() % kBloomBlockBits != 0)
      throw DataError("filter '" + f.name + "' is blocked but not made of whole 512-bit blocks");
    kmax_ = std::max(kmax_, layout_hashes(f.layout, f.k));
    ks_.push_back(f.k);
    blocked_.push_back(f.layout == BloomLayout::blocked512 ? 1 : 0);
  }
  copy_filters_to_huge_pages();
  if (set.interleaved()) set_up_interleaved();
  family_ = H3Family(kmax_, set.w, set.seed);
  // Re-lay the byte-sliced H3 tables: functions 0,1 and 2,3 (what a missing k-mer usually needs: the first
  // zero bit shows within a probe or two) each in one 64-bit word per row, the others in rows of 16 or 32
  // lanes so that the loop over them is fixed-length SIMD.
  const H3ByteView hv = family_.byte_view();
  key_bytes_ = hv.key_bytes;
  const int k = kmax_;
  const int rest = std::max(0, k - 2 * kFirstProbes);
  tail_lanes_ = rest <= 16 ? 16 : 32;
  head_table_.assign(size_t(key_bytes_) * 256, 0);
  mid_table_.assign(size_t(key_bytes_) * 256, 0);
  tail_table_.assign(size_t(key_bytes_) * 256 * size_t(tail_lanes_), 0);
  auto fn = [&](const uint32_t* src, int i) { return i < k ? uint64_t(src[i]) : 0; };
  for (size_t row = 0; row < size_t(key_bytes_) * 256; ++row) {
    const uint32_t* src = hv.tables + row * size_t(k);
    head_table_[row] = fn(src, 0) | fn(src, 1) << 32;
    mid_table_[row] = fn(src, 2) | fn(src, 3) << 32;
    for (int i = 0; i < rest; ++i) tail_table_[row * size_t(tail_lanes_) + size_t(i)] = src[2 * kFirstProbes + i];
  }
  lean_ = params.lean_path && params.score == ScoreKind::facs &&
          std::all_of(blocked_.begin(), blocked_.end(), [](uint8_t b) { return b != 0; });
  // 16-bit lanes: hash 0 whole (lanes 0-1, it picks the block by fast range), then the bit inside the block
  // (top 9 bits) of hashes 1..kmax-1: XOR commutes with taking bits, so the rows can hold just those.
  lean_ = lean_ && k + 1 <= 32;
  lean_stride_ = k + 1 <= 16 ? 16 : 32;
  lean_table_.assign(size_t(key_bytes_) * 256 * size_t(lean_stride_), 0);
  for (size_t row = 0; row < size_t(key_bytes_) * 256; ++row) {
    const uint32_t* src = hv.tables + row * size_t(k);
    uint16_t* dst = lean_table_.data() + row * size_t(lean_stride_);
    dst[0] = uint16_t(src[0]);
    dst[1] = uint16_t(src[0] >> 16);
    for (int i = 1; i < k; ++i) dst[1 + i] = uint16_t(blocked_bit(src[i]));
  }
  // The heads of the rows (hash 0 and the bits of hashes 1..kLeanHeadBits): XOR commutes with packing.
  lean_head_table_.assign(size_t(key_bytes_) * 256, 0);
  for (size_t row = 0; row < size_t(key_bytes_) * 256; ++row) {
    const uint16_t* lanes = lean_table_.data() + row * size_t(lean_stride_);
    uint64_t head = uint64_t(lanes[0]) | uint64_t(lanes[1]) << 16;
    for (int i = 1; i <= kLeanHeadBits; ++i) head |= uint64_t(lanes[1 + i] & 511u) << (32 + 9 * (i - 1));
    lean_head_table_[row] = head;
  }
  lean_ks_ = ks_;
  std::sort(lean_ks_.begin(), lean_ks_.end());
  lean_ks_.erase(std::unique(lean_ks_.begin(), lean_ks_.end()), lean_ks_.end());
  for (int fk : ks_)
    lean_kidx_.push_back(uint32_t(std::lower_bound(lean_ks_.begin(), lean_ks_.end(), fk) - lean_ks_.begin()));
  // Filters much larger than a core's L2 share miss the cache on most lookups: only those are prefetched.
  for (const ConstBloomView& v : views_) big_.push_back(v.m_bits / 8 > (size_t(256) << 10) ? 1 : 0);
  for (size_t j = 0; j < big_.size(); ++j)
    if (big_[j]) big_filters_.push_back(uint32_t(j));
}

// Lookups land on random cache lines of megabytes of filters: with 4 KiB pages nearly every one also misses the
// TLB (and a page walk under virtualisation costs several more memory accesses). Filters the loader copied are
// therefore copied again into one 2 MiB-aligned arena that the kernel is asked to back with transparent huge
// pages; filters borrowed from a mapping of the file (--load map) are used where they are, on its pages.
void Classifier::copy_filters_to_huge_pages() {
  constexpr size_t kHuge = size_t(2) << 20;
  auto arena_words = [](const FilterEntry& f) { return f.bits.is_borrowed() ? 0 : (f.bits.word_count() + 15) / 16 * 16; };
  size_t words = 0;
  for (const FilterEntry& f : set_.filters) words += arena_words(f);  // 64-byte aligned

  arena_.reset();
  if (words) {
    const size_t bytes = std::max<size_t>(kHuge, (words * 4 + kHuge - 1) / kHuge * kHuge);
    void* mem = std::aligned_alloc(kHuge, bytes);
    if (!mem) throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    madvise(mem, bytes, MADV_HUGEPAGE);  // a hint: without huge pages everything still works
#endif
    arena_ = std::shared_ptr<uint32_t>(static_cast<uint32_t*>(mem), [](uint32_t* p) { std::free(p); });
  }
  uint32_t* at = arena_.get();
  views_.clear();
  for (const FilterEntry& f : set_.filters) {
    if (f.bits.is_borrowed()) {
      views_.push_back(f.bits.view());
      continue;
    }
    const uint64_t n = f.bits.word_count();
    if (n) std::memcpy(at, f.bits.data(), n * 4);  // interleaved members: no bits of their own
    views_.push_back(ConstBloomView{at, f.bits.m_bits()});
    at += arena_words(f);
  }
  // Interleaved groups are used where they are: the loader put their rows on huge pages already
  // (InterleavedBloom::for_loading), and a copy would double the memory of a set of gigabytes.
  ibf_groups_.clear();
  for (const InterleavedGroup& g : set_.groups) {
    IbfGroup v;
    v.view = g.ibf.view();
    v.k = g.k;
    ibf_groups_.push_back(v);
  }
}

Classifier::Workspace::Workspace() : scratch_(std::make_unique<ClassifierScratch>()) {}
Classifier::Workspace::~Workspace() = default;
Classifier::Workspace::Workspace(Workspace&&) noexcept = default;
Classifier::Workspace& Classifier::Workspace::operator=(Workspace&&) noexcept = default;

void Classifier::classify(const std::string_view* reads, size_t n, BatchScores& out, Workspace& workspace) const {
  Scratch& ws = *workspace.scratch_;
  score(reads, n, out, ws, params_.exact_failing_points);
  call(out, ws.valid_frames);
}

void Classifier::classify_pairs(const std::string_view* mates1, const std::string_view* mates2, size_t n,
                                BatchScores& out, Workspace& workspace) const {
  Scratch& ws = *workspace.scratch_;
  // Either mode adds a failing mate's points to the pair's: they must be exact.
  const bool exact = params_.exact_failing_points || params_.pair_mode == PairMode::either;
  score(mates1, n, out, ws, exact);
  std::vector<int32_t> valid1 = ws.valid_frames;
  BatchScores& m2 = ws.mate_scores;
  score(mates2, n, m2, ws, exact);
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
    out.for_each_passed(r, [&](size_t j) {
      ++matched;
      const int32_t p = out.points[r * nf + j];
      if (p > best_points) {
        best_points = p;
        best = int32_t(j);
        ties = 1;
      } else if (p == best_points) {
        ++ties;
      }
    });
    out.matched[r] = matched;
    if (valid_frames[r] == 0) out.call[r] = kCallUnscored;
    else if (matched == 0) out.call[r] = kCallNovel;
    else out.call[r] = ties > 1 ? kCallTie : best;
  }
}

void Classifier::score(const std::string_view* reads, size_t n, BatchScores& out, Scratch& ws,
                       bool exact_failing) const {
  if (backend_) {
    score_on_backend(reads, n, out, ws);
    return;
  }
  const size_t nf = set_.filters.size();
  out.resize(n, nf);
  ws.valid_frames.assign(n, 0);
  const size_t g = size_t(params_.group_reads);
  for (size_t first = 0; first < n; first += g) {
    const size_t cnt = std::min(g, n - first);
    if (interleaved_) {
      score_group_interleaved(reads + first, cnt, &out.points[first * nf], &out.passed[first * nf],
                              &out.denominator[first], &ws.valid_frames[first], out.lookups, ws, exact_failing);
      continue;
    }
    if (lean_) {
      score_group_lean(reads + first, cnt, &out.points[first * nf], &out.passed[first * nf], &out.denominator[first],
                       &ws.valid_frames[first], out.lookups, ws, exact_failing);
      continue;
    }
    score_group(reads + first, cnt, &out.points[first * nf], &out.passed[first * nf], &out.denominator[first],
                &ws.valid_frames[first], out.lookups, ws);
  }
}

void Classifier::score_on_backend(const std::string_view* reads, size_t n, BatchScores& out, Scratch& ws) const {
  const size_t nf = set_.filters.size();
  const int w = set_.w;
  out.resize(n, nf);
  ws.valid_frames.assign(n, 0);
  std::vector<uint8_t> codes;
  std::vector<uint64_t> offsets{0};
  for (size_t r = 0; r < n; ++r) {
    for (char c : reads[r]) codes.push_back(kCodeOf[uint8_t(c)]);
    offsets.push_back(codes.size());
  }
  std::vector<ClassifyFilter> filters(nf);
  for (size_t j = 0; j < nf; ++j) {
    filters[j] = {views_[j], ks_[j], blocked_[j] ? BloomLayout::blocked512 : BloomLayout::classic};
    filters[j].group = set_.filters[j].group;  // an interleaved set's filters are bins of its groups
    filters[j].bin = set_.filters[j].bin;
  }
  std::vector<ClassifyGroup> groups;
  for (const IbfGroup& g : ibf_groups_) groups.push_back({g.view, g.k});
  const FilterBank bank{filters.data(), uint32_t(nf), &family_, groups.data(), uint32_t(groups.size())};
  ClassifyHits hits;
  {
    std::lock_guard<std::mutex> lock(*backend_mutex_);
    backend_->classify(bank, ReadBatchView{codes.data(), offsets.data(), uint32_t(n)}, hits);
  }
  // Every frame's answer is known: the scorers only read the states (a frame with N is a miss, as on the CPU).
  for (size_t r = 0; r < n; ++r) {
    const int len = int(std::min<size_t>(reads[r].size(), INT32_MAX / 2));
    int run = 0;
    FacsErrorModel::Uncoverable u(w);
    for (uint64_t i = offsets[r]; i < offsets[r + 1]; ++i) {
      run = codes[i] < 4 ? run + 1 : 0;
      if (run >= w) ws.valid_frames[r] = 1;
      u.push(codes[i] < 4);
    }
    const int32_t need = model_.min_covered(len, u.finish());
    const uint32_t frames = hits.frames[r];
    // With group routers (FACS score) a bin is a candidate only if one of the read's quick frames hits it in a
    // group the router admits there (the device answers the bins alone, so the host routes the quick frames of
    // the reads that have a hit); a candidate is then scored on its bin's answers, as on the CPU path.
    const bool routing = !ibf_routers_.empty() && params_.score == ScoreKind::facs;
    std::vector<int> quick;           // the read's quick frames
    std::vector<uint64_t> admitted;   // [quick frame]: the groups the routers admit
    auto route_quick_frames = [&] {
      const int F = int(frames), density = model_.quick_density(len);
      for (int q = 0; q < F; q = FacsScorer::next_quick_frame(q, F, w, density)) quick.push_back(q);
      admitted.assign(quick.size(), 0);
      for (size_t i = 0; i < quick.size(); ++i) {
        WmerRoller roll(w);
        bool whole = false;
        for (int b = 0; b < w; ++b) whole = roll.push(codes[offsets[r] + uint64_t(quick[i] + b)]);
        if (whole) admitted[i] = route_key(canonical_wmer(roll.fwd, roll.rc));
      }
    };
    auto routed_candidate = [&](uint32_t j) {
      const int32_t group = set_.filters[j].group;
      if (group < 0) return true;
      if (quick.empty() && frames) route_quick_frames();
      for (size_t i = 0; i < quick.size(); ++i)
        if (((admitted[i] >> group) & 1u) && hits.frame_hit(uint32_t(r), j, uint32_t(quick[i]))) return true;
      return false;
    };
    // Scores a read's frame states against one filter (kFrameHit where the device found the frame).
    auto score_states = [&](const uint32_t* j) {
      ws.states.assign(std::max<uint32_t>(frames, 1), kFrameMiss);
      if (j)
        for (uint32_t f = 0; f < frames; ++f)
          if (hits.frame_hit(uint32_t(r), *j, f)) ws.states[f] = kFrameHit;
      ReadScorer sc;
      sc.start(params_.score, len, w, params_.threshold, model_.quick_density(len));
      for (int f = sc.next(ws.states.data()); f >= 0; f = sc.next(ws.states.data())) sc.feed(ws.states.data(), f, false);
      out.denominator[r] = sc.denominator();
      return std::pair<int32_t, uint8_t>(sc.points(), sc.passes(need) ? 1 : 0);
    };
    // Most filters have no hit in a read (all but its reference and the false positives): they all score as a
    // read of misses, computed once, so the host's work per read follows its candidates, not the filter count.
    std::pair<int32_t, uint8_t> all_miss{0, 0};
    bool all_miss_known = false;
    for (size_t j = 0; j < nf; ++j) {
      const uint32_t jj = uint32_t(j);
      std::pair<int32_t, uint8_t> s;
      if (hits.hits(uint32_t(r), jj) != 0 && (!routing || routed_candidate(jj))) {
        s = score_states(&jj);
      } else {
        if (!all_miss_known) all_miss = score_states(nullptr), all_miss_known = true;
        s = all_miss;
      }
      const size_t i = r * nf + j;
      out.points[i] = s.first;
      out.passed[i] = s.second;
    }
    out.lookups += uint64_t(frames) * nf;
  }
}

void Classifier::pack_group(const std::string_view* reads, size_t n, int32_t* valid_frames, Scratch& ws) const {
  const int w = set_.w;
  // 1. Every read packed 2 bits per base (base i at bits 2(i%32) of word i/32) plus a bit mask of its N/IUPAC
  //    positions. Keys and hashes are computed lazily from these, in O(1) per frame, only for the frames that are
  //    looked up (an error-free read needs ~L/w of them); a read without any complete k-mer is flagged here.
  ws.base_offset.resize(n + 1);  // in packed words; the invalid mask uses the same index / 2 rounded up
  ws.frame_offset.resize(n + 1);
  ws.frames.resize(n);
  ws.uncoverable.resize(n);
  size_t words = 0, total = 0;
  for (size_t r = 0; r < n; ++r) {
    ws.base_offset[r] = words;
    words += reads[r].size() / 32 + 2;  // +1 spare word: windows may read one word past the end
    const int64_t f = int64_t(reads[r].size()) - w + 1;
    ws.frame_offset[r] = total;
    ws.frames[r] = f > 0 ? int32_t(std::min<int64_t>(f, INT32_MAX)) : 0;
    total += size_t(ws.frames[r]);
  }
  ws.base_offset[n] = words;
  ws.frame_offset[n] = total;
  ws.packed.assign(words, 0);
  ws.invalid.assign(words, 0);  // one bit per base: half the words would do; the same offsets keep it simple
  for (size_t r = 0; r < n; ++r) {
    const std::string_view s = reads[r];
    uint64_t* pk = ws.packed.data() + ws.base_offset[r];
    uint64_t* inv = ws.invalid.data() + ws.base_offset[r];
    uint64_t any_invalid = 0;
    for (size_t i0 = 0; i0 < s.size(); i0 += 32) {  // 32 bases per packed word
      const size_t m = std::min<size_t>(32, s.size() - i0);
      uint64_t word = 0, bad = 0;
      if (m == 32) {
        pack32(s.data() + i0, word, bad);
      } else {  // the tail through a padded copy: same codes, bits past the read cleared
        char tail[32];
        std::memset(tail, 'A', sizeof tail);
        std::memcpy(tail, s.data() + i0, m);
        pack32(tail, word, bad);
        word &= (uint64_t(1) << (2 * m)) - 1;
        bad &= (uint64_t(1) << m) - 1;
      }
      pk[i0 >> 5] = word;
      inv[i0 >> 6] |= bad << (i0 & 63);
      any_invalid |= bad;
    }
    int longest = int(std::min<size_t>(s.size(), INT32_MAX));
    ws.uncoverable[r] = 0;
    if (any_invalid) {  // longest run of valid bases and the bases no k-mer covers, only for reads with N
      int run = 0;
      longest = 0;
      FacsErrorModel::Uncoverable u(w);
      for (size_t i = 0; i < s.size(); ++i) {
        const bool valid = !((inv[i >> 6] >> (i & 63)) & 1);
        run = valid ? run + 1 : 0;
        longest = std::max(longest, run);
        u.push(valid);
      }
      ws.uncoverable[r] = u.finish();
    }
    valid_frames[r] = longest >= w ? 1 : 0;
  }
}

void Classifier::score_group(const std::string_view* reads, size_t n, int32_t* points, uint8_t* passed,
                             int32_t* denom, int32_t* valid_frames, uint64_t& lookups, Scratch& ws) const {
  const int w = set_.w;
  const size_t nf = views_.size();
  const size_t kmax = size_t(kmax_);

  pack_group(reads, n, valid_frames, ws);
  const size_t total = ws.frame_offset[n];
  ws.hashed.assign(total, 0);
  ws.keys.resize(total);
  if (ws.hashes.size() < total * kmax) ws.hashes.resize(total * kmax);
  ws.states.assign(total * nf, kFrameUnknown);
  if (params_.score == ScoreKind::facs) quick_pass(n, lookups, ws);

  // 2. One scorer per (read, filter), all advanced in rounds: a job's next lookup is hashed and its first words
  //    prefetched in one round and tested in the next, after every other job has issued its own prefetches.
  const size_t njobs = n * nf;
  ws.jobs.resize(njobs);
  ws.active.clear();
  auto finish = [&](const Job& jb) {
    const size_t i = size_t(jb.read) * nf + jb.filter;
    points[i] = jb.scorer.points();
    passed[i] = jb.scorer.passes(model_.min_covered(jb.scorer.facs.length, ws.uncoverable[jb.read])) ? 1 : 0;
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
      jb.from = 0;
      if (blocked_[jb.filter]) {  // one cache line holds every probe
        const ConstBloomView v = views_[jb.filter];
        __builtin_prefetch(v.words + blocked_block_word(jb.hashes[0], v.m_bits));
        jb.stage = ks_[jb.filter];
        return true;
      }
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
      jb.scorer.start(params_.score, len, w, params_.threshold, model_.quick_density(len));
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
      bool hit = true;
      if (blocked_[jb.filter]) {
        hit = blocked_contains(ws, ws.frame_offset[jb.read] + size_t(jb.frame), v, k);
      } else {
        for (int i = jb.from; i < jb.stage && hit; ++i) hit = test_bit(v.words, bloom_slot(jb.hashes[i], v.m_bits));
      }
      if (hit && jb.stage < k) {  // the first probes passed: fetch the rest and test them next round
        const int next = std::min(k, 2 * jb.stage);
        hash_more(ws, ws.frame_offset[jb.read] + size_t(jb.frame), next);
        prefetch(jb, jb.stage, next);
        jb.from = jb.stage;
        jb.stage = next;
        ws.active[keep++] = job;
        continue;
      }
      jb.scorer.feed(jb.state, jb.frame, hit);
      if (advance(jb)) ws.active[keep++] = job;
    }
    ws.active.resize(keep);
  }
}

// FACS's quick pass for all reads and filters of a group at once, frame-major: every quick frame of every read
// is hashed once, then looked up in every filter in rounds of probes (2, then 4, 8, ... of its k), each round
// prefetching the next probes of the lookups still alive. A missing k-mer usually dies in the first round (fill
// ~1/2 per probe), so most filters cost ~2 probes per quick frame. The results go into the frame states that
// the scorers read, so the scorers then only look up frames the quick pass did not cover (around errors).
void Classifier::quick_pass(size_t n, uint64_t& lookups, Scratch& ws) const {
  const int w = set_.w;
  const size_t nf = views_.size();
  const size_t kmax = size_t(kmax_);
  ws.probes.clear();
  for (size_t r = 0; r < n; ++r) {
    const int F = ws.frames[r];
    const int density = model_.quick_density(F + w - 1);
    for (int q = 0; q < F; q = FacsScorer::next_quick_frame(q, F, w, density)) {
      const size_t slot = ws.frame_offset[r] + size_t(q);
      uint8_t* st = ws.states.data() + ws.frame_offset[r] * nf + size_t(q);
      if (!hash_head(ws, r, q)) {
        for (size_t j = 0; j < nf; ++j) st[j * size_t(F)] = kFrameMiss;
        continue;
      }
      const uint32_t* h = ws.hashes.data() + slot * kmax;
      for (size_t j = 0; j < nf; ++j) {
        ProbeItem it;
        it.slot = uint32_t(slot);
        it.filter = uint16_t(j);
        it.from = 0;
        it.to = uint8_t(std::min(kFirstProbes, ks_[j]));
        it.state = st + j * size_t(F);
        const ConstBloomView v = views_[j];
        if (blocked_[j]) __builtin_prefetch(v.words + blocked_block_word(h[0], v.m_bits));
        else
          for (int i = 0; i < it.to; ++i) __builtin_prefetch(v.words + (bloom_slot(h[i], v.m_bits) >> 5));
        ws.probes.push_back(it);
      }
    }
  }
  lookups += ws.probes.size();
  while (!ws.probes.empty()) {
    size_t keep = 0;
    for (size_t a = 0; a < ws.probes.size(); ++a) {
      ProbeItem it = ws.probes[a];
      const ConstBloomView v = views_[it.filter];
      const uint32_t* h = ws.hashes.data() + size_t(it.slot) * kmax;
      if (blocked_[it.filter]) {
        *it.state = blocked_contains(ws, it.slot, v, ks_[it.filter]) ? kFrameHit : kFrameMiss;
        continue;
      }
      bool hit = true;
      for (int i = it.from; i < it.to && hit; ++i) hit = test_bit(v.words, bloom_slot(h[i], v.m_bits));
      const int k = ks_[it.filter];
      if (!hit || it.to >= k) {
        *it.state = hit ? kFrameHit : kFrameMiss;
        continue;
      }
      it.from = it.to;
      it.to = uint8_t(std::min(k, 2 * int(it.to)));
      hash_more(ws, it.slot, it.to);
      for (int i = it.from; i < it.to; ++i) __builtin_prefetch(v.words + (bloom_slot(h[i], v.m_bits) >> 5));
      ws.probes[keep++] = it;
    }
    ws.probes.resize(keep);
  }
}

bool Classifier::blocked_contains(Scratch& ws, size_t slot, const ConstBloomView& v, int k) const {
  const uint32_t* h = ws.hashes.data() + slot * size_t(kmax_);
  const uint32_t* block = v.words + blocked_block_word(h[0], v.m_bits);
  auto test = [&](uint32_t hash) {
    const uint32_t bit = blocked_bit(hash);
    return (block[bit >> 5] >> (bit & 31)) & 1u;
  };
  // A missing k-mer usually shows within the first bits (each is set with probability ~fill), so the hash
  // functions are computed in stages: 0-1 (done), 2-3, then the rest only if bits 1-3 are all set.
  if (!test(h[1])) return false;
  if (k == 1) return true;
  hash_more(ws, slot, 2 * kFirstProbes);
  for (int i = 2; i <= k && i < 2 * kFirstProbes; ++i)
    if (!test(h[i])) return false;
  if (k < 2 * kFirstProbes) return true;
  hash_more(ws, slot, k + 1);
  for (int i = 2 * kFirstProbes; i <= k; ++i)
    if (!test(h[i])) return false;
  return true;
}

bool Classifier::hash_head(Scratch& ws, size_t read, int frame) const {
  const size_t slot = ws.frame_offset[read] + size_t(frame);
  const uint8_t done = ws.hashed[slot];
  if (done) return done != 1;
  uint64_t key = 0;
  if (!frame_key(ws, read, frame, key)) {
    ws.hashed[slot] = 1;
    return false;
  }
  ws.keys[slot] = key;
  uint64_t h = 0;
  for (int b = 0; b < key_bytes_; ++b) h ^= head_table_[size_t(b) * 256 + ((key >> (8 * b)) & 0xFF)];
  uint32_t* out = ws.hashes.data() + slot * size_t(kmax_);
  out[0] = uint32_t(h);
  if (kmax_ > 1) out[1] = uint32_t(h >> 32);
  ws.hashed[slot] = 2;
  return true;
}

namespace {

template <size_t kLanes>
void xor_rows(const uint32_t* table, uint64_t key, int key_bytes, uint32_t* out, int count) {
  uint32_t acc[kLanes] = {};
  for (int b = 0; b < key_bytes; ++b) {
    const uint32_t* row = table + (size_t(b) * 256 + ((key >> (8 * b)) & 0xFF)) * kLanes;
    for (size_t i = 0; i < kLanes; ++i) acc[i] ^= row[i];
  }
  for (int i = 0; i < count; ++i) out[i] = acc[i];
}

}  // namespace

void Classifier::hash_more(Scratch& ws, size_t slot, int upto) const {
  uint8_t& done = ws.hashed[slot];
  uint32_t* out = ws.hashes.data() + slot * size_t(kmax_);
  const uint64_t key = ws.keys[slot];
  if (done < 3 && kmax_ > kFirstProbes) {  // functions 2 and 3
    uint64_t h = 0;
    for (int b = 0; b < key_bytes_; ++b) h ^= mid_table_[size_t(b) * 256 + ((key >> (8 * b)) & 0xFF)];
    out[2] = uint32_t(h);
    if (kmax_ > 3) out[3] = uint32_t(h >> 32);
    done = 3;
  }
  if (upto <= 2 * kFirstProbes || done >= 4) return;
  const int rest = kmax_ - 2 * kFirstProbes;
  if (rest > 0) {
    if (tail_lanes_ == 16) xor_rows<16>(tail_table_.data(), key, key_bytes_, out + 2 * kFirstProbes, rest);
    else xor_rows<32>(tail_table_.data(), key, key_bytes_, out + 2 * kFirstProbes, rest);
  }
  done = 4;
}

}  // namespace bloomseq
