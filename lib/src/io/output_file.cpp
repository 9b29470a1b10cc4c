// OutputFile: a temporary file beside the target, renamed over it by commit(), so readers never see half a file.
// Every write(2), close(2) and rename(2) is checked; failures throw IoError naming the target path.
// gzip output is produced with zlib's deflate into our own buffer so the same checked write path is used.
// Targets that exist and are not regular files (/dev/null, /dev/full, a FIFO, /dev/stdout) are written directly:
// a temporary plus rename would replace the device node.
#include "bloomseq/io/output_file.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <vector>

#include "bloomseq/error.hpp"
#include "io_common.hpp"

namespace bloomseq {

namespace {

// Registry of live temporaries, readable from a signal handler: fixed slots, no allocation, only unlink(2).
constexpr int kSlots = 256;
constexpr size_t kSlotPath = 4096;
struct Slot {
  std::atomic<int> state{0};  // 0 free, 1 being filled, 2 live
  char path[kSlotPath]{};     // initialised, so the slots are constant-initialised: zero pages, no start-up code
};                            // touching all 1 MB of them
Slot g_slots[kSlots];

int register_temporary(const std::string& path) {
  if (path.size() >= kSlotPath) return -1;
  for (int i = 0; i < kSlots; ++i) {
    int expected = 0;
    if (g_slots[i].state.compare_exchange_strong(expected, 1)) {
      std::memcpy(g_slots[i].path, path.c_str(), path.size() + 1);
      g_slots[i].state.store(2);
      return i;
    }
  }
  return -1;  // more than kSlots open outputs: still works, just not cleaned up on a signal
}

void unregister_temporary(int slot) {
  if (slot >= 0) g_slots[slot].state.store(0);
}

bool ends_with(const std::string& s, const char* suffix) {
  size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

constexpr size_t kBufferBytes = size_t(1) << 20;

}  // namespace

struct OutputFile::Impl {
  std::string target;
  std::string temp;   // empty when writing directly (stdout, device, FIFO)
  int fd = -1;
  bool own_fd = true;
  int slot = -1;
  bool gzip = false;
  bool deflate_started = false;
  z_stream zs{};
  std::vector<char> buf;  // pending bytes (plain) or compressed bytes (gzip)
  std::vector<char> in;   // gzip: uncompressed bytes not yet deflated

  std::string shown() const { return target == "-" ? "<stdout>" : target; }

  [[noreturn]] void fail(const char* what, int err) const {
    throw IoError(shown() + ": " + what + ": " + io_detail::errno_text(err));
  }

  void write_all(const char* p, size_t n) {
    while (n > 0) {
      ssize_t w = ::write(fd, p, n);
      if (w < 0) {
        if (errno == EINTR) continue;
        fail("write failed", errno);
      }
      if (w == 0) fail("write failed", ENOSPC);
      p += w;
      n -= size_t(w);
    }
  }

  void flush_buf() {
    if (!buf.empty()) write_all(buf.data(), buf.size());
    buf.clear();
  }

  // Deflates `in` (all of it) and writes the output; `finish` ends the gzip stream.
  void deflate_input(bool finish) {
    zs.next_in = reinterpret_cast<Bytef*>(in.data());
    zs.avail_in = static_cast<uInt>(in.size());
    char out[1 << 16];
    int ret;
    do {
      zs.next_out = reinterpret_cast<Bytef*>(out);
      zs.avail_out = sizeof out;
      ret = ::deflate(&zs, finish ? Z_FINISH : Z_NO_FLUSH);
      if (ret == Z_STREAM_ERROR) throw IoError(shown() + ": gzip compression failed");
      write_all(out, sizeof out - zs.avail_out);
    } while (zs.avail_out == 0 || (finish && ret != Z_STREAM_END));
    in.clear();
  }

  void write(std::string_view data) {
    if (!gzip) {
      if (buf.size() + data.size() > kBufferBytes) {
        flush_buf();
        if (data.size() >= kBufferBytes) return write_all(data.data(), data.size());
      }
      buf.insert(buf.end(), data.begin(), data.end());
      return;
    }
    in.insert(in.end(), data.begin(), data.end());
    if (in.size() >= kBufferBytes) deflate_input(false);
  }

  void finish() {
    if (gzip) {
      deflate_input(true);
      ::deflateEnd(&zs);
      deflate_started = false;
    } else {
      flush_buf();
    }
  }

  void discard() noexcept {
    if (deflate_started) {
      ::deflateEnd(&zs);
      deflate_started = false;
    }
    if (fd >= 0 && own_fd) ::close(fd);
    fd = -1;
    if (!temp.empty()) ::unlink(temp.c_str());
    unregister_temporary(slot);
    slot = -1;
  }
};

OutputFile::OutputFile(const std::string& path) : impl_(new Impl), path_(path) {
  Impl& d = *impl_;
  d.target = path;
  d.buf.reserve(kBufferBytes);
  try {
    if (path.empty()) throw IoError("empty output path");
    if (path == "-") {
      d.fd = STDOUT_FILENO;
      d.own_fd = false;
    } else {
      struct stat st {};
      bool exists = ::stat(path.c_str(), &st) == 0;
      if (exists && S_ISDIR(st.st_mode)) throw IoError(path + ": cannot write: is a directory");
      if (exists && !S_ISREG(st.st_mode)) {
        d.fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
        if (d.fd < 0) d.fail("cannot open for writing", errno);
      } else {
        // Temporary beside the target so the final rename stays on one file system. O_EXCL with a fresh name
        // (pid, time, counter) keeps two concurrent writers apart; mode 0666 lets the umask apply as usual.
        static std::atomic<unsigned> counter{0};
        size_t slash = path.rfind('/');
        std::string dir = slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
        std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
        for (int attempt = 0; attempt < 100 && d.fd < 0; ++attempt) {
          auto t = std::chrono::steady_clock::now().time_since_epoch().count();
          d.temp = dir + "." + base + ".tmp." + std::to_string(::getpid()) + "." +
                   std::to_string(counter.fetch_add(1)) + "." + std::to_string(t % 100000);
          d.fd = ::open(d.temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
          if (d.fd < 0 && errno != EEXIST) {
            int err = errno;
            d.temp.clear();
            d.fail("cannot create output", err);
          }
        }
        if (d.fd < 0) {
          d.temp.clear();
          d.fail("cannot create a temporary output file", EEXIST);
        }
        d.slot = register_temporary(d.temp);
      }
      if (ends_with(path, ".gz")) {
        d.gzip = true;
        // windowBits 15 + 16: a gzip wrapper, so any gzip reader (and our SequenceReader) can read it.
        if (::deflateInit2(&d.zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
          throw IoError(path + ": cannot start gzip compression");
        d.deflate_started = true;
      }
    }
  } catch (...) {
    d.discard();
    delete impl_;
    impl_ = nullptr;
    throw;
  }
}

OutputFile::~OutputFile() {
  if (impl_) {
    impl_->discard();
    delete impl_;
  }
}

OutputFile::OutputFile(OutputFile&& other) noexcept : impl_(other.impl_), path_(std::move(other.path_)) {
  other.impl_ = nullptr;
}

OutputFile& OutputFile::operator=(OutputFile&& other) noexcept {
  if (this != &other) {
    if (impl_) {
      impl_->discard();
      delete impl_;
    }
    impl_ = other.impl_;
    path_ = std::move(other.path_);
    other.impl_ = nullptr;
  }
  return *this;
}

bool OutputFile::is_open() const { return impl_ != nullptr; }

void OutputFile::write(std::string_view data) {
  if (!impl_) throw IoError(path_ + ": write to an output that is not open");
  try {
    impl_->write(data);
  } catch (...) {
    // A failed output is finished: drop the temporary now so nothing half-written is left even if the caller
    // keeps the object alive.
    impl_->discard();
    delete impl_;
    impl_ = nullptr;
    throw;
  }
}

void OutputFile::commit() {
  if (!impl_) throw IoError(path_ + ": commit of an output that is not open");
  Impl& d = *impl_;
  try {
    d.finish();
    if (d.own_fd) {
      int fd = d.fd;
      d.fd = -1;
      if (::close(fd) != 0) d.fail("close failed", errno);
    }
    if (!d.temp.empty()) {
      if (::rename(d.temp.c_str(), d.target.c_str()) != 0) d.fail("cannot rename the finished output into place", errno);
      d.temp.clear();
    }
  } catch (...) {
    d.discard();
    delete impl_;
    impl_ = nullptr;
    throw;
  }
  unregister_temporary(d.slot);
  d.slot = -1;
  delete impl_;
  impl_ = nullptr;
}

void OutputFile::remove_all_temporaries() noexcept {
  for (auto& s : g_slots)
    if (s.state.load() == 2) ::unlink(s.path);
}

namespace {
extern "C" void cleanup_and_reraise(int sig) {
  OutputFile::remove_all_temporaries();
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}
}  // namespace

void OutputFile::install_signal_cleanup() {
  struct sigaction sa {};
  sa.sa_handler = cleanup_and_reraise;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND;
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(sig, &sa, nullptr);
}

}  // namespace bloomseq
