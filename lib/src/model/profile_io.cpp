#include "bloomseq/model/profile_io.hpp"

#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

#include "bloomseq/error.hpp"
#include "bloomseq/model/profiles.hpp"

namespace bloomseq::model {

std::string default_profile_path() {
  const char* x = std::getenv("XDG_CACHE_HOME");
  std::string base;
  if (x && *x) base = x;
  else {
    const char* h = std::getenv("HOME");
    base = std::string(h && *h ? h : ".") + "/.cache";
  }
  return base + "/bloomseq/profile.json";
}

namespace {
std::string esc(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\') { o += '\\'; o += c; }
    else if (c == '\n') o += "\\n";
    else if (static_cast<unsigned char>(c) < 0x20) o += ' ';
    else o += c;
  }
  return o;
}
void mkdirs(const std::string& dir) {
  std::string cur;
  std::stringstream ss(dir);
  std::string part;
  if (!dir.empty() && dir[0] == '/') cur = "/";
  while (std::getline(ss, part, '/')) {
    if (part.empty()) continue;
    cur += part + "/";
    if (::mkdir(cur.c_str(), 0755) != 0 && errno != EEXIST)
      throw IoError(cur + ": cannot create directory: " + std::strerror(errno));
  }
}
}  // namespace

std::string profile_to_json(const DeviceProfile& d, const Calibration& c) {
  std::ostringstream o;
  o.precision(10);
  o << "{\n";
  auto s = [&](const char* k, const std::string& v) { o << "  \"" << k << "\": \"" << esc(v) << "\",\n"; };
  auto n = [&](const std::string& k, double v) { o << "  \"" << k << "\": " << v << ",\n"; };
  s("format", "bloomseq-profile");
  n("version", 1);
  s("name", d.name);
  s("kind", d.kind == DeviceKind::Gpu ? "gpu" : "cpu");
  s("source", d.source);
  n("mp", d.mp);
  n("cores_per_mp", d.cores_per_mp);
  n("shared_per_mp", double(d.shared_per_mp));
  n("shared_per_block_max", double(d.shared_per_block_max));
  n("shared_per_block_default", double(d.shared_per_block_default));
  n("reserved_shared_per_block", double(d.reserved_shared_per_block));
  n("registers_per_mp", double(d.registers_per_mp));
  n("warp_size", d.warp_size);
  n("min_warps", d.min_warps);
  n("max_blocks_total", d.max_blocks_total);
  n("max_threads_per_block", d.max_threads_per_block);
  n("max_threads_per_mp", d.max_threads_per_mp);
  n("cache_bytes", double(d.cache_bytes));
  n("l2_bytes", double(d.l2_bytes));
  n("clock_ghz", d.clock_ghz);
  n("mem_bandwidth_gbs", d.mem_bandwidth_gbs);
  n("copy_engines", d.copy_engines);
  n("global_mem_bytes", double(d.global_mem_bytes));
  n("cc_major", d.cc_major);
  n("cc_minor", d.cc_minor);
  n("cores", d.cores);
  n("threads_per_core", d.threads_per_core);
  n("simd_bits", d.simd_bits);
  n("cache_levels", double(d.caches.size()));
  for (size_t i = 0; i < d.caches.size(); ++i) {
    std::string p = "cache" + std::to_string(i) + "_";
    n(p + "level", d.caches[i].level);
    n(p + "size_bytes", double(d.caches[i].size_bytes));
    n(p + "latency_ns", d.caches[i].latency_ns);
    n(p + "random_ns", d.caches[i].random_ns);
    n(p + "shared", d.caches[i].shared ? 1 : 0);
  }
  n("calibrated", c.calibrated ? 1 : 0);
  s("calibration_source", c.source);
  n("a1", c.a1);
  n("a0", c.a0);
  n("G", c.G);
  n("G_l1", c.G_l1);
  n("hash_ns", c.hash_ns);
  n("probe_ns", c.probe_ns);
  n("mispredict_ns", c.mispredict_ns);
  n("row_byte_ns", c.row_byte_ns);
  n("row_miss_ns", c.row_miss_ns);
  n("row_fixed_ns", c.row_fixed_ns);
  n("hit_ns", c.hit_ns);
  n("verify_ns", c.verify_ns);
  // Kernel-probe coefficients only when fitted: a profile without them prices the layouts as before.
  auto kernel = [&](const std::string& p, const KernelCoefficients& k, bool vector) {
    if (!k.fitted) return;
    n(p + "hash_ns", k.hash_ns);
    if (vector) {
      n(p + "probe_ns", k.probe_ns);
      n(p + "mispredict_ns", k.mispredict_ns);
    } else {
      n(p + "hash_generic_ns", k.hash_generic_ns);
      n(p + "narrow_fixed_ns", k.narrow_fixed_ns);
      n(p + "narrow_row_ns", k.narrow_row_ns);
      n(p + "llc_bytes", double(k.llc_bytes));
      n(p + "row_fixed_ns", k.row_fixed_ns);
      n(p + "row_byte_ns", k.row_byte_ns);
      n(p + "row_miss_ns", k.row_miss_ns);
      n(p + "row_miss_single_ns", k.row_miss_single_ns);
      n(p + "mispredict_ns", k.mispredict_ns);
    }
    n(p + "hit_ns", k.hit_ns);
    n(p + "a0", k.a0);
    n(p + "r2", k.r2);
    n(p + "points", k.points);
  };
  kernel("kernel_vector_", c.kernel_vector, true);
  kernel("kernel_bitsliced_", c.kernel_bitsliced, false);
  o << "  \"pcie_gbs\": " << c.pcie_gbs << "\n}\n";
  return o.str();
}

std::map<std::string, std::string> parse_flat_json(const std::string& t, const std::string& origin) {
  std::map<std::string, std::string> m;
  size_t i = 0;
  auto fail = [&](const std::string& why) -> void {
    throw DataError(origin + ": malformed profile JSON at byte " + std::to_string(i) + ": " + why);
  };
  auto ws = [&] { while (i < t.size() && (t[i] == ' ' || t[i] == '\n' || t[i] == '\t' || t[i] == '\r')) ++i; };
  auto str = [&]() -> std::string {
    if (i >= t.size() || t[i] != '"') fail("expected a string");
    ++i;
    std::string s;
    while (i < t.size() && t[i] != '"') {
      if (t[i] == '\\') {
        if (++i >= t.size()) break;
        char e = t[i];
        s += e == 'n' ? '\n' : e == 't' ? '\t' : e;
      } else {
        s += t[i];
      }
      ++i;
    }
    if (i >= t.size()) fail("unterminated string");
    ++i;
    return s;
  };
  ws();
  if (i >= t.size() || t[i] != '{') fail("expected '{'");
  ++i;
  ws();
  if (i < t.size() && t[i] == '}') return m;
  for (;;) {
    ws();
    std::string key = str();
    ws();
    if (i >= t.size() || t[i] != ':') fail("expected ':'");
    ++i;
    ws();
    std::string val;
    if (i < t.size() && t[i] == '"') val = str();
    else {
      size_t st = i;
      while (i < t.size() && t[i] != ',' && t[i] != '}' && t[i] != '\n' && t[i] != ' ') ++i;
      val = t.substr(st, i - st);
      if (val.empty()) fail("expected a value");
    }
    m[key] = val;
    ws();
    if (i < t.size() && t[i] == ',') { ++i; continue; }
    if (i < t.size() && t[i] == '}') break;
    fail("expected ',' or '}'");
  }
  return m;
}

LoadedProfile profile_from_json(const std::string& text, const std::string& origin) {
  auto m = parse_flat_json(text, origin);
  if (m["format"] != "bloomseq-profile") throw DataError(origin + ": not a bloomseq profile (\"format\" missing)");
  auto num = [&](const std::string& k, double def) -> double {
    auto it = m.find(k);
    if (it == m.end()) return def;
    char* end = nullptr;
    double v = std::strtod(it->second.c_str(), &end);
    if (end == it->second.c_str() || *end) throw DataError(origin + ": field \"" + k + "\" is not a number");
    return v;
  };
  LoadedProfile L;
  DeviceProfile& d = L.device;
  d.name = m.count("name") ? m["name"] : "cpu";
  d.kind = m["kind"] == "gpu" ? DeviceKind::Gpu : DeviceKind::Cpu;
  d.source = m["source"];
  d.mp = int(num("mp", 0));
  d.cores_per_mp = int(num("cores_per_mp", 0));
  d.shared_per_mp = uint64_t(num("shared_per_mp", 0));
  d.shared_per_block_max = uint64_t(num("shared_per_block_max", 0));
  d.shared_per_block_default = uint64_t(num("shared_per_block_default", double(d.shared_per_block_max)));
  d.reserved_shared_per_block = uint64_t(num("reserved_shared_per_block", 0));
  d.registers_per_mp = uint64_t(num("registers_per_mp", 0));
  d.warp_size = int(num("warp_size", 32));
  d.min_warps = int(num("min_warps", 6));
  d.max_blocks_total = int(num("max_blocks_total", 0));
  d.max_threads_per_block = int(num("max_threads_per_block", 0));
  d.max_threads_per_mp = int(num("max_threads_per_mp", 0));
  d.cache_bytes = uint64_t(num("cache_bytes", 0));
  d.l2_bytes = uint64_t(num("l2_bytes", 0));
  d.clock_ghz = num("clock_ghz", 0);
  d.mem_bandwidth_gbs = num("mem_bandwidth_gbs", 0);
  d.copy_engines = int(num("copy_engines", 1));
  d.global_mem_bytes = uint64_t(num("global_mem_bytes", 0));
  d.cc_major = int(num("cc_major", 0));
  d.cc_minor = int(num("cc_minor", 0));
  d.cores = int(num("cores", 0));
  d.threads_per_core = int(num("threads_per_core", 1));
  d.simd_bits = int(num("simd_bits", 0));
  int nl = int(num("cache_levels", 0));
  if (nl < 0 || nl > 8) throw DataError(origin + ": bad \"cache_levels\"");
  for (int i = 0; i < nl; ++i) {
    std::string p = "cache" + std::to_string(i) + "_";
    CacheLevel c;
    c.level = int(num(p + "level", 0));
    c.size_bytes = uint64_t(num(p + "size_bytes", 0));
    c.latency_ns = num(p + "latency_ns", 0);
    c.random_ns = num(p + "random_ns", 0);
    c.shared = num(p + "shared", 0) != 0;
    d.caches.push_back(c);
  }
  Calibration& c = L.calibration;
  c.calibrated = num("calibrated", 0) != 0;
  c.source = m.count("calibration_source") ? m["calibration_source"] : origin;
  c.a1 = num("a1", c.a1);
  c.a0 = num("a0", c.a0);
  c.G = num("G", c.G);
  c.G_l1 = num("G_l1", c.G_l1);
  c.hash_ns = num("hash_ns", c.hash_ns);
  c.probe_ns = num("probe_ns", c.probe_ns);
  c.mispredict_ns = num("mispredict_ns", c.mispredict_ns);
  c.row_byte_ns = num("row_byte_ns", c.row_byte_ns);
  c.row_miss_ns = num("row_miss_ns", c.row_miss_ns);
  c.row_fixed_ns = num("row_fixed_ns", c.row_fixed_ns);
  c.hit_ns = num("hit_ns", c.hit_ns);
  c.verify_ns = num("verify_ns", c.verify_ns);
  c.pcie_gbs = num("pcie_gbs", c.pcie_gbs);
  // Present only when calibration ran the kernel probe (older profiles lack them).
  auto kernel = [&](const std::string& p, KernelCoefficients& k, bool vector) {
    if (!m.count(p + "hash_ns")) return;
    k.fitted = true;
    k.hash_ns = num(p + "hash_ns", 0);
    if (vector) {
      k.probe_ns = num(p + "probe_ns", 0);
      k.mispredict_ns = num(p + "mispredict_ns", 0);
    } else {
      k.hash_generic_ns = num(p + "hash_generic_ns", k.hash_ns);
      k.narrow_fixed_ns = num(p + "narrow_fixed_ns", 0);
      const double llc = num(p + "llc_bytes", 0);
      if (!(llc >= 0 && llc < 1e15)) throw DataError(origin + ": bad \"" + p + "llc_bytes\"");
      k.llc_bytes = uint64_t(llc);
      k.row_fixed_ns = num(p + "row_fixed_ns", 0);
      k.row_byte_ns = num(p + "row_byte_ns", 0);
      // Absent before narrow rows were priced per row: one line's bytes, as for uncalibrated profiles.
      k.narrow_row_ns = num(p + "narrow_row_ns", 64.0 * k.row_byte_ns);
      k.row_miss_ns = num(p + "row_miss_ns", 0);
      k.row_miss_single_ns = num(p + "row_miss_single_ns", k.row_miss_ns);  // absent before the term: the same
      k.mispredict_ns = num(p + "mispredict_ns", 0);  // absent before the term was added: priced at 0
    }
    k.hit_ns = num(p + "hit_ns", 0);
    k.a0 = num(p + "a0", 0);
    k.r2 = num(p + "r2", 0);
    k.points = int(num(p + "points", 0));
    for (double v : {k.hash_ns, k.probe_ns, k.mispredict_ns, k.hash_generic_ns, k.narrow_fixed_ns, k.narrow_row_ns,
                     k.row_fixed_ns, k.row_byte_ns, k.row_miss_ns, k.row_miss_single_ns, k.hit_ns, k.a0})
      if (!std::isfinite(v) || v < 0) throw DataError(origin + ": negative or non-finite \"" + p + "*\" coefficient");
  };
  kernel("kernel_vector_", c.kernel_vector, true);
  kernel("kernel_bitsliced_", c.kernel_bitsliced, false);
  L.from_file = true;
  L.path = origin;
  L.message = "performance profile: " + origin + " (" + c.source + ")";
  return L;
}

void save_profile(const std::string& path, const DeviceProfile& dev, const Calibration& cal) {
  auto slash = path.rfind('/');
  if (slash != std::string::npos && slash > 0) mkdirs(path.substr(0, slash));
  std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::trunc);
    if (!out) throw IoError(tmp + ": cannot write: " + std::strerror(errno));
    out << profile_to_json(dev, cal);
    out.flush();
    if (!out) {
      std::remove(tmp.c_str());
      throw IoError(tmp + ": write failed");
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw IoError(path + ": cannot rename into place: " + std::strerror(errno));
  }
}

LoadedProfile load_profile(const std::string& path0) {
  std::string path = path0.empty() ? default_profile_path() : path0;
  std::ifstream in(path);
  if (!in) {
    if (!path0.empty()) throw NoInputError(path + ": cannot open performance profile");
    LoadedProfile L;
    L.device = detect_cpu_profile();
    L.calibration = default_calibration(L.device);
    L.path = path;
    L.message = "no performance profile at " + path + "; using built-in defaults (run bloomseq-calibrate)";
    return L;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  return profile_from_json(ss.str(), path);
}

}  // namespace bloomseq::model
