#include "bloomseq/split/shard_spec.hpp"

#include "bloomseq/error.hpp"

namespace bloomseq {

ShardSpec parse_shard(const std::string& text, const std::string& what) {
  const auto bad = [&] { return UsageError(what + " must be I/N with 1 <= I <= N <= 65536, got '" + text + "'"); };
  const size_t slash = text.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 >= text.size()) throw bad();
  auto number = [&](const std::string& s) {
    if (s.size() > 6 || s.find_first_not_of("0123456789") != std::string::npos) throw bad();
    return uint32_t(std::stoul(s));
  };
  ShardSpec s;
  s.index = number(text.substr(0, slash));
  s.count = number(text.substr(slash + 1));
  if (s.index < 1 || s.count < 1 || s.index > s.count || s.count > 65536) throw bad();
  return s;
}

}  // namespace bloomseq
