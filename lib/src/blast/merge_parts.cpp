#include "bloomseq/blast/merge_parts.hpp"

#include <zlib.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <queue>

#include "bloomseq/blast/part_file.hpp"
#include "bloomseq/blast/tabular.hpp"
#include "bloomseq/error.hpp"
#include "bloomseq/io/output_file.hpp"

namespace bloomseq {
namespace {

// Lines of a part file, plain or gzip (what OutputFile writes for a .gz path).
class LineReader {
 public:
  explicit LineReader(const std::string& path) : path_(path) {
    f_ = gzopen(path.c_str(), "rb");
    if (!f_) throw NoInputError(path + ": cannot open");
    gzbuffer(f_, 1 << 17);
  }
  ~LineReader() {
    if (f_) gzclose(f_);
  }
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;
  // The next line without its newline; false at the end. A last line without a newline is a truncated file.
  bool next(std::string& line) {
    line.clear();
    for (;;) {
      if (at_ == buf_.size()) {
        buf_.resize(1 << 16);
        const int n = gzread(f_, &buf_[0], unsigned(buf_.size()));
        if (n < 0) throw DataError(path_ + ": read error (corrupt or truncated)");
        buf_.resize(size_t(n));
        at_ = 0;
        if (n == 0) {
          if (!line.empty()) throw DataError(path_ + ": truncated part file (last line has no newline)");
          return false;
        }
      }
      const size_t nl = buf_.find('\n', at_);
      if (nl == std::string::npos) {
        line.append(buf_, at_, std::string::npos);
        at_ = buf_.size();
        if (line.size() > (size_t(1) << 20)) throw DataError(path_ + ": corrupt part file (line too long)");
        continue;
      }
      line.append(buf_, at_, nl - at_);
      at_ = nl + 1;
      return true;
    }
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  gzFile f_ = nullptr;
  std::string buf_;
  size_t at_ = 0;
};

struct Part {
  std::unique_ptr<LineReader> in;
  PartHeader header;
  std::string line;
  PartKey key;
  size_t tabular_at = 0;
  uint64_t lines = 0;
  bool has_line = false;

  // Reads the next HSP line into `line`/`key`; false at the trailer (checked: count, nothing after it).
  bool advance() {
    const std::string& path = in->path();
    const PartKey previous = key;
    if (!in->next(line)) throw DataError(path + ": truncated part file (no end line)");
    if (line.compare(0, 5, kPartTrailerPrefix) == 0) {
      if (line != std::string(kPartTrailerPrefix) + std::to_string(lines))
        throw DataError(path + ": corrupt part file (end line does not match its " + std::to_string(lines) +
                        " HSP lines)");
      std::string extra;
      if (in->next(extra)) throw DataError(path + ": corrupt part file (lines after the end line)");
      has_line = false;
      return false;
    }
    if (!parse_part_hsp_line(line, key, tabular_at))
      throw DataError(path + ": corrupt part file (HSP line " + std::to_string(lines + 1) + ")");
    if (lines > 0 && part_key_less(key, previous))
      throw DataError(path + ": corrupt part file (HSP line " + std::to_string(lines + 1) + " out of order)");
    ++lines;
    has_line = true;
    return true;
  }
};

}  // namespace

void merge_parts(const std::string& output, const std::vector<std::string>& paths) {
  if (paths.empty()) throw UsageError("merge needs at least one part file");
  std::vector<Part> parts(paths.size());
  for (size_t i = 0; i < paths.size(); ++i) {
    parts[i].in.reset(new LineReader(paths[i]));
    std::string first;
    if (!parts[i].in->next(first)) throw DataError(paths[i] + ": empty file, not a blast-bloom part file");
    parts[i].header = parse_part_header(first, paths[i]);
  }
  // One search, every shard exactly once.
  const PartHeader& h0 = parts[0].header;
  const uint64_t cells = uint64_t(h0.db.count) * h0.query.count;
  if (cells > (uint64_t(1) << 24)) throw DataError(paths[0] + ": too many shards to merge");
  std::vector<size_t> owner(cells, SIZE_MAX);
  for (size_t i = 0; i < parts.size(); ++i) {
    const PartHeader& h = parts[i].header;
    if (h.identity != h0.identity || h.header != h0.header)
      throw DataError(paths[i] + ": from another search than " + paths[0] +
                      " (other parameters, inputs or program version)");
    if (h.db.count != h0.db.count || h.query.count != h0.query.count)
      throw DataError(paths[i] + ": cut into db " + std::to_string(h.db.count) + " x query " +
                      std::to_string(h.query.count) + " shards, but " + paths[0] + " into " +
                      std::to_string(h0.db.count) + " x " + std::to_string(h0.query.count));
    size_t& o = owner[size_t(h.db.index - 1) * h0.query.count + (h.query.index - 1)];
    if (o != SIZE_MAX)
      throw DataError(paths[i] + ": duplicate part (db " + std::to_string(h.db.index) + "/" +
                      std::to_string(h.db.count) + ", query " + std::to_string(h.query.index) + "/" +
                      std::to_string(h.query.count) + " is also " + paths[o] + ")");
    o = i;
  }
  for (size_t c = 0; c < cells; ++c)
    if (owner[c] == SIZE_MAX)
      throw DataError("missing part: db " + std::to_string(c / h0.query.count + 1) + "/" +
                      std::to_string(h0.db.count) + ", query " + std::to_string(c % h0.query.count + 1) + "/" +
                      std::to_string(h0.query.count) + " (given " + std::to_string(paths.size()) + " of " +
                      std::to_string(cells) + " parts)");

  OutputFile out(output);
  std::string buf;
  if (h0.header) {
    // The identity names the columns (" outfmt=qseqid,sseqid,..."): the header is theirs.
    const size_t at = h0.identity.find(" outfmt=");
    if (at == std::string::npos) throw DataError(paths[0] + ": its identity does not name the output columns");
    const size_t from = at + 8, to = std::min(h0.identity.find(' ', from), h0.identity.size());
    try {
      buf = tabular_header(outfmt_from_token(h0.identity.substr(from, to - from))) + '\n';
    } catch (const UsageError&) {
      throw DataError(paths[0] + ": unknown output columns in its identity");
    }
  }
  // -max_target_seqs (" max_target_seqs=N" in the identity; absent from parts of older versions: all): each
  // shard kept its best N subjects per query; of those, the best N overall. (A shard chose its candidates for the
  // traceback among its own subjects, so a subject that the single run would not have traced is possible here, if
  // rare: docs/blast-bloom.md.)
  uint64_t max_subjects = 0;
  if (const size_t at = h0.identity.find(" max_target_seqs="); at != std::string::npos)
    max_subjects = std::strtoull(h0.identity.c_str() + at + 17, nullptr, 10);
  uint64_t last_query = UINT64_MAX, last_subject = UINT64_MAX, subjects = 0;
  // Ties between parts cannot happen (a subject and a query are in one part each); the part's grid position
  // breaks them anyway, so that the output never depends on the argument order.
  const auto cell = [&](size_t i) { return uint64_t(parts[i].header.db.index) * 65537 + parts[i].header.query.index; };
  const auto later = [&](size_t a, size_t b) {
    if (part_key_less(parts[a].key, parts[b].key)) return false;
    if (part_key_less(parts[b].key, parts[a].key)) return true;
    return cell(a) > cell(b);
  };
  std::priority_queue<size_t, std::vector<size_t>, decltype(later)> heap(later);
  for (size_t i = 0; i < parts.size(); ++i)
    if (parts[i].advance()) heap.push(i);
  while (!heap.empty()) {
    const size_t i = heap.top();
    heap.pop();
    Part& p = parts[i];
    if (p.key.query != last_query) last_query = p.key.query, last_subject = UINT64_MAX, subjects = 0;
    if (p.key.subject != last_subject) last_subject = p.key.subject, ++subjects;
    if (max_subjects == 0 || subjects <= max_subjects) {
      buf.append(p.line, p.tabular_at, std::string::npos);
      buf += '\n';
    }
    if (buf.size() > (1 << 20)) {
      out.write(buf);
      buf.clear();
    }
    if (p.advance()) heap.push(i);
  }
  out.write(buf);
  out.commit();
}

}  // namespace bloomseq
