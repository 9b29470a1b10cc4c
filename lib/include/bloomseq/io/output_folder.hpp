// The folder of an output path, created when missing (with its missing parents, like mkdir -p) and removed
// again when the run fails: like OutputFile, a failed run leaves nothing behind. Created folders stay once
// keep() is called (after the outputs inside them were committed).
#pragma once
#include <string>
#include <vector>

namespace bloomseq {

class OutputFolder {
 public:
  OutputFolder() = default;
  // `path`: a file path or a file-name prefix; its folder is everything up to the last '/'. Throws IoError naming
  // the folder when it cannot be created or is not a folder.
  explicit OutputFolder(const std::string& path);
  ~OutputFolder();
  OutputFolder(OutputFolder&& other) noexcept;
  OutputFolder& operator=(OutputFolder&& other) noexcept;
  OutputFolder(const OutputFolder&) = delete;
  OutputFolder& operator=(const OutputFolder&) = delete;

  // Folders this created, outermost first.
  const std::vector<std::string>& created() const { return created_; }
  void keep() { created_.clear(); }

 private:
  void remove_created() noexcept;
  std::vector<std::string> created_;
};

}  // namespace bloomseq
