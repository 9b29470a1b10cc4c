#include "mapped_input_guard.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>

#include "bloomseq/error.hpp"
#include "bloomseq/io/output_file.hpp"

namespace bloomseq {
namespace io_detail {
namespace {

// A fixed table: the handler may only read plain memory (no allocation, no locks).
struct MappingSlot {
  std::atomic<int> state{0};  // 0 free, 1 being filled, 2 live
  const char* base = nullptr;
  size_t bytes = 0;
  char name[512] = {};
};
constexpr int kSlots = 16;
MappingSlot g_slots[kSlots];
struct sigaction g_previous {};

void write_all(const char* s, size_t n) {
  while (n) {
    const ssize_t w = ::write(STDERR_FILENO, s, n);
    if (w <= 0) return;
    s += w;
    n -= size_t(w);
  }
}
void write_str(const char* s) { write_all(s, std::strlen(s)); }

extern "C" void on_sigbus(int sig, siginfo_t* info, void* context) {
  const char* at = static_cast<const char*>(info ? info->si_addr : nullptr);
  for (auto& s : g_slots) {
    if (s.state.load(std::memory_order_acquire) != 2 || at < s.base || at >= s.base + s.bytes) continue;
    write_str(program_invocation_short_name);
    write_str(": error: ");
    write_str(s.name);
    write_str(": the file shrank while it was being read (an input must not change during a run)\n");
    OutputFile::remove_all_temporaries();
    ::_exit(int(ExitCode::io));
  }
  // Not one of our mappings: behave as if we had never been here.
  if (g_previous.sa_flags & SA_SIGINFO) {
    if (g_previous.sa_sigaction) return g_previous.sa_sigaction(sig, info, context);
  } else if (g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN && g_previous.sa_handler) {
    return g_previous.sa_handler(sig);
  }
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

void install_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa {};
    sa.sa_sigaction = on_sigbus;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_SIGINFO;
    ::sigaction(SIGBUS, &sa, &g_previous);
  });
}

}  // namespace

int register_mapping(const void* base, size_t bytes, const std::string& name) {
  install_once();
  for (int i = 0; i < kSlots; ++i) {
    int expected = 0;
    if (!g_slots[i].state.compare_exchange_strong(expected, 1)) continue;
    auto& s = g_slots[i];
    s.base = static_cast<const char*>(base);
    s.bytes = bytes;
    const size_t n = std::min(name.size(), sizeof s.name - 1);
    std::memcpy(s.name, name.data(), n);
    s.name[n] = '\0';
    s.state.store(2, std::memory_order_release);
    return i;
  }
  return -1;
}

void unregister_mapping(int slot) {
  if (slot >= 0 && slot < kSlots) g_slots[slot].state.store(0, std::memory_order_release);
}

}  // namespace io_detail
}  // namespace bloomseq
