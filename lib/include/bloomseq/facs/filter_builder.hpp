// Building FACS filters: one Bloom filter of canonical w-mers per reference (a file or a record), sized from the
// number of distinct w-mers for a target false-positive rate.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "bloomseq/facs/params.hpp"
#include "bloomseq/io/filter_file.hpp"
#include "bloomseq/io/sequence_reader.hpp"

namespace bloomseq {

// Distinct canonical w-mers of the sequences (w-mers with N are skipped), sorted ascending.
std::vector<uint64_t> distinct_canonical_wmers(const std::vector<std::string_view>& seqs, int w);

// Calls fn with every canonical w-mer of the sequences (w-mers with N are skipped), repeats included.
void for_each_canonical_wmer(const std::vector<std::string_view>& seqs, int w, const std::function<void(uint64_t)>& fn);

// What build_filter reports while it works on a large reference: a phase ("sorting k-mers of", ...), the units
// done and their total, every few million units.
using BuildProgress = std::function<void(const char* phase, uint64_t done, uint64_t total)>;

// HyperLogLog estimate of the number of distinct canonical w-mers (2^14 registers, standard error ~0.8%).
uint64_t estimate_distinct_wmers(const std::vector<std::string_view>& seqs, int w,
                                 const BuildProgress& progress = nullptr);

// Size (m bits, k hashes) for n elements under the parameters: explicit m and k win, otherwise m from the FPR
// target and k optimal for that m.
void size_filter(uint64_t n, const BuildParams& p, uint64_t& m_bits, int& k);

// Builds one filter from the sequences of one reference. With --count exact the k-mers are sorted by an in-place
// radix partition and small sorts (no second copy), so that progress moves throughout.
FilterEntry build_filter(const std::vector<std::string_view>& seqs, const BuildParams& p, const std::string& name,
                         const std::string& source, const BuildProgress& progress = nullptr);

// Builds one filter from every record of a sequence file without holding its sequences or k-mers: the file is
// read twice, batch by batch (64 Mbases, or one longer record). Pass 1 counts distinct k-mers with HyperLogLog
// (registers per thread, merged: the same estimate as estimate_distinct_wmers), pass 2 inserts; both split the
// records into 1-Mbase slices over `threads` threads (0 = all cores). The bits equal build_filter's with
// KmerCount::hyperloglog on the same sequences, whatever the thread count. Peak memory: the filter plus a batch.
// `path` must be readable twice (not "-"). The first pass refuses a protein record; `foreign`, if given, gets the
// characters that no nucleotide code has (SequenceReader::check_nucleotide_letters).
FilterEntry build_filter_from_file(const std::string& path, const BuildParams& p, const std::string& name,
                                   int threads, const BuildProgress& progress = nullptr,
                                   ForeignLetters* foreign = nullptr);

// MemAvailable from /proc/meminfo in bytes, 0 if unknown.
uint64_t available_memory_bytes();
// Throws UsageError, saying what is needed and what is available, if a filter of m bits would not fit in the
// memory available now (checked before allocating it).
void check_filter_memory(uint64_t m_bits, const std::string& name);

// An empty container with the build parameters (w, seed, canonical).
FilterSet make_filter_set(const BuildParams& p, const std::string& command_line);

// Throws UsageError if filters built with `p` could not join `set` (different w or seed).
void check_compatible(const FilterSet& set, const BuildParams& p, const std::string& path);

// FPR predicted for the filter from its element count, and from its actual fill fraction.
double predicted_fpr(const FilterEntry& f);
double fill_fpr(const FilterEntry& f);

}  // namespace bloomseq
