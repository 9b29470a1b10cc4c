// Throughput of SequenceReader alone: reads/s and bases/s for each input, median of several passes.
// Usage: io_reader_throughput [--repeat N] [--csv out.csv] FILE...
// Prints a table and writes CSV (file, bytes, records, bases, median seconds, reads/s, Mbases/s, MB/s of file).
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "bloomseq/error.hpp"
#include "bloomseq/io/sequence_reader.hpp"

using namespace bloomseq;

int main(int argc, char** argv) {
  int repeat = 3;
  std::string csv = "io_reader_throughput.csv";
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--repeat") && i + 1 < argc) repeat = std::max(1, std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--csv") && i + 1 < argc) csv = argv[++i];
    else files.push_back(argv[i]);
  }
  if (files.empty()) {
    std::fprintf(stderr, "usage: %s [--repeat N] [--csv out.csv] FILE...\n", argv[0]);
    return 64;
  }
  std::ofstream out(csv);
  out << "file,bytes,records,bases,median_s,reads_per_s,mbases_per_s,file_mb_per_s\n";
  std::printf("%-40s %12s %10s %12s %9s %12s %10s %10s\n", "file", "bytes", "records", "bases", "median_s",
              "reads/s", "Mbases/s", "fileMB/s");
  try {
    for (auto& f : files) {
      struct stat st {};
      stat(f.c_str(), &st);
      std::vector<double> secs;
      uint64_t records = 0, bases = 0;
      for (int r = 0; r < repeat; ++r) {
        auto t0 = std::chrono::steady_clock::now();
        SequenceReader reader(f);
        std::vector<SequenceRecord> batch;
        records = bases = 0;
        while (size_t n = reader.next_batch(batch, 1 << 20)) {
          records += n;
          for (auto& rec : batch) bases += rec.seq.size();
        }
        secs.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      }
      std::sort(secs.begin(), secs.end());
      double med = secs[secs.size() / 2];
      double rps = records / med, mbps = bases / med / 1e6, fmbps = double(st.st_size) / med / 1e6;
      std::printf("%-40s %12lld %10llu %12llu %9.3f %12.0f %10.1f %10.1f\n", f.c_str(), (long long)st.st_size,
                  (unsigned long long)records, (unsigned long long)bases, med, rps, mbps, fmbps);
      out << f << ',' << st.st_size << ',' << records << ',' << bases << ',' << med << ',' << rps << ',' << mbps
          << ',' << fmbps << '\n';
    }
  } catch (const Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return int(e.code());
  }
  return 0;
}
