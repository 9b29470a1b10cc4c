// Host-side encoding of text sequences into 2-bit codes and packed words.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "bloomseq/encode/dna.hpp"

namespace bloomseq {

// One code per base (0..3, or kInvalidBase for N/IUPAC). Fast table-driven version of base_code().
void encode_codes(std::string_view seq, std::vector<uint8_t>& out);
std::vector<uint8_t> encode_codes(std::string_view seq);

// Back to text: codes 0..3 become ACGT, invalid codes 'N'.
std::string decode_codes(const std::vector<uint8_t>& codes);

// Reverse complement of a text sequence; non-ACGT characters become their IUPAC complement or stay as they are,
// case is kept.
std::string reverse_complement(std::string_view seq);

// Packs codes 32 per word (see packed_base()); invalid codes are stored as 0 and must be tracked by the caller.
std::vector<uint64_t> pack_codes(const std::vector<uint8_t>& codes);

// The same for codes[0, n) into `words`, which gets one zero word more than the bases need, so that an 8-byte load
// at byte i / 4 is in bounds for every base i < n; the positions of the invalid codes go to `invalid` (ascending).
// Eight codes at a time, for scans that read words of the packed form.
void pack_codes(const uint8_t* codes, size_t n, std::vector<uint64_t>& words, std::vector<uint64_t>& invalid);

// Canonical w-mers of a sequence, in order of position (handy for building filters and for tests).
std::vector<uint64_t> canonical_wmers(std::string_view seq, int w);

}  // namespace bloomseq
