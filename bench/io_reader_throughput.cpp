// Throughput of SequenceReader alone: reads/s and bases/s for each input, median of several passes, with and
// without decompression on a second thread (passes interleaved so both see the same machine load).
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
  out << "file,decompress_ahead,bytes,records,bases,median_s,reads_per_s,mbases_per_s,file_mb_per_s\n";
  std::printf("%-36s %5s %11s %9s %11s %8s %10s %9s %9s\n", "file", "ahead", "bytes", "records", "bases",
              "median_s", "reads/s", "Mbases/s", "fileMB/s");
  try {
    for (auto& f : files) {
      struct stat st {};
      stat(f.c_str(), &st);
      std::vector<double> secs[2];
      uint64_t records = 0, bases = 0;
      for (int r = 0; r < 2 * repeat; ++r) {
        const bool ahead = r % 2 == 0;
        auto t0 = std::chrono::steady_clock::now();
        SequenceReader reader(f, ahead);
        std::vector<SequenceRecord> batch;
        records = bases = 0;
        while (size_t n = reader.next_batch(batch, 1 << 20)) {
          records += n;
          for (auto& rec : batch) bases += rec.seq.size();
        }
        secs[ahead].push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      }
      for (int ahead = 1; ahead >= 0; --ahead) {
        auto& v = secs[ahead];
        std::sort(v.begin(), v.end());
        double med = v[v.size() / 2];
        double rps = records / med, mbps = bases / med / 1e6, fmbps = double(st.st_size) / med / 1e6;
        std::printf("%-36s %5s %11lld %9llu %11llu %8.3f %10.0f %9.1f %9.1f\n", f.c_str(), ahead ? "yes" : "no",
                    (long long)st.st_size, (unsigned long long)records, (unsigned long long)bases, med, rps, mbps,
                    fmbps);
        out << f << ',' << ahead << ',' << st.st_size << ',' << records << ',' << bases << ',' << med << ',' << rps
            << ',' << mbps << ',' << fmbps << '\n';
      }
    }
  } catch (const Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return int(e.code());
  }
  return 0;
}
