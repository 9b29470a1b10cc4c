// bloomseq's public API in one include: what a program outside this repository needs to read sequences, encode
// them, hash w-mers with the H3 family, build and probe Bloom filters, and run the two pipelines.
// Link with the CMake package (find_package(bloomseq) -> bloomseq::bloomseq) or pkg-config (bloomseq).
#pragma once

#include "bloomseq/error.hpp"
#include "bloomseq/version.hpp"

// Input and output.
#include "bloomseq/io/output_file.hpp"
#include "bloomseq/io/sequence_reader.hpp"

// 2-bit DNA, w-mers, H3 hashing, Bloom filters.
#include "bloomseq/bloom/bloom_vector.hpp"
#include "bloomseq/bloom/bloom_view.hpp"
#include "bloomseq/encode/dna.hpp"
#include "bloomseq/hash/h3.hpp"

// blast-bloom: a whole search in one call (run_search), or the pipeline's stages (BlastSearch).
#include "bloomseq/blast/params.hpp"
#include "bloomseq/blast/pipeline.hpp"
#include "bloomseq/blast/search_run.hpp"

// facs: filters built and reads classified in one call (run_build_filter, run_classify), or the Classifier.
#include "bloomseq/facs/build_filter_run.hpp"
#include "bloomseq/facs/classifier.hpp"
#include "bloomseq/facs/classify_run.hpp"
#include "bloomseq/facs/filter_builder.hpp"
#include "bloomseq/io/filter_file.hpp"

// The performance model: FPR and sizing formulas, parameter planning.
#include "bloomseq/model/equations.hpp"
#include "bloomseq/model/planner.hpp"

namespace bloomseq {
// The library's version, "MAJOR.MINOR.PATCH".
inline const char* version() { return BLOOMSEQ_VERSION_STRING; }
}  // namespace bloomseq
