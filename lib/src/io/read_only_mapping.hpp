// A whole regular file mapped read-only (private to lib/src/io): what the words of filters loaded by mapping
// point into, shared by them so that it lives as long as any of them. The mapping is registered with the SIGBUS
// guard (mapped_input_guard.hpp): a file truncated by someone else while it is mapped ends the run with one line.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

namespace bloomseq {
namespace io_detail {

class ReadOnlyMapping {
 public:
  // Files of at least this size are mapped with a hint for huge pages (see open()).
  static constexpr uint64_t kHugePageBytes = uint64_t(2) << 20;
  // Null when the file cannot be mapped (not a regular file, a size other than `expected_bytes`, mmap failing,
  // no guard slot left): the caller then reads it instead.
  static std::shared_ptr<const ReadOnlyMapping> open(const std::string& path, uint64_t expected_bytes);
  ~ReadOnlyMapping();
  ReadOnlyMapping(const ReadOnlyMapping&) = delete;
  ReadOnlyMapping& operator=(const ReadOnlyMapping&) = delete;

  const char* data() const { return data_; }
  uint64_t size() const { return bytes_; }

 private:
  ReadOnlyMapping() = default;
  const char* data_ = nullptr;
  uint64_t bytes_ = 0;
  int guard_slot_ = -1;
};

}  // namespace io_detail
}  // namespace bloomseq
