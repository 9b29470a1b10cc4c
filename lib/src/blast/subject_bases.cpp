#include "bloomseq/blast/subject_bases.hpp"

#include <algorithm>
#include <cstring>

#include "bloomseq/blast/nucleotide_score.hpp"
#include "bloomseq/encode/dna.hpp"

namespace bloomseq {

LaggedFibonacci::LaggedFibonacci(uint32_t seed) {
  // Seeded as CRandom(seed): a linear congruential fill, then 330 draws thrown away.
  state_[0] = seed;
  for (int i = 1; i < 33; ++i) state_[i] = 1103515245u * state_[i - 1] + 12345u;
  for (int i = 0; i < 330; ++i) next();
}

uint32_t LaggedFibonacci::next() {
  const uint32_t r = state_[k_] + state_[j_--];
  state_[k_--] = r;
  if (k_ < 0) k_ = 32;
  else if (j_ < 0) j_ = 32;
  return r >> 1;  // the low bit is the least random
}

namespace {

// The bases an IUPAC code allows, as bits A = 1, C = 2, G = 4, T = 8 (NCBI4na); 15 (all) for N and anything else.
uint8_t allowed_bases(char c) {
  switch (c) {
    case 'A': case 'a': return 1;
    case 'C': case 'c': return 2;
    case 'G': case 'g': return 4;
    case 'T': case 't': case 'U': case 'u': return 8;
    case 'M': case 'm': return 1 | 2;
    case 'R': case 'r': return 1 | 4;
    case 'W': case 'w': return 1 | 8;
    case 'S': case 's': return 2 | 4;
    case 'Y': case 'y': return 2 | 8;
    case 'K': case 'k': return 4 | 8;
    case 'V': case 'v': return 1 | 2 | 4;
    case 'H': case 'h': return 1 | 2 | 8;
    case 'D': case 'd': return 1 | 4 | 8;
    case 'B': case 'b': return 2 | 4 | 8;
    default: return 15;
  }
}

void add_position(std::vector<AmbiguousRun>& runs, uint64_t pos, uint8_t code) {
  if (!runs.empty() && runs.back().end == pos && runs.back().code == code) ++runs.back().end;
  else runs.push_back(AmbiguousRun{pos, pos + 1, code});
}

}  // namespace

uint8_t SubjectBaseResolver::base_for(char c) {
  const uint8_t bits = allowed_bases(c);
  const uint32_t draw = random_.next();
  if (bits == 15) return uint8_t(draw & 3);
  int pick = int(draw % uint32_t(__builtin_popcount(bits)));
  for (uint8_t base = 0; base < 4; ++base)
    if ((bits >> base) & 1) {
      if (pick == 0) return base;
      --pick;
    }
  return 0;  // unreachable: pick < the number of bits set
}

uint8_t true_ambiguity_code(char c) {
  const uint8_t bits = allowed_bases(c);
  return bits == 15 ? kInvalidBase : uint8_t(kIupacCodeBase + bits);
}

void encode_subject_text(const char* s, size_t n, uint8_t* out, SubjectBaseResolver& resolver, uint64_t at,
                         std::vector<AmbiguousRun>& runs) {
  for (size_t i = 0; i < n; ++i) {
    const uint8_t code = base_code(s[i]);
    if (code < 4) {
      out[i] = code;
    } else {
      out[i] = resolver.base_for(s[i]);
      add_position(runs, at + i, true_ambiguity_code(s[i]));
    }
  }
}

void resolve_subject_codes(uint8_t* codes, size_t n, SubjectBaseResolver& resolver, uint64_t at,
                           std::vector<AmbiguousRun>& runs) {
  for (size_t i = 0; i < n; ++i)
    if (codes[i] >= 4) {
      codes[i] = resolver.base_for('N');
      add_position(runs, at + i, kInvalidBase);
    }
}

bool any_iupac(const std::vector<AmbiguousRun>& runs, uint64_t from, uint64_t to) {
  auto it = std::upper_bound(runs.begin(), runs.end(), from,
                             [](uint64_t x, const AmbiguousRun& r) { return x < r.end; });
  for (; it != runs.end() && it->begin < to; ++it)
    if (it->code >= kIupacCodeBase) return true;
  return false;
}

const uint8_t* true_subject_codes(const uint8_t* codes, uint64_t from, uint64_t n,
                                  const std::vector<AmbiguousRun>& runs, std::vector<uint8_t>& buffer) {
  const uint64_t to = from + n;
  // The first run ending after `from`.
  auto it = std::upper_bound(runs.begin(), runs.end(), from,
                             [](uint64_t x, const AmbiguousRun& r) { return x < r.end; });
  if (it == runs.end() || it->begin >= to) return codes + from;
  buffer.assign(codes + from, codes + to);
  for (; it != runs.end() && it->begin < to; ++it) {
    const uint64_t b = std::max(it->begin, from), e = std::min(it->end, to);
    std::memset(buffer.data() + (b - from), it->code, size_t(e - b));
  }
  return buffer.data();
}

}  // namespace bloomseq
