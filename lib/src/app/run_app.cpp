#include "bloomseq/app/run_app.hpp"

#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <unistd.h>

#include "bloomseq/error.hpp"
#include "bloomseq/io/output_file.hpp"

namespace bloomseq {
int run_app(const char* program, const std::function<int()>& body) {
  OutputFile::install_signal_cleanup();
  std::signal(SIGPIPE, SIG_IGN);  // a closed pipe becomes a write error we report, not a silent death
  try {
    return body();
  } catch (const Error& e) {
    std::fprintf(stderr, "%s: error: %s\n", program, e.what());
    return int(e.code());
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "%s: error: out of memory\n", program);
    return int(ExitCode::internal);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: internal error: %s\n", program, e.what());
    return int(ExitCode::internal);
  }
}

std::string command_line(int argc, char** argv) {
  std::string s;
  for (int i = 0; i < argc; ++i) {
    if (i) s += ' ';
    const std::string a = argv[i];
    if (a.empty() || a.find_first_of(" \t'\"\\$") != std::string::npos) {
      s += '\'';
      for (char c : a) s += c == '\'' ? std::string("'\\''") : std::string(1, c);
      s += '\'';
    } else {
      s += a;
    }
  }
  return s;
}

}  // namespace bloomseq
