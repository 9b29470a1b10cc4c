#include "bloomseq/facs/interleaved_builder.hpp"

#include <algorithm>
#include <string>

#include "bloomseq/bloom/bloom_vector.hpp"
#include "bloomseq/bloom/group_router.hpp"
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

double interleaved_default_fpr(size_t references, bool routed) {
  constexpr double kFalseBinsPerKmer = 0.05;  // references x FPR (x the router's FPR)
  constexpr double kRouterFpr = 0.1;          // kRouterBitsPerElement, kRouterHashes (test_facs_interleaved.cpp)
  return std::min(kFacsDefaultFpr,
                  kFalseBinsPerKmer / double(std::max<size_t>(references, 1)) / (routed ? kRouterFpr : 1.0));
}

bool use_group_router(const BuildParams& p, size_t references) {
  if (!p.interleaved) return false;
  return p.group_router < 0 ? references >= kRouterFromReferences : p.group_router > 0;
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
  if (use_group_router(p, refs.size()) && (p.group_router > 0 || set_.groups.size() >= 2)) {
    if (set_.groups.size() > kRouterMaxGroups)
      throw UsageError("build-filter: " + std::to_string(set_.groups.size()) + " size groups are more than a group "
                       "router serves (" + std::to_string(kRouterMaxGroups) + "); use --router no");
    uint64_t pairs = 0;  // (k-mer, group) pairs: at most the references' k-mers
    for (const InterleavedReference& r : refs) pairs += r.elements;
    GroupRouter gr;
    gr.k = kRouterHashes;
    gr.groups = uint32_t(set_.groups.size());
    gr.n_blocks = std::max<uint64_t>(1, uint64_t(double(pairs) * kRouterBitsPerElement / 512.0 + 1.0));
    if (gr.n_blocks > kMaxBloomBits) throw UsageError("build-filter: the group router would need more than 2^32 blocks");
    check_filter_memory(bits + gr.n_blocks * 512, "interleaved set with its group router");
    // On huge pages where the system allows: every k-mer writes one random block, and on 4-KiB pages nearly every
    // write also missed the TLB (256 references of 2.7 Mbases: the build took 1.5x as long as without a router).
    gr.blocks = InterleavedBloom::for_loading(512, gr.n_blocks);
    std::fill(gr.blocks.data(), gr.blocks.data() + gr.n_blocks * kRouterBlockWords, uint64_t(0));
    set_.routers.push_back(std::move(gr));
    router_family_ = H3Family(kRouterHashes + 1, p.w, group_router_seed(p.seed));
  }
}

namespace {
// Inserts keys into group g of the router, each block prefetched 16 keys ahead (a router of gigabytes is written
// at random: one cache miss per k-mer unless they overlap).
void insert_routed(const GroupRouterView& router, uint32_t g, const H3ByteView& hv, const std::vector<uint64_t>& keys) {
  constexpr size_t kHashes = kRouterHashes + 1;
  std::vector<uint32_t> h(keys.size() * kHashes);
  constexpr size_t kAhead = 16;
  for (size_t i = 0; i < keys.size(); ++i) hv.hash_all(keys[i], &h[i * kHashes]);
  for (size_t i = 0; i < keys.size(); ++i) {
    if (i + kAhead < keys.size()) __builtin_prefetch(router.block(h[(i + kAhead) * kHashes]), 1);
    router.insert(g, &h[i * kHashes]);
  }
}
}  // namespace

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
  const bool routed = !set_.routers.empty();
  GroupRouterView router{};
  if (routed) {
    GroupRouter& gr = set_.routers.front();
    router = GroupRouterView{gr.blocks.data(), gr.n_blocks, gr.groups, gr.k};
  }
  const H3ByteView rv = routed ? router_family_.byte_view() : H3ByteView{};
  constexpr size_t kRouteChunk = 1024;
  std::vector<uint64_t> keys;
  for_each_canonical_wmer(seqs, p_.w, [&](uint64_t key) {
    hv.hash_all(key, h);
    view.insert(h, k);
    if (!routed) return;
    keys.push_back(key);
    if (keys.size() == kRouteChunk) insert_routed(router, uint32_t(f.group), rv, keys), keys.clear();
  });
  if (routed && !keys.empty()) insert_routed(router, uint32_t(f.group), rv, keys);
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
