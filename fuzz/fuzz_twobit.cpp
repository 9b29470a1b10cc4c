// Fuzz target: the .2bit reader. Any input must either read or raise a bloomseq::Error, without huge allocations.
#include "bloomseq/error.hpp"
#include "bloomseq/io/twobit.hpp"
#include "fuzz_input_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  bloomseq::fuzz::InputFile in(data, size);
  if (!in.ok()) return 0;
  try {
    bloomseq::TwoBitReader reader(in.path());
    for (size_t i = 0; i < reader.size() && i < 64; ++i) {
      const std::string s = reader.sequence(i);
      if (s.size() != reader.length(i)) __builtin_trap();
    }
  } catch (const bloomseq::Error&) {
  }
  return 0;
}
