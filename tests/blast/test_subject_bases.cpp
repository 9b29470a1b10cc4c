// blastn's bases at a subject's ambiguity codes (subject_bases.hpp). The expected bases were read from blastn
// 2.12's own packed subject (its BLAST_SequenceBlk, two bits a base, as its gapped stage receives it): DWV's first
// 16 N (bundled data/bee-viruses/dwv.fa), and 22 IUPAC codes in a 600-base record. The rest follows from how they
// are drawn: batches, windows and .2bit records give the same bases and keep where the codes were.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "bloomseq/blast/database.hpp"
#include "bloomseq/blast/nucleotide_score.hpp"
#include "bloomseq/blast/record_windows.hpp"
#include "bloomseq/blast/subject_bases.hpp"
#include "bloomseq/encode/dna.hpp"
#include "bloomseq/io/sequence_reader.hpp"

using namespace bloomseq;

TEST_CASE("subject ambiguity codes become blastn's bases", "[subject_bases]") {
  SECTION("the N of DWV") {
    const auto records = read_all_sequences(std::string(BLOOMSEQ_DATA_DIR) + "/bee-viruses/dwv.fa");
    REQUIRE(records.size() == 1);
    const std::string& seq = records[0].seq;
    REQUIRE(seq.size() == 10140);
    const std::vector<std::pair<size_t, char>> want = {
        {153, 'C'}, {172, 'T'}, {264, 'A'}, {300, 'T'}, {308, 'T'}, {384, 'A'}, {432, 'A'}, {555, 'A'},
        {1020, 'G'}, {1085, 'G'}, {1133, 'G'}, {1167, 'G'}, {1203, 'A'}, {1374, 'T'}, {1432, 'A'}, {1473, 'G'}};
    std::vector<uint8_t> codes(seq.size());
    std::vector<AmbiguousRun> runs;
    SubjectBaseResolver resolver(seq.size());
    encode_subject_text(seq.data(), seq.size(), codes.data(), resolver, 0, runs);
    for (const auto& [pos, base] : want) {
      INFO("position " << pos);
      REQUIRE(base_code(seq[pos]) == kInvalidBase);
      REQUIRE(code_base(codes[pos]) == base);
    }
    // Every other base as it is, and the runs are exactly the ambiguous positions.
    size_t ambiguous = 0;
    for (size_t i = 0; i < seq.size(); ++i)
      if (base_code(seq[i]) < 4) REQUIRE(codes[i] == base_code(seq[i]));
      else ++ambiguous;
    size_t in_runs = 0;
    for (const AmbiguousRun& r : runs) {
      REQUIRE(r.code == kInvalidBase);  // DWV's are all N
      for (uint64_t k = r.begin; k < r.end; ++k) REQUIRE(base_code(seq[size_t(k)]) == kInvalidBase);
      in_runs += size_t(r.end - r.begin);
    }
    REQUIRE(in_runs == ambiguous);
    REQUIRE(ambiguous == 69);
    // The true codes come back where they were.
    std::vector<uint8_t> buffer;
    const uint8_t* back = true_subject_codes(codes.data(), 1100, 100, runs, buffer);
    for (size_t i = 0; i < 100; ++i) REQUIRE(back[i] == base_code(seq[1100 + i]));
    REQUIRE(true_subject_codes(codes.data(), 1140, 20, runs, buffer) == codes.data() + 1140);  // no code there
  }
  SECTION("IUPAC codes take one of the bases they allow, and keep the true code") {
    const std::string codes_in_order = "RYMKSWBDHVNrymkswbdhvn";
    const std::string want = "GTATGATAAGAACCGCTCACAT";
    SubjectBaseResolver resolver(600);
    for (size_t i = 0; i < codes_in_order.size(); ++i) {
      INFO(codes_in_order[i]);
      REQUIRE(code_base(resolver.base_for(codes_in_order[i])) == want[i]);
    }
    REQUIRE(true_ambiguity_code('R') == kIupacCodeBase + (1 | 4));
    REQUIRE(true_ambiguity_code('b') == kIupacCodeBase + (2 | 4 | 8));
    REQUIRE(true_ambiguity_code('N') == kInvalidBase);
    REQUIRE(true_ambiguity_code('-') == kInvalidBase);
    // Text with codes of several kinds: runs split where the code changes; the true codes come back.
    const std::string text = "ACRRNNYGT";
    std::vector<uint8_t> codes(text.size());
    std::vector<AmbiguousRun> runs;
    SubjectBaseResolver r2(text.size());
    encode_subject_text(text.data(), text.size(), codes.data(), r2, 0, runs);
    REQUIRE(runs.size() == 3);
    std::vector<uint8_t> buffer;
    const uint8_t* t = true_subject_codes(codes.data(), 0, text.size(), runs, buffer);
    for (size_t i = 0; i < text.size(); ++i)
      REQUIRE(t[i] == (base_code(text[i]) < 4 ? base_code(text[i]) : true_ambiguity_code(text[i])));
  }
}

TEST_CASE("blastn's subject bases are the same in a batch, in windows and from decoded codes", "[subject_bases]") {
  const auto records = read_all_sequences(std::string(BLOOMSEQ_DATA_DIR) + "/bee-viruses/dwv.fa");
  const std::string& seq = records[0].seq;
  std::vector<uint8_t> want(seq.size());
  std::vector<AmbiguousRun> want_runs;
  SubjectBaseResolver resolver(seq.size());
  encode_subject_text(seq.data(), seq.size(), want.data(), resolver, 0, want_runs);

  // A batch with a record before it: positions are the batch's.
  DbBatch batch;
  batch.blastn_bases = true;
  batch.add_record("first", "ACGTNNACGT");
  batch.begin_record("dwv", seq.size());
  for (size_t from = 0; from < seq.size(); from += 1000) batch.append_text(seq.data() + from, std::min<size_t>(1000, seq.size() - from));
  batch.end_record();
  const uint64_t at = batch.local_starts[1];
  for (size_t i = 0; i < seq.size(); ++i) REQUIRE(batch.codes[at + i] == want[i]);
  REQUIRE(batch.ambiguous.size() == want_runs.size() + 1);
  REQUIRE(batch.ambiguous[0].begin == 4);
  REQUIRE(batch.ambiguous[0].end == 6);
  for (size_t k = 0; k < want_runs.size(); ++k) {
    REQUIRE(batch.ambiguous[k + 1].begin == want_runs[k].begin + at);
    REQUIRE(batch.ambiguous[k + 1].end == want_runs[k].end + at);
  }

  // Decoded codes (a .2bit record's N blocks are kInvalidBase): N's bases.
  std::vector<uint8_t> decoded(seq.size());
  for (size_t i = 0; i < seq.size(); ++i) decoded[i] = base_code(seq[i]);
  DbBatch from_codes;
  from_codes.blastn_bases = true;
  from_codes.add_record_codes("dwv", seq.size(), [&](uint8_t* out) { std::copy(decoded.begin(), decoded.end(), out); });
  for (size_t i = 0; i < seq.size(); ++i) REQUIRE(from_codes.codes[i] == want[i]);  // DWV's codes are all N

  // Windows: each window's codes and ambiguous positions are the record's.
  size_t windows = 0;
  RecordWindows w("dwv", 0, 0, seq.size(), 2048, 512, [&](const DbBatch& win) {
    ++windows;
    const uint64_t off = win.window.offset;
    for (uint64_t i = 0; i < win.lengths[0]; ++i) REQUIRE(win.codes[size_t(i)] == want[size_t(off + i)]);
    std::vector<uint8_t> buffer;
    const uint8_t* t = true_subject_codes(win.codes.data(), 0, win.lengths[0], win.ambiguous, buffer);
    for (uint64_t i = 0; i < win.lengths[0]; ++i) REQUIRE(t[i] == base_code(seq[size_t(off + i)]));
  }, true);
  for (size_t from = 0; from < seq.size(); from += 777) w.append_text(seq.data() + from, std::min<size_t>(777, seq.size() - from));
  REQUIRE(w.finish());
  REQUIRE(windows >= 4);
}
