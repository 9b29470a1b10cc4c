// Helpers for the I/O tests: a temporary directory removed at the end, and small file writers.
#pragma once
#include <grp.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace bloomseq_test {

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "bloomseq-io-XXXXXX").string();
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (!mkdtemp(buf.data())) throw std::runtime_error("mkdtemp failed");
    path_ = buf.data();
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::permissions(path_, std::filesystem::perms::owner_all, ec);
    std::filesystem::remove_all(path_, ec);
  }
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }
  // Names of the entries in the directory (to check that no temporary is left behind).
  std::vector<std::string> entries() const {
    std::vector<std::string> out;
    for (auto& e : std::filesystem::directory_iterator(path_)) out.push_back(e.path().filename().string());
    return out;
  }

 private:
  std::string path_;
};

// Runs `check` where file permissions apply and returns what it returns ("" = passed, else what went wrong).
// As root (CI), permissions are not enforced, so the check runs in a forked child that has dropped to the
// unprivileged user "nobody" (uid/gid 65534); paths it touches must be reachable by that user.
inline std::string run_unprivileged(const std::function<std::string()>& check) {
  if (geteuid() != 0) return check();
  int fds[2];
  if (pipe(fds) != 0) return "pipe failed";
  const pid_t pid = fork();
  if (pid < 0) return "fork failed";
  if (pid == 0) {
    close(fds[0]);
    std::string msg;
    if (setgroups(0, nullptr) != 0 || setgid(65534) != 0 || setuid(65534) != 0) {
      msg = "cannot drop to the unprivileged user";
    } else {
      try {
        msg = check();
      } catch (const std::exception& e) {
        msg = std::string("unexpected exception: ") + e.what();
      }
    }
    if (!msg.empty() && write(fds[1], msg.data(), msg.size()) < 0) msg.clear();
    _exit(msg.empty() ? 0 : 1);
  }
  close(fds[1]);
  std::string msg;
  char buf[512];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) msg.append(buf, size_t(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (msg.empty() && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) msg = "the unprivileged check died";
  return msg;
}

// Lets every user into the directory (for run_unprivileged checks inside a TempDir, created 0700).
inline void open_to_all(const std::string& dir) {
  std::filesystem::permissions(dir, std::filesystem::perms::owner_all | std::filesystem::perms::group_read |
                                        std::filesystem::perms::group_exec | std::filesystem::perms::others_read |
                                        std::filesystem::perms::others_exec);
}

inline void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), std::streamsize(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path);
}

inline std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// One gzip member holding `text` (zlib's gzip wrapper, independent of the code under test).
inline std::string gzip_bytes(const std::string& text) {
  z_stream zs{};
  deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&zs, uLong(text.size())) + 64, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  zs.avail_in = uInt(text.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = uInt(out.size());
  deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

inline std::string gunzip_bytes(const std::string& gz) {
  z_stream zs{};
  inflateInit2(&zs, 15 + 32);
  std::string out;
  char buf[1 << 16];
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
  zs.avail_in = uInt(gz.size());
  int ret;
  do {
    zs.next_out = reinterpret_cast<Bytef*>(buf);
    zs.avail_out = sizeof buf;
    ret = inflate(&zs, Z_NO_FLUSH);
    out.append(buf, sizeof buf - zs.avail_out);
    if (ret == Z_STREAM_END && zs.avail_in > 0) inflateReset(&zs), ret = Z_OK;
  } while (ret == Z_OK);
  inflateEnd(&zs);
  return out;
}

inline std::string random_dna(std::mt19937_64& rng, size_t n, const char* alphabet = "ACGT") {
  std::string s(n, 'A');
  size_t a = std::char_traits<char>::length(alphabet);
  for (auto& c : s) c = alphabet[rng() % a];
  return s;
}

}  // namespace bloomseq_test
