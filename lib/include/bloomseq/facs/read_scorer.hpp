// Per-read, per-filter scoring as streaming state machines fed one frame lookup at a time.
//
// A read of length L has F = L - w + 1 frames (its w-mers). A scorer asks for the frame it needs next
// (next() returns its index, or -1 when the score is final), the caller looks that frame up in the filter and
// reports hit or miss with feed(). Because the scorer never touches the filter itself, the same code runs on the
// CPU (where the caller interleaves many scorers to overlap memory latency) and in a GPU kernel.
//
// Frame states live in caller-owned memory (one byte per frame, per filter) so that frames that cannot be looked
// up (they contain N) are marked as misses before scoring and a frame is never looked up twice.
#pragma once
#include <cstdint>

#include "bloomseq/hd.hpp"

namespace bloomseq {

enum FrameState : uint8_t { kFrameUnknown = 0, kFrameMiss = 1, kFrameHit = 2 };

enum class ScoreKind : uint8_t {
  facs,      // bases covered by hit frames / L, after a quick pass over non-overlapping frames (FACS)
  biobloom,  // BioBloom Tools' run score with early accept/reject
};

// FACS score, exact: S = number of bases covered by at least one hit frame, provided that at least one of the
// quick-pass frames hits; otherwise 0. FACS's quick pass looks at the non-overlapping frames 0, w, 2w, ...; here
// the last frame is added so that the quick frames touch every base (the tail of a read counts too), and short
// reads may add d - 1 evenly spaced frames between these (density d, facs/error_model.hpp) so that a few errors do
// not miss every quick frame; FACS's frames stay among them, so a denser quick pass never lowers a score. The full scan is lazy but exact:
// for the first undecided base b it looks for the highest hit frame among those covering b (frames
// min(b, F-1) down to b - w + 1), so an error-free read needs only the ~L/w non-overlapping frames, and each
// sequencing error costs about w/2 more lookups, instead of all F frames. The result equals a scan of every frame.
struct FacsScorer {
  int length = 0;  // L
  int w = 0;
  int density = 1; // quick frames per w frames: j w + floor(i w / density), i < density, and F - 1 (1..w)
  int frames = 0;  // F (<= 0: read shorter than w)
  int phase = 0;   // 0 quick pass, 1 full scan, 2 done
  int quick = 0;   // next quick-pass frame
  int base = 0;    // first base whose coverage is undecided
  int cursor = -1; // frame being examined for `base`, -1 = start from the top
  int covered = 0; // the score: bases covered by hit frames
  int lookups = 0; // frames looked up (for statistics)

  BLOOMSEQ_HD void start(int read_length, int word_size, int quick_density = 1) {
    length = read_length;
    w = word_size;
    density = quick_density < 1 ? 1 : quick_density > word_size ? word_size : quick_density;
    frames = read_length - word_size + 1;
    phase = frames > 0 ? 0 : 2;
    quick = 0;
    base = 0;
    cursor = -1;
    covered = 0;
    lookups = 0;
  }

  // The next frame to look up, or -1 when the score is final.
  BLOOMSEQ_HD int next(const uint8_t* state) {
    if (phase == 0) {
      // Quick frames: 0, w, 2w, ... (and with density d > 1 the frames between them), and the last frame, so
      // that together they touch every base.
      for (; quick < frames; quick = next_quick(quick)) {
        const uint8_t s = state[quick];
        if (s == kFrameUnknown) return quick;
        if (s == kFrameHit) break;
      }
      if (quick >= frames) {  // no quick frame hits: FACS stops here with score 0
        phase = 2;
        return -1;
      }
      phase = 1;
      base = 0;
      cursor = -1;
    }
    while (phase == 1) {
      if (base >= length) {
        phase = 2;
        break;
      }
      const int top = base < frames - 1 ? base : frames - 1;
      const int bottom = base - w + 1 > 0 ? base - w + 1 : 0;
      if (cursor < 0) cursor = top;
      while (cursor >= bottom) {
        const uint8_t s = state[cursor];
        if (s == kFrameUnknown) return cursor;
        if (s == kFrameHit) break;
        --cursor;
      }
      if (cursor >= bottom) {  // the hit frame covers bases base .. cursor + w - 1
        covered += cursor + w - base;
        base = cursor + w;
      } else {
        ++base;  // no hit frame covers this base
      }
      cursor = -1;
    }
    return -1;
  }

  BLOOMSEQ_HD void feed(uint8_t* state, int frame, bool hit) {
    state[frame] = hit ? kFrameHit : kFrameMiss;
    ++lookups;
  }

  // Quick frames of a read with F frames, after frame f: j w + floor(i w / d) for i < d (d = 1: 0, w, 2w, ...),
  // below F - 1, then F - 1.
  BLOOMSEQ_HD static int next_quick_frame(int f, int frames, int w, int d = 1) {
    if (f >= frames - 1) return frames;
    const int base = f - f % w;
    const int i = ((f % w + 1) * d + w - 1) / w;  // the smallest i with floor(i w / d) > f % w
    const int next = i < d ? base + i * w / d : base + w;
    return next < frames - 1 ? next : frames - 1;
  }
  // How many there are.
  BLOOMSEQ_HD static int quick_frame_count(int frames, int w, int d = 1) {
    if (frames <= 0) return 0;
    const int full = (frames - 1) / w, rest = (frames - 1) % w;
    return full * d + (rest * d + w - 1) / w + 1;
  }
  BLOOMSEQ_HD int next_quick(int f) const { return next_quick_frame(f, frames, w, density); }

  BLOOMSEQ_HD int points() const { return covered; }
  BLOOMSEQ_HD int denominator() const { return length; }
};

// BioBloom Tools' score: frames are scanned left to right; a run of consecutive hits scores 0.5 for its first
// frame and 1 for each further frame (kept here in half points, so ties compare exactly). The filter accepts as
// soon as the score reaches s * F and rejects once the misses reach floor((1 - s) * F). After a miss that ends a
// run of >= 3 hits the scan jumps w frames ahead, past the frames the presumed sequencing error spoils.
struct BioBloomScorer {
  int w = 0;
  int frames = 0;
  int pos = 0;
  int streak = 0;
  int half_points = 0;
  int misses = 0;
  int accept_half_points = 0;  // ceil(2 s F)
  int reject_misses = 0;       // floor((1 - s) F)
  int lookups = 0;
  bool accepted = false;
  bool done = false;

  BLOOMSEQ_HD void start(int read_length, int word_size, double s) {
    w = word_size;
    frames = read_length - word_size + 1;
    pos = 0;
    streak = 0;
    half_points = 0;
    misses = 0;
    lookups = 0;
    accepted = false;
    done = frames <= 0;
    if (frames > 0) {
      const double a = 2.0 * s * double(frames);
      accept_half_points = int(a);
      if (double(accept_half_points) < a) ++accept_half_points;
      if (accept_half_points < 1) accept_half_points = 1;
      reject_misses = int((1.0 - s) * double(frames));
      if (reject_misses < 1) reject_misses = 1;
    }
  }

  BLOOMSEQ_HD int next(const uint8_t* state) {
    while (!done) {
      if (pos >= frames) {
        done = true;
        break;
      }
      const uint8_t st = state[pos];
      if (st == kFrameUnknown) return pos;
      apply(st == kFrameHit);
    }
    return -1;
  }

  BLOOMSEQ_HD void feed(uint8_t* state, int frame, bool hit) {
    state[frame] = hit ? kFrameHit : kFrameMiss;
    ++lookups;
  }

  BLOOMSEQ_HD int points() const { return half_points; }
  BLOOMSEQ_HD int denominator() const { return 2 * (frames > 0 ? frames : 1); }

 private:
  BLOOMSEQ_HD void apply(bool hit) {
    if (hit) {
      half_points += streak == 0 ? 1 : 2;
      ++streak;
      ++pos;
      if (half_points >= accept_half_points) {
        accepted = true;
        done = true;
      }
    } else {
      ++misses;
      pos += streak >= 3 ? w : 1;
      streak = 0;
      if (misses >= reject_misses) done = true;
    }
  }
};

// One scorer of either kind behind a switch (no virtual calls, so it also runs in a kernel).
struct ReadScorer {
  ScoreKind kind = ScoreKind::facs;
  FacsScorer facs;
  BioBloomScorer bbt;

  BLOOMSEQ_HD void start(ScoreKind k, int read_length, int w, double biobloom_s, int quick_density = 1) {
    kind = k;
    if (k == ScoreKind::facs) facs.start(read_length, w, quick_density);
    else bbt.start(read_length, w, biobloom_s);
  }
  BLOOMSEQ_HD int next(const uint8_t* state) { return kind == ScoreKind::facs ? facs.next(state) : bbt.next(state); }
  BLOOMSEQ_HD void feed(uint8_t* state, int frame, bool hit) {
    if (kind == ScoreKind::facs) facs.feed(state, frame, hit);
    else bbt.feed(state, frame, hit);
  }
  BLOOMSEQ_HD int points() const { return kind == ScoreKind::facs ? facs.points() : bbt.points(); }
  BLOOMSEQ_HD int denominator() const { return kind == ScoreKind::facs ? facs.denominator() : bbt.denominator(); }
  BLOOMSEQ_HD int lookups() const { return kind == ScoreKind::facs ? facs.lookups : bbt.lookups; }
  // Whether the read matches the filter: FACS covers at least `min_covered` bases (FacsErrorModel::min_covered
  // of the read's length); BioBloom accepted early.
  BLOOMSEQ_HD bool passes(int min_covered) const {
    if (kind == ScoreKind::biobloom) return bbt.accepted;
    return facs.covered > 0 && facs.covered >= min_covered;
  }
};

}  // namespace bloomseq
