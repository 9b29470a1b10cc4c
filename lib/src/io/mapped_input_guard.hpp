// Mapped input files and SIGBUS (private to lib/src/io).
//
// Reading a regular file through mmap saves two copies, but if another process truncates the file while we
// read it, touching a page past the new end raises SIGBUS, which would kill us without a word. The guard
// turns that into the tools' usual failure: one line naming the file, uncommitted outputs removed, exit
// status 74 (I/O error). A SIGBUS at any other address keeps its default action (a real fault stays visible).
#pragma once
#include <cstddef>
#include <string>

namespace bloomseq {
namespace io_detail {

// Registers [base, base + bytes) as the mapping of `name`; returns a slot for unregister_mapping, or -1 when
// all slots are taken (the caller then reads the file as a stream instead).
int register_mapping(const void* base, size_t bytes, const std::string& name);
void unregister_mapping(int slot);

}  // namespace io_detail
}  // namespace bloomseq
