#include "bloomseq/facs/split_outputs.hpp"

#include <string_view>

namespace bloomseq {
namespace {

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

std::string mate_path(const std::string& path, int mate) {
  const std::string tag = "_" + std::to_string(mate);
  const size_t hash = path.rfind('#');
  if (hash != std::string::npos) return path.substr(0, hash) + tag + path.substr(hash + 1);
  std::string_view stem = path;
  if (ends_with(stem, ".gz")) stem.remove_suffix(3);
  for (std::string_view ext : {".fq", ".fastq", ".fa", ".fasta"})
    if (ends_with(stem, ext) && stem.size() > ext.size() && stem[stem.size() - ext.size() - 1] != '/') {
      const size_t at = stem.size() - ext.size();
      return path.substr(0, at) + tag + path.substr(at);
    }
  if (stem.size() < path.size()) return std::string(stem) + tag + ".gz";
  return path + tag;
}

}  // namespace bloomseq
