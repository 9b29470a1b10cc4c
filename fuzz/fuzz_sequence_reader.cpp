// Fuzz target: FASTA/FASTQ (plain or gzip) parsing. Any input must either parse or raise a bloomseq::Error.
#include "bloomseq/error.hpp"
#include "bloomseq/io/sequence_reader.hpp"
#include "fuzz_input_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  bloomseq::fuzz::InputFile in(data, size);
  if (!in.ok()) return 0;
  try {
    bloomseq::SequenceReader reader(in.path());
    std::vector<bloomseq::SequenceRecord> batch;
    while (reader.next_batch(batch, 1000) > 0) {
      for (const auto& r : batch)
        if (!r.qual.empty() && r.qual.size() != r.seq.size()) __builtin_trap();  // the reader promised equal lengths
    }
  } catch (const bloomseq::Error&) {
  }
  return 0;
}
