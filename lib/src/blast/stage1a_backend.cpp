#include "bloomseq/blast/stage1a_backend.hpp"

#include <mutex>

namespace bloomseq {
namespace {
std::vector<Stage1aBackendFactory>& registry() {
  static std::vector<Stage1aBackendFactory> r;
  return r;
}
std::mutex& registry_mutex() {
  static std::mutex m;
  return m;
}
}  // namespace

void register_stage1a_backend(const Stage1aBackendFactory& factory) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  registry().push_back(factory);
}

const Stage1aBackendFactory* find_stage1a_backend(const std::string& kind) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  for (const auto& f : registry())
    if (f.kind == kind) return &f;
  return nullptr;
}

}  // namespace bloomseq
