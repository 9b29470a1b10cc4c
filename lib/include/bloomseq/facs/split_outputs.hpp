// File names of the reads facs classify sorts out (--matched-out PREFIX, --unmatched-out FILE). Pairs go to two
// files per destination, mate 1 and mate 2 in the same order: a '#' in the name becomes _1 / _2 (kraken2's
// convention), otherwise _1 / _2 goes before the extension (BioBloom Tools': PREFIX<filter>_1.fq).
#pragma once
#include <string>

namespace bloomseq {

// `path` (a FILE of --unmatched-out, or a PREFIX holding '#') for mate 1 or 2: the last '#' replaced by _<mate>, or _<mate> inserted before a trailing .fq, .fastq,
// .fa or .fasta (each optionally followed by .gz), else before a trailing .gz, else appended.
std::string mate_path(const std::string& path, int mate);

}  // namespace bloomseq
