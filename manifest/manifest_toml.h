// Reading TOML with errors that name the manifest file, the key path and the problem.
// Internal to the manifest parser (not installed).
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include <toml++/toml.h>

#include <weft/error.h>

namespace weft::manifest_detail {

[[noreturn]] inline void bad_at_line(const std::string& file, const std::string& key, const std::string& problem,
                                     uint32_t line) {
  fail(ErrorCode::BadInput, file + ": " + (key.empty() ? "" : key + ": ") + problem +
                                (line ? " (line " + std::to_string(line) + ")" : std::string()));
}

inline uint32_t line_of(const toml::node* n) { return n ? uint32_t(n->source().begin.line) : 0; }

[[noreturn]] inline void bad(const std::string& file, const std::string& key, const std::string& problem,
                             const toml::node* at = nullptr) {
  bad_at_line(file, key, problem, line_of(at));
}

// A string value with where it was written: references stay text until the program is built.
struct Located {
  std::string text;
  std::string key;
  uint32_t line = 0;
};

inline const char* type_name(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a float";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::array: return "an array";
    case toml::node_type::table: return "a table";
    default: return "a date/time";
  }
}

// A number as written: integers stay integers (never carried in a double).
struct Number {
  bool is_int = true;
  int64_t i = 0;
  double d = 0;
  double as_double() const { return is_int ? double(i) : d; }
};

// One TOML table being read: every key must be one the schema knows.
class Table {
 public:
  Table(const std::string& file, const toml::table& t, std::string path, std::initializer_list<const char*> known)
      : file_(file), t_(t), path_(std::move(path)) {
    for (auto&& [k, v] : t) {
      bool ok = false;
      std::string list;
      for (const char* n : known) {
        ok = ok || k.str() == n;
        list += (list.empty() ? "" : ", ") + std::string(n);
      }
      if (!ok) {
        // TOML puts `chain = [...]` written after a [[table]] header inside that table.
        const std::string hint = k.str() == "chain" ? "; top-level keys such as chain go before the first [[...]] header" : "";
        bad(file_, key(std::string(k.str())), "unknown key (expected one of: " + list + ")" + hint, &v);
      }
    }
  }

  std::string key(const std::string& k) const { return path_.empty() ? k : path_ + "." + k; }
  const std::string& path() const { return path_; }
  const std::string& file() const { return file_; }
  const toml::node* get(const char* k) const { return t_.get(k); }
  bool has(const char* k) const { return t_.contains(k); }
  const toml::table& raw() const { return t_; }

  [[noreturn]] void bad_key(const char* k, const std::string& problem) const { bad(file_, key(k), problem, get(k)); }
  [[noreturn]] void missing(const char* k, const std::string& hint = {}) const {
    bad(file_, key(k), "missing required key" + (hint.empty() ? std::string() : " (" + hint + ")"), &t_);
  }

  std::string str(const char* k, bool required, const std::string& fallback = {}) const {
    const toml::node* n = get(k);
    if (!n) {
      if (required) missing(k);
      return fallback;
    }
    if (!n->is_string()) bad(file_, key(k), std::string("expected a string, got ") + type_name(*n), n);
    return n->as_string()->get();
  }

  int64_t integer(const char* k, bool required, int64_t fallback, int64_t lo, int64_t hi) const {
    const toml::node* n = get(k);
    if (!n) {
      if (required) missing(k);
      return fallback;
    }
    return integer_node(*n, key(k), lo, hi);
  }

  int64_t integer_node(const toml::node& n, const std::string& where, int64_t lo, int64_t hi) const {
    if (!n.is_integer()) bad(file_, where, std::string("expected an integer, got ") + type_name(n), &n);
    const int64_t v = n.as_integer()->get();
    if (v < lo || v > hi)
      bad(file_, where, "value " + std::to_string(v) + " is outside [" + std::to_string(lo) + ", " + std::to_string(hi) + "]", &n);
    return v;
  }

  bool boolean(const char* k, bool fallback) const {
    const toml::node* n = get(k);
    if (!n) return fallback;
    if (!n->is_boolean()) bad(file_, key(k), std::string("expected true or false, got ") + type_name(*n), n);
    return n->as_boolean()->get();
  }

  Number number_node(const toml::node& n, const std::string& where) const {
    if (n.is_integer()) return {true, n.as_integer()->get(), 0};
    if (n.is_floating_point()) return {false, 0, n.as_floating_point()->get()};
    if (n.is_boolean()) return {true, n.as_boolean()->get() ? 1 : 0, 0};
    bad(file_, where, std::string("expected a number, got ") + type_name(n), &n);
  }

  bool number(const char* k, Number* out) const {
    const toml::node* n = get(k);
    if (!n) return false;
    *out = number_node(*n, key(k));
    return true;
  }

  const toml::array* array(const char* k) const {
    const toml::node* n = get(k);
    if (!n) return nullptr;
    if (!n->is_array()) bad(file_, key(k), std::string("expected an array, got ") + type_name(*n), n);
    return n->as_array();
  }

  // A string, or an array of strings (a single string is the common case of one).
  std::vector<Located> strings(const char* k) const {
    std::vector<Located> out;
    const toml::node* n = get(k);
    if (!n) return out;
    if (n->is_string()) return {{n->as_string()->get(), key(k), line_of(n)}};
    const toml::array* a = array(k);
    for (size_t i = 0; i < a->size(); ++i) {
      const std::string where = key(k) + "[" + std::to_string(i) + "]";
      if (!(*a)[i].is_string()) bad(file_, where, std::string("expected a string, got ") + type_name((*a)[i]), &(*a)[i]);
      out.push_back({(*a)[i].as_string()->get(), where, line_of(&(*a)[i])});
    }
    return out;
  }

  // An integer or an array of 1..3 integers: a dispatch size.
  std::array<uint32_t, 3> groups(const char* k) const {
    const toml::node* n = get(k);
    std::array<uint32_t, 3> g{1, 1, 1};
    if (n->is_integer()) {
      g[0] = uint32_t(integer_node(*n, key(k), 0, UINT32_MAX));
      return g;
    }
    if (!n->is_array() || n->as_array()->empty() || n->as_array()->size() > 3)
      bad(file_, key(k), std::string("expected an integer or an array of 1-3 integers, got ") +
                             (n->is_array() ? "an array of " + std::to_string(n->as_array()->size()) : type_name(*n)), n);
    const toml::array& a = *n->as_array();
    for (size_t i = 0; i < a.size(); ++i) g[i] = uint32_t(integer_node(a[i], key(k) + "[" + std::to_string(i) + "]", 0, UINT32_MAX));
    return g;
  }

 private:
  const std::string& file_;
  const toml::table& t_;
  std::string path_;
};

}  // namespace weft::manifest_detail

namespace weft {
struct Manifest;
namespace manifest_detail {
void parse_stages(Manifest& m, const Table& root);  // manifest_stages.cpp
}
}  // namespace weft
