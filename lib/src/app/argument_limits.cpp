#include "bloomseq/app/argument_limits.hpp"

#include <cstring>
#include <string>

#include "bloomseq/error.hpp"

namespace bloomseq {

void check_argument_lengths(int argc, const char* const* argv) {
  for (int i = 1; i < argc; ++i) {
    const size_t n = std::strlen(argv[i]);
    if (n > kMaxArgumentLength)
      throw UsageError("argument " + std::to_string(i) + " ('" + std::string(argv[i], 20) + "...') is " +
                       std::to_string(n) + " characters long; at most " + std::to_string(kMaxArgumentLength) +
                       " are accepted");
  }
}

}  // namespace bloomseq
