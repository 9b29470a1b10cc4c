// Record starts in plain FASTA/FASTQ text, found and counted without parsing, so that a shard of a sharded run can
// begin at a byte offset of a mapped file instead of reading everything before it.
//
// FASTA: a record starts at every line beginning with '>' (the reader refuses '>' inside sequence lines).
// FASTQ: only single-line records are recognised: a line beginning with '@' is a record start when the next line
// (the sequence) begins with neither '@' nor '+', the line after it begins with '+' and the fourth line (the
// quality) is as long as the sequence. A quality line beginning with '@' is never taken for a header: the line
// after it is the next header (or blank, or the end), which cannot be a sequence line. In multi-line FASTQ a
// wrapped quality line can pass the test; a shard cut there ends inside a record, which the reader then refuses.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace bloomseq {

// Whether a single-line FASTQ record (rule above) starts at `at`, which must be a line start.
bool single_line_fastq_at(std::string_view text, size_t at);

// '@' or '>' for the first non-blank line's first character; 0 if it is neither (or the text is blank).
// `at` gets that line's offset.
char text_format(std::string_view text, size_t& at);

// The first record start (rule above, `format` '@' or '>') at or after `from`; text.size() if there is none.
size_t next_record_start(std::string_view text, size_t from, char format);

// Counts over [0, at) by one vectorised pass over the bytes: newlines, and records (FASTA: lines beginning with
// '>'; FASTQ: lines / 4, exact where every record before `at` is four lines and no blank line lies between).
struct RecordCount {
  uint64_t lines = 0, records = 0;
};
RecordCount count_records_before(std::string_view text, size_t at, char format);

// Where record `k` (0-based, counted as above) starts, with the counts before it; text.size() and the whole
// text's counts when the text holds k records or fewer.
size_t find_record(std::string_view text, uint64_t k, char format, RecordCount& before);

}  // namespace bloomseq
