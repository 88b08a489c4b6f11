#include "json_lite.h"

#include <weft/error.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace weft::hyp::json {

namespace {

class Parser {
 public:
  Parser(const std::string& t, const std::string& name) : t_(t), name_(name) {}

  Value document() {
    Value v = value(0);
    skip();
    if (pos_ != t_.size()) error("trailing characters");
    return v;
  }

 private:
  [[noreturn]] void error(const std::string& what) const {
    fail(ErrorCode::BadInput, name_ + ": " + what + " at offset " + std::to_string(pos_));
  }
  void skip() {
    while (pos_ < t_.size() && std::strchr(" \t\r\n", t_[pos_])) ++pos_;
  }
  bool literal(const char* word) {
    const size_t n = std::strlen(word);
    if (t_.compare(pos_, n, word) != 0) return false;
    pos_ += n;
    return true;
  }
  Value value(int depth) {
    if (depth > 64) error("nesting too deep");
    skip();
    if (pos_ >= t_.size()) error("unexpected end");
    Value v;
    const char c = t_[pos_];
    if (c == '{') {
      v.kind = Value::Kind::Object;
      ++pos_;
      skip();
      if (pos_ < t_.size() && t_[pos_] == '}') return ++pos_, v;
      for (;;) {
        skip();
        std::string key = string();
        skip();
        if (pos_ >= t_.size() || t_[pos_] != ':') error("expected ':'");
        ++pos_;
        v.fields.emplace_back(std::move(key), value(depth + 1));
        skip();
        if (pos_ < t_.size() && t_[pos_] == ',') {
          ++pos_;
          continue;
        }
        if (pos_ < t_.size() && t_[pos_] == '}') return ++pos_, v;
        error("expected ',' or '}'");
      }
    }
    if (c == '[') {
      v.kind = Value::Kind::Array;
      ++pos_;
      skip();
      if (pos_ < t_.size() && t_[pos_] == ']') return ++pos_, v;
      for (;;) {
        v.items.push_back(value(depth + 1));
        skip();
        if (pos_ < t_.size() && t_[pos_] == ',') {
          ++pos_;
          continue;
        }
        if (pos_ < t_.size() && t_[pos_] == ']') return ++pos_, v;
        error("expected ',' or ']'");
      }
    }
    if (c == '"') {
      v.kind = Value::Kind::String;
      v.text = string();
      return v;
    }
    if (literal("null")) return v;
    if (literal("true")) {
      v.kind = Value::Kind::Bool;
      v.boolean = true;
      return v;
    }
    if (literal("false")) {
      v.kind = Value::Kind::Bool;
      return v;
    }
    v.kind = Value::Kind::Number;
    if (literal("NaN")) {
      v.number = NAN;
      return v;
    }
    if (literal("Infinity")) {
      v.number = INFINITY;
      return v;
    }
    if (literal("-Infinity")) {
      v.number = -INFINITY;
      return v;
    }
    const char* start = t_.c_str() + pos_;
    char* end = nullptr;
    v.number = std::strtod(start, &end);
    if (end == start) error("unexpected character");
    pos_ += size_t(end - start);
    return v;
  }
  std::string string() {
    if (pos_ >= t_.size() || t_[pos_] != '"') error("expected a string");
    ++pos_;
    std::string out;
    while (pos_ < t_.size() && t_[pos_] != '"') {
      char c = t_[pos_++];
      if (c == '\\') {
        if (pos_ >= t_.size()) break;
        const char e = t_[pos_++];
        switch (e) {
          case 'n':
            c = '\n';
            break;
          case 't':
            c = '\t';
            break;
          case 'r':
            c = '\r';
            break;
          case 'b':
            c = '\b';
            break;
          case 'f':
            c = '\f';
            break;
          case 'u': {  // fixture keys are ASCII; keep other code points as '?'
            if (pos_ + 4 > t_.size()) error("bad \\u escape");
            const long cp = std::strtol(t_.substr(pos_, 4).c_str(), nullptr, 16);
            pos_ += 4;
            c = cp < 128 ? char(cp) : '?';
            break;
          }
          default:
            c = e;
        }
      }
      out.push_back(c);
    }
    if (pos_ >= t_.size()) error("unterminated string");
    ++pos_;
    return out;
  }

  const std::string& t_;
  const std::string& name_;
  size_t pos_ = 0;
};

}  // namespace

const Value* Value::find(const std::string& key) const {
  for (const auto& [k, v] : fields)
    if (k == key) return &v;
  return nullptr;
}

const Value& Value::at(const std::string& key, const std::string& where) const {
  const Value* v = find(key);
  if (!v) fail(ErrorCode::BadInput, where + ": missing '" + key + "'");
  return *v;
}

double Value::as_number(const std::string& where) const {
  if (kind != Kind::Number) fail(ErrorCode::BadInput, where + ": expected a number");
  return number;
}

const std::string& Value::as_string(const std::string& where) const {
  if (kind != Kind::String) fail(ErrorCode::BadInput, where + ": expected a string");
  return text;
}

Value parse(const std::string& text, const std::string& name) { return Parser(text, name).document(); }

Value parse_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) fail(ErrorCode::BadInput, path + ": cannot open");
  std::ostringstream s;
  s << f.rdbuf();
  return parse(s.str(), path);
}

}  // namespace weft::hyp::json
