// Reading fixture JSON (run.json, objects.json) with nlohmann::json. Internal to the workload:
// no public header includes it, so nlohmann stays a private dependency.
//
// Objects keep their key order (graph order comes from it; the first of duplicate keys wins),
// Python's NaN / Infinity / -Infinity literals are accepted as numbers, and every problem is a
// weft::Error (BadInput) naming the file and the key: no nlohmann exception leaves these functions.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace weft::hypothesis_update {

namespace fixture_json {

using Json = nlohmann::ordered_json;

// BadInput "<name>: <what>" on malformed text.
Json parse(const std::string& text, const std::string& name);

// Object member; nullptr when absent (or `v` is not an object).
const Json* find(const Json& v, const std::string& key);
// BadInput "<where>: missing '<key>'" when the member is absent.
const Json& at(const Json& v, const std::string& key, const std::string& where);
// Array item; BadInput naming `where` when `v` is not an array or `i` is out of range.
const Json& item(const Json& v, size_t i, const std::string& where);
// BadInput "<where>: expected a number / a string" when `v` is of another kind.
double as_number(const Json& v, const std::string& where);
// A whole number in [lo, hi] (counts and ids: NaN, 1e300 or 2.5 are refused, not cast); BadInput
// "<where>: expected a whole number in [lo, hi], got <v>" otherwise.
int64_t as_whole_number(const Json& v, const std::string& where, int64_t lo, int64_t hi);
// Whether x is a whole number in [lo, hi], decided on the double before any cast (a cast of NaN
// or of a value out of range is undefined): the check behind as_whole_number and .npy ids.
bool is_whole_number(double x, int64_t lo, int64_t hi);
const std::string& as_string(const Json& v, const std::string& where);

// BadInput "<name>: <what nlohmann says>": for the catch at each entry point that reads fixture
// JSON, so that no nlohmann exception escapes even where a check above was missed.
[[noreturn]] void fail_json(const std::string& name, const nlohmann::json::exception& e);

}  // namespace fixture_json

// All of a run.json; FixtureRun holds it behind a pointer so fixture_io.h needs no nlohmann.
struct RunJson {
  fixture_json::Json doc;
};

}  // namespace weft::hypothesis_update
