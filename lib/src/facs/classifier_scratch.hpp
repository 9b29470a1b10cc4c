// The contents of Classifier::Workspace: per-thread scratch memory of the scoring paths, reused between batches.
// Private to lib/src/facs (classifier.cpp, lean_facs_path.cpp).
#pragma once
#include <cstdint>
#include <vector>

#include "bloomseq/encode/dna.hpp"
#include "bloomseq/facs/classifier.hpp"
#include "bloomseq/facs/read_scorer.hpp"

namespace bloomseq {

struct ClassifierScratch {
  using Job = Classifier::Job;
  using ProbeItem = Classifier::ProbeItem;
  using FastScan = Classifier::FastScan;

  std::vector<uint64_t> packed;        // the group's reads, 2 bits per base (packed_base layout)
  std::vector<uint64_t> invalid;       // one bit per base: N or IUPAC
  std::vector<size_t> base_offset;     // [read]: first word in packed and invalid
  std::vector<size_t> frame_offset;    // [read]: first frame (hash slots) of the read
  std::vector<int32_t> frames;         // [read]
  std::vector<int32_t> valid_frames;   // [read]: > 0 if the read has a complete k-mer (1 = yes; not a count)
  std::vector<int32_t> uncoverable;    // [read of the group]: bases outside N-free runs of w (error model)
  std::vector<uint32_t> hashes;        // [frame][kmax]
  std::vector<uint8_t> hashed;         // [frame]: 0 nothing, 1 key invalid (N), 2/3/4 hashes 0-1/0-3/all
  std::vector<uint64_t> keys;          // [frame]: canonical key, once computed
  std::vector<uint8_t> states;         // [read][filter][frame]
  std::vector<uint32_t> active;
  std::vector<Job> jobs;
  std::vector<ProbeItem> probes;
  BatchScores mate_scores;
  // Lean path (FACS score, blocked filters; lean_facs_path.cpp).
  std::vector<uint32_t> lean_index;    // [frame of the group]: its entry once hashed (hashed: 2 head, 3 lanes)
  std::vector<uint64_t> lean_key;      // [entry]: canonical key
  std::vector<uint64_t> lean_head;     // [entry]: hash 0 (bits 0-31), block bits of hashes 1..3 (9 bits each)
  uint32_t lean_used = 0;              // entries in use
  std::vector<uint16_t> lean_lanes;    // [entry][lean stride]: hash 0 (lanes 0-1), bit of hash i (lane 1 + i)
  std::vector<uint32_t> quick_masks;   // [quick frame][distinct k][16]: the k bits to find in a block
  std::vector<uint32_t> quick_slots;   // [quick frame of the group]: its entry
  std::vector<uint32_t> quick_first;   // [read]: first entry of the read in quick_slots (n + 1 entries)
  std::vector<uint8_t> quick_hits;     // [quick frame][filter]: 1 if the frame is in the filter
  std::vector<const uint32_t*> prefetch_queue;  // blocks of the large filters for the quick frames
  std::vector<uint32_t> prefetch_end;  // [read]: end of its entries in prefetch_queue
  std::vector<FastScan> scans;
  // Interleaved path (interleaved_path.cpp).
  std::vector<uint32_t> ibf_entry;     // [frame of the group]: its answer in ibf_answers, or kIbf* below
  std::vector<uint64_t> ibf_answers;   // [entry][column word]: the filters that may hold the frame
  std::vector<uint64_t> ibf_candidates;  // [read][column word]: filters with a quick hit (FACS) or all (BioBloom)
  std::vector<uint32_t> ibf_quick;     // quick frames (slots) to query
  std::vector<uint32_t> ibf_quick_read;  // [quick frame]: its read
  std::vector<uint32_t> ibf_pending;   // scan jobs waiting for a frame of their bin this round
  std::vector<uint32_t> ibf_pending_frame;  // the frame each pending job waits for
  std::vector<uint32_t> ibf_shared;    // scan frames (slots) looked up for every bin this round
  std::vector<uint32_t> ibf_read_jobs; // [read]: its candidates
  std::vector<uint8_t> ibf_states;     // [job][frame]
  std::vector<uint32_t> ibf_active;
  std::vector<uint64_t> ibf_route;     // [frame of the group]: the groups its routers admit (if ibf_routed)
  std::vector<uint8_t> ibf_routed;     // [frame of the group]: ibf_route is known
  std::vector<uint32_t> ibf_to_route;  // frames (slots) to route now
  std::vector<uint32_t> route_hashes;  // [frame to route][router hash]
  struct IbfJob {
    uint32_t read = 0;
    uint32_t filter = 0;
    uint32_t column = 0;
    size_t state = 0;              // offset in ibf_states
    int32_t need = 0;              // FACS: bases to cover (FacsErrorModel::min_covered)
    int32_t max_uncovered = 0;     // FACS: more uncovered bases cannot pass (INT32_MAX: scan to the end)
    ReadScorer scorer;
  };
  std::vector<IbfJob> ibf_jobs;
};

// Inline: it runs once per looked-up frame on both classifier paths.
inline bool Classifier::frame_key(const Scratch& ws, size_t read, int frame, uint64_t& key) const {
  const int w = set_.w;
  const uint64_t* pk = ws.packed.data() + ws.base_offset[read];
  const uint64_t* inv = ws.invalid.data() + ws.base_offset[read];
  const size_t pos = size_t(frame);
  // N in the window? (bits [pos, pos + w) of the invalid mask)
  const size_t iw = pos >> 6;
  const int ish = int(pos & 63);
  uint64_t bad = inv[iw] >> ish;
  if (ish && ish + w > 64) bad |= inv[iw + 1] << (64 - ish);
  if (bad & ((uint64_t(1) << w) - 1)) return false;
  // The window with its first base in the low bits is the complement of the reverse complement; the forward
  // w-mer (first base most significant) is its 2-bit-group reversal.
  const size_t pw = pos >> 5;
  const int psh = int(2 * (pos & 31));
  uint64_t x = pk[pw] >> psh;
  if (psh && psh + 2 * w > 64) x |= pk[pw + 1] << (64 - psh);
  const uint64_t rc = ~x & wmer_mask(w);
  key = canonical_wmer(revcomp_wmer(rc, w), rc);
  return true;
}

}  // namespace bloomseq
