// A minimal streaming JSON writer for the --stats/--json outputs (objects, arrays, strings, numbers).
// Numbers are written with enough digits to round-trip; NaN and infinities become null (valid JSON).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace bloomseq {

class JsonWriter {
 public:
  JsonWriter& begin_object(std::string_view key = {});
  JsonWriter& end_object();
  JsonWriter& begin_array(std::string_view key = {});
  JsonWriter& end_array();
  JsonWriter& value(std::string_view key, std::string_view v);
  JsonWriter& value(std::string_view key, const char* v) { return value(key, std::string_view(v)); }
  JsonWriter& value(std::string_view key, double v);
  JsonWriter& value(std::string_view key, int64_t v);
  JsonWriter& value(std::string_view key, uint64_t v);
  JsonWriter& value(std::string_view key, int v) { return value(key, int64_t(v)); }
  JsonWriter& value(std::string_view key, bool v);
  const std::string& str() const { return out_; }

 private:
  void key(std::string_view k);
  std::string out_;
  std::vector<bool> first_;  // per open container: nothing written yet
  int depth() const { return int(first_.size()); }
};

std::string json_escape(std::string_view s);

}  // namespace bloomseq
