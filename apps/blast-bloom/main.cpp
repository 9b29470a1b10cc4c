// blast-bloom: BLAST stages 1a (Bloom filters over sub-queries), 1b (exact verification) and 2 (ungapped
// extension), with blastn-compatible tabular output. The search itself is run_search (blast/search_run.hpp).
#include <malloc.h>

#include <cstdio>
#include <iostream>
#include <string>

#include "bloomseq/app/model_commands.hpp"
#include "bloomseq/app/run_app.hpp"
#include "bloomseq/backend/backend.hpp"
#include "bloomseq/blast/kernel_probe.hpp"
#include "bloomseq/blast/merge_parts.hpp"
#include "bloomseq/blast/search_run.hpp"
#include "bloomseq/cli/blast_options.hpp"
#include "bloomseq/error.hpp"
#include "bloomseq/io/sequence_reader.hpp"
#include "bloomseq/io/twobit.hpp"

using namespace bloomseq;

namespace {

const char* kProgram = "blast-bloom";

int encode_main(const BlastEncodeOptions& o) {
  const auto records = read_all_sequences(o.input);
  if (records.empty()) throw DataError(o.input + ": no sequences");
  write_twobit(o.output, records, o.lossy);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // The per-chunk hit, seed and verification arrays are large and short-lived: keep freed memory in the heap
  // instead of returning it to the kernel, which would zero fresh pages for every chunk again.
  mallopt(M_MMAP_THRESHOLD, 512 << 20);
  mallopt(M_TRIM_THRESHOLD, 1024 << 20);
  return run_app(kProgram, [&] {
    const BlastOptions o = parse_blast_options(argc, argv);
    if (o.command == BlastCommand::calibrate) {
      CalibrateOptions c = o.calibrate;
      c.run_kernel_probe = kernel_probe_for_calibration;
      return run_calibrate("blast-bloom calibrate", c);
    }
    if (o.command == BlastCommand::model) return run_model_command(o.model);
    if (!o.help.empty()) {
      std::cout << o.help;
      return 0;
    }
    if (o.version) {
      std::cout << kProgram << " " << BLOOMSEQ_VERSION << "\nbackends: " << backends_available() << "\n";
      return 0;
    }
    if (o.command == BlastCommand::encode) return encode_main(o.encode);
    if (o.command == BlastCommand::merge) {
      merge_parts(o.merge.output, o.merge.parts);
      return 0;
    }
    if (!o.notice.empty()) std::fprintf(stderr, "%s: note: %s\n", kProgram, o.notice.c_str());
    SearchRequest request = o.search;
    request.command_line = command_line(argc, argv);
    run_search(request);
    return 0;
  });
}
