#include "bloomseq/blast/xdrop_gapped.hpp"

#include <algorithm>
#include <climits>
#include <memory>
#include <stdexcept>

namespace bloomseq {
namespace {

constexpr int kMinScore = INT_MIN / 2;  // "minus infinity" that survives a few subtractions

// Traceback cell: the operation that reached the cell, plus whether the gap states leaving it extend a gap.
constexpr uint8_t kOpMask = 3;
constexpr uint8_t kSub = 0, kGapInA = 1, kGapInB = 2;
constexpr uint8_t kExtendGapA = 4, kExtendGapB = 8;

struct Cell {
  int best;
  int best_gap;
};

// One X-drop dynamic program over A x B (blastn's semi-gapped alignment), with the traceback when asked.
// Kept as one function: the row loop's state (band ends, best cell, the gap states, the traceback row being
// written) stays in registers from row to row; split up, that state would cross calls in stage 3's inner loop.
template <int kStepB, bool traceback>
XdropAlignment align(const LetterRun& A, const LetterRun& B, const GappedScoring& sc, int x_dropoff) {
  XdropAlignment out;
  const int gap_extend = sc.gap_extend;
  const int gap_open_extend = sc.gap_open + sc.gap_extend;
  const int x = std::max(x_dropoff, gap_open_extend);
  const int64_t M = A.length, N = B.length;
  if (M <= 0 || N <= 0) return out;

  // Columns are touched only inside the X-drop window: grow on demand (reused between calls on a thread).
  thread_local std::vector<Cell> col;
  auto ensure = [&](int64_t b) {
    if (size_t(b) >= col.size()) col.resize(std::max<size_t>(size_t(b) + 1, col.size() * 2 + 64));
  };
  ensure(std::min<int64_t>(N + 1, x / std::max(gap_extend, 1) + 4));
  // Traceback rows: row a holds cells [row_first[a], row_first[a] + row_len[a]) of B.
  // Traceback cells, row after row, in blocks that are never moved (reused between calls on a thread); a row
  // never spans two blocks. Every cell read back was written.
  struct Blocks {
    std::vector<std::unique_ptr<uint8_t[]>> data;
    std::vector<size_t> size;
  };
  thread_local Blocks blocks;
  thread_local std::vector<uint8_t*> row_ptr;
  thread_local std::vector<int64_t> row_first;
  size_t block = 0, block_used = 0;
  auto new_row = [&](size_t cells) -> uint8_t* {
    if (block < blocks.data.size() && block_used + cells > blocks.size[block]) ++block, block_used = 0;
    while (block < blocks.data.size() && cells > blocks.size[block]) ++block;  // a smaller block is skipped
    if (block == blocks.data.size()) {
      const size_t n = std::max<size_t>(size_t(1) << 20, 2 * cells);
      blocks.data.emplace_back(new uint8_t[n]);
      blocks.size.push_back(n);
      block_used = 0;
    }
    uint8_t* p = blocks.data[block].get() + block_used;
    block_used += cells;
    return p;
  };
  if (traceback) {
    row_ptr.clear();
    row_first.clear();
  }
  int64_t row_room = 0;  // cells of the current row

  int score = -gap_open_extend;
  col[0] = {0, -gap_open_extend};
  int64_t i = 1;
  for (; i <= N; ++i) {
    if (score < -x) break;
    ensure(i);
    col[size_t(i)] = {score, score - gap_open_extend};
    score -= gap_extend;
  }
  if (traceback) {
    uint8_t* row0 = new_row(size_t(i));
    std::fill(row0, row0 + i, kGapInA);
    row0[0] = kSub;
    row_ptr.push_back(row0);
    row_first.push_back(0);
  }
  // Scores by letter code (0..3 bases, anything above ambiguous), one row per letter of A.
  int table[5][5];
  for (int u = 0; u < 5; ++u)
    for (int v = 0; v < 5; ++v) table[u][v] = sc.pair(uint8_t(u), uint8_t(v));
  const uint8_t* b_letters = B.base;  // letter k at b_letters[(k - 1) * kStepB]
  int64_t b_size = i, first_b = 0;
  int best_score = 0;
  int64_t best_a = 0, best_b = 0;

  for (int64_t a = 1; a <= M; ++a) {
    const uint8_t la = A.at(a);
    const int* row_scores = table[la < 4 ? la : 4];
    uint8_t* row = nullptr;  // cell b at row[b - row_start_b]
    const int64_t row_start_b = first_b;
    if (traceback) {
      // Room for the current window and the growth below (at most x / extend + 3 cells past b_size).
      row_room = b_size - first_b + (gap_extend > 0 ? x / gap_extend + 3 : N + 3) + 2;
      row = new_row(size_t(row_room));
      row_ptr.push_back(row);
      row_first.push_back(first_b);
    }
    score = kMinScore;
    int score_gap_row = kMinScore;
    int64_t last_b = first_b;
    int64_t b = first_b;
    int64_t row_best_b = -1;  // the row's new best cell, if any (best_a, best_b after the row)
    // The rules as selects rather than nested branches (tests/blast/test_gapped.cpp holds them transcribed one
    // branch per rule, and checks this loop against it cell for cell); the row's new best cell is recorded once
    // per row; the cells are reached through a local pointer, not the thread_local vector, since the traceback's
    // byte stores may alias anything and would make the compiler reload the vector's data pointer after each.
    // Stage 3 of the E. coli slice against its genome: 4.33 -> 3.48 s. (Selects by mask arithmetic, tried, ran
    // slower: a longer dependency chain from one cell to the next.)
    Cell* const cells = col.data();
    const int64_t lettered_end = std::min(b_size, N);  // the window's last column may be N, past B's letters
    for (; b < b_size; ++b) {
      const int score_gap_col = cells[b].best_gap;
      int next_score = cells[b].best;
      if (b < lettered_end) {
        const uint8_t lb = b_letters[b * kStepB];
        next_score += row_scores[lb < 4 ? lb : 4];
      }
      const bool from_col = score < score_gap_col;
      const int s1 = from_col ? score_gap_col : score;
      const bool from_row = s1 < score_gap_row;
      const int cell = from_row ? score_gap_row : s1;
      // A cell more than x below the best seen drops out of the window: its column is skipped from now on and
      // keeps its stale gap score, as in BLAST; the window's first column moves past a run of such cells.
      const bool dropped = best_score - cell > x;
      first_b += (dropped & (b == first_b)) ? 1 : 0;
      if (cell > best_score) {  // cannot be a dropped cell
        best_score = cell;
        row_best_b = b;
      }
      last_b = dropped ? last_b : b;
      const int opened = cell - gap_open_extend;
      const int col_extended = score_gap_col - gap_extend;
      const int row_extended = score_gap_row - gap_extend;
      const bool col_extends = col_extended >= opened;
      const bool row_extends = row_extended >= opened;
      cells[b].best_gap = dropped ? score_gap_col : (col_extends ? col_extended : opened);
      cells[b].best = dropped ? kMinScore : cell;
      score_gap_row = dropped ? score_gap_row : (row_extends ? row_extended : opened);
      score = next_score;
      if (traceback) {
        uint8_t op = from_row ? kGapInA : (from_col ? kGapInB : kSub);
        if (!dropped) op |= uint8_t((col_extends ? kExtendGapB : 0) | (row_extends ? kExtendGapA : 0));
        row[b - row_start_b] = op;
      }
    }
    if (row_best_b >= 0) best_a = a, best_b = row_best_b;
    if (first_b == b_size) break;
    if (last_b < b_size - 1) {
      b_size = last_b + 1;
    } else {
      while (score_gap_row >= best_score - x && b_size <= N) {
        ensure(b_size);
        col[size_t(b_size)] = {score_gap_row, score_gap_row - gap_open_extend};
        if (traceback) {
          if (b_size - row_first.back() >= row_room) throw std::logic_error("gapped traceback row overflow");
          row[b_size - row_start_b] = kGapInA;
        }
        score_gap_row -= gap_extend;
        ++b_size;
      }
    }
    if (b_size <= N) {
      ensure(b_size);
      col[size_t(b_size)] = {kMinScore, kMinScore};
      ++b_size;
    }
  }
  out.score = best_score;
  out.a_end = best_a;
  out.b_end = best_b;
  if (!traceback) return out;

  // Walk back from the best cell to the start point; the gap flags say whether a gap continues.
  int64_t a = best_a, b = best_b;
  uint8_t state = kSub;
  std::vector<GapOp> back;
  while (a > 0 || b > 0) {
    const uint8_t next = row_ptr[size_t(a)][b - row_first[size_t(a)]];
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
  return out;
}

}  // namespace

XdropAlignment xdrop_gapped_align(const LetterRun& A, const LetterRun& B, const GappedScoring& sc, int x_dropoff,
                                  bool traceback) {
  if (B.step == 1) return traceback ? align<1, true>(A, B, sc, x_dropoff) : align<1, false>(A, B, sc, x_dropoff);
  if (B.step == -1) return traceback ? align<-1, true>(A, B, sc, x_dropoff) : align<-1, false>(A, B, sc, x_dropoff);
  // Any other stride: copy the letters into order.
  std::vector<uint8_t> copy(size_t(std::max<int64_t>(B.length, 0)));
  for (int64_t k = 1; k <= B.length; ++k) copy[size_t(k - 1)] = B.at(k);
  const LetterRun contiguous{copy.data(), 1, B.length};
  return traceback ? align<1, true>(A, contiguous, sc, x_dropoff) : align<1, false>(A, contiguous, sc, x_dropoff);
}

}  // namespace bloomseq
