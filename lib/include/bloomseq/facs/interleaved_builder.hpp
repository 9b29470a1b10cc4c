// Building an interleaved filter set (facs build-filter --layout interleaved): one bin per reference, bins of
// similar size grouped (group_bins_min_memory) so that small references do not pay for the largest where a
// separate group costs less than the shared one (below 64 references one group always does: rows are whole
// 64-bit words), each group one
// interleaved Bloom filter whose m and k are those a separate classic filter of its largest member would get for
// the target FPR. The references are read twice: pass 1 counts each one's distinct k-mers (exact or HyperLogLog,
// as for separate filters) to size the groups, pass 2 builds each bin as a classic Bloom vector of its group's m
// and k (about a megabyte for a bacterial genome: it stays in cache) and transposes 64 finished bins at a time
// into the group's rows.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "bloomseq/facs/params.hpp"
#include "bloomseq/hash/h3.hpp"
#include "bloomseq/io/filter_file.hpp"

namespace bloomseq {

struct InterleavedReference {
  std::string name;
  std::string source;
  uint64_t source_length = 0;
  uint64_t elements = 0;  // distinct k-mers (pass 1)
};

// The FPR per bin an interleaved set of `references` bins is sized for when --fpr is not given: FACS's 5e-4 up to
// 100 references, then 0.05 / references. Every bin a read's quick k-mers hit falsely costs the read a scan of that
// bin, and a random k-mer hits references x FPR bins falsely: holding that at 0.05 keeps a read's work nearly flat
// in the number of references, where the bits grow only with its logarithm (1,024 references: 4.9e-5, 1.31x the
// bits of 5e-4 and 0.42-0.47x the time; docs/benchmarks.md, "The FPR of large interleaved sets").
// With a group router a random k-mer reaches a group only at the router's FPR (~0.1), so the bins can be sized
// for 10x the FPR at the same false bins per k-mer, capped at FACS's 5e-4: 1,024 references get 4.9e-4.
double interleaved_default_fpr(size_t references, bool routed = false);

// --router auto: a set of more than this many references whose references fall into several size groups gets a
// group router (build-filter decides the groups part; use_group_router only the count).
constexpr size_t kRouterFromReferences = 101;
bool use_group_router(const BuildParams& p, size_t references);

// `facs build-filter` without --layout: an interleaved set for this many reference files and more, blocked filters
// below. From 64 on a row's 64-bit words are full, so the set takes the bits separate filters would (64.8 against
// 66.1 MB for 64 references of 0.5 Mbases) and a lookup reads k rows instead of one line per filter: 100,000 reads
// classified 2.7x faster at 64 references, 4.5x at 128; at 32 it was 1.6x faster but twice the size (half of each
// word empty), at 16 1.2x faster at 4x the size (docs/benchmarks.md, "Which layout by default").
constexpr size_t kInterleavedFromReferences = 64;

// Whether build-filter's default layout is interleaved: `files` reference files, each one filter (no
// --per-record, whose filters are only counted while reading), none of them stdin (an interleaved set reads its
// references twice), not added to an existing set (--add extends blocked or classic sets only) nor sized by
// --auto-tune (which plans separate filters).
bool default_layout_interleaved(size_t files, bool per_record, bool add, bool auto_tune, bool any_stdin);

// The groups for references with these distinct k-mer counts: members (bin order), m and k; rows not allocated.
std::vector<InterleavedGroup> plan_interleaved_groups(const std::vector<uint64_t>& elements, const BuildParams& p);

class InterleavedSetBuilder {
 public:
  // Fills set.filters (one per reference, in order) and set.groups, after checking that the groups' rows fit in
  // the memory available. `set` must outlive the builder.
  InterleavedSetBuilder(FilterSet& set, const std::vector<InterleavedReference>& refs, const BuildParams& p);
  // Inserts the k-mers of reference i (pass 2); references may come in any order, each once.
  void add(size_t i, const std::vector<std::string_view>& seqs);
  // Throws UsageError if some reference was not added.
  void finish() const;

 private:
  FilterSet& set_;
  BuildParams p_;
  std::vector<H3Family> families_;                      // [group]
  std::vector<std::unique_ptr<BloomVector>> pending_;  // [filter]: built, its column not complete yet
  std::vector<std::vector<uint32_t>> columns_left_;    // [group][row word]: bins not built yet
  std::vector<uint8_t> added_;
  H3Family router_family_;  // the router's k + 1 functions (unused without a router)
};

}  // namespace bloomseq
