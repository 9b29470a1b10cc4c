// The JSON writer behind --stats: structure, escaping, non-finite numbers.
#include <catch2/catch.hpp>

#include <cmath>

#include "bloomseq/app/json_writer.hpp"

using namespace bloomseq;

TEST_CASE("JSON writer nests, escapes and keeps numbers exact", "[json]") {
  JsonWriter j;
  j.begin_object().value("name", "a\"b\\c\n").value("n", uint64_t(18446744073709551615ull)).value("x", 0.1);
  j.begin_array("list").value("", int64_t(-1)).value("", true).end_array();
  j.value("nan", std::nan("")).begin_object("empty").end_object().end_object();
  CHECK(j.str() ==
        "{\n  \"name\": \"a\\\"b\\\\c\\n\",\n  \"n\": 18446744073709551615,\n  \"x\": 0.1,\n"
        "  \"list\": [\n    -1,\n    true\n  ],\n  \"nan\": null,\n  \"empty\": {}\n}\n");
  CHECK(json_escape(std::string(1, '\x01')) == "\\u0001");
}
