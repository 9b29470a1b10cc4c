// Small helpers shared by the I/O sources (private to lib/src/io).
#pragma once
#include <cerrno>
#include <cstring>
#include <string>

namespace bloomseq {
namespace io_detail {

// How a path appears in messages: "-" is standard input.
inline std::string display_name(const std::string& path) { return path == "-" ? "<stdin>" : path; }

inline std::string errno_text(int err) { return err ? std::string(std::strerror(err)) : std::string("unknown error"); }

// Silences htslib's own stderr messages once: our exceptions carry the one line the user sees.
void quiet_htslib();

}  // namespace io_detail
}  // namespace bloomseq
