// Fuzz target: the .bf filter container loader. Corrupt headers must be refused before anything large is allocated.
#include "bloomseq/error.hpp"
#include "bloomseq/io/filter_file.hpp"
#include "fuzz_input_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  bloomseq::fuzz::InputFile in(data, size);
  if (!in.ok()) return 0;
  try {
    const auto set = bloomseq::read_filter_file(in.path());
    for (const auto& f : set.filters)
      if (f.bits.words().size() * 4 > size) __builtin_trap();  // payload cannot be larger than the file
    for (const auto& g : set.groups)
      if (g.ibf.size_bytes() > size) __builtin_trap();  // nor an interleaved group's rows
  } catch (const bloomseq::Error&) {
  }
  return 0;
}
