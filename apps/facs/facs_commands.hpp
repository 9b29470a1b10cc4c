// The subcommands of facs; each parses its own options (argv[0] is the subcommand name).
#pragma once
#include <string>

namespace bloomseq {

int facs_build_filter(int argc, char** argv, const std::string& command_line);
int facs_classify(int argc, char** argv, const std::string& command_line);
int facs_info(int argc, char** argv);

// Parses options with cxxopts and turns its exceptions into UsageError.
std::string file_stem(const std::string& path);

}  // namespace bloomseq
