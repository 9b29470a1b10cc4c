// A record longer than a batch, searched in overlapping windows (DbBatch::window, RecordWindows): the windows tile
// the record with the promised context, and the search's HSPs are those of the whole record in one batch.
#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "blast/helpers.hpp"
#include "bloomseq/blast/database.hpp"
#include "bloomseq/blast/pipeline.hpp"
#include "bloomseq/blast/record_windows.hpp"
#include "bloomseq/encode/dna.hpp"

using namespace bloomseq;
using namespace blast_test;

namespace {

// The windows of `text` fed in random pieces.
std::vector<DbBatch> windows_of(const std::string& text, uint32_t record, uint64_t stream, uint64_t step,
                                uint64_t margin, std::mt19937_64& rng, bool* finished = nullptr) {
  std::vector<DbBatch> out;
  RecordWindows w("rec", record, stream, text.size(), step, margin, [&](const DbBatch& b) { out.push_back(b); });
  for (size_t at = 0; at < text.size();) {
    const size_t n = std::min(text.size() - at, size_t(1 + rng() % 3000));
    w.append_text(text.data() + at, n);
    at += n;
  }
  const bool ok = w.finish();
  if (finished) *finished = ok;
  return out;
}

// Plants `piece` in `s` at `at` with an insertion or deletion of a few bases every ~300 bases.
void plant_with_indels(std::mt19937_64& rng, std::string& s, size_t at, const std::string& piece) {
  std::string t;
  for (size_t i = 0; i < piece.size(); ++i) {
    if (i % 300 == 150) {
      if (rng() % 2) t += random_dna(rng, 1 + rng() % 3);
      else i += 1 + rng() % 3;
    }
    if (i < piece.size()) t += piece[i];
  }
  s.replace(at, std::min(t.size(), s.size() - at), t.substr(0, s.size() - at));
}

using HspKey = std::tuple<uint32_t, uint32_t, uint8_t, uint64_t, uint64_t, uint64_t, uint64_t, int64_t, uint64_t,
                          uint64_t, uint64_t, uint64_t, double, double>;
std::vector<HspKey> keys(const std::vector<Hsp>& hsps) {
  std::vector<HspKey> out;
  for (const Hsp& h : hsps)
    out.emplace_back(h.query, h.subject, h.strand, h.q_start, h.q_end, h.s_start, h.s_end, h.score, h.identities,
                     h.align_length, h.gaps, h.gap_opens, h.evalue, h.bits);
  return out;
}

}  // namespace

TEST_CASE("record windows: they tile the record, with the context promised", "[blast][windows]") {
  std::mt19937_64 rng(7);
  for (int rep = 0; rep < 60; ++rep) {
    const uint64_t length = 1 + rng() % 20000, step = 1 + rng() % 3000, margin = rng() % 2500;
    const uint64_t stream = rng() % 1000;
    const std::string text = random_dna(rng, size_t(length), 0.002);
    bool finished = false;
    const std::vector<DbBatch> ws = windows_of(text, 3, stream, step, margin, rng, &finished);
    INFO("rep " << rep << " length " << length << " step " << step << " margin " << margin);
    REQUIRE(finished);
    REQUIRE(!ws.empty());
    uint64_t owned = 0;
    for (const DbBatch& b : ws) {
      const DbBatch::Window& w = b.window;
      REQUIRE(w.on);
      REQUIRE(b.size() == 1);
      CHECK(b.first_record == 3);
      CHECK(w.record_length == length);
      CHECK(w.offset % 4 == 0);
      CHECK(w.own_begin == owned);  // consecutive, no gap, no overlap
      CHECK(w.own_end > w.own_begin);
      owned = w.own_end;
      const uint64_t data_end = w.offset + b.lengths[0];
      CHECK((w.offset == 0 || w.own_begin - w.offset >= margin));
      CHECK((data_end == length || data_end - w.own_end >= margin));
      CHECK(b.first_pos == stream + w.offset);
      REQUIRE(b.codes.size() == b.lengths[0] + 1);
      CHECK(b.codes.back() == kInvalidBase);
      bool same = true;
      for (uint64_t i = 0; i < b.lengths[0]; ++i) same = same && b.codes[i] == base_code(text[w.offset + i]);
      CHECK(same);
    }
    CHECK(owned == length);
  }
  // Text shorter or longer than the length given: finish() says so.
  std::mt19937_64 rng2(1);
  bool finished = true;
  RecordWindows shorter("r", 0, 0, 1000, 100, 50, [](const DbBatch&) {});
  shorter.append_text(std::string(999, 'A').data(), 999);
  CHECK(!shorter.finish());
  RecordWindows longer("r", 0, 0, 1000, 100, 50, [](const DbBatch&) {});
  longer.append_text(std::string(1001, 'A').data(), 1001);
  CHECK(!longer.finish());
  windows_of(std::string(500, 'C'), 0, 0, 64, 64, rng2, &finished);
  CHECK(finished);
}

TEST_CASE("record windows: a search in windows gives the whole record's HSPs", "[blast][windows]") {
  std::mt19937_64 rng(11);
  for (int rep = 0; rep < 8; ++rep) {
    const bool gapped = rep % 2 == 1;
    const int threads = 1 + (rep / 2) % 2;
    const bool probes = rep >= 4;  // strided probe words (stage 1a at every s-th stream position)
    const std::string base = random_dna(rng, 4000);
    Records q, db;
    q.names = {"qa", "qb"};
    q.seqs = {base.substr(0, 2500), revcomp(mutate(rng, base.substr(2000), 0.05))};
    std::string big = random_dna(rng, 120000, 0.0003);
    // Matches everywhere, many across window edges (the step below is 512 bases); gapped ones span many windows.
    for (size_t at = 3000; at + 5000 < big.size(); at += 9000 + rng() % 4000) {
      const size_t from = rng() % 1500, len = 800 + rng() % 2000;
      std::string piece = mutate(rng, base.substr(from, len), 0.03);
      if (rng() % 3 == 0) piece = revcomp(piece);
      if (rng() % 2) plant_with_indels(rng, big, at, piece);
      else big.replace(at, piece.size(), piece);
      // An N run just before or after the window edge nearest the piece's end.
      const size_t edge = (at + len) / 512 * 512;
      const size_t n_at = rng() % 2 ? edge - std::min<size_t>(edge, 1 + rng() % 20) : edge;
      big.replace(n_at, 1 + rng() % 30, std::string(1 + rng() % 30, 'N'));
      big.resize(120000, 'A');
    }
    db.names = {"before", "big", "after"};
    db.seqs = {mutate(rng, base.substr(100, 1500), 0.04), big, mutate(rng, base.substr(1000, 2000), 0.06)};
    BlastParams p;
    p.gapped = gapped;
    p.threads = threads;
    p.n_sub = 400;
    p.chunk_bases = 1024;
    if (probes) p.w = 20, p.probe_word = 16;
    auto whole_search = [&] {
      BlastSearch s(make_queries(q), p, totals_of(db));
      s.search(make_batch(db));
      return keys(s.finish());
    };
    BlastSearch s(make_queries(q), p, totals_of(db));
    DbBatch first;
    first.add_record(db.names[0], db.seqs[0]);
    s.search(first);
    const uint64_t big_stream = first.codes.size();
    size_t n_windows = 0;
    RecordWindows windows(db.names[1], 1, big_stream, big.size(), 500, s.window_margin(), [&](const DbBatch& b) {
      s.search(b);
      ++n_windows;
    });
    for (size_t at = 0; at < big.size(); at += 777) windows.append_text(big.data() + at, std::min<size_t>(777, big.size() - at));
    REQUIRE(windows.finish());
    DbBatch last;
    last.first_pos = big_stream + big.size() + 1;
    last.first_record = 2;
    last.add_record(db.names[2], db.seqs[2]);
    s.search(last);
    const std::vector<HspKey> got = keys(s.finish()), want = whole_search();
    INFO("rep " << rep << " gapped " << gapped << " threads " << threads << " probes " << probes << " windows "
                << n_windows);
    CHECK(n_windows > 100);
    REQUIRE(want.size() > 10);  // the planted matches are found
    CHECK(got == want);
  }
}

TEST_CASE("record windows: a window without the context the search needs is refused", "[blast][windows]") {
  std::mt19937_64 rng(3);
  Records q;
  q.names = {"q"};
  q.seqs = {random_dna(rng, 2000)};
  DbTotals totals;
  totals.bases = 100000;
  totals.records = 1;
  BlastSearch s(make_queries(q), BlastParams(), totals);
  const std::string text = random_dna(rng, 100000);
  RecordWindows narrow("r", 0, 0, text.size(), 10000, s.window_margin() / 2,
                       [&](const DbBatch& b) { s.search(b); });
  CHECK_THROWS_AS(narrow.append_text(text.data(), text.size()), std::logic_error);
}
