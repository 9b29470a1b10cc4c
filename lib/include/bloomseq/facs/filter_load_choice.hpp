// facs classify --load: how the .bf payloads get into memory, and the rule `auto` follows.
//
// Copying reads every byte of the filters into memory of their own on huge pages (about 3.5 s per GB here, ~0.35 s
// for a 69-MB set) before the first read; mapping costs nothing up front, but lookups go through the page cache's
// pages, which the kernel maps with 4 KiB pages unless the file system gives it large folios (more TLB misses), a
// cost per read that grows with the set's size. Where it does give them (the mapping asks for huge pages),
// mapping is never slower, and --load auto maps. Measured in docs/facs.md ("Loading the filters"): against a 1-GB
// set mapping was faster with 20,000 reads (0.004 of its bytes) and slower with 300,000 (0.065; break-even near
// 0.03); against 208-277 MB sets it was faster up to 0.43-0.63 of their bytes and 1.10x the CPU at 0.87; against a
// 69-MB set it was as fast as copying at 1.6-3.2x its bytes. A wrong copy costs at most the load, a wrong map grows
// with the reads: each size class keeps to the safe side of what was measured, up to the memory rule below.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "bloomseq/io/filter_file.hpp"

namespace bloomseq {

enum class FilterLoadChoice { automatic, map, copy };

// Mapped .bf files up to this size have their whole-file checksum verified at load (it reads every page: ~0.1 s
// per 256 MB here); larger ones are not, with a notice: `facs info --verify` checks them.
constexpr uint64_t kMapVerifyLimit = uint64_t(256) << 20;

// --load auto always maps sets up to this size, whatever the reads (a stream too): against a 15-MB set, reads of
// 71x its bytes took the same CPU mapped as copied (0.97x), and a copy costs every process ~0.1 s.
constexpr uint64_t kAlwaysMapFilterBytes = uint64_t(32) << 20;

// The most bytes of reads per byte of filters for which --load auto maps larger sets, by their size: up to 128 MB
// (4 / 1), up to 256 MB (1 / 1), beyond (1 / 32).
struct MapReadLimit {
  uint64_t read_bytes_per_unit;
  uint64_t filter_bytes_per_unit;
};
MapReadLimit map_read_limit(uint64_t filter_bytes);

// A copy holds the filters twice while it is made (the file's pages in the page cache, and the copy on huge pages
// that the kernel must find room for): --load auto maps sets of more than 1 / kCopyMemoryShare of the memory
// available, whatever the reads. Measured (docs/benchmarks.md, "facs at genome scale"): a 6.5-GB filter on a
// 23-GB machine took 73-91 s to copy (mostly in the kernel) where 1 M reads classified mapped in 3.8-4.6 s in all.
// Mapped lookups cost ~2 us more per read there, so past ~40 M reads --load copy would win, if memory allows.
constexpr uint64_t kCopyMemoryShare = 4;

// The mode for `choice`; for automatic: map sets up to kAlwaysMapFilterBytes or above the copy's memory share
// (`available_bytes`: MemAvailable; 0 = unknown, no such limit), sets whose files map through 2-MiB pages
// (`maps_huge`, maps_through_huge_pages: the copy's lookups would cost the same, so it would only add its load
// and a second copy in memory), and other sets when the reads' bytes (0 = unknown, e.g. stdin: copy) are within
// map_read_limit of the filters' bytes.
FilterLoadMode choose_filter_load(FilterLoadChoice choice, uint64_t read_bytes, uint64_t filter_bytes,
                                  uint64_t available_bytes = 0, bool maps_huge = false);

// The reads' bytes as --load auto counts them: the sizes of the read files (x4 for gzip, its usual ratio on
// FASTQ), divided by the shard count; 0 when a file is not a regular one (stdin, a pipe).
uint64_t estimated_read_bytes(const std::vector<std::string>& read_files, uint32_t shards);
// The sizes of the .bf files (0 for one that is not a regular file).
uint64_t filter_file_bytes(const std::vector<std::string>& paths);

}  // namespace bloomseq
