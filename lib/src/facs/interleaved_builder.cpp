#include "bloomseq/facs/interleaved_builder.hpp"

#include <algorithm>
#include <string>

#include "bloomseq/bloom/bloom_vector.hpp"
#include "bloomseq/bloom/interleaved_bloom.hpp"
#include "bloomseq/error.hpp"
#include "bloomseq/facs/filter_builder.hpp"

namespace bloomseq {

namespace {
constexpr uint64_t kGroupCostShare = 32;  // a group is priced at 1/32 of the set's needed bits
// A false candidate's scan reads rows until one clears its bit: with fewer hashes it needs fewer. At FPR 5e-4, k = 7
// instead of the optimal 11 costs 7.4% more bits; 1,024 references of 0.5 Mbases classified in 0.87-0.88x the time
// (docs/benchmarks.md, "Fewer hashes for interleaved sets").
constexpr double kExtraBitsForFewerHashes = 0.08;
}  // namespace

double interleaved_default_fpr(size_t references) {
  constexpr double kFalseBinsPerKmer = 0.05;  // references x FPR
  return std::min(kFacsDefaultFpr, kFalseBinsPerKmer / double(std::max<size_t>(references, 1)));
}

bool default_layout_interleaved(size_t files, bool per_record, bool add, bool auto_tune, bool any_stdin) {
  return files >= kInterleavedFromReferences && !per_record && !add && !auto_tune && !any_stdin;
}

std::vector<InterleavedGroup> plan_interleaved_groups(const std::vector<uint64_t>& elements, const BuildParams& p) {
  BuildParams classic = p;
  classic.layout = BloomLayout::classic;  // bins use the classic slot function
  std::vector<uint64_t> need(elements.size());
  std::vector<int> ks(elements.size());
  uint64_t total = 0;
  // Without -k or -m: the fewest hashes within kExtraBitsForFewerHashes of the optimal bits, sized for --fpr.
  const bool choose_k = p.hashes == 0 && p.m_bits == 0;
  for (size_t i = 0; i < elements.size(); ++i) {
    if (choose_k) {
      const uint64_t n = std::max<uint64_t>(elements[i], 1);
      ks[i] = fewest_hashes_within(n, p.fpr, kExtraBitsForFewerHashes);
      need[i] = bits_for_fpr_with_hashes(n, p.fpr, ks[i]);
      if (need[i] > kMaxBloomBits)
        throw UsageError("filter for " + std::to_string(n) + " k-mers at FPR " + std::to_string(p.fpr) +
                         " needs more than 2^32 bits per bin; raise --fpr or split the reference");
    } else {
      size_filter(elements[i], classic, need[i], ks[i]);
    }
    total += need[i];
  }
  // A group adds k row reads to every lookup of every read: merging two groups is worth up to ~3% more memory
  // (1,024 references of nearly equal size: one group instead of 16 of 64 bins; measured in docs/benchmarks.md).
  const uint64_t group_cost = total / kGroupCostShare;
  std::vector<InterleavedGroup> groups;
  for (const BinGroup& bg : group_bins_min_memory(need, 4096, group_cost)) {
    InterleavedGroup g;
    g.members = bg.members;
    g.bins = uint32_t(bg.members.size());
    g.m_bits = bg.m_bits;
    g.k = ks[bg.members.back()];  // the largest member's: its FPR meets the target, the others' are lower
    groups.push_back(std::move(g));
  }
  return groups;
}

InterleavedSetBuilder::InterleavedSetBuilder(FilterSet& set, const std::vector<InterleavedReference>& refs,
                                             const BuildParams& p)
    : set_(set), p_(p) {
  if (refs.empty()) throw UsageError("build-filter: no references for an interleaved set");
  std::vector<uint64_t> elements;
  for (const InterleavedReference& r : refs) elements.push_back(r.elements);
  set_.groups = plan_interleaved_groups(elements, p);
  uint64_t bits = 0;
  for (const InterleavedGroup& g : set_.groups) bits += g.m_bits * interleaved_row_words(g.bins) * 64;
  check_filter_memory(bits, "interleaved set");
  set_.filters.clear();
  for (const InterleavedReference& r : refs) {
    FilterEntry f;
    f.name = r.name;
    f.source = r.source;
    f.source_length = r.source_length;
    f.elements = r.elements;
    f.layout = BloomLayout::classic;
    set_.filters.push_back(std::move(f));
  }
  for (size_t g = 0; g < set_.groups.size(); ++g) {
    InterleavedGroup& grp = set_.groups[g];
    grp.ibf = InterleavedBloom(grp.bins, grp.m_bits);
    families_.emplace_back(grp.k, p.w, p.seed);
    std::vector<uint32_t> left(interleaved_row_words(grp.bins), 64);
    if (grp.bins % 64) left.back() = grp.bins % 64;
    columns_left_.push_back(std::move(left));
    for (uint32_t b = 0; b < grp.bins; ++b) {
      FilterEntry& f = set_.filters[grp.members[b]];
      f.group = int32_t(g);
      f.bin = b;
      f.k = grp.k;
      f.m_bits = grp.m_bits;
    }
  }
  pending_.resize(refs.size());
  added_.assign(refs.size(), 0);
}

void InterleavedSetBuilder::add(size_t i, const std::vector<std::string_view>& seqs) {
  if (i >= added_.size() || added_[i]) throw UsageError("interleaved build: reference " + std::to_string(i) + " added twice");
  added_[i] = 1;
  const FilterEntry& f = set_.filters[i];
  InterleavedGroup& grp = set_.groups[size_t(f.group)];
  auto v = std::make_unique<BloomVector>(grp.m_bits);
  const H3ByteView hv = families_[size_t(f.group)].byte_view();
  const BloomView view = v->view();
  uint32_t h[kMaxHashes];
  const int k = grp.k;
  for_each_canonical_wmer(seqs, p_.w, [&](uint64_t key) {
    hv.hash_all(key, h);
    view.insert(h, k);
  });
  pending_[i] = std::move(v);
  const uint32_t col = f.bin / 64;
  if (--columns_left_[size_t(f.group)][col] != 0) return;
  // The column is complete: its bins go into the rows together, and their vectors are freed.
  const BloomVector* vectors[64] = {};
  const uint32_t count = std::min<uint32_t>(64, grp.bins - col * 64);
  for (uint32_t t = 0; t < count; ++t) vectors[t] = pending_[grp.members[col * 64 + t]].get();
  grp.ibf.set_bins(col * 64, vectors, count);
  for (uint32_t t = 0; t < count; ++t) pending_[grp.members[col * 64 + t]].reset();
}

void InterleavedSetBuilder::finish() const {
  for (size_t i = 0; i < added_.size(); ++i)
    if (!added_[i]) throw UsageError("interleaved build: reference '" + set_.filters[i].name + "' was not built");
}

}  // namespace bloomseq
