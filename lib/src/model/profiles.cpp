#include "bloomseq/model/profiles.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>
#include <thread>

#include "bloomseq/error.hpp"

namespace bloomseq::model {

namespace {
constexpr uint64_t KiB = 1024, MiB = 1024 * 1024;
}

// GeForce GTX 480 (Fermi GF100, compute 2.0). [2012] Table IV / [2014] Table 5.4: MP = 15, S = 48 KB (16 KB
// configurable), C = 16 KB L1 when S = 48 KB, R = 32768, W = 32, N_W = 6, B_max = 120 (8 per MP), T_maxB = 1024,
// T_maxMP = 1536. L2 768 KB and 1401 MHz shader clock, 177.4 GB/s: NVIDIA GTX 480 specifications.
DeviceProfile gtx480() {
  DeviceProfile p;
  p.name = "gtx480";
  p.kind = DeviceKind::Gpu;
  p.source = "Ma & Chamberlain 2012 Table IV; NVIDIA GeForce GTX 480 specifications";
  p.mp = 15;
  p.cores_per_mp = 32;
  p.shared_per_mp = 48 * KiB;
  p.shared_per_block_max = 48 * KiB;
  p.reserved_shared_per_block = 0;
  p.registers_per_mp = 32768;
  p.warp_size = 32;
  p.min_warps = 6;
  p.max_blocks_total = 120;
  p.max_threads_per_block = 1024;
  p.max_threads_per_mp = 1536;
  p.cache_bytes = 16 * KiB;
  p.l2_bytes = 768 * KiB;
  p.clock_ghz = 1.401;
  p.mem_bandwidth_gbs = 177.4;
  p.copy_engines = 1;
  p.shared_per_block_default = 48 * KiB;
  p.global_mem_bytes = uint64_t(1536) * MiB;
  p.cc_major = 2;
  p.cc_minor = 0;
  return p;
}

// Tesla C1060 (GT200, compute 1.3): MP = 30 ([2011] §III-B), 16 KB shared memory per MP, 16384 registers per MP,
// 8 resident blocks per MP (B_max = 240), 512 threads per block, 1024 threads per MP, no cache for global memory
// (CUDA Programming Guide, compute capability 1.3). 1296 MHz, 102 GB/s: NVIDIA Tesla C1060 board specification.
DeviceProfile tesla_c1060() {
  DeviceProfile p;
  p.name = "c1060";
  p.kind = DeviceKind::Gpu;
  p.source = "Ma et al. 2011 §III-B; CUDA Programming Guide (compute 1.3); NVIDIA Tesla C1060 board specification";
  p.mp = 30;
  p.cores_per_mp = 8;
  p.shared_per_mp = 16 * KiB;
  p.shared_per_block_max = 16 * KiB;
  p.reserved_shared_per_block = 0;
  p.registers_per_mp = 16384;
  p.warp_size = 32;
  p.min_warps = 6;
  p.max_blocks_total = 240;
  p.max_threads_per_block = 512;
  p.max_threads_per_mp = 1024;
  p.cache_bytes = 0;
  p.l2_bytes = 0;
  p.clock_ghz = 1.296;
  p.mem_bandwidth_gbs = 102;
  p.copy_engines = 1;
  p.shared_per_block_default = 16 * KiB;
  p.global_mem_bytes = uint64_t(4096) * MiB;
  p.cc_major = 1;
  p.cc_minor = 3;
  return p;
}

// A100 SXM4 (GA100, compute 8.0). NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020): 108 SMs, 192 KB
// combined L1/shared per SM with up to 164 KB shared, 40 MB L2, 1410 MHz boost, 1555 GB/s (40 GB) / 2039 GB/s
// (80 GB). CUDA C++ Programming Guide, compute 8.0: 65536 registers/SM, 32 resident blocks/SM, 2048 threads/SM,
// 1024 threads/block, 163 KB shared per block (opt-in), 1 KB reserved shared memory per block.
DeviceProfile a100() {
  DeviceProfile p;
  p.name = "a100";
  p.kind = DeviceKind::Gpu;
  p.source = "NVIDIA A100 architecture whitepaper (2020); CUDA C++ Programming Guide, compute capability 8.0";
  p.mp = 108;
  p.cores_per_mp = 64;
  p.shared_per_mp = 164 * KiB;
  p.shared_per_block_max = 163 * KiB;
  p.reserved_shared_per_block = 1 * KiB;
  p.registers_per_mp = 65536;
  p.warp_size = 32;
  p.min_warps = 4;
  p.max_blocks_total = 32 * 108;
  p.max_threads_per_block = 1024;
  p.max_threads_per_mp = 2048;
  p.cache_bytes = (192 - 164) * KiB;  // L1 left when shared memory takes its maximum carve-out
  p.l2_bytes = 40 * MiB;
  p.clock_ghz = 1.410;
  p.mem_bandwidth_gbs = 2039;
  p.copy_engines = 3;
  p.shared_per_block_default = 48 * KiB;
  p.global_mem_bytes = uint64_t(40960) * MiB;
  p.cc_major = 8;
  p.cc_minor = 0;
  return p;
}

// H100 SXM5 (GH100, compute 9.0). NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022) and H100 datasheet:
// 132 SMs, 256 KB combined L1/shared per SM with up to 228 KB shared, 50 MB L2, 1980 MHz max boost, 3.35 TB/s HBM3.
// CUDA C++ Programming Guide, compute 9.0: 65536 registers/SM, 32 blocks/SM, 2048 threads/SM, 1024 threads/block,
// 227 KB shared per block (opt-in), 1 KB reserved per block.
DeviceProfile h100() {
  DeviceProfile p;
  p.name = "h100";
  p.kind = DeviceKind::Gpu;
  p.source = "NVIDIA H100 architecture whitepaper (2022), H100 SXM5 datasheet; CUDA C++ Programming Guide, compute 9.0";
  p.mp = 132;
  p.cores_per_mp = 128;
  p.shared_per_mp = 228 * KiB;
  p.shared_per_block_max = 227 * KiB;
  p.reserved_shared_per_block = 1 * KiB;
  p.registers_per_mp = 65536;
  p.warp_size = 32;
  p.min_warps = 4;
  p.max_blocks_total = 32 * 132;
  p.max_threads_per_block = 1024;
  p.max_threads_per_mp = 2048;
  p.cache_bytes = (256 - 228) * KiB;
  p.l2_bytes = 50 * MiB;
  p.clock_ghz = 1.980;
  p.mem_bandwidth_gbs = 3350;
  p.copy_engines = 3;
  p.shared_per_block_default = 48 * KiB;
  p.global_mem_bytes = uint64_t(81920) * MiB;
  p.cc_major = 9;
  p.cc_minor = 0;
  return p;
}

// H200 SXM: the same GH100 compute die as H100 SXM5 (132 SMs, 50 MB L2, compute 9.0 limits) with 141 GB HBM3e at
// 4.8 TB/s (NVIDIA H200 Tensor Core GPU datasheet, 2024).
DeviceProfile h200() {
  DeviceProfile p = h100();
  p.name = "h200";
  p.source = "NVIDIA H200 datasheet (2024); compute limits as H100 (CUDA C++ Programming Guide, compute 9.0)";
  p.mem_bandwidth_gbs = 4800;
  p.global_mem_bytes = uint64_t(143771) * MiB;  // 141 GB
  return p;
}

int max_blocks_per_mp(const DeviceProfile& p) { return p.mp > 0 ? p.max_blocks_total / p.mp : 0; }

DeviceProfile with_multiprocessors(DeviceProfile p, int mp) {
  const int per_mp = max_blocks_per_mp(p);
  p.mp = mp;
  p.max_blocks_total = per_mp * mp;
  return p;
}

std::vector<std::string> builtin_profile_names() { return {"gtx480", "c1060", "a100", "h100", "h200", "cpu"}; }

DeviceProfile builtin_profile(const std::string& name) {
  std::string n;
  for (char c : name) n += char(std::tolower(static_cast<unsigned char>(c)));
  if (n == "gtx480" || n == "gtx-480" || n == "gtx_480") return gtx480();
  if (n == "c1060" || n == "tesla-c1060" || n == "tesla_c1060") return tesla_c1060();
  if (n == "a100") return a100();
  if (n == "h100") return h100();
  if (n == "h200") return h200();
  if (n == "cpu") return detect_cpu_profile();
  throw UsageError("unknown device profile '" + name + "' (known: gtx480, c1060, a100, h100, h200, cpu)");
}

Calibration default_calibration(const DeviceProfile& p) {
  Calibration c;
  c.calibrated = false;
  if (p.kind == DeviceKind::Gpu) {
    // GTX 480: 3e5 w-mers/s x 5000 sub-queries x k = 6 -> a1 = 1 / 9e9 s per hash-and-probe ([2011] §III-D).
    const double a1_480 = 1.0 / (3e5 * 5000.0 * 6.0);
    double scale = (15 * 1.401) / (std::max(1, p.mp) * (p.clock_ghz > 0 ? p.clock_ghz : 1.0));
    c.a1 = a1_480 * scale;
    c.a0 = 1e-5;  // one kernel launch
    c.G = 8;
    c.source = "built-in estimate scaled from the GTX 480 figures of Ma et al. 2011 (not calibrated)";
  } else {
    // One Zen 4 core, vector-by-vector kernel with all k hashes and probes per test (bench/model_validation).
    c.a1 = 0.35e-9;
    c.a0 = 2e-4;
    c.G = 6;
    c.source = "built-in CPU defaults (not calibrated; run bloomseq-calibrate)";
  }
  return c;
}

uint64_t parse_size_string(const std::string& s0) {
  std::string s;
  for (char c : s0)
    if (!std::isspace(static_cast<unsigned char>(c))) s += c;
  if (s.empty() || !std::isdigit(static_cast<unsigned char>(s[0]))) return 0;
  size_t i = 0;
  uint64_t v = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) v = v * 10 + uint64_t(s[i++] - '0');
  if (i < s.size()) {
    char u = char(std::toupper(static_cast<unsigned char>(s[i])));
    if (u == 'K') v *= KiB;
    else if (u == 'M') v *= MiB;
    else if (u == 'G') v *= 1024 * MiB;
    else return 0;
  }
  return v;
}

namespace {
std::string read_line(const std::string& path) {
  std::ifstream in(path);
  std::string s;
  if (in) std::getline(in, s);
  return s;
}
// Number of CPUs in a sysfs cpu list such as "0-3,8".
int count_cpu_list(const std::string& s) {
  int n = 0;
  std::stringstream ss(s);
  std::string part;
  while (std::getline(ss, part, ',')) {
    auto dash = part.find('-');
    try {
      if (dash == std::string::npos) {
        if (!part.empty()) { std::stoi(part); ++n; }
      } else {
        n += std::stoi(part.substr(dash + 1)) - std::stoi(part.substr(0, dash)) + 1;
      }
    } catch (...) {
    }
  }
  return n;
}
}  // namespace

DeviceProfile detect_cpu_profile(const std::string& sysfs, int cores) {
  DeviceProfile p;
  p.name = "cpu";
  p.kind = DeviceKind::Cpu;
  if (cores <= 0) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    cores = n > 0 ? int(n) : int(std::max(1u, std::thread::hardware_concurrency()));
  }
  p.cores = cores;
  p.threads_per_core = 1;  // we schedule one work unit per online CPU
  // Typical load-to-use latencies (cycles at ~3.5 GHz) until calibration measures them; random_ns: independent reads
  // with memory-level parallelism (facts: L1 ~7e9/s, L2 ~1.6e9/s, DRAM ~1e8 lines/s per core... x ~10 in flight).
  const double lat[4] = {1.2, 4.0, 14.0, 100.0};
  const double rnd[4] = {0.15, 0.6, 2.5, 10.0};
  bool any = false;
  for (int idx = 0; idx < 8; ++idx) {
    std::string dir = sysfs + "/cpu0/cache/index" + std::to_string(idx);
    std::string type = read_line(dir + "/type");
    if (type.empty()) continue;
    if (type == "Instruction") continue;
    int level = 0;
    try { level = std::stoi(read_line(dir + "/level")); } catch (...) { continue; }
    uint64_t size = parse_size_string(read_line(dir + "/size"));
    if (level < 1 || level > 3 || size == 0) continue;
    CacheLevel c;
    c.level = level;
    c.size_bytes = size;
    c.latency_ns = lat[level - 1];
    c.random_ns = rnd[level - 1];
    c.shared = count_cpu_list(read_line(dir + "/shared_cpu_list")) > 1;
    p.caches.push_back(c);
    any = true;
  }
  if (!any) {  // no sysfs (containers, other OSes): a conservative generic hierarchy
    p.caches = {{1, 32 * KiB, lat[0], rnd[0], false}, {2, 256 * KiB, lat[1], rnd[1], false},
                {3, 8 * MiB, lat[2], rnd[2], true}};
    p.source = "generic CPU (sysfs cache information unavailable)";
  } else {
    p.source = "sysfs (" + sysfs + ") and cpuid";
  }
  std::sort(p.caches.begin(), p.caches.end(), [](const CacheLevel& a, const CacheLevel& b) { return a.level < b.level; });
  p.caches.push_back(CacheLevel{0, 0, lat[3], rnd[3], true});
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  p.has_avx2 = __builtin_cpu_supports("avx2");
  p.has_avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
  p.has_gfni = __builtin_cpu_supports("gfni");
  p.simd_bits = p.has_avx512 ? 512 : p.has_avx2 ? 256 : __builtin_cpu_supports("sse2") ? 128 : 0;
#else
  p.simd_bits = 128;
#endif
  // The GPU-shaped fields, so the occupancy equations apply unchanged (docs/performance-model.md, CPU mapping).
  p.mp = p.cores;
  p.warp_size = p.simd_bits ? p.simd_bits / 32 : 1;  // 32-bit lanes of one vector instruction
  p.min_warps = 1;
  p.max_blocks_total = p.cores * p.threads_per_core;
  p.cache_bytes = p.cache_size(1);
  p.shared_per_mp = p.cache_size(2) ? p.cache_size(2) : p.cache_size(1);  // private cache that holds the vectors
  return p;
}

uint64_t DeviceProfile::cache_size(int level) const {
  const CacheLevel* c = find_cache(level);
  return c ? c->size_bytes : 0;
}

const CacheLevel* DeviceProfile::find_cache(int level) const {
  for (const auto& c : caches)
    if (c.level == level) return &c;
  return nullptr;
}

std::string describe(const DeviceProfile& p) {
  std::ostringstream o;
  if (p.kind == DeviceKind::Gpu) {
    o << p.name << " (GPU): MP=" << p.mp << " S=" << p.shared_per_mp << "B R=" << p.registers_per_mp
      << " W=" << p.warp_size << " N_W=" << p.min_warps << " B_max=" << p.max_blocks_total
      << " T_maxB=" << p.max_threads_per_block << " T_maxMP=" << p.max_threads_per_mp << " C=" << p.cache_bytes
      << "B L2=" << p.l2_bytes << "B";
  } else {
    o << p.name << " (CPU): cores=" << p.cores << " SIMD=" << p.simd_bits << "-bit";
    for (const auto& c : p.caches) {
      if (c.level) o << " L" << c.level << "=" << c.size_bytes / 1024 << "KiB/" << c.latency_ns << "ns";
      else o << " DRAM/" << c.latency_ns << "ns";
    }
  }
  o << " [" << p.source << "]";
  return o.str();
}

}  // namespace bloomseq::model
