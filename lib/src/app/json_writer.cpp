#include "bloomseq/app/json_writer.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace bloomseq {

std::string json_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += char(c);
        }
    }
  }
  return out;
}

void JsonWriter::key(std::string_view k) {
  if (!first_.empty()) {
    if (!first_.back()) out_ += ',';
    first_.back() = false;
    out_ += '\n';
    out_.append(size_t(2 * depth()), ' ');
  }
  if (!k.empty()) {
    out_ += '"';
    out_ += json_escape(k);
    out_ += "\": ";
  }
}

JsonWriter& JsonWriter::begin_object(std::string_view k) {
  key(k);
  out_ += '{';
  first_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::end_object() {
  const bool empty = first_.back();
  first_.pop_back();
  if (!empty) {
    out_ += '\n';
    out_.append(size_t(2 * depth()), ' ');
  }
  out_ += '}';
  if (first_.empty()) out_ += '\n';
  return *this;
}

JsonWriter& JsonWriter::begin_array(std::string_view k) {
  key(k);
  out_ += '[';
  first_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::end_array() {
  const bool empty = first_.back();
  first_.pop_back();
  if (!empty) {
    out_ += '\n';
    out_.append(size_t(2 * depth()), ' ');
  }
  out_ += ']';
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view k, std::string_view v) {
  key(k);
  out_ += '"';
  out_ += json_escape(v);
  out_ += '"';
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view k, double v) {
  key(k);
  if (!std::isfinite(v)) {
    out_ += "null";
  } else {
    // Shortest of %.15g / %.17g that reads back as the same double.
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.15g", v);
    if (std::strtod(buf, nullptr) != v) std::snprintf(buf, sizeof buf, "%.17g", v);
    out_ += buf;
  }
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view k, int64_t v) {
  key(k);
  out_ += std::to_string(v);
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view k, uint64_t v) {
  key(k);
  out_ += std::to_string(v);
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view k, bool v) {
  key(k);
  out_ += v ? "true" : "false";
  return *this;
}

}  // namespace bloomseq
