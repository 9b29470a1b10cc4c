// OutputFile: all-or-nothing outputs, gzip by suffix, and clear errors for unwritable targets.
#include <catch2/catch.hpp>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

#include "bloomseq/error.hpp"
#include "bloomseq/io/output_file.hpp"
#include "bloomseq/io/sequence_reader.hpp"
#include "io_test_util.hpp"

using namespace bloomseq;
using bloomseq_test::read_bytes;
using bloomseq_test::open_to_all;
using bloomseq_test::run_unprivileged;
using bloomseq_test::TempDir;

TEST_CASE("output: commit renames the temporary into place", "[io][output]") {
  TempDir dir;
  auto path = dir.file("out.tsv");
  std::string expected;
  {
    OutputFile out(path);
    CHECK(out.is_open());
    for (int i = 0; i < 100000; ++i) {
      std::string line = "line " + std::to_string(i) + "\n";
      out.write(line);
      expected += line;
    }
    out.write(std::string(3 << 20, 'x'));  // larger than the buffer
    expected += std::string(3 << 20, 'x');
    CHECK_FALSE(std::filesystem::exists(path));  // nothing visible before commit
    REQUIRE(dir.entries().size() == 1);          // only the temporary, beside the target
    out.commit();
    CHECK_FALSE(out.is_open());
  }
  CHECK(read_bytes(path) == expected);
  CHECK(dir.entries() == std::vector<std::string>{"out.tsv"});
}

TEST_CASE("output: an uncommitted output leaves an existing file untouched and no temporary", "[io][output]") {
  TempDir dir;
  auto path = dir.file("keep.txt");
  bloomseq_test::write_bytes(path, "old content\n");
  {
    OutputFile out(path);
    out.write("new content that must not appear\n");
  }  // destroyed without commit, as when an exception unwinds
  CHECK(read_bytes(path) == "old content\n");
  CHECK(dir.entries() == std::vector<std::string>{"keep.txt"});
  {
    OutputFile out(path);
    out.write("partial");
    OutputFile::remove_all_temporaries();  // what the SIGINT handler does
    CHECK(dir.entries() == std::vector<std::string>{"keep.txt"});
  }
  CHECK(read_bytes(path) == "old content\n");
}

TEST_CASE("output: commit replaces an existing file", "[io][output]") {
  TempDir dir;
  auto path = dir.file("x.txt");
  bloomseq_test::write_bytes(path, "old\n");
  OutputFile out(path);
  out.write("new\n");
  out.commit();
  CHECK(read_bytes(path) == "new\n");
}

TEST_CASE("output: .gz suffix writes gzip that the reader reads back", "[io][output]") {
  TempDir dir;
  auto path = dir.file("reads.fq.gz");
  std::string text;
  for (int i = 0; i < 20000; ++i) text += "@r" + std::to_string(i) + "\nACGTACGTTT\n+\nIIIIIIIIII\n";
  {
    OutputFile out(path);
    out.write(text.substr(0, 1000));
    out.write(text.substr(1000));
    out.commit();
  }
  std::string raw = read_bytes(path);
  REQUIRE(raw.size() > 2);
  CHECK(uint8_t(raw[0]) == 0x1f);
  CHECK(uint8_t(raw[1]) == 0x8b);
  CHECK(raw.size() < text.size() / 4);
  CHECK(bloomseq_test::gunzip_bytes(raw) == text);
  CHECK(read_all_sequences(path).size() == 20000);
  // An empty .gz output is still a valid (empty) gzip stream.
  {
    OutputFile out(dir.file("empty.gz"));
    out.commit();
  }
  CHECK(bloomseq_test::gunzip_bytes(read_bytes(dir.file("empty.gz"))).empty());
}

TEST_CASE("output: unwritable targets throw IoError naming the path", "[io][output]") {
  TempDir dir;
  auto missing_dir = dir.file("no/such/dir/out.txt");
  try {
    OutputFile out(missing_dir);
    FAIL("no error");
  } catch (const IoError& e) {
    CHECK(std::string(e.what()).find(missing_dir) != std::string::npos);
  }
  try {
    OutputFile out(dir.path());
    FAIL("no error");
  } catch (const IoError& e) {
    CHECK(std::string(e.what()).find("directory") != std::string::npos);
  }
  // A directory the user may not write to (checked as an unprivileged user: root ignores permissions).
  open_to_all(dir.path());
  auto ro = dir.file("ro");
  REQUIRE(mkdir(ro.c_str(), 0555) == 0);
  const std::string target = ro + "/out.txt";
  const std::string problem = run_unprivileged([&]() -> std::string {
    try {
      OutputFile out(target);
      return "no error writing into a read-only directory";
    } catch (const IoError& e) {
      const std::string msg = e.what();
      if (msg.find(target) == std::string::npos) return "the error does not name the path: " + msg;
      if (msg.find("Permission denied") == std::string::npos) return "the error does not say why: " + msg;
      return "";
    }
  });
  CHECK(problem == "");
  CHECK(access(target.c_str(), F_OK) != 0);
}

TEST_CASE("output: a full disk is an IoError naming the path (/dev/full)", "[io][output]") {
  REQUIRE(access("/dev/full", W_OK) == 0);  // every Linux system has it; without it this test proves nothing
  for (const char* path : {"/dev/full"}) {
    try {
      OutputFile out(path);
      for (int i = 0; i < 10; ++i) out.write(std::string(1 << 20, 'a'));
      out.commit();
      FAIL("no error");
    } catch (const IoError& e) {
      std::string msg = e.what();
      INFO(msg);
      CHECK(msg.find("/dev/full") != std::string::npos);
      CHECK(msg.find("No space left") != std::string::npos);
    }
  }
  // Small outputs fail at commit (the flush), not silently.
  try {
    OutputFile out("/dev/full");
    out.write("tiny");
    out.commit();
    FAIL("no error");
  } catch (const IoError& e) {
    CHECK(std::string(e.what()).find("/dev/full") != std::string::npos);
  }
  struct stat st {};
  REQUIRE(stat("/dev/full", &st) == 0);
  CHECK(S_ISCHR(st.st_mode));  // the device node was written, never replaced
}

TEST_CASE("output: moves transfer ownership of the temporary", "[io][output]") {
  TempDir dir;
  OutputFile a(dir.file("m.txt"));
  a.write("hello");
  OutputFile b(std::move(a));
  CHECK_FALSE(a.is_open());
  b.write(" world");
  b.commit();
  CHECK(read_bytes(dir.file("m.txt")) == "hello world");
}

TEST_CASE("output: SIGINT in the middle of writing leaves no file behind", "[io][output]") {
  TempDir dir;
  auto path = dir.file("interrupted.txt");
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {  // child: start an output, then get interrupted before commit
    OutputFile::install_signal_cleanup();
    OutputFile out(path);
    out.write(std::string(5 << 20, 'z'));  // past the buffer: the temporary has content on disk
    raise(SIGINT);
    _exit(0);  // not reached
  }
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGINT);
  CHECK(dir.entries().empty());
}
