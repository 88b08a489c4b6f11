#include "pipeline.h"

#include <algorithm>

#include <weft/error.h>

namespace weft::tokenizer {

JsonPath JsonPath::operator/(std::string_view key) const {
  return {file, path.empty() ? std::string(key) : path + "." + std::string(key)};
}
JsonPath JsonPath::operator[](size_t index) const { return {file, path + "[" + std::to_string(index) + "]"}; }
std::string JsonPath::str() const { return file + (path.empty() ? "" : ": " + path); }

void fail_at(const JsonPath& at, const std::string& what) { fail(ErrorCode::BadInput, at.str() + ": " + what); }
void unsupported(const JsonPath& at, const std::string& what) {
  fail(ErrorCode::BadInput, at.str() + ": " + what + " is not supported by Weft's tokenizer");
}

const Json& member(const Json& object, const char* key, const JsonPath& at) {
  if (!object.is_object()) fail_at(at, "expected an object");
  const auto it = object.find(key);
  if (it == object.end()) fail_at(at, std::string("missing \"") + key + "\"");
  return *it;
}

std::string string_member(const Json& object, const char* key, const JsonPath& at) {
  const Json& v = member(object, key, at);
  if (!v.is_string()) fail_at(at / key, "expected a string");
  return v.get<std::string>();
}

bool bool_member(const Json& object, const char* key, const JsonPath& at, std::optional<bool> fallback) {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) {
    if (fallback) return *fallback;
    fail_at(at, std::string("missing \"") + key + "\"");
  }
  if (!it->is_boolean()) fail_at(at / key, "expected true or false");
  return it->get<bool>();
}

uint64_t uint_member(const Json& object, const char* key, const JsonPath& at) {
  const Json& v = member(object, key, at);
  if (!v.is_number_unsigned()) fail_at(at / key, "expected a non-negative integer");
  return v.get<uint64_t>();
}

std::optional<std::string> optional_string(const Json& object, const char* key, const JsonPath& at) {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) return std::nullopt;
  if (!it->is_string()) fail_at(at / key, "expected a string or null");
  return it->get<std::string>();
}

void only_members(const Json& object, std::initializer_list<const char*> known, const JsonPath& at) {
  for (const auto& item : object.items()) {
    const std::string& key = item.key();
    if (key == "type") continue;
    if (std::none_of(known.begin(), known.end(), [&](const char* k) { return key == k; }))
      unsupported(at / key, "the option \"" + key + "\"");
  }
}

SplitBehavior split_behavior(const Json& j, const JsonPath& at) {
  if (!j.is_string()) fail_at(at, "expected a delimiter behaviour name");
  const std::string s = j.get<std::string>();
  if (s == "Removed") return SplitBehavior::Removed;
  if (s == "Isolated") return SplitBehavior::Isolated;
  if (s == "MergedWithPrevious") return SplitBehavior::MergedWithPrevious;
  if (s == "MergedWithNext") return SplitBehavior::MergedWithNext;
  if (s == "Contiguous") return SplitBehavior::Contiguous;
  unsupported(at, "the delimiter behaviour \"" + s + "\"");
}

namespace {

// Hugging Face's fold over (run, is_match): which runs join their neighbour.
std::vector<MatchRun> shape(std::vector<MatchRun> runs, SplitBehavior behavior) {
  std::vector<MatchRun> out;
  bool previous_match = false;
  switch (behavior) {
    case SplitBehavior::Isolated:
      for (auto& r : runs) r.is_match = false;
      return runs;
    case SplitBehavior::Removed: return runs;  // matches are dropped by the caller
    case SplitBehavior::Contiguous:
      for (const auto& r : runs) {
        if (r.is_match == previous_match && !out.empty()) out.back().end = r.end;
        else out.push_back({r.begin, r.end, false});
        previous_match = r.is_match;
      }
      return out;
    case SplitBehavior::MergedWithPrevious:
      for (const auto& r : runs) {
        if (r.is_match && !previous_match && !out.empty()) out.back().end = r.end;
        else out.push_back({r.begin, r.end, false});
        previous_match = r.is_match;
      }
      return out;
    case SplitBehavior::MergedWithNext:
      for (auto r = runs.rbegin(); r != runs.rend(); ++r) {
        if (r->is_match && !previous_match && !out.empty()) out.back().begin = r->begin;
        else out.push_back({r->begin, r->end, false});
        previous_match = r->is_match;
      }
      std::reverse(out.begin(), out.end());
      return out;
  }
  return runs;
}

}  // namespace

void split_piece(const Split& piece, std::vector<MatchRun> runs, SplitBehavior behavior, std::vector<Split>& out) {
  for (const MatchRun& r : shape(std::move(runs), behavior)) {
    if (r.is_match || r.end == r.begin) continue;
    out.push_back({piece.text.substr(r.begin, r.end - r.begin), piece.at_origin && r.begin == 0, std::nullopt});
  }
}

}  // namespace weft::tokenizer
