#include "bloomseq/blast/xdrop_gapped.hpp"

#include "bloomseq/memory/populate_pages.hpp"

#include <algorithm>
#include <climits>
#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <unordered_map>
#include <vector>

namespace bloomseq {
namespace {

constexpr int kMinScore = INT_MIN / 2;  // "minus infinity" that survives a few subtractions

// Traceback cell: the operation that reached the cell, plus whether the gap states leaving it extend a gap.
constexpr uint8_t kOpMask = 3;
constexpr uint8_t kSub = 0, kGapInA = 1, kGapInB = 2;
constexpr uint8_t kExtendGapA = 4, kExtendGapB = 8;

// A traceback cell takes 4 bits, two to a byte (cell c of a row in byte c / 2, the low half for even c): a long
// alignment's cells are the bulk of its memory (a 5-Mbase self-alignment: ~550 MB a byte a cell).
inline size_t cell_bytes(size_t cells) { return (cells + 1) / 2; }
inline void set_cell(uint8_t* row, size_t c, uint8_t op) {
  uint8_t& byte = row[c >> 1];
  byte = (c & 1) ? uint8_t((byte & 0x0F) | (op << 4)) : uint8_t((byte & 0xF0) | op);
}
inline uint8_t get_cell(const uint8_t* row, size_t c) { return uint8_t((row[c >> 1] >> ((c & 1) * 4)) & 0x0F); }

constexpr int64_t kLanes = 8;  // cells per vector in the vector row

// The vector row (AVX2, eight 32-bit lanes; vector extensions of GCC and clang). BLAST computes a row cell after
// cell: a cell's horizontal gap score comes from the cells to its left, and it is tested against the best score so
// far, this row's earlier cells included. Both are prefix maxima, so a row is computed in vectors with a log-step
// scan, vector by vector, the maxima of the vectors before carried in registers:
//  * diagonal and vertical gap (they only read the last row): h0 = max(diag, E);
//  * the horizontal gap into cell j of the window: F_j = max over c < j of (h0_c - open - extend * (j - 1 - c)),
//    an exclusive prefix maximum of h0_c - open + extend * c (a gap opened from a cell whose score came from that
//    gap is never better than extending it, so h0 suffices);
//  * cell = max(h0, F); the best before cell j, an exclusive prefix maximum of the cells, decides the drop.
// BLAST leaves a dropped cell's gap scores as they were; those are below best - x and can only ever reach cells
// that are dropped themselves (the best never falls, a gap score only falls along the gap), so the output is the
// same when the horizontal gap runs through dropped cells like through any other and a dropped column gets minus
// infinity. tests/blast/test_gapped.cpp checks this row and the scalar one against BLAST's rules transcribed one
// branch per rule, cell for cell.
struct VectorRow {
  int best;        // the best score after the row (the one before, if no cell beat it)
  int64_t best_b;  // the first cell that reached it in this row, or -1
  int gap_row;     // the horizontal gap's score leaving the window's last cell
  // The row's first and last kept cells (hi and lo - 1 when none is kept): the next row's window, found from the
  // vectors' keep masks rather than by reading the row's cells back one by one (an eighth of a preliminary
  // extension's time went to those two scans).
  int64_t first_kept, last_kept;
};

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))  // GCC and clang
#define BLOOMSEQ_XDROP_VECTOR 1
#include <immintrin.h>
typedef int v8si __attribute__((vector_size(32)));
typedef unsigned char v32qu __attribute__((vector_size(32)));
typedef unsigned char v4qu __attribute__((vector_size(4)));

__attribute__((target("avx2"))) inline v8si vmax(v8si a, v8si b) { return a > b ? a : b; }
// Lane j takes lane j - k (the first k lanes take fill's).
template <int k>
__attribute__((target("avx2"))) inline v8si shift_in(v8si v, v8si fill) {
  // (__builtin_shufflevector: clang's spelling, and GCC's since 12.)
  if constexpr (k == 1) return __builtin_shufflevector(fill, v, 7, 8, 9, 10, 11, 12, 13, 14);
  else if constexpr (k == 2) return __builtin_shufflevector(fill, v, 6, 7, 8, 9, 10, 11, 12, 13);
  else return __builtin_shufflevector(fill, v, 4, 5, 6, 7, 8, 9, 10, 11);
}
// Inclusive prefix maximum within the vector.
__attribute__((target("avx2"))) inline v8si prefix_max(v8si v, v8si minus_inf) {
  v = vmax(v, shift_in<1>(v, minus_inf));
  v = vmax(v, shift_in<2>(v, minus_inf));
  return vmax(v, shift_in<4>(v, minus_inf));
}

template <int kStepB, bool traceback>
__attribute__((target("avx2"))) VectorRow vector_row(int* H, int* E, int64_t lo, int64_t hi, int64_t N,
                                                     const uint8_t* letters, uint8_t la, const GappedScoring& sc,
                                                     int open_extend, int extend, int x, int best_before,
                                                     uint8_t* ops) {
  const v8si lane = {0, 1, 2, 3, 4, 5, 6, 7};
  const v8si minus_inf = v8si{} + kMinScore;
  const int64_t n = hi - lo;
  const int la_valid = la < 4;
  const v8si ext = v8si{} + extend, oe = v8si{} + open_extend, xv = v8si{} + x;
  v8si gap_carry = minus_inf;                  // max of h0_c - oe + extend * c over the cells before the vector
  v8si best_carry = v8si{} + best_before;      // the best before the vector
  v8si last_row = minus_inf;                   // the last row's H over the vector before (overwritten since)
  v8si ext_col = ext * lane;                   // extend * (the cells' places in the window), vector by vector
  int64_t best_vector = -1;
  int64_t first_kept = hi, last_kept = lo - 1;
  // One pass, a vector of cells at a time. The diagonal into cell b reads letter b - 1 of B (0-based) and the last
  // row's H[b - 1]: the vector before has already written this row's H there, so the last row's values come from
  // the register holding them (none enters the window's first cell).
  for (int64_t j = 0; j < n; j += kLanes) {
    const int64_t b0 = lo + j;
    v8si score;
    if (b0 >= 1 && b0 + kLanes - 1 <= N) {  // letters b0 - 1 .. b0 + 6 all exist
      // Eight bytes widened by one vpmovzxbd (converting a vector of 8 bytes built the lanes one by one).
      v8si lb;
      if (kStepB == 1) {
        lb = v8si(_mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(letters + (b0 - 1)))));
      } else {
        lb = v8si(_mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(letters - (b0 + 6)))));
        lb = __builtin_shufflevector(lb, lb, 7, 6, 5, 4, 3, 2, 1, 0);
      }
      const v8si match = (lb == int(la)) ? v8si{} + sc.reward : v8si{} + sc.penalty;
      score = la_valid ? ((lb < 4) ? match : v8si{} + sc.ambiguous) : v8si{} + sc.ambiguous;
    } else {
      int tmp[kLanes];
      for (int64_t l = 0; l < kLanes; ++l) {
        const int64_t k = b0 + l - 1;  // the letter
        tmp[l] = (k >= 0 && k < N) ? sc.pair(la, letters[k * kStepB]) : 0;
      }
      std::memcpy(&score, tmp, sizeof score);
    }
    v8si row_h, gap_col;
    std::memcpy(&row_h, H + b0, sizeof row_h);
    std::memcpy(&gap_col, E + b0, sizeof gap_col);
    v8si diag = shift_in<1>(row_h, last_row) + score;
    last_row = row_h;
    if (j == 0) diag = lane == 0 ? minus_inf : diag;
    const v8si col = lane + int(j);  // the cells' places in the window
    const v8si in_window = col < v8si{} + int(n);
    // Diagonal and vertical gap, then the horizontal gap (a prefix maximum, see above), the cell and the drop.
    const v8si h0 = in_window ? vmax(diag, gap_col) : minus_inf;
    const v8si opened_from = h0 - oe + ext_col;
    const v8si gap_incl = vmax(prefix_max(opened_from, minus_inf), gap_carry);
    const v8si gap_row = shift_in<1>(gap_incl, gap_carry) - (ext_col - ext);
    ext_col += extend * int(kLanes);
    gap_carry = v8si{} + gap_incl[7];
    const v8si cell = in_window ? vmax(h0, gap_row) : minus_inf;
    const v8si beats = cell > best_carry;
    v8si best_before_cell = best_carry;  // when no cell beats the best so far (most vectors once it lies behind)
    if (!_mm256_testz_si256(__m256i(beats), __m256i(beats))) {
      const v8si best_incl = vmax(prefix_max(cell, minus_inf), best_carry);
      best_before_cell = shift_in<1>(best_incl, best_carry);
      best_vector = j;
      best_carry = v8si{} + best_incl[7];
    }
    const v8si keep = (best_before_cell - cell) <= xv;
    // A kept cell is in the window (one outside it is minus infinity, below any best by more than x).
    const unsigned kept = unsigned(_mm256_movemask_ps(__m256(keep)));
    if (kept) {
      if (first_kept == hi) first_kept = b0 + __builtin_ctz(kept);
      last_kept = b0 + 31 - __builtin_clz(kept);
    }
    const v8si opened = cell - oe;
    const v8si col_extended = gap_col - ext;
    const v8si new_h = keep ? cell : minus_inf;
    const v8si new_e = keep ? vmax(col_extended, opened) : minus_inf;
    std::memcpy(H + b0, &new_h, sizeof new_h);
    std::memcpy(E + b0, &new_e, sizeof new_e);
    if (traceback) {
      const v8si from_row = h0 < gap_row;
      const v8si from_col = (diag < gap_col) & ~from_row;
      const v8si extends = ((col_extended >= opened) & kExtendGapB) | (((gap_row - ext) >= opened) & kExtendGapA);
      const v8si op = (from_row & kGapInA) | (from_col & kGapInB) | (extends & keep);
      // Two cells a byte: each odd lane's op shifted up and merged into the even lane before it, then the low
      // byte of the even lanes by one shuffle (__builtin_convertvector to bytes extracted the lanes one by one, a
      // sixth of a long traceback's time). j is a multiple of 8, so the vector starts a byte.
      const v8si shifted = op << v8si{0, 4, 0, 4, 0, 4, 0, 4};
      const v8si pairs = shifted | __builtin_shufflevector(shifted, shifted, 1, 0, 3, 2, 5, 4, 7, 6);
      v32qu pair_lanes;
      std::memcpy(&pair_lanes, &pairs, sizeof pairs);
      const v4qu op_bytes = __builtin_shufflevector(pair_lanes, pair_lanes, 0, 8, 16, 24);
      std::memcpy(ops + j / 2, &op_bytes, 4);
    }
  }
  VectorRow r{best_carry[0], -1, gap_carry[0] - extend * int(n - 1), first_kept, last_kept};
  if (r.best > best_before)
    for (int64_t b = lo + best_vector; b < hi; ++b)
      if (H[b] == r.best) {
        r.best_b = b;
        break;
      }
  return r;
}

bool vector_rows_available() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2");
}
#else
bool vector_rows_available() { return false; }
template <int kStepB, bool traceback>
VectorRow vector_row(int*, int*, int64_t, int64_t, int64_t, const uint8_t*, uint8_t, const GappedScoring&, int, int,
                     int, int best_before, uint8_t*) {
  return {best_before, -1, kMinScore, -1, -1};  // (never called: rows without vectors; -1: from the cells)
}
#endif

// The traceback's cells and row index, reused from one traced alignment to the next on any thread.
struct TracebackStore {
  std::vector<std::unique_ptr<uint8_t[]>> data;
  std::vector<size_t> size;
  std::vector<size_t> populated;  // bytes of each block populated so far (populate_pages), from its start
  std::vector<uint8_t*> row_ptr;
  std::vector<int64_t> row_first;
};

class TracebackPool {
 public:
  std::unique_ptr<TracebackStore> take() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (free_.empty()) return std::make_unique<TracebackStore>();
    std::unique_ptr<TracebackStore> s = std::move(free_.back());
    free_.pop_back();
    return s;
  }
  void give(std::unique_ptr<TracebackStore> s) {
    std::lock_guard<std::mutex> lock(mutex_);
    free_.push_back(std::move(s));
  }

 private:
  std::mutex mutex_;
  std::vector<std::unique_ptr<TracebackStore>> free_;  // at most one per thread that traced at the same time
};

TracebackPool& traceback_pool() {
  static TracebackPool* pool = new TracebackPool;  // never destroyed: threads may still trace at exit
  return *pool;
}

// The store of one traced alignment, taken from the pool and given back.
class TracebackLease {
 public:
  TracebackLease() : store_(traceback_pool().take()) {}
  ~TracebackLease() { traceback_pool().give(std::move(store_)); }
  TracebackLease(const TracebackLease&) = delete;
  TracebackLease& operator=(const TracebackLease&) = delete;
  TracebackStore& store() { return *store_; }

 private:
  std::unique_ptr<TracebackStore> store_;
};

}  // namespace

// A long traced alignment's windows, every kJoinEvery-th row (by the row letter's address, so that alignments over
// the same letters check the same rows), with its end and path (AlignmentJoins).
struct AlignmentJoins::Impl {
  struct Checkpoint {
    int64_t a = 0, first_b = 0;  // the row and the window's first column, in the alignment's own numbering
    int best = 0;                // the best score after the row
    std::vector<int> h, e;       // the window's scores minus `best` (kJoinNone for minus infinity)
  };
  struct Entry {
    uintptr_t a_base = 0, b_base = 0, a_last = 0, b_last = 0;  // letter 1 and the last letter of A and B
    int64_t a_step = 0, b_step = 0;
    int x = 0;
    GappedScoring sc;
    int score = 0;
    int64_t a_end = 0, b_end = 0;
    std::vector<GapOp> ops;
    std::vector<Checkpoint> cps;
  };
  std::mutex mutex;
  std::unordered_map<uintptr_t, std::vector<std::pair<std::shared_ptr<const Entry>, size_t>>> by_row;
  std::atomic<uint64_t> joined{0};
};

AlignmentJoins::AlignmentJoins() : impl_(std::make_unique<Impl>()) {}
AlignmentJoins::~AlignmentJoins() = default;
uint64_t AlignmentJoins::joined() const { return impl_->joined.load(); }

namespace {

constexpr uintptr_t kJoinEvery = 64;       // rows between checkpoints
constexpr int64_t kJoinMinRows = 4096;     // an alignment shorter than this is not kept to be joined
constexpr int kJoinNone = INT_MIN;         // a score at minus infinity, whatever the best
inline int join_relative(int v, int best) { return v <= kMinScore / 2 ? kJoinNone : v - best; }
inline bool same_scoring(const GappedScoring& a, const GappedScoring& b) {
  return a.reward == b.reward && a.penalty == b.penalty && a.ambiguous == b.ambiguous && a.gap_open == b.gap_open &&
         a.gap_extend == b.gap_extend;
}

std::atomic<int> g_vector_rows{-1};  // -1: as the CPU allows; 0: scalar rows (tests)

// One X-drop dynamic program over A x B (blastn's semi-gapped alignment), with the traceback when asked. Each
// row is computed by vector_row where the CPU has AVX2, by the scalar loop below otherwise. The body is compiled
// twice (align): once for AVX2, where vector_row is inlined into it (a preliminary extension's rows are ~17 cells,
// so a call per row and its set-up were a fair share of each), and once for any CPU.
template <int kStepB, bool traceback, bool kVectorBuild>
__attribute__((always_inline)) inline XdropAlignment align_body(const LetterRun& A, const LetterRun& B,
                                                                const GappedScoring& sc, int x_dropoff,
                                                                AlignmentJoins* joins) {
  XdropAlignment out;
  const int gap_extend = sc.gap_extend;
  const int gap_open_extend = sc.gap_open + sc.gap_extend;
  const int x = std::max(x_dropoff, gap_open_extend);
  const int64_t M = A.length, N = B.length;
  if (M <= 0 || N <= 0) return out;
  // Letters with IUPAC codes other than N (a subject's true codes, rarely) take the scalar rows, which score them.
  const bool vector_rows =
      kVectorBuild && g_vector_rows.load(std::memory_order_relaxed) != 0 && !A.iupac && !B.iupac;

  // Columns are touched only inside the X-drop window: grow on demand (reused between calls on a thread). Column b's
  // best score and vertical gap score at index b + 1 of two arrays: index 0 (column -1) stays minus infinity, and
  // kLanes columns of slack past the end let the vector row read and write whole vectors.
  thread_local std::vector<int> best_store, gap_store;
  int* H = nullptr;  // H[b]: column b's best score in the last row (kMinScore: out of the window)
  int* E = nullptr;  // E[b]: column b's vertical gap score
  auto ensure = [&](int64_t b) {
    const size_t need = size_t(b) + 2 + kLanes;
    if (need > best_store.size()) {
      const size_t n = std::max(need, best_store.size() * 2 + 64);
      best_store.resize(n, kMinScore);
      gap_store.resize(n, kMinScore);
    }
    H = best_store.data() + 1;
    E = gap_store.data() + 1;
  };
  ensure(std::min<int64_t>(N + 1, x / std::max(gap_extend, 1) + 4));
  // Traceback rows: row a holds cells from row_first[a] of B at row_ptr[a], in blocks that are never moved; a row
  // never spans two blocks. Every cell read back was written. The store is leased from a pool kept for the process:
  // stage 3's threads live for one subject only, and a store of their own (a 1-Mbase self alignment took ~150 MB)
  // was faulted in afresh by each, 1.2-1.4x the time of such a trace when two ran side by side.
  std::optional<TracebackLease> lease;  // score-only alignments need none
  thread_local TracebackStore unused;
  if (traceback) lease.emplace();
  TracebackStore& store = traceback ? lease->store() : unused;
  auto& blocks = store;
  auto& row_ptr = store.row_ptr;
  auto& row_first = store.row_first;
  size_t block = 0, block_used = 0;
  auto new_row = [&](size_t cells) -> uint8_t* {  // room for `cells` cells, starting a byte
    const size_t bytes = cell_bytes(cells);
    if (block < blocks.data.size() && block_used + bytes > blocks.size[block]) ++block, block_used = 0;
    while (block < blocks.data.size() && bytes > blocks.size[block]) ++block;  // a smaller block is skipped
    if (block == blocks.data.size()) {
      const size_t n = std::max<size_t>(size_t(1) << 20, 2 * bytes);
      blocks.data.emplace_back(new uint8_t[n]);
      blocks.size.push_back(n);
      blocks.populated.push_back(0);
      block_used = 0;
    }
    uint8_t* p = blocks.data[block].get() + block_used;
    block_used += bytes;
    // A block's pages are populated a stretch ahead of the rows, one call per 256 KiB rather than a fault per page:
    // a long alignment's traceback is the serial end of stage 3 (a 1-Mbase self-match: ~150 blocks, and a fifth of
    // its time in page faults on a VM). Only what the rows reach is populated, so memory stays what is used.
    size_t& populated = blocks.populated[block];
    if (block_used > populated) {
      const size_t upto = std::min(blocks.size[block], block_used + (size_t(256) << 10));
      populate_pages(blocks.data[block].get() + populated, upto - populated);
      populated = upto;
    }
    return p;
  };
  if (traceback) {
    row_ptr.clear();
    row_first.clear();
  }
  int64_t row_room = 0;  // cells of the current row

  int score = -gap_open_extend;
  H[-1] = E[-1] = kMinScore;
  H[0] = 0, E[0] = -gap_open_extend;
  int64_t i = 1;
  for (; i <= N; ++i) {
    if (score < -x) break;
    ensure(i);
    H[i] = score, E[i] = score - gap_open_extend;
    score -= gap_extend;
  }
  if (traceback) {
    uint8_t* row0 = new_row(size_t(i));
    std::fill(row0, row0 + cell_bytes(size_t(i)), uint8_t(kGapInA | (kGapInA << 4)));
    set_cell(row0, 0, kSub);
    row_ptr.push_back(row0);
    row_first.push_back(0);
  }
  // Scores by letter code (0..3 bases, anything above ambiguous), one row per letter of A.
  int table[5][5];
  for (int u = 0; u < 5; ++u)
    for (int v = 0; v < 5; ++v) table[u][v] = (u < 4 && v < 4) ? (u == v ? sc.reward : sc.penalty) : sc.ambiguous;
  const uint8_t* b_letters = B.base;  // letter k at b_letters[(k - 1) * kStepB]
  int64_t b_size = i, first_b = 0;
  int best_score = 0;
  int64_t best_a = 0, best_b = 0;

  // Joins (traceback only): this alignment's checkpoints, and the one it joined, if any.
  using Joins = AlignmentJoins::Impl;
  Joins* const J = traceback && joins ? &joins->impl() : nullptr;
  const uintptr_t a_addr = uintptr_t(A.base), b_addr = uintptr_t(B.base);
  const uintptr_t a_last = a_addr + uintptr_t((M - 1) * A.step), b_last = b_addr + uintptr_t((N - 1) * kStepB);
  std::vector<Joins::Checkpoint> checkpoints;
  std::shared_ptr<const Joins::Entry> joined;
  size_t joined_at = 0;
  int64_t joined_row = 0, joined_first = 0;
  // At a checkpoint row: a registered alignment over the same letters whose window there equals this one relative to
  // the best, and whose best came later (so this one's does too); else this row's window is kept.
  auto check_join = [&](int64_t a, int64_t first, int64_t end) {
    const uintptr_t row_addr = a_addr + uintptr_t((a - 1) * A.step);
    if (row_addr % kJoinEvery != 0) return false;
    const uintptr_t col_addr = b_addr + uintptr_t((first - 1) * kStepB);
    {
      std::lock_guard<std::mutex> lock(J->mutex);
      const auto it = J->by_row.find(row_addr);
      if (it != J->by_row.end())
        for (const auto& [entry, cp_index] : it->second) {
          const Joins::Checkpoint& c = entry->cps[cp_index];
          if (entry->a_step != A.step || entry->b_step != kStepB || entry->a_last != a_last ||
              entry->b_last != b_last || entry->x != x || !same_scoring(entry->sc, sc) || entry->a_end <= c.a ||
              int64_t(c.h.size()) != end - first ||
              entry->b_base + uintptr_t((c.first_b - 1) * kStepB) != col_addr)
            continue;
          bool same = true;
          for (int64_t k = 0; same && k < end - first; ++k)
            same = c.h[size_t(k)] == join_relative(H[first + k], best_score) &&
                   c.e[size_t(k)] == join_relative(E[first + k], best_score);
          if (!same) continue;
          joined = entry;
          joined_at = cp_index;
          joined_row = a;
          joined_first = first;
          return true;
        }
    }
    Joins::Checkpoint c;
    c.a = a;
    c.first_b = first;
    c.best = best_score;
    c.h.reserve(size_t(end - first));
    c.e.reserve(size_t(end - first));
    for (int64_t k = first; k < end; ++k) {
      c.h.push_back(join_relative(H[k], best_score));
      c.e.push_back(join_relative(E[k], best_score));
    }
    checkpoints.push_back(std::move(c));
    return false;
  };

  for (int64_t a = 1; a <= M; ++a) {
    const uint8_t la = A.at(a);
    const int* row_scores = table[la < 4 ? la : 4];
    uint8_t* row = nullptr;  // cell b at cell b - row_start_b of row (get_cell, set_cell)
    const int64_t row_start_b = first_b;
    if (traceback) {
      // Room for the current window, the growth below (at most x / extend + 3 cells past b_size) and one vector.
      row_room = b_size - first_b + (gap_extend > 0 ? x / gap_extend + 3 : N + 3) + 2 + kLanes;
      row = new_row(size_t(row_room));
      row_ptr.push_back(row);
      row_first.push_back(first_b);
    }
    int score_gap_row = kMinScore;  // the horizontal gap's score leaving the row's last cell
    int64_t row_best_b = -1;         // the row's new best cell, if any (best_a, best_b after the row)
    int64_t first_kept = -1, last_kept = -1;  // from the vector row; -1: to be found from the cells
    if (vector_rows) {
      const VectorRow r = vector_row<kStepB, traceback>(
          H, E, first_b, b_size, N, b_letters, la, sc, gap_open_extend, gap_extend, x, best_score, row);
      if (r.best > best_score) best_score = r.best, row_best_b = r.best_b;
      score_gap_row = r.gap_row;
      first_kept = r.first_kept, last_kept = r.last_kept;
    } else {
      // The scalar row: BLAST's rules as selects (tests/blast/test_gapped.cpp holds them transcribed one branch
      // per rule, and checks both rows against it cell for cell).
      int diag = kMinScore;  // the diagonal's score into cell b (none into the window's first cell)
      for (int64_t b = first_b; b < b_size; ++b) {
        const int score_gap_col = E[b];
        int next_diag = H[b];
        if (b < N) {
          const uint8_t lb = b_letters[b * kStepB];
          next_diag += (lb < kIupacCodeBase && la < kIupacCodeBase) ? row_scores[lb < 4 ? lb : 4] : sc.pair(la, lb);
        }
        const bool from_col = diag < score_gap_col;
        const int s1 = from_col ? score_gap_col : diag;
        const bool from_row = s1 < score_gap_row;
        const int cell = from_row ? score_gap_row : s1;
        // A cell more than x below the best seen drops out of the window (its column is skipped from now on).
        // BLAST leaves a dropped cell's gap scores as they were; they are below best - x and can only reach cells
        // dropped themselves, so minus infinity (the vertical one) or running on (the horizontal one) is the same.
        const bool dropped = best_score - cell > x;
        if (cell > best_score) {  // cannot be a dropped cell
          best_score = cell;
          row_best_b = b;
        }
        const int opened = cell - gap_open_extend;
        const int col_extended = score_gap_col - gap_extend;
        const int row_extended = score_gap_row - gap_extend;
        const bool col_extends = col_extended >= opened;
        const bool row_extends = row_extended >= opened;
        E[b] = dropped ? kMinScore : (col_extends ? col_extended : opened);
        H[b] = dropped ? kMinScore : cell;
        score_gap_row = dropped ? score_gap_row : (row_extends ? row_extended : opened);
        diag = next_diag;
        if (traceback) {
          uint8_t op = from_row ? kGapInA : (from_col ? kGapInB : kSub);
          if (!dropped) op |= uint8_t((col_extends ? kExtendGapB : 0) | (row_extends ? kExtendGapA : 0));
          set_cell(row, size_t(b - row_start_b), op);
        }
      }
    }
    if (row_best_b >= 0) best_a = a, best_b = row_best_b;
    // The window's first column moves past the run of dropped cells at its start; its last kept cell bounds the
    // next row (a dropped cell's score is kMinScore, a kept one's at least best - x).
    int64_t row_end = b_size;  // one past the row's last written cell (the growth below may write more)
    int64_t last_b;
    if (first_kept >= 0) {
      first_b = first_kept;
      last_b = last_kept;
    } else {
      while (first_b < b_size && H[first_b] == kMinScore) ++first_b;
      last_b = b_size - 1;
      while (last_b > first_b && H[last_b] == kMinScore) --last_b;
    }
    if (first_b == b_size) break;
    if (last_b < b_size - 1) {
      b_size = last_b + 1;
    } else {
      while (score_gap_row >= best_score - x && b_size <= N) {
        ensure(b_size);
        H[b_size] = score_gap_row, E[b_size] = score_gap_row - gap_open_extend;
        if (traceback) {
          if (b_size - row_first.back() >= row_room) throw std::logic_error("gapped traceback row overflow");
          set_cell(row, size_t(b_size - row_start_b), kGapInA);
        }
        score_gap_row -= gap_extend;
        ++b_size;
      }
      row_end = b_size;
    }
    if (traceback) {
      // Give back the room the row did not use (the growth's bound is rarely reached): a long alignment's cells
      // then take what its windows need, ~40% less at blastn's final X-drop on a near-identity.
      const int64_t used = std::min(row_room, row_end - row_start_b + kLanes);
      block_used -= cell_bytes(size_t(row_room)) - cell_bytes(size_t(used));
    }
    if (b_size <= N) {
      ensure(b_size);
      H[b_size] = E[b_size] = kMinScore;
      ++b_size;
    }
    if (J && check_join(a, first_b, b_size)) break;
  }
  out.score = best_score;
  out.a_end = best_a;
  out.b_end = best_b;
  if (!traceback) return out;

  // Walk back from the best cell to the start point; the gap flags say whether a gap continues.
  int64_t a = best_a, b = best_b;
  uint8_t state = kSub;
  std::vector<GapOp> tail;  // after a join: the joined alignment's path from the row of the join on
  if (joined) {
    // The joined alignment's end and score, shifted to this one; its path from the last cell it visits on the row
    // of the join, which this one's walk back reaches in the same state (the rows after it are the same).
    const Joins::Checkpoint& c = joined->cps[joined_at];
    const int64_t da = joined_row - c.a, db = joined_first - c.first_b;
    out.score = joined->score + (best_score - c.best);
    out.a_end = joined->a_end + da;
    out.b_end = joined->b_end + db;
    int64_t pa = 0, pb = 0, kb = 0;
    size_t k_last = joined->ops.size();
    for (size_t k = 0; k < joined->ops.size(); ++k) {
      if (pa == c.a) k_last = k, kb = pb;
      const GapOp op = joined->ops[k];
      if (op != GapOp::gap_in_a) ++pa;
      if (op != GapOp::gap_in_b) ++pb;
    }
    if (k_last == joined->ops.size()) throw std::logic_error("joined alignment has no cell on the row of the join");
    a = joined_row;
    b = kb + db;
    const GapOp op = joined->ops[k_last];
    state = op == GapOp::substitution ? kSub : op == GapOp::gap_in_b ? kGapInB : kGapInA;
    tail.assign(joined->ops.begin() + std::ptrdiff_t(k_last), joined->ops.end());
    ++J->joined;
  }
  std::vector<GapOp> back;
  reserve_populated(back, size_t(a + b));  // at most one operation per letter of either
  while (a > 0 || b > 0) {
    const uint8_t next = get_cell(row_ptr[size_t(a)], size_t(b - row_first[size_t(a)]));
    switch (state) {
      case kGapInA: state = (next & kExtendGapA) ? kGapInA : uint8_t(next & kOpMask); break;
      case kGapInB: state = (next & kExtendGapB) ? kGapInB : uint8_t(next & kOpMask); break;
      default: state = next & kOpMask; break;
    }
    if (state == kGapInA) {
      --b;
      back.push_back(GapOp::gap_in_a);
    } else if (state == kGapInB) {
      --a;
      back.push_back(GapOp::gap_in_b);
    } else {
      --a;
      --b;
      back.push_back(GapOp::substitution);
    }
  }
  out.ops.assign(back.rbegin(), back.rend());
  out.ops.insert(out.ops.end(), tail.begin(), tail.end());
  if (J && !joined && best_a >= kJoinMinRows && !checkpoints.empty()) {
    auto e = std::make_shared<Joins::Entry>();
    e->a_base = a_addr, e->b_base = b_addr, e->a_last = a_last, e->b_last = b_last;
    e->a_step = A.step, e->b_step = kStepB;
    e->x = x;
    e->sc = sc;
    e->score = out.score, e->a_end = out.a_end, e->b_end = out.b_end;
    e->ops = out.ops;
    e->cps = std::move(checkpoints);
    std::lock_guard<std::mutex> lock(J->mutex);
    for (size_t k = 0; k < e->cps.size(); ++k)
      J->by_row[a_addr + uintptr_t((e->cps[k].a - 1) * A.step)].emplace_back(e, k);
  }
  return out;
}

#ifdef BLOOMSEQ_XDROP_VECTOR
template <int kStepB, bool traceback>
__attribute__((target("avx2"))) XdropAlignment align_vector_build(const LetterRun& A, const LetterRun& B,
                                                                  const GappedScoring& sc, int x_dropoff,
                                                                  AlignmentJoins* joins) {
  return align_body<kStepB, traceback, true>(A, B, sc, x_dropoff, joins);
}
#endif

template <int kStepB, bool traceback>
XdropAlignment align(const LetterRun& A, const LetterRun& B, const GappedScoring& sc, int x_dropoff,
                     AlignmentJoins* joins = nullptr) {
#ifdef BLOOMSEQ_XDROP_VECTOR
  static const bool cpu_has_vectors = vector_rows_available();
  if (cpu_has_vectors) return align_vector_build<kStepB, traceback>(A, B, sc, x_dropoff, joins);
#endif
  return align_body<kStepB, traceback, false>(A, B, sc, x_dropoff, joins);
}

}  // namespace

bool xdrop_vector_rows(bool enabled) {
  g_vector_rows.store(enabled ? -1 : 0, std::memory_order_relaxed);
  static const bool cpu_has_vectors = vector_rows_available();
  return enabled && cpu_has_vectors;
}

XdropAlignment xdrop_gapped_align(const LetterRun& A, const LetterRun& B, const GappedScoring& sc, int x_dropoff,
                                  bool traceback, AlignmentJoins* joins) {
  if (B.step == 1)
    return traceback ? align<1, true>(A, B, sc, x_dropoff, joins) : align<1, false>(A, B, sc, x_dropoff);
  if (B.step == -1)
    return traceback ? align<-1, true>(A, B, sc, x_dropoff, joins) : align<-1, false>(A, B, sc, x_dropoff);
  // Any other stride: copy the letters into order.
  std::vector<uint8_t> copy(size_t(std::max<int64_t>(B.length, 0)));
  for (int64_t k = 1; k <= B.length; ++k) copy[size_t(k - 1)] = B.at(k);
  const LetterRun contiguous{copy.data(), 1, B.length, B.iupac};
  return traceback ? align<1, true>(A, contiguous, sc, x_dropoff) : align<1, false>(A, contiguous, sc, x_dropoff);
}

}  // namespace bloomseq
