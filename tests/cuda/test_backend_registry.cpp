// Backend selection in a binary without the CUDA library (test_cuda links it only in CUDA builds, for the
// hidden device tests; there this case has nothing to check).
#include <catch2/catch.hpp>

#include <sstream>

#include "bloomseq/backend/backend.hpp"
#include "bloomseq/error.hpp"

using namespace bloomseq;

TEST_CASE("registry: cpu, auto falls back with one line, cuda is a usage error", "[cuda][backend]") {
  CHECK(make_backend("cpu") == nullptr);  // the pipelines' own CPU code
  CHECK(make_reference_backend()->name() == "reference");
  if (cuda_compiled_in()) return;  // only meaningful where the CUDA library is absent
  CHECK(cuda_devices() == 0);
  std::ostringstream log;
  CHECK(make_backend("auto", 0, &log) == nullptr);
  CHECK(log.str() == "backend: cpu (this build has no CUDA support)\n");
  CHECK_THROWS_AS(make_backend("cuda"), UsageError);
  try {
    make_backend("cuda");
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::usage);
    CHECK(std::string(e.what()).find("no CUDA support") != std::string::npos);
  }
  CHECK_THROWS_AS(make_backend("gpu"), UsageError);
  CHECK_THROWS_AS(make_backend("cpu", -1), UsageError);
}
