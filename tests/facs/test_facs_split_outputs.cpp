// Names of the split outputs for mates: kraken2's '#' and BioBloom Tools' _1 / _2 before the extension.
#include <catch2/catch.hpp>

#include "bloomseq/facs/split_outputs.hpp"

using namespace bloomseq;

TEST_CASE("split outputs: mate file names") {
  CHECK(mate_path("novel#.fq", 1) == "novel_1.fq");
  CHECK(mate_path("novel#.fq.gz", 2) == "novel_2.fq.gz");
  CHECK(mate_path("out/#/reads.fq", 2) == "out/_2/reads.fq");  // the last '#' only
  CHECK(mate_path("a#b#.fq", 1) == "a#b_1.fq");
  CHECK(mate_path("novel.fq", 1) == "novel_1.fq");
  CHECK(mate_path("novel.fastq.gz", 2) == "novel_2.fastq.gz");
  CHECK(mate_path("sorted/lambda.fa", 1) == "sorted/lambda_1.fa");
  CHECK(mate_path("sorted/lambda.fasta.gz", 2) == "sorted/lambda_2.fasta.gz");
  CHECK(mate_path("novel", 1) == "novel_1");
  CHECK(mate_path("novel.gz", 1) == "novel_1.gz");
  CHECK(mate_path("novel.txt", 1) == "novel.txt_1");  // an unknown extension is not guessed at
  CHECK(mate_path("dir.fq/", 1) == "dir.fq/_1");
}
