// OutputFolder: missing folders of an output path are created, removed again on failure, kept on success.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "bloomseq/error.hpp"
#include "bloomseq/io/output_file.hpp"
#include "bloomseq/io/output_folder.hpp"
#include "io_test_util.hpp"

using namespace bloomseq;
using bloomseq_test::TempDir;
namespace fs = std::filesystem;

TEST_CASE("output folder: missing parents are created outermost first and kept after keep()", "[io][output]") {
  TempDir dir;
  const std::string prefix = dir.file("a/b/c/sample_");
  {
    OutputFolder f(prefix);
    CHECK(f.created() == std::vector<std::string>{dir.file("a"), dir.file("a/b"), dir.file("a/b/c")});
    CHECK(fs::is_directory(dir.file("a/b/c")));
    OutputFile out(prefix + "x.fq");
    out.write("@r\nACGT\n+\nIIII\n");
    out.commit();
    f.keep();
  }
  CHECK(fs::exists(dir.file("a/b/c/sample_x.fq")));
}

TEST_CASE("output folder: a failed run removes what it created, nothing else", "[io][output]") {
  TempDir dir;
  fs::create_directory(dir.file("there"));
  {
    OutputFolder f(dir.file("there/new/deeper/"));
    CHECK(f.created().size() == 2);
    CHECK(fs::is_directory(dir.file("there/new/deeper")));
  }
  CHECK_FALSE(fs::exists(dir.file("there/new")));
  CHECK(fs::is_directory(dir.file("there")));
  // No folder part, or an existing one: nothing to create.
  CHECK(OutputFolder("plain_prefix_").created().empty());
  CHECK(OutputFolder(dir.file("there/")).created().empty());
}

TEST_CASE("output folder: a file in the way is a one-line IoError naming the folder", "[io][output]") {
  TempDir dir;
  std::ofstream(dir.file("afile")) << "x";
  try {
    OutputFolder f(dir.file("afile/sub/out_"));
    FAIL("no error");
  } catch (const IoError& e) {
    CHECK_THAT(e.what(), Catch::Contains(dir.file("afile/sub")) && Catch::Contains("is not a folder"));
    CHECK(std::string(e.what()).find('\n') == std::string::npos);
  }
  CHECK_FALSE(fs::exists(dir.file("afile/sub")));
}
