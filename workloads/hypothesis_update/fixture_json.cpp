#include "fixture_json.h"

#include <weft/error.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <unordered_set>
#include <vector>

namespace weft::hypothesis_update::fixture_json {

namespace {

constexpr int kMaxDepth = 64;

// Python's json writes NaN / Infinity / -Infinity, which nlohmann rejects. Outside strings they
// become a string holding DEL plus a tag, padded with blanks to the literal's length so the line
// and column nlohmann reports stay those of the file, and go back to numbers as they are parsed.
struct NonFinite {
  std::string literal, sentinel;
  double value;
};
const NonFinite kNonFinite[] = {
    {"NaN", "\x7f", std::numeric_limits<double>::quiet_NaN()},
    {"Infinity", "\x7f+", std::numeric_limits<double>::infinity()},
    {"-Infinity", "\x7f-", -std::numeric_limits<double>::infinity()},
};

std::string substitute_non_finite(std::string t) {
  bool in_string = false;
  for (size_t i = 0; i < t.size(); ++i) {
    const char c = t[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
      continue;
    }
    for (const NonFinite& n : kNonFinite) {
      if (t.compare(i, n.literal.size(), n.literal) != 0) continue;
      std::string quoted = "\"" + n.sentinel + "\"";
      quoted.resize(n.literal.size(), ' ');
      t.replace(i, n.literal.size(), quoted);
      i += n.literal.size() - 1;
      break;
    }
  }
  return t;
}

const NonFinite* non_finite(const Json& v) {
  if (!v.is_string()) return nullptr;
  const std::string& s = v.get_ref<const std::string&>();
  for (const NonFinite& n : kNonFinite)
    if (s == n.sentinel) return &n;
  return nullptr;
}

// "[json.exception.parse_error.101] parse error at ..." -> "parse error at ...".
std::string message(const nlohmann::json::exception& e) {
  std::string m = e.what();
  if (!m.empty() && m[0] == '[') {
    const size_t end = m.find("] ");
    if (end != std::string::npos) m.erase(0, end + 2);
  }
  return m;
}

}  // namespace

Json parse(const std::string& text, const std::string& name) {
  // Keys seen so far in each open object, by the object's depth: the first of duplicates wins.
  std::vector<std::unordered_set<std::string>> keys;
  const Json::parser_callback_t callback = [&](int depth, Json::parse_event_t event, Json& parsed) {
    if (depth > kMaxDepth) fail(ErrorCode::BadInput, name + ": nesting too deep");
    switch (event) {
      case Json::parse_event_t::object_start:
        if (keys.size() <= size_t(depth)) keys.resize(size_t(depth) + 1);
        keys[size_t(depth)].clear();
        return true;
      case Json::parse_event_t::key: {
        if (const NonFinite* n = non_finite(parsed))
          fail(ErrorCode::BadInput, name + ": expected a string key, got " + n->literal);
        if (depth < 1 || keys.size() < size_t(depth)) return true;
        return keys[size_t(depth) - 1].insert(parsed.get_ref<const std::string&>()).second;
      }
      case Json::parse_event_t::value:
        if (const NonFinite* n = non_finite(parsed)) parsed = n->value;
        return true;
      default:
        return true;
    }
  };
  try {
    return Json::parse(substitute_non_finite(text), callback);
  } catch (const nlohmann::json::exception& e) {
    fail_json(name, e);
  }
}

const Json* find(const Json& v, const std::string& key) {
  if (!v.is_object()) return nullptr;
  const auto it = v.find(key);
  return it == v.end() ? nullptr : &*it;
}

const Json& at(const Json& v, const std::string& key, const std::string& where) {
  const Json* m = find(v, key);
  if (!m) fail(ErrorCode::BadInput, where + ": missing '" + key + "'");
  return *m;
}

const Json& item(const Json& v, size_t i, const std::string& where) {
  if (!v.is_array()) fail(ErrorCode::BadInput, where + ": expected an array");
  if (i >= v.size())
    fail(ErrorCode::BadInput, where + ": no item " + std::to_string(i) + " (" + std::to_string(v.size()) + " items)");
  return v[i];
}

double as_number(const Json& v, const std::string& where) {
  if (!v.is_number()) fail(ErrorCode::BadInput, where + ": expected a number");
  return v.get<double>();
}

bool is_whole_number(double x, int64_t lo, int64_t hi) { return x >= double(lo) && x <= double(hi) && x == std::floor(x); }

int64_t as_whole_number(const Json& v, const std::string& where, int64_t lo, int64_t hi) {
  const double x = as_number(v, where);
  if (!is_whole_number(x, lo, hi))
    fail(ErrorCode::BadInput, where + ": expected a whole number in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " +
                                  (std::isnan(x) ? "NaN" : std::isinf(x) ? (x > 0 ? "Infinity" : "-Infinity") : v.dump()));
  return int64_t(x);
}

const std::string& as_string(const Json& v, const std::string& where) {
  if (!v.is_string()) fail(ErrorCode::BadInput, where + ": expected a string");
  return v.get_ref<const std::string&>();
}

void fail_json(const std::string& name, const nlohmann::json::exception& e) {
  fail(ErrorCode::BadInput, name + ": " + message(e));
}

}  // namespace weft::hypothesis_update::fixture_json
