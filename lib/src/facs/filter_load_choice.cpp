#include "bloomseq/facs/filter_load_choice.hpp"

#include <sys/stat.h>

namespace bloomseq {

namespace {

uint64_t regular_file_bytes(const std::string& path) {
  struct stat st {};
  if (path == "-" || ::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return 0;
  return uint64_t(st.st_size);
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

FilterLoadMode choose_filter_load(FilterLoadChoice choice, uint64_t read_bytes, uint64_t filter_bytes,
                                  uint64_t available_bytes, bool maps_huge) {
  if (choice == FilterLoadChoice::map) return FilterLoadMode::map;
  if (choice == FilterLoadChoice::copy) return FilterLoadMode::copy;
  if (filter_bytes <= kAlwaysMapFilterBytes || maps_huge) return FilterLoadMode::map;
  if (available_bytes > 0 && filter_bytes > available_bytes / kCopyMemoryShare) return FilterLoadMode::map;
  if (read_bytes == 0) return FilterLoadMode::copy;  // a stream of unknown length: as many reads as it takes
  const MapReadLimit lim = map_read_limit(filter_bytes);
  // read_bytes / filter_bytes <= reads_per_unit / filters_per_unit, cross-multiplied in 128 bits (no overflow)
  const unsigned __int128 lhs = (unsigned __int128)read_bytes * lim.filter_bytes_per_unit;
  const unsigned __int128 rhs = (unsigned __int128)filter_bytes * lim.read_bytes_per_unit;
  return lhs <= rhs ? FilterLoadMode::map : FilterLoadMode::copy;
}

MapReadLimit map_read_limit(uint64_t filter_bytes) {
  if (filter_bytes <= (uint64_t(128) << 20)) return {4, 1};
  if (filter_bytes <= kMapVerifyLimit) return {1, 1};
  return {1, 32};
}

uint64_t estimated_read_bytes(const std::vector<std::string>& read_files, uint32_t shards) {
  uint64_t total = 0;
  for (const std::string& f : read_files) {
    const uint64_t bytes = regular_file_bytes(f);
    if (bytes == 0) return 0;
    total += ends_with(f, ".gz") ? bytes * 4 : bytes;
  }
  return total / (shards ? shards : 1);
}

uint64_t filter_file_bytes(const std::vector<std::string>& paths) {
  uint64_t total = 0;
  for (const std::string& p : paths) total += regular_file_bytes(p);
  return total;
}

}  // namespace bloomseq
