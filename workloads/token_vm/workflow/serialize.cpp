#include "serialize.h"

#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>
#include <weft/error.h>
#include <weft/input_file.h>

namespace weft::token_vm {

namespace {

using json = nlohmann::json;

constexpr const char* kFormat = "weft.token_vm.workflow";
constexpr size_t kMaxDepth = 32;  // the form nests 3 deep; anything deeper is not a workflow

struct FlagName {
  uint32_t bit;
  const char* name;
};
constexpr FlagName kFlags[] = {{kAdvanceActive, "advance"}, {kJumpActive, "jump"}, {kInput, "input"},
                               {kOutput, "output"}, {kLoopDecision, "loop_decision"}};

json index_or_null(uint32_t v) { return v == kNone ? json(nullptr) : json(v); }

json zone_json(const Zone& z) {
  json flags = json::array();
  for (const FlagName& f : kFlags)
    if (z.flags & f.bit) flags.push_back(f.name);
  return json{{"next_addr", z.next_addr},
              {"jump_addr", index_or_null(z.jump_addr)},
              {"flags", flags},
              {"tool_id", index_or_null(z.tool_id)},
              {"token_start", z.token_start},
              {"token_end", z.token_end},
              {"tags", z.tags},
              {"timeout", z.timeout},
              {"close_pattern", index_or_null(z.close_pattern)},
              {"loop", index_or_null(z.loop)},
              {"sequence", index_or_null(z.sequence)},
              {"block", z.block},
              {"zone_in_block", z.zone_in_block}};
}

// ---- loading ---------------------------------------------------------------------------------

class Reader {
 public:
  explicit Reader(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void bad(const std::string& path, const std::string& what) const {
    fail(ErrorCode::BadInput, source_ + ": " + path + ": " + what);
  }

  const json& key(const json& obj, const std::string& path, const char* name) const {
    auto it = obj.find(name);
    if (it == obj.end()) bad(path + "." + name, "missing");
    return *it;
  }
  void only_keys(const json& obj, const std::string& path, std::initializer_list<const char*> known) const {
    if (!obj.is_object()) bad(path, "expected an object");
    const std::set<std::string> k(known.begin(), known.end());
    for (auto it = obj.begin(); it != obj.end(); ++it)
      if (!k.count(it.key())) bad(path + "." + it.key(), "unknown key");
  }
  uint32_t u32(const json& v, const std::string& path) const {
    if (!v.is_number_unsigned() || v.get<uint64_t>() > 0xFFFFFFFFull) bad(path, "expected an unsigned 32-bit integer");
    return v.get<uint32_t>();
  }
  uint32_t u32_or_none(const json& v, const std::string& path) const {
    if (v.is_null()) return kNone;
    const uint32_t x = u32(v, path);
    if (x == kNone) bad(path, "4294967295 is reserved for 'none' (write null)");
    return x;
  }
  std::string str(const json& v, const std::string& path) const {
    if (!v.is_string()) bad(path, "expected a string");
    return v.get<std::string>();
  }
  const json& array(const json& v, const std::string& path) const {
    if (!v.is_array()) bad(path, "expected an array");
    return v;
  }
  template <class T, class F>
  std::vector<T> list(const json& obj, const std::string& path, const char* name, F&& each, bool required) const {
    std::vector<T> out;
    auto it = obj.find(name);
    if (it == obj.end()) {
      if (required) bad(path + "." + name, "missing");
      return out;
    }
    const json& a = array(*it, path + "." + name);
    for (size_t i = 0; i < a.size(); ++i) out.push_back(each(a[i], path + "." + name + "[" + std::to_string(i) + "]"));
    return out;
  }

 private:
  std::string source_;
};

// Line and column (1-based) of a byte offset, for parse errors.
std::string line_col(std::string_view text, size_t byte) {
  size_t line = 1, col = 1;
  for (size_t i = 0; i < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return std::to_string(line) + ":" + std::to_string(col);
}

// Deeply nested input is refused before parsing (the parsed tree is freed recursively).
}  // namespace

std::string workflow_to_json(const Workflow& w) {
  json zones = json::array();
  for (const Zone& z : w.zones) zones.push_back(zone_json(z));
  json loops = json::array();
  for (const Loop& l : w.loops) loops.push_back({{"min", l.min}, {"max", l.max}});
  json patterns = json::array();
  for (const Pattern& p : w.patterns)
    patterns.push_back({{"token_start", p.token_start}, {"token_end", p.token_end}, {"byte_start", p.byte_start}, {"byte_end", p.byte_end}});
  json extractions = json::array();
  for (const Extraction& e : w.extractions) extractions.push_back({{"name", e.name}, {"tags", e.tags}});
  const json j = {{"format", kFormat},
                  {"version", kWorkflowFormatVersion},
                  {"match_mode", w.match_mode == MatchMode::Byte ? "byte" : "token"},
                  {"pad_token", w.pad_token},
                  {"control_pattern", index_or_null(w.control_pattern)},
                  {"escape_open", index_or_null(w.escape_open)},
                  {"escape_close", index_or_null(w.escape_close)},
                  {"tags", w.tags},
                  {"tools", w.tools},
                  {"sequences", w.sequences},
                  {"extractions", extractions},
                  {"loops", loops},
                  {"patterns", patterns},
                  {"pattern_tokens", w.pattern_tokens},
                  {"pattern_bytes", w.pattern_bytes},
                  {"token_data", w.token_data},
                  {"zones", zones}};
  json out = j;
  if (!w.tokenizer.empty()) out["tokenizer"] = w.tokenizer;
  if (!w.zone_allowed.empty()) {
    json zone_allowed = json::array();
    for (uint32_t a : w.zone_allowed) zone_allowed.push_back(index_or_null(a));
    out["zone_allowed"] = zone_allowed;
    out["allowed_sets"] = w.allowed_sets;
  }
  return out.dump(1) + "\n";
}

Workflow workflow_from_json(std::string_view text, const std::string& source) {
  check_json_nesting(text, source, kMaxDepth);
  json j;
  try {
    j = json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    std::string what = e.what();
    const size_t colon = what.rfind(": ");
    fail(ErrorCode::BadInput, source + ":" + line_col(text, e.byte == 0 ? 0 : e.byte - 1) + ": malformed JSON" +
                                  (colon == std::string::npos ? "" : what.substr(colon)));
  } catch (const json::exception& e) {
    // Not a syntax error but still unreadable, e.g. a number too large for a double (1e999).
    fail(ErrorCode::BadInput, source + ": unreadable JSON: " + e.what());
  }
  const Reader r(source);
  const std::string top = "workflow";
  r.only_keys(j, top, {"format", "version", "match_mode", "pad_token", "control_pattern", "escape_open", "escape_close", "tags",
                       "tools", "sequences", "extractions", "loops", "patterns", "pattern_tokens", "pattern_bytes", "token_data",
                       "zones", "tokenizer", "zone_allowed", "allowed_sets"});
  if (r.str(r.key(j, top, "format"), "format") != kFormat) r.bad("format", std::string("expected \"") + kFormat + "\"");
  const uint32_t version = r.u32(r.key(j, top, "version"), "version");
  if (version != kWorkflowFormatVersion)
    r.bad("version", "version " + std::to_string(version) + " is not supported (this build reads " +
                         std::to_string(kWorkflowFormatVersion) + ")");
  Workflow w;
  auto opt = [&](const char* name) -> const json* {
    auto it = j.find(name);
    return it == j.end() ? nullptr : &*it;
  };
  if (const json* m = opt("match_mode")) {
    const std::string mode = r.str(*m, "match_mode");
    if (mode == "token") w.match_mode = MatchMode::Token;
    else if (mode == "byte") w.match_mode = MatchMode::Byte;
    else r.bad("match_mode", "expected \"token\" or \"byte\", got \"" + mode + "\"");
  }
  if (const json* v = opt("pad_token")) w.pad_token = r.u32(*v, "pad_token");
  if (const json* v = opt("tokenizer")) w.tokenizer = r.str(*v, "tokenizer");
  if (const json* v = opt("control_pattern")) w.control_pattern = r.u32_or_none(*v, "control_pattern");
  if (const json* v = opt("escape_open")) w.escape_open = r.u32_or_none(*v, "escape_open");
  if (const json* v = opt("escape_close")) w.escape_close = r.u32_or_none(*v, "escape_close");
  auto string_item = [&](const json& v, const std::string& p) { return r.str(v, p); };
  auto u32_item = [&](const json& v, const std::string& p) { return r.u32(v, p); };
  w.tags = r.list<std::string>(j, top, "tags", string_item, false);
  w.tools = r.list<std::string>(j, top, "tools", string_item, false);
  w.sequences = r.list<std::string>(j, top, "sequences", string_item, false);
  w.extractions = r.list<Extraction>(j, top, "extractions", [&](const json& v, const std::string& p) {
    r.only_keys(v, p, {"name", "tags"});
    return Extraction{r.str(r.key(v, p, "name"), p + ".name"), r.u32(r.key(v, p, "tags"), p + ".tags")};
  }, false);
  w.loops = r.list<Loop>(j, top, "loops", [&](const json& v, const std::string& p) {
    r.only_keys(v, p, {"min", "max"});
    return Loop{r.u32(r.key(v, p, "min"), p + ".min"), r.u32(r.key(v, p, "max"), p + ".max")};
  }, false);
  w.patterns = r.list<Pattern>(j, top, "patterns", [&](const json& v, const std::string& p) {
    r.only_keys(v, p, {"token_start", "token_end", "byte_start", "byte_end"});
    return Pattern{r.u32(r.key(v, p, "token_start"), p + ".token_start"), r.u32(r.key(v, p, "token_end"), p + ".token_end"),
                   r.u32(r.key(v, p, "byte_start"), p + ".byte_start"), r.u32(r.key(v, p, "byte_end"), p + ".byte_end")};
  }, true);
  w.pattern_tokens = r.list<Token>(j, top, "pattern_tokens", u32_item, true);
  w.pattern_bytes = r.list<uint8_t>(j, top, "pattern_bytes", [&](const json& v, const std::string& p) {
    const uint32_t b = r.u32(v, p);
    if (b > 255) r.bad(p, "a byte must be 0..255, got " + std::to_string(b));
    return uint8_t(b);
  }, true);
  w.token_data = r.list<Token>(j, top, "token_data", u32_item, true);
  w.zone_allowed = r.list<uint32_t>(j, top, "zone_allowed", [&](const json& v, const std::string& p) { return r.u32_or_none(v, p); }, false);
  w.allowed_sets = r.list<std::vector<Token>>(j, top, "allowed_sets", [&](const json& v, const std::string& p) {
    std::vector<Token> set;
    const json& a = r.array(v, p);
    for (size_t i = 0; i < a.size(); ++i) set.push_back(r.u32(a[i], p + "[" + std::to_string(i) + "]"));
    return set;
  }, false);
  w.zones = r.list<Zone>(j, top, "zones", [&](const json& v, const std::string& p) {
    r.only_keys(v, p, {"next_addr", "jump_addr", "flags", "tool_id", "token_start", "token_end", "tags", "timeout",
                       "close_pattern", "loop", "sequence", "block", "zone_in_block"});
    Zone z;
    z.next_addr = r.u32(r.key(v, p, "next_addr"), p + ".next_addr");
    auto field = [&](const char* name, uint32_t& out, bool none_ok) {
      auto it = v.find(name);
      if (it != v.end()) out = none_ok ? r.u32_or_none(*it, p + "." + name) : r.u32(*it, p + "." + name);
    };
    field("jump_addr", z.jump_addr, true);
    field("tool_id", z.tool_id, true);
    field("token_start", z.token_start, false);
    field("token_end", z.token_end, false);
    field("tags", z.tags, false);
    field("timeout", z.timeout, false);
    field("close_pattern", z.close_pattern, true);
    field("loop", z.loop, true);
    field("sequence", z.sequence, true);
    field("block", z.block, false);
    field("zone_in_block", z.zone_in_block, false);
    if (auto it = v.find("flags"); it != v.end()) {
      const json& flags = r.array(*it, p + ".flags");
      for (size_t i = 0; i < flags.size(); ++i) {
        const std::string fp = p + ".flags[" + std::to_string(i) + "]";
        const std::string name = r.str(flags[i], fp);
        bool found = false;
        for (const FlagName& f : kFlags)
          if (name == f.name) {
            z.flags |= f.bit;
            found = true;
          }
        if (!found) r.bad(fp, "unknown flag \"" + name + "\" (known: advance, jump, input, output, loop_decision)");
      }
    }
    return z;
  }, true);
  try {
    validate(w);
  } catch (const Error& e) {
    fail(ErrorCode::BadInput, source + ": " + e.what());
  }
  return w;
}

void save_workflow(const Workflow& w, const std::string& path) {
  validate(w);
  std::ofstream f(path, std::ios::binary);
  if (!f) fail(ErrorCode::BadInput, path + ": cannot open for writing");
  f << workflow_to_json(w);
  if (!f) fail(ErrorCode::BadInput, path + ": write failed");
}

Workflow load_workflow(const std::string& path) {
  return workflow_from_json(read_text_file(path, "cannot open"), path);
}

}  // namespace weft::token_vm
