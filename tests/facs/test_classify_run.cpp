// run_build_filter and run_classify, facs as the tool runs it (files in, files out): mates checked and kept
// together, split outputs routed by the call, nothing left behind by a failed run.
#include <catch2/catch.hpp>

#include <filesystem>
#include <random>
#include <sstream>

#include "bloomseq/error.hpp"
#include "bloomseq/facs/build_filter_run.hpp"
#include "bloomseq/facs/classify_run.hpp"
#include "io/io_test_util.hpp"

using namespace bloomseq;
using bloomseq_test::read_bytes;
using bloomseq_test::TempDir;
using bloomseq_test::write_bytes;

namespace {

std::string random_dna(std::mt19937_64& rng, size_t n) {
  std::string s(n, 'A');
  for (auto& c : s) c = "ACGT"[rng() % 4];
  return s;
}

std::string revcomp(const std::string& s) {
  std::string r(s.rbegin(), s.rend());
  for (auto& c : r) c = c == 'A' ? 'T' : c == 'C' ? 'G' : c == 'G' ? 'C' : 'A';
  return r;
}

// Two references A and B, and pairs: 30 from A, 20 from B, 10 random (mate 2 from the opposite strand, as a
// sequencer reads it). Names end in /1 and /2.
struct Inputs {
  std::string mates1, mates2;
  std::vector<std::string> from_a, from_b, random;
};

Inputs make_inputs(const TempDir& dir, std::mt19937_64& rng) {
  const std::string a = random_dna(rng, 6000), b = random_dna(rng, 6000);
  write_bytes(dir.file("A.fa"), ">chrA\n" + a + "\n");
  write_bytes(dir.file("B.fa"), ">chrB\n" + b + "\n");
  Inputs in;
  auto pair = [&](const std::string& name, const std::string& ref) {
    std::string m1, m2;
    if (ref.empty()) {
      m1 = random_dna(rng, 100);
      m2 = random_dna(rng, 100);
    } else {
      const size_t at = rng() % (ref.size() - 400);
      m1 = ref.substr(at, 100);
      m2 = revcomp(ref.substr(at + 250, 100));
    }
    in.mates1 += "@" + name + "/1\n" + m1 + "\n+\n" + std::string(100, 'I') + "\n";
    in.mates2 += "@" + name + "/2\n" + m2 + "\n+\n" + std::string(100, 'I') + "\n";
  };
  for (int i = 0; i < 60; ++i) {
    const std::string name = "p" + std::to_string(i);
    const int kind = i % 6 < 3 ? 0 : i % 6 < 5 ? 1 : 2;
    pair(name, kind == 0 ? a : kind == 1 ? b : std::string());
    (kind == 0 ? in.from_a : kind == 1 ? in.from_b : in.random).push_back(name);
  }
  write_bytes(dir.file("r_1.fq"), in.mates1);
  write_bytes(dir.file("r_2.fq"), in.mates2);
  return in;
}

void build_filters(const TempDir& dir) {
  BuildFilterRequest b;
  b.output = dir.file("refs.bf");
  b.refs = {dir.file("A.fa"), dir.file("B.fa")};
  b.no_progress = true;
  const BuildFilterReport report = run_build_filter(b, FacsSinks{nullptr});
  REQUIRE(report.built == std::vector<std::string>{"A", "B"});
}

ClassifyRequest paired_request(const TempDir& dir) {
  ClassifyRequest r;
  r.reads = dir.file("r_1.fq");
  r.mate = dir.file("r_2.fq");
  r.paired = true;
  r.filters = {dir.file("refs.bf")};
  r.summary = dir.file("summary.tsv");
  r.no_progress = true;
  r.params.threads = 2;
  r.params.batch_bases = 2000;  // several batches through the ordered pipeline
  return r;
}

// The read names (without /1, /2) of a FASTQ file, in order, and whether each has mate number `mate`.
std::vector<std::string> names_of(const std::string& path, char mate) {
  std::istringstream in(read_bytes(path));
  std::vector<std::string> out;
  for (std::string h, s, p, q; std::getline(in, h) && std::getline(in, s) && std::getline(in, p) && std::getline(in, q);) {
    CHECK(h.back() == mate);
    out.push_back(h.substr(1, h.size() - 3));
  }
  return out;
}

}  // namespace

TEST_CASE("run_classify: pairs are called together and split into one file per mate and destination") {
  std::mt19937_64 rng(1903);
  TempDir dir;
  const Inputs in = make_inputs(dir, rng);
  build_filters(dir);
  ClassifyRequest r = paired_request(dir);
  r.matched_out = true;
  r.matched_prefix = dir.file("sorted/m_");  // the folder is created
  r.unmatched_out = true;
  r.unmatched_path = dir.file("novel.fq");
  const ClassifyReport report = run_classify(r, FacsSinks{nullptr});
  REQUIRE(report.filter_names == std::vector<std::string>{"A", "B"});
  CHECK(report.summary.total == 60);
  CHECK(report.summary.best[0] == in.from_a.size());
  CHECK(report.summary.best[1] == in.from_b.size());
  CHECK(report.summary.no_match == in.random.size());
  CHECK(report.bases == 60 * 200);
  CHECK(names_of(dir.file("sorted/m_A_1.fq"), '1') == in.from_a);
  CHECK(names_of(dir.file("sorted/m_A_2.fq"), '2') == in.from_a);
  CHECK(names_of(dir.file("sorted/m_B_1.fq"), '1') == in.from_b);
  CHECK(names_of(dir.file("sorted/m_B_2.fq"), '2') == in.from_b);
  CHECK(names_of(dir.file("novel_1.fq"), '1') == in.random);
  CHECK(names_of(dir.file("novel_2.fq"), '2') == in.random);
  CHECK(read_bytes(dir.file("sorted/m_multiMatch_1.fq")).empty());
  CHECK(read_bytes(dir.file("summary.tsv")).find("noMatch") != std::string::npos);
}

TEST_CASE("run_classify: --interleaved writes mate 1 then mate 2 into one file") {
  std::mt19937_64 rng(1904);
  TempDir dir;
  const Inputs in = make_inputs(dir, rng);
  build_filters(dir);
  ClassifyRequest r = paired_request(dir);
  r.interleaved = true;
  r.unmatched_out = true;
  r.unmatched_path = dir.file("novel.fq");
  run_classify(r, FacsSinks{nullptr});
  std::istringstream lines(read_bytes(dir.file("novel.fq")));
  std::vector<std::string> headers;
  for (std::string l; std::getline(lines, l);) headers.push_back(l), std::getline(lines, l), std::getline(lines, l),
                                                std::getline(lines, l);
  REQUIRE(headers.size() == 2 * in.random.size());
  for (size_t i = 0; i < in.random.size(); ++i) {
    CHECK(headers[2 * i] == "@" + in.random[i] + "/1");
    CHECK(headers[2 * i + 1] == "@" + in.random[i] + "/2");
  }
}

TEST_CASE("run_classify: mates out of step fail naming the record, and no output is left") {
  std::mt19937_64 rng(1905);
  TempDir dir;
  Inputs in = make_inputs(dir, rng);
  build_filters(dir);
  ClassifyRequest r = paired_request(dir);
  r.output = true;
  r.output_path = dir.file("calls.tsv");
  r.matched_out = true;
  r.matched_prefix = dir.file("sorted/m_");

  SECTION("a mate named differently") {
    const size_t at = in.mates2.find("@p41/2");
    in.mates2.replace(at, 6, "@p99/2");
    write_bytes(dir.file("r_2.fq"), in.mates2);
    try {
      run_classify(r, FacsSinks{nullptr});
      FAIL("no error");
    } catch (const DataError& e) {
      CHECK(std::string(e.what()).find("record 42 ('p99/2') is not the mate of 'p41/1'") != std::string::npos);
    }
  }
  SECTION("the mate file ends first") {
    write_bytes(dir.file("r_2.fq"), in.mates2.substr(0, in.mates2.find("@p59/2")));
    try {
      run_classify(r, FacsSinks{nullptr});
      FAIL("no error");
    } catch (const DataError& e) {
      CHECK(std::string(e.what()).find("('p59/1') has no mate: " + dir.file("r_2.fq") + " ended first") !=
            std::string::npos);
    }
  }
  CHECK_FALSE(std::filesystem::exists(dir.file("summary.tsv")));
  CHECK_FALSE(std::filesystem::exists(dir.file("calls.tsv")));
  CHECK_FALSE(std::filesystem::exists(dir.file("sorted")));
}

TEST_CASE("classify_batch_bases: fewer bases per batch for many filters, unless --batch-bases was given") {
  ClassifyParams p;
  p.batch_bases = 2000000;
  CHECK(classify_batch_bases(p, 1) == 2000000);
  CHECK(classify_batch_bases(p, 64) == 2000000);
  CHECK(classify_batch_bases(p, 100) == 2000000);   // 100 / 64 rounds down to 1
  CHECK(classify_batch_bases(p, 256) == 500000);    // a quarter
  CHECK(classify_batch_bases(p, 1024) == 125000);   // a sixteenth
  CHECK(classify_batch_bases(p, 65536) == 65536);   // not below 65,536
  p.batch_bases = 30000;
  CHECK(classify_batch_bases(p, 1024) == 30000);    // never more than asked for
  p.batch_bases = 2000000;
  p.batch_bases_given = true;
  CHECK(classify_batch_bases(p, 1024) == 2000000);
}
