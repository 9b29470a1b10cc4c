// The subcommands of facs, run with options parsed by bloomseq/cli/facs_options.hpp.
#pragma once
#include <string>

#include "bloomseq/cli/facs_options.hpp"

namespace bloomseq {

int facs_build_filter(const FacsBuildOptions& options, const std::string& command_line);
int facs_classify(const FacsClassifyOptions& options, const std::string& command_line);
int facs_info(const FacsInfoOptions& options);

// The file name without directories and sequence-file extensions (the default filter name).
std::string file_stem(const std::string& path);

}  // namespace bloomseq
