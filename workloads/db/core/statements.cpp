#include "statements.h"

#include <cctype>

namespace weft::db {

namespace {

// Where the token starting at `i` (a quote, a comment opener or one character) ends; npos when
// it is unfinished.
size_t skip_token(std::string_view t, size_t i) {
  const char c = t[i];
  if (c == '\'' || c == '"' || c == '`' || c == '[') {
    const char close = c == '[' ? ']' : c;
    for (size_t k = i + 1; k < t.size(); ++k) {
      if (t[k] != close) continue;
      if (close != ']' && k + 1 < t.size() && t[k + 1] == close) {  // a doubled quote stays inside
        ++k;
        continue;
      }
      return k + 1;
    }
    return std::string_view::npos;
  }
  if (t.substr(i, 2) == "--") {
    const size_t end = t.find('\n', i);
    return end == std::string_view::npos ? t.size() : end + 1;
  }
  if (t.substr(i, 2) == "/*") {
    const size_t end = t.find("*/", i + 2);
    return end == std::string_view::npos ? std::string_view::npos : end + 2;
  }
  return i + 1;
}

}  // namespace

size_t complete_statement_length(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    if (text[i] == ';') return i + 1;
    i = skip_token(text, i);
    if (i == std::string_view::npos) return 0;
  }
  return 0;
}

bool blank_sql(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    const size_t next = skip_token(text, i);
    const bool comment = text.substr(i, 2) == "--" || text.substr(i, 2) == "/*";
    if (!comment && text[i] != ';' && !std::isspace(static_cast<unsigned char>(text[i]))) return false;
    if (next == std::string_view::npos) return true;  // an unfinished comment
    i = next;
  }
  return true;
}

}  // namespace weft::db
