// The calibration's kernel probe (blast/kernel_probe.hpp) on tiny sizes, and the profile fields it fills: written
// only when fitted, read back exactly, and absent from older profiles (which still load).
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "bloomseq/blast/kernel_probe.hpp"
#include "bloomseq/error.hpp"
#include "bloomseq/model/profile_io.hpp"
#include "bloomseq/model/profiles.hpp"

using namespace bloomseq;
using namespace bloomseq::model;
namespace fs = std::filesystem;

TEST_CASE("kernel probe times both layouts on tiny random DNA", "[blast][kernel_probe]") {
  KernelProbeOptions o;
  o.ks = {4, 8};
  o.ms = {8192};
  o.vector_query_bases = 6000;
  o.vector_nsubs = {1000, 3000};
  o.bitsliced_query_bases = 8000;
  o.bitsliced_nsubs = {100, 1000};
  o.db_bases = 20000;
  o.chunk_bases = 8192;  // three chunks
  o.passes = 2;
  o.min_ms = 0.5;
  const std::vector<KernelSample> s = run_kernel_probe(o);
  REQUIRE(s.size() == 8);
  int vec = 0;
  for (const KernelSample& x : s) {
    INFO(to_string(x.layout) << " k=" << x.k << " n_sub=" << x.n_sub);
    CHECK(std::isfinite(x.measured_s));
    CHECK(x.measured_s > 0);
    CHECK(x.measured_s < 1.0);
    CHECK(x.work_units == 3);
    CHECK(x.db_bases == 20000);
    CHECK(x.threads == 1);
    CHECK(x.query_bases == (x.layout == Layout::Vector ? 6000u : 8000u));
    vec += x.layout == Layout::Vector;
  }
  CHECK(vec == 4);
}

TEST_CASE("profile round trip with and without kernel coefficients", "[blast][kernel_probe][io]") {
  const fs::path dir = fs::temp_directory_path() / ("bloomseq_kprobe_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const DeviceProfile d = detect_cpu_profile();
  Calibration c;
  c.calibrated = true;
  c.kernel_vector = kernel_coefficients(Layout::Vector, {3.25, 1.125, 7.5, 4.75, 3.5e-4});
  c.kernel_vector.fitted = true;
  c.kernel_vector.r2 = 0.9875;
  c.kernel_vector.points = 18;
  c.kernel_bitsliced = kernel_coefficients(Layout::BitSliced,
                                           {0.5, 2.75, 13.5, 21.0, 3.125, 0.0975, 2.5, 1.625, 17.25, 6.25, 1.5e-4});
  c.kernel_bitsliced.fitted = true;
  c.kernel_bitsliced.points = 17;
  c.kernel_bitsliced.llc_bytes = 3u << 20;
  const std::string with = (dir / "with.json").string(), without = (dir / "without.json").string();
  save_profile(with, d, c);
  const LoadedProfile L = load_profile(with);
  const KernelCoefficients &v = L.calibration.kernel_vector, &b = L.calibration.kernel_bitsliced;
  REQUIRE(v.fitted);
  REQUIRE(b.fitted);
  CHECK(v.hash_ns == 3.25);
  CHECK(v.probe_ns == 1.125);
  CHECK(v.mispredict_ns == 7.5);
  CHECK(v.hit_ns == 4.75);
  CHECK(v.a0 == Approx(3.5e-4));
  CHECK(v.r2 == Approx(0.9875));
  CHECK(v.points == 18);
  CHECK(b.hash_ns == 0.5);
  CHECK(b.hash_generic_ns == 2.75);
  CHECK(b.narrow_fixed_ns == 21.0);
  CHECK(b.narrow_row_ns == 3.125);
  CHECK(b.row_fixed_ns == 13.5);
  CHECK(b.row_byte_ns == Approx(0.0975));
  CHECK(b.row_miss_ns == 2.5);
  CHECK(b.row_miss_single_ns == 1.625);
  CHECK(b.mispredict_ns == 17.25);
  CHECK(b.hit_ns == 6.25);
  CHECK(b.a0 == Approx(1.5e-4));
  CHECK(b.points == 17);
  CHECK(b.llc_bytes == 3u << 20);

  // Without a probe (or --no-kernel-probe) the fields are not written and load as not fitted.
  Calibration none = c;
  none.kernel_vector = KernelCoefficients{};
  none.kernel_bitsliced = KernelCoefficients{};
  save_profile(without, d, none);
  const std::string text = profile_to_json(d, none);
  CHECK(text.find("kernel_") == std::string::npos);
  const LoadedProfile N = load_profile(without);
  CHECK(N.calibration.calibrated);
  CHECK_FALSE(N.calibration.kernel_vector.fitted);
  CHECK_FALSE(N.calibration.kernel_bitsliced.fitted);

  // A profile written before the fields existed (no kernel_* keys at all) loads.
  {
    std::ofstream(dir / "old.json") << "{\"format\": \"bloomseq-profile\", \"kind\": \"cpu\", \"cores\": 2, "
                                       "\"calibrated\": 1, \"hash_ns\": 2.5}\n";
  }
  const LoadedProfile O = load_profile((dir / "old.json").string());
  CHECK(O.calibration.hash_ns == 2.5);
  CHECK_FALSE(O.calibration.kernel_vector.fitted);
  // Bit-sliced coefficients from before narrow rows were priced per row read (one line's bytes per row) and
  // one-block matrices had their own DRAM cost (row_miss_ns's).
  {
    std::ofstream(dir / "old_narrow.json") << "{\"format\": \"bloomseq-profile\", \"kind\": \"cpu\", \"cores\": 2, "
                                              "\"calibrated\": 1, \"kernel_bitsliced_hash_ns\": 2, "
                                              "\"kernel_bitsliced_row_byte_ns\": 0.03125, "
                                              "\"kernel_bitsliced_row_miss_ns\": 6.5}\n";
  }
  const LoadedProfile ON = load_profile((dir / "old_narrow.json").string());
  REQUIRE(ON.calibration.kernel_bitsliced.fitted);
  CHECK(ON.calibration.kernel_bitsliced.narrow_row_ns == 2.0);
  CHECK(ON.calibration.kernel_bitsliced.row_miss_single_ns == 6.5);
  // A negative coefficient is a data error naming the file.
  {
    std::ofstream(dir / "neg.json") << "{\"format\": \"bloomseq-profile\", \"kernel_vector_hash_ns\": -1}\n";
  }
  CHECK_THROWS_AS(load_profile((dir / "neg.json").string()), DataError);
  fs::remove_all(dir);
}
