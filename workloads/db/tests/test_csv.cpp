// The CSV loader: type inference, NULL rules, quoting, line ends, schemas, and every malformed
// input refused with BadInput naming file:line:col.
#include <doctest/doctest.h>

#include <cstring>

#include <weft/error.h>

#include "csv.h"

using namespace weft;
using namespace weft::db;

namespace {

std::string error_of(const std::string& text, const std::optional<std::vector<SchemaColumn>>& schema = std::nullopt) {
  try {
    load_csv(text, "t", "f.csv", schema);
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::BadInput);
    const std::string m = e.what(), prefix = "bad input: ";
    return m.rfind(prefix, 0) == 0 ? m.substr(prefix.size()) : m;
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("db csv: types are inferred per column; empty unquoted fields are NULL") {
  const Table t = load_csv("a,b,c,d\n1,2.5,x,\n-7,3,\"\",\n,1e3,\"q,\"\"r\"\"\",\n", "t", "f.csv");
  REQUIRE(t.rows == 3);
  CHECK(t.columns[0].type == Type::Int);
  CHECK(t.columns[1].type == Type::Float);  // 3 is an integer, but 2.5 and 1e3 are not
  CHECK(t.columns[2].type == Type::Text);
  CHECK(t.columns[3].type == Type::Text);   // nothing to infer from: NULLs as text
  CHECK(t.columns[0].ints[1] == -7);
  CHECK(t.columns[0].nulls[2] == 1);
  CHECK(t.columns[1].floats[2] == 1000.0);
  CHECK(t.columns[2].strings[1].empty());   // quoted "" is the empty string, not NULL
  CHECK(t.columns[2].nulls[1] == 0);
  CHECK(t.columns[2].strings[2] == "q,\"r\"");
  CHECK(t.columns[3].nulls[0] == 1);
}

TEST_CASE("db csv: CRLF line ends, quoted newlines and a missing final newline") {
  const Table t = load_csv("id,note\r\n1,\"two\r\nlines\"\r\n2,end", "t", "f.csv");
  REQUIRE(t.rows == 2);
  CHECK(t.columns[1].strings[0] == "two\r\nlines");
  CHECK(t.columns[1].strings[1] == "end");
}

TEST_CASE("db csv: int64 limits are exact and one past them is not an int") {
  const Table t = load_csv("a\n9223372036854775807\n-9223372036854775808\n", "t", "f.csv");
  CHECK(t.columns[0].type == Type::Int);
  CHECK(t.columns[0].ints[0] == INT64_MAX);
  CHECK(t.columns[0].ints[1] == INT64_MIN);
  const Table u = load_csv("a\n9223372036854775808\n", "t", "f.csv");
  CHECK(u.columns[0].type == Type::Float);
}

TEST_CASE("db csv: a schema sets the types and is checked against the header") {
  const auto schema = parse_schema("a:float,b:text");
  const Table t = load_csv("a,b\n1,2\n", "t", "f.csv", schema);
  CHECK(t.columns[0].type == Type::Float);
  CHECK(t.columns[0].floats[0] == 1.0);
  CHECK(t.columns[1].strings[0] == "2");
  CHECK(error_of("a,b\n1,x\n", parse_schema("a:int,b:int")) ==
        "f.csv:2:3: column 'b' is int, 'x' is not a 64-bit integer");
  CHECK(error_of("a,c\n1,2\n", parse_schema("a:int,b:int")) == "f.csv:1:3: header column 'c' but the schema says 'b'");
  CHECK(error_of("a\n1\n", parse_schema("a:int,b:int")) == "f.csv:1:1: schema names 2 columns, the header 1");
  CHECK_THROWS_AS(parse_schema("a:decimal"), Error);
  CHECK_THROWS_AS(parse_schema("a"), Error);
}

TEST_CASE("db csv: malformed input names file:line:col") {
  CHECK(error_of("") == "f.csv:1:1: no header row (the first line must name the columns)");
  CHECK(error_of("a,b\n1,2\n3\n") == "f.csv:3:1: record has 1 fields, the header 2");
  CHECK(error_of("a,b\n1,2,3\n") == "f.csv:2:5: record has 3 fields, the header 2");
  CHECK(error_of("a,b\n1,\"open\n") == "f.csv:2:3: unterminated quoted field");
  CHECK(error_of("a,b\n1,x\"y\n") == "f.csv:2:4: quote inside an unquoted field");
  CHECK(error_of("a,b\n1,\"x\"y\n") == "f.csv:2:6: unexpected character 'y' after a closing quote");
  CHECK(error_of("a,a\n1,2\n") == "f.csv:1:3: column 'a' named twice");
  CHECK(error_of("a,\n1,2\n") == "f.csv:1:3: empty column name");
  CHECK(error_of(std::string("a\n1\0\n", 5)) == "f.csv:2:2: NUL byte in the text");
}
