#include "gzip_inflater.hpp"

#include <fcntl.h>
#include <htslib/bgzf.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#if defined(BLOOMSEQ_HAVE_ISAL)
#include <isa-l/igzip_lib.h>
#endif

namespace bloomseq {
namespace io_detail {

#if defined(BLOOMSEQ_HAVE_ISAL)

struct GzipInflater::State {
  inflate_state z;
  std::vector<uint8_t> in = std::vector<uint8_t>(size_t(4) << 20);
};

GzipInflater::GzipInflater(int fd) : s_(std::make_unique<State>()), fd_(fd) {
  isal_inflate_init(&s_->z);
  s_->z.crc_flag = ISAL_GZIP;  // header, trailer, CRC-32 and length checked by igzip
  s_->z.avail_in = 0;
}

std::unique_ptr<GzipInflater> GzipInflater::open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return nullptr;
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  return std::unique_ptr<GzipInflater>(new GzipInflater(fd));
}

GzipInflater::~GzipInflater() {
  if (fd_ >= 0) ::close(fd_);
}

ssize_t GzipInflater::fail(int code, int err) {
  failed_ = true;
  error_code_ = code;
  error_errno_ = err;
  return -1;
}

bool GzipInflater::refill() {
  if (input_end_) return false;
  inflate_state& z = s_->z;
  // Unconsumed bytes (a member's start) move to the front.
  if (z.avail_in) std::memmove(s_->in.data(), z.next_in, z.avail_in);
  size_t have = z.avail_in;
  if (have == s_->in.size()) s_->in.resize(2 * have);  // a header longer than the buffer (huge extra field)
  for (;;) {
    const ssize_t got = ::read(fd_, s_->in.data() + have, s_->in.size() - have);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      fail(BGZF_ERR_IO, errno);
      return false;
    }
    if (got == 0) input_end_ = true;
    have += size_t(got);
    break;
  }
  z.next_in = s_->in.data();
  z.avail_in = uint32_t(have);
  return have > 0;
}

ssize_t GzipInflater::read(char* dst, size_t n) {
  if (failed_) return -1;
  inflate_state& z = s_->z;
  for (;;) {
    if (member_done_) {  // another member, or the end
      if (z.avail_in < 2 && !input_end_) {
        refill();
        if (failed_) return -1;
      }
      if (z.avail_in == 0) return 0;
      // Anything but a gzip header after a member is damage, as htslib reports it.
      if (z.avail_in < 2 || z.next_in[0] != 0x1f || z.next_in[1] != 0x8b) return fail(BGZF_ERR_ZLIB);
      uint8_t* next = z.next_in;
      const uint32_t avail = z.avail_in;
      isal_inflate_reset(&z);
      z.crc_flag = ISAL_GZIP;
      z.next_in = next;
      z.avail_in = avail;
      member_done_ = false;
    }
    if (z.avail_in == 0 && !input_end_) {
      refill();
      if (failed_) return -1;
    }
    z.next_out = reinterpret_cast<uint8_t*>(dst);
    z.avail_out = uint32_t(n > UINT32_MAX ? UINT32_MAX : n);
    const uint32_t room = z.avail_out, fed = z.avail_in;
    const int r = isal_inflate(&z);
    const size_t produced = room - z.avail_out;
    if (r == ISAL_INCORRECT_CHECKSUM) return fail(BGZF_ERR_CRC);
    if (r == ISAL_INVALID_WRAPPER || r == ISAL_UNSUPPORTED_METHOD) return fail(BGZF_ERR_HEADER);
    if (r < 0) return fail(BGZF_ERR_ZLIB);
    if (z.block_state == ISAL_BLOCK_FINISH) member_done_ = true;
    if (produced) return ssize_t(produced);
    if (member_done_) continue;
    // Nothing came out although there was room: igzip wants more input than it has.
    if (input_end_) {
      if (z.avail_in == 0 || z.avail_in == fed) return fail(BGZF_ERR_ZLIB | BGZF_ERR_IO);  // truncated
    } else if (z.avail_in == fed) {
      refill();  // a member's header split by the buffer's end: append the rest
      if (failed_) return -1;
    }
  }
}

#else  // without ISA-L: the caller reads through htslib (zlib)

struct GzipInflater::State {};
GzipInflater::GzipInflater(int fd) : fd_(fd) {}
GzipInflater::~GzipInflater() {
  if (fd_ >= 0) ::close(fd_);
}
std::unique_ptr<GzipInflater> GzipInflater::open(const std::string&) { return nullptr; }
ssize_t GzipInflater::fail(int code, int err) {
  failed_ = true;
  error_code_ = code;
  error_errno_ = err;
  return -1;
}
bool GzipInflater::refill() { return false; }
ssize_t GzipInflater::read(char*, size_t) { return fail(BGZF_ERR_IO, ENOSYS); }

#endif

}  // namespace io_detail
}  // namespace bloomseq
