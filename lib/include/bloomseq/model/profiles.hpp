// Built-in device profiles and the CPU profile read from the running machine.
//
// GTX 480 and Tesla C1060: the papers' machines ([2012] Table IV, [2014] Table 5.4; C1060 from the CUDA
// Programming Guide's compute-capability 1.3 limits). A100, H100, H200: NVIDIA datasheets/whitepapers and the CUDA
// C++ Programming Guide's "Technical Specifications per Compute Capability" table (8.0 and 9.0); every number is
// cited next to it in profiles.cpp and in docs/performance-model.md.
#pragma once
#include <string>
#include <vector>

#include "bloomseq/model/device_profile.hpp"

namespace bloomseq::model {

DeviceProfile gtx480();
DeviceProfile tesla_c1060();
DeviceProfile a100();
DeviceProfile h100();
DeviceProfile h200();

// The same device with `mp` multiprocessors (the per-multiprocessor block limit kept): small devices for tests
// and emulation.
DeviceProfile with_multiprocessors(DeviceProfile p, int mp);
// Resident blocks one multiprocessor allows (B_max / MP).
int max_blocks_per_mp(const DeviceProfile& p);

// Names accepted by builtin_profile(): gtx480, c1060, a100, h100, h200, cpu (= detect_cpu_profile()).
std::vector<std::string> builtin_profile_names();
// Throws UsageError for an unknown name.
DeviceProfile builtin_profile(const std::string& name);

// Default calibration for a built-in profile: GPU values scaled from the paper's GTX 480 figure (300,000 db
// w-mers/s at n_sub = 50,000, k = 6 against a 250 Mbase query, i.e. about 1.5e9 hash-and-probes/s) by MP x clock;
// CPU values from this project's measurements on a Zen 4 core. Marked calibrated = false.
Calibration default_calibration(const DeviceProfile& p);

// The CPU this process runs on: cores from sysconf, cache sizes from <sysfs_cpu>/cpu0/cache/index*/{level,type,size,
// shared_cpu_list}, SIMD from __builtin_cpu_supports. Latencies are typical values until calibration measures them.
// `sysfs_cpu` is a parameter so tests can point it at a fake tree.
DeviceProfile detect_cpu_profile(const std::string& sysfs_cpu = "/sys/devices/system/cpu", int cores = 0);
// Parses sysfs cache sizes ("32K", "1M", "1024"); 0 if unreadable.
uint64_t parse_size_string(const std::string& s);

}  // namespace bloomseq::model
