// What every bloomseq program does around its real work: map library exceptions to sysexits codes with one
// line on stderr, and make SIGINT/SIGTERM remove uncommitted outputs before exiting.
#pragma once
#include <functional>
#include <string>

namespace bloomseq {

// Runs body(); returns its exit code, or the code of the exception it threw after printing
// "<program>: error: <message>" on stderr. Installs the signal handlers first.
int run_app(const char* program, const std::function<int()>& body);

// The command line as one string (recorded in outputs for reproducibility); arguments with spaces are quoted.
std::string command_line(int argc, char** argv);

}  // namespace bloomseq
