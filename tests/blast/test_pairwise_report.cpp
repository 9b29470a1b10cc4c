// The pairwise report's pieces against what blastn 2.12 prints (the expected texts are blastn's, copied from its
// reports); the whole report is compared with live blastn in tests/cli/blast_pairwise_vs_blastn.sh.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "bloomseq/blast/pairwise_report.hpp"

using namespace bloomseq;

TEST_CASE("report lines wrap at 68 columns as blastn wraps them", "[pairwise]") {
  // blastn: "Query= gi|9626243|ref|NC_001416.1| Enterobacteria phage lambda, complete" / "genome".
  CHECK(wrap_report_line("gi|9626243|ref|NC_001416.1| Enterobacteria phage lambda, complete genome") ==
        std::vector<std::string>{"gi|9626243|ref|NC_001416.1| Enterobacteria phage lambda, complete", "genome"});
  // blastn: "Database: User specified sequence set (Input:" / "/work/main/data/ecoli_536_200k.fa)."
  CHECK(wrap_report_line("User specified sequence set (Input: /work/main/data/ecoli_536_200k.fa).") ==
        std::vector<std::string>{"User specified sequence set (Input:", "/work/main/data/ecoli_536_200k.fa)."});
  // 68 characters stay on one line; a word longer than a line is cut at 68.
  const std::string x68(68, 'x'), y137(137, 'y');
  CHECK(wrap_report_line(x68) == std::vector<std::string>{x68});
  CHECK(wrap_report_line(y137) == std::vector<std::string>{std::string(68, 'y'), std::string(68, 'y'), "y"});
  // Without blanks a comma before column 68 is the break, after the comma.
  const std::string commas = std::string(60, 'a') + "," + std::string(20, 'b');
  CHECK(wrap_report_line(commas) == std::vector<std::string>{std::string(60, 'a') + ",", std::string(20, 'b')});
  // The blanks of a run that straddles the break stay at the line's end but for the last.
  const std::string run = std::string(65, 'a') + "   " + std::string(10, 'b');
  CHECK(wrap_report_line(run) == std::vector<std::string>{std::string(65, 'a') + "  ", std::string(10, 'b')});
}

TEST_CASE("subject titles are tidied as blastn shows them", "[pairwise]") {
  // blastn: ">subj1 synthetic subject, with repeats;  and  spaces .." is shown as below.
  CHECK(report_subject_title("subj1 synthetic subject, with repeats;  and  spaces ..") ==
        "subj1 synthetic subject, with repeats; and spaces");
  CHECK(report_subject_title("foo ,bar ; baz") == "foo, bar; baz");
  CHECK(report_subject_title("paren ( inner ) x") == "paren (inner) x");
  CHECK(report_subject_title("a,,b") == "a, b");
  CHECK(report_subject_title("x &amp; y") == "x & y");
  CHECK(report_subject_title("NC_008253.1:1-200000 Escherichia coli 536, complete genome, first 200000 bp") ==
        "NC_008253.1:1-200000 Escherichia coli 536, complete genome, first 200000 bp");
}

TEST_CASE("E-values and percentages as the report prints them", "[pairwise]") {
  CHECK(report_evalue(0.0) == "0.0");
  CHECK(report_evalue(1e-181) == "0.0");
  CHECK(report_evalue(9.2e-173) == "9e-173");
  CHECK(report_evalue(2.3e-45) == "2e-45");
  CHECK(report_evalue(0.055) == "0.055");
  CHECK(report_evalue(0.67) == "0.67");
  CHECK(report_evalue(3.4) == "3.4");
  CHECK(report_evalue(39.2) == "39");
  CHECK(report_percent(25, 28) == 89);
  CHECK(report_percent(1, 28) == 4);
  CHECK(report_percent(1, 200) == 1);    // 0.5 rounds up
  CHECK(report_percent(999, 1000) == 99);  // never 100 unless equal
  CHECK(report_percent(20, 20) == 100);
  CHECK(report_percent(0, 20) == 0);
}

TEST_CASE("the report of one alignment", "[pairwise]") {
  PairwiseSettings s;
  s.version = "x";
  s.database = "db.fa";
  s.db_letters = 1234567;
  s.db_sequences = 2;
  PairwiseQuery q;
  q.title = "q1 a query";
  q.length = 100;
  q.ungapped = KarlinParams{0.634, 0.408, 0, 0.912, 0, 0};
  q.gapped = KarlinParams{0.625, 0.410, 0, 0.780, 0, 0};
  q.search_space = 9693939624.0;
  q.masked = {{10, 11}};
  TabularHit h;
  h.subject = "s1";
  h.s_title = "s1 the subject.";
  h.s_len = 1000;
  h.q_start = 10, h.q_end = 14, h.s_start = 1000, h.s_end = 995;  // minus strand: subject coordinates fall
  h.qseq = "ACG-TA";
  h.sseq = "ACGGTC";
  h.bits = 12.3, h.score = 11, h.evalue = 0.5;
  const std::string r = pairwise_query_report(s, q, {h});
  CHECK_THAT(r, Catch::Contains("\n\nQuery= q1 a query\n\nLength=100\n"));
  CHECK_THAT(r, Catch::Contains("s1 the subject" + std::string(54, ' ') + "  12.3    0.50 \n"));
  CHECK_THAT(r, Catch::Contains("> s1 the subject\nLength=1000\n\n Score = 12.3 bits (11),  Expect = 0.50\n"));
  CHECK_THAT(r, Catch::Contains(" Identities = 4/6 (67%), Gaps = 1/6 (17%)\n Strand=Plus/Minus\n"));
  // Masked bases 11 and 12 (1-based) in lower case; the numbers' field: 3 digits (999) and two blanks.
  CHECK_THAT(r, Catch::Contains("Query  10   Acg-TA  14\n            ||| | \nSbjct  1000 ACGGTC  995\n\n\n"));
  CHECK_THAT(r, Catch::Contains("Lambda      K        H\n   0.634    0.408    0.912 \n\nGapped\n"));
  CHECK_THAT(r, Catch::EndsWith("Effective search space used: 9693939624\n"));
  const std::string none = pairwise_query_report(s, PairwiseQuery{"empty", 0, {}, {}, 0}, {});
  CHECK(none == "\n\nQuery= empty\n\nLength=0\n\n\n***** No hits found *****\n\n\n\n\n\nEffective search space used: 0\n");
  CHECK_THAT(pairwise_header(s), Catch::EndsWith("Database: User specified sequence set (Input: db.fa).\n"
                                                 "           2 sequences; 1,234,567 total letters\n\n"));
  CHECK_THAT(pairwise_footer(s), Catch::EndsWith("Matrix: blastn matrix 2 -3\nGap Penalties: Existence: 5, Extension: 2\n"));
  s.gap_open = s.gap_extend = 0, s.reward = 1, s.penalty = -2;
  CHECK_THAT(pairwise_footer(s), Catch::EndsWith("Gap Penalties: Existence: 0, Extension: 2.5\n"));
}

TEST_CASE("blastn's XML: an iteration, a record without sequence, escaped titles", "[pairwise]") {
  PairwiseSettings s;
  s.version = "x";
  PairwiseQuery q;
  q.title = "q1  two  spaces..";
  q.length = 100;
  q.gapped = KarlinParams{0.625, 0.41, 0, 0.78, 0, 0};
  q.search_space = 9693939624.0;
  q.length_adjustment = 26;
  q.ordinal = 2;
  TabularHit h;
  h.subject = "s3";
  h.s_title = "s3 a&b <c>";
  h.subject_ordinal = 3;
  h.s_len = 1000;
  h.q_start = 10, h.q_end = 14, h.s_start = 1000, h.s_end = 995;
  h.qseq = "ACG-TA";
  h.sseq = "ACGGTC";
  h.bits = 37.35374, h.score = 40, h.evalue = 1e-200;
  const std::string x = xml_report_iteration(s, q, {h});
  // As blastn 2.12 writes them (its values for these inputs).
  CHECK_THAT(x, Catch::Contains("  <Iteration_query-ID>Query_2</Iteration_query-ID>\n"
                                "  <Iteration_query-def>q1 two spaces</Iteration_query-def>\n"));
  CHECK_THAT(x, Catch::Contains("  <Hit_id>s3</Hit_id>\n  <Hit_def>s3 a&amp;b &lt;c&gt;</Hit_def>\n"
                                "  <Hit_accession>Subject_3</Hit_accession>\n"));
  CHECK_THAT(x, Catch::Contains("<Hsp_bit-score>37.3537</Hsp_bit-score>\n      <Hsp_score>40</Hsp_score>\n"
                                "      <Hsp_evalue>0</Hsp_evalue>\n"));
  CHECK_THAT(x, Catch::Contains("<Hsp_hit-frame>-1</Hsp_hit-frame>\n      <Hsp_identity>4</Hsp_identity>\n"
                                "      <Hsp_positive>4</Hsp_positive>\n      <Hsp_gaps>1</Hsp_gaps>\n"));
  CHECK_THAT(x, Catch::Contains("<Hsp_midline>||| | </Hsp_midline>"));
  CHECK_THAT(x, Catch::Contains("<Statistics_hsp-len>26</Statistics_hsp-len>\n"
                                "      <Statistics_eff-space>9693939624</Statistics_eff-space>\n"
                                "      <Statistics_kappa>0.41</Statistics_kappa>\n"));
  PairwiseQuery empty;
  empty.title = "empty  record  ";
  empty.ordinal = 3;
  const std::string e = xml_report_iteration(s, empty, {});
  CHECK_THAT(e, Catch::Contains("<Statistics_kappa>-1</Statistics_kappa>"));
  CHECK_THAT(e, Catch::Contains("  <Iteration_message>Query_3 empty  record:  Query_3 empty  record: Sequence "
                                "contains no data  No hits found</Iteration_message>\n</Iteration>\n"));
  CHECK_THAT(xml_report_header(s, q), Catch::Contains("<Parameters_filter>L;m;</Parameters_filter>"));
  CHECK(xml_report_footer() == "</BlastOutput_iterations>\n</BlastOutput>\n\n");
}

TEST_CASE("blastn's JSON: a report per query, masks shown where they start in the alignment", "[pairwise]") {
  PairwiseSettings s;
  s.version = "x";
  PairwiseQuery q;
  q.title = "q1";
  q.length = 100;
  q.gapped = KarlinParams{0.625, 0.41, 0, 0.78, 0, 0};
  q.masked = {{5, 10}, {12, 12}};  // the first starts before the alignment (base 10, 1-based): not shown
  TabularHit h;
  h.subject = "s1";
  h.s_title = "s1 \"quoted\"";
  h.subject_ordinal = 1;
  h.q_start = 10, h.q_end = 14, h.s_start = 1, h.s_end = 5;
  h.qseq = "ACGTA";
  h.sseq = "ACGTA";
  h.s_masked = {{0, 4}};  // the subjects' lower case is not shown in JSON
  const std::string j = json_report(s, q, {h}, 2, true);
  CHECK_THAT(j, Catch::StartsWith("{\n\"BlastOutput2\": [\n{\n    \"report\": {\n"));
  CHECK_THAT(j, Catch::Contains("        \"subjects\": [\n          \"Subject_1\",\n          \"Subject_2\"\n        ]\n"));
  CHECK_THAT(j, Catch::Contains("\"title\": \"s1 \\\"quoted\\\"\"\n"));
  CHECK_THAT(j, Catch::Contains("\"qseq\": \"ACGtA\",\n                    \"hseq\": \"ACGTA\",\n"));
  CHECK_THAT(j, Catch::Contains("\"query_masking\": [\n              {\n                \"from\": 5,\n"));
  CHECK_THAT(j, Catch::EndsWith("              \"entropy\": 0.78\n            }\n          }\n        ]\n      }\n    }\n  }\n"));
  PairwiseQuery none;
  none.title = "q2";
  none.length = 50;
  none.ordinal = 2;
  const std::string k = json_report(s, none, {}, 2, false);
  CHECK_THAT(k, Catch::StartsWith(",\n{\n"));
  CHECK_THAT(k, Catch::Contains("\"hits\": [\n            ],\n"));
  CHECK_THAT(k, Catch::Contains("            },\n            \"message\": \"No hits found\"\n          }\n"));
  CHECK(json_report_footer() == "]\n}\n");
}
