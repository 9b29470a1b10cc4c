#include "bloomseq/io/output_folder.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "bloomseq/error.hpp"
#include "io_common.hpp"

namespace bloomseq {

OutputFolder::OutputFolder(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos || slash == 0) return;  // the current folder, or /
  const std::string folder = path.substr(0, slash);
  // Each missing component in turn, from the outermost.
  for (size_t end = folder.find('/', 1);; end = folder.find('/', end + 1)) {
    const std::string part = folder.substr(0, end);
    struct stat st;
    if (::stat(part.c_str(), &st) == 0) {
      if (!S_ISDIR(st.st_mode)) {
        remove_created();
        throw IoError(folder + ": cannot create output folder: " + part + " is not a folder");
      }
    } else if (::mkdir(part.c_str(), 0777) == 0) {
      created_.push_back(part);
    } else if (errno != EEXIST) {
      const int err = errno;
      remove_created();
      throw IoError(part + ": cannot create output folder: " + io_detail::errno_text(err));
    }
    if (end == std::string::npos) break;
  }
  if (::access(folder.c_str(), W_OK) != 0) {  // fail now rather than at the first batch of reads
    const int err = errno;
    remove_created();
    throw IoError(folder + ": cannot write output there: " + io_detail::errno_text(err));
  }
}

OutputFolder::~OutputFolder() { remove_created(); }

OutputFolder::OutputFolder(OutputFolder&& other) noexcept : created_(std::move(other.created_)) {
  other.created_.clear();
}

OutputFolder& OutputFolder::operator=(OutputFolder&& other) noexcept {
  if (this != &other) {
    remove_created();
    created_ = std::move(other.created_);
    other.created_.clear();
  }
  return *this;
}

void OutputFolder::remove_created() noexcept {
  // Innermost first; rmdir leaves a folder that something else has written into.
  for (auto it = created_.rbegin(); it != created_.rend(); ++it) ::rmdir(it->c_str());
  created_.clear();
}

}  // namespace bloomseq
