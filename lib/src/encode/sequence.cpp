#include "bloomseq/encode/sequence.hpp"

#include <array>

namespace bloomseq {
namespace {

constexpr std::array<uint8_t, 256> make_code_table() {
  std::array<uint8_t, 256> t{};
  for (int c = 0; c < 256; ++c) t[size_t(c)] = base_code(char(c));
  return t;
}
constexpr std::array<uint8_t, 256> kCodeTable = make_code_table();

char complement_char(char c) {
  switch (c) {
    case 'A': return 'T'; case 'C': return 'G'; case 'G': return 'C'; case 'T': return 'A';
    case 'a': return 't'; case 'c': return 'g'; case 'g': return 'c'; case 't': return 'a';
    case 'R': return 'Y'; case 'Y': return 'R'; case 'K': return 'M'; case 'M': return 'K';
    case 'B': return 'V'; case 'V': return 'B'; case 'D': return 'H'; case 'H': return 'D';
    case 'r': return 'y'; case 'y': return 'r'; case 'k': return 'm'; case 'm': return 'k';
    case 'b': return 'v'; case 'v': return 'b'; case 'd': return 'h'; case 'h': return 'd';
    default: return c;  // N, S, W and anything else are their own complement
  }
}

}  // namespace

void encode_codes(std::string_view seq, std::vector<uint8_t>& out) {
  out.resize(seq.size());
  for (size_t i = 0; i < seq.size(); ++i) out[i] = kCodeTable[uint8_t(seq[i])];
}

std::vector<uint8_t> encode_codes(std::string_view seq) {
  std::vector<uint8_t> out;
  encode_codes(seq, out);
  return out;
}

std::string decode_codes(const std::vector<uint8_t>& codes) {
  std::string s(codes.size(), 'N');
  for (size_t i = 0; i < codes.size(); ++i) s[i] = code_base(codes[i]);
  return s;
}

std::string reverse_complement(std::string_view seq) {
  std::string r(seq.size(), 'N');
  for (size_t i = 0; i < seq.size(); ++i) r[seq.size() - 1 - i] = complement_char(seq[i]);
  return r;
}

std::vector<uint64_t> pack_codes(const std::vector<uint8_t>& codes) {
  std::vector<uint64_t> words((codes.size() + 31) / 32, 0);
  for (size_t i = 0; i < codes.size(); ++i)
    if (codes[i] < 4) words[i >> 5] |= uint64_t(codes[i]) << (2 * (i & 31));
  return words;
}

std::vector<uint64_t> canonical_wmers(std::string_view seq, int w) {
  std::vector<uint64_t> out;
  const auto codes = encode_codes(seq);
  for_each_wmer(codes.data(), codes.size(), w,
                [&](size_t, uint64_t f, uint64_t r) { out.push_back(canonical_wmer(f, r)); });
  return out;
}

}  // namespace bloomseq
