#include "bloomseq/blast/stage1b.hpp"

#include <algorithm>
#include <tuple>

#include "bloomseq/encode/dna.hpp"

namespace bloomseq {

bool Seed::operator<(const Seed& o) const {
  return std::tie(query, subject, q_pos, s_pos, strand) < std::tie(o.query, o.subject, o.q_pos, o.s_pos, o.strand);
}
bool Seed::operator==(const Seed& o) const {
  return query == o.query && subject == o.subject && q_pos == o.q_pos && s_pos == o.s_pos && strand == o.strand;
}

namespace {
inline uint64_t mix(uint64_t key) { return (key ^ (key >> 29)) * 0x9E3779B97F4A7C15ULL; }
}  // namespace

QueryIndex::QueryIndex(const std::vector<std::vector<uint8_t>>& queries, int w) : w_(w) {
  struct Item {
    uint64_t key;
    Entry e;
  };
  std::vector<Item> items;
  for (size_t q = 0; q < queries.size(); ++q)
    for_each_wmer(queries[q].data(), queries[q].size(), w, [&](size_t pos, uint64_t fwd, uint64_t rc) {
      items.push_back({canonical_wmer(fwd, rc), {uint32_t(q), uint32_t(pos), fwd <= rc}});
    });
  std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
    return std::tie(a.key, a.e.query, a.e.pos) < std::tie(b.key, b.e.query, b.e.pos);
  });
  entries_.reserve(items.size());
  for (const Item& it : items) entries_.push_back(it.e);

  size_t distinct = 0;
  for (size_t i = 0; i < items.size(); ++i) distinct += (i == 0 || items[i].key != items[i - 1].key);
  uint64_t slots = 16;
  while (slots < 2 * distinct) slots *= 2;
  mask_ = slots - 1;
  slots_.assign(slots, Slot{0, 0, 0});
  for (size_t i = 0; i < items.size();) {
    size_t j = i;
    while (j < items.size() && items[j].key == items[i].key) ++j;
    uint64_t s = mix(items[i].key) & mask_;
    while (slots_[s].count) s = (s + 1) & mask_;
    slots_[s] = Slot{items[i].key, uint32_t(i), uint32_t(j - i)};
    i = j;
  }
}

void QueryIndex::prefetch(uint64_t key) const {
  if (!slots_.empty()) __builtin_prefetch(&slots_[mix(key) & mask_]);
}

const QueryIndex::Entry* QueryIndex::find(uint64_t key, size_t& count) const {
  count = 0;
  if (slots_.empty()) return nullptr;
  for (uint64_t s = mix(key) & mask_; slots_[s].count; s = (s + 1) & mask_)
    if (slots_[s].key == key) {
      count = slots_[s].count;
      return entries_.data() + slots_[s].begin;
    }
  return nullptr;
}

}  // namespace bloomseq
