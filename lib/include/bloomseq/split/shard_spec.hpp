// Which shard of a sharded run a process is: "I/N" (1-based) from --db-shard, --query-shard (blast-bloom) or
// --shard (facs classify). How each tool cuts its input is its own (blast/shard.hpp, facs/shard.hpp).
#pragma once
#include <cstdint>
#include <string>

namespace bloomseq {

// Shard `index` (1-based) of `count`; 1/1 = the whole input.
struct ShardSpec {
  uint32_t index = 1, count = 1;
  bool whole() const { return count == 1; }
};

// Parses "I/N" (1 <= I <= N <= 65536). Throws UsageError naming `what` (the option).
ShardSpec parse_shard(const std::string& text, const std::string& what);

}  // namespace bloomseq
