// A bound on the length of command-line arguments, checked before the option parser sees them. cxxopts matches
// options and integer values with std::regex, whose matcher recurses once per character: an argument of some
// 10-30 thousand characters overflows the stack (a crash, not an error message). No real argument needs more
// than PATH_MAX (4096) characters: longer paths cannot be opened anyway.
#pragma once
#include <cstddef>

namespace bloomseq {

constexpr size_t kMaxArgumentLength = 4096;

// Throws UsageError naming the first argument (argv[1..argc-1]) longer than kMaxArgumentLength.
void check_argument_lengths(int argc, const char* const* argv);

}  // namespace bloomseq
