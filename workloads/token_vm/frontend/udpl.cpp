#include "udpl.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <toml++/toml.h>

#include <weft/error.h>
#include <weft/input_file.h>
#include <workflow.h>

namespace weft::token_vm {
namespace fs = std::filesystem;
namespace {

constexpr int64_t kMaxCount = int64_t(1) << 31;  // timeouts and token lengths
constexpr int64_t kMaxRepeats = 4096;            // block copies from one entry

uint32_t line_of(const toml::node* n) { return n ? uint32_t(n->source().begin.line) : 0; }

std::string located(const std::string& file, uint32_t line) {
  return line ? file + ":" + std::to_string(line) : file;
}

const char* type_name(const toml::node& n) {
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

// Where a value sits: the prefix of every message about it.
struct Where {
  std::string file;
  std::string scope;  // "[config]" or "sequence 'S' block B"
  [[noreturn]] void bad(const std::string& field, const toml::node* at, const std::string& what) const {
    fail(ErrorCode::BadInput, at_field(field, at) + ": " + what);
  }
  std::string at_field(const std::string& field, const toml::node* at) const {
    return located(file, line_of(at)) + ": " + scope + ": field '" + field + "'";
  }
};

std::vector<std::string> string_list(const Where& w, const toml::table& t, const char* field, bool required,
                                     size_t min_count) {
  const toml::node* n = t.get(field);
  if (!n) {
    if (required) w.bad(field, &t, "missing");
    return {};
  }
  if (!n->is_array()) w.bad(field, n, std::string("expected an array of strings, got ") + type_name(*n));
  const toml::array& a = *n->as_array();
  std::vector<std::string> out;
  for (size_t i = 0; i < a.size(); ++i) {
    const std::string f = std::string(field) + "[" + std::to_string(i) + "]";
    if (!a[i].is_string()) w.bad(f, &a[i], std::string("expected a string, got ") + type_name(a[i]));
    std::string s = a[i].as_string()->get();
    if (s.empty()) w.bad(f, &a[i], "must not be empty");
    if (std::find(out.begin(), out.end(), s) != out.end()) w.bad(f, &a[i], "'" + s + "' appears twice");
    out.push_back(std::move(s));
  }
  if (out.size() < min_count)
    w.bad(field, n, "needs at least " + std::to_string(min_count) + " entries, has " + std::to_string(out.size()));
  return out;
}

std::string string_value(const Where& w, const toml::table& t, const char* field, bool required) {
  const toml::node* n = t.get(field);
  if (!n) {
    if (required) w.bad(field, &t, "missing");
    return {};
  }
  if (!n->is_string()) w.bad(field, n, std::string("expected a string, got ") + type_name(*n));
  return n->as_string()->get();
}

int64_t integer_value(const Where& w, const toml::node* n, const std::string& field, int64_t lo, int64_t hi) {
  if (!n->is_integer()) w.bad(field, n, std::string("expected an integer, got ") + type_name(*n));
  const int64_t v = n->as_integer()->get();
  if (v < lo || v > hi)
    w.bad(field, n, "value " + std::to_string(v) + " is outside [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return v;
}

void check_keys(const Where& w, const toml::table& t, std::initializer_list<const char*> known) {
  for (auto&& [k, v] : t) {
    bool ok = false;
    std::string list;
    for (const char* name : known) {
      ok = ok || k.str() == name;
      list += (list.empty() ? "" : ", ") + std::string(name);
    }
    if (!ok) w.bad(std::string(k.str()), &v, "unknown key (expected one of: " + list + ")");
  }
}

// No pattern may contain another: the matcher recognises a pattern where it ends, so a pattern
// inside another would fire part-way through it (and equal patterns are ambiguous).
void check_patterns_distinct(const Where& w, const toml::table& t, const UdplConfig& c) {
  std::vector<std::pair<std::string, std::string>> named;  // field, pattern
  for (size_t i = 0; i < c.zone_patterns.size(); ++i)
    named.push_back({"zone_patterns[" + std::to_string(i) + "]", c.zone_patterns[i]});
  named.push_back({"control_pattern", c.control_pattern});
  if (!c.escape_open.empty()) {
    named.push_back({"escape_patterns[0]", c.escape_open});
    named.push_back({"escape_patterns[1]", c.escape_close});
  }
  for (size_t i = 0; i < named.size(); ++i)
    for (size_t j = 0; j < named.size(); ++j)
      if (i != j && named[j].second.find(named[i].second) != std::string::npos) {
        const std::string field = named[std::max(i, j)].first;
        const toml::node* at = t.get(field.substr(0, field.find('[')));
        w.bad(field, at, named[i].second == named[j].second
                             ? "pattern '" + named[i].second + "' is also " + named[std::min(i, j)].first
                             : "pattern '" + named[i].second + "' (" + named[i].first + ") occurs inside pattern '" +
                                   named[j].second + "' (" + named[j].first + "); no pattern may contain another");
      }
}

UdplConfig parse_config(const std::string& file, const toml::node& node) {
  const Where w{file, "[config]"};
  if (!node.is_table()) w.bad("config", &node, std::string("expected a table, got ") + type_name(node));
  const toml::table& t = *node.as_table();
  check_keys(w, t, {"zone_patterns", "required_patterns", "valid_tags", "default_max_token_length", "sequences",
                    "control_pattern", "escape_patterns", "tools"});
  UdplConfig c;
  c.zone_patterns = string_list(w, t, "zone_patterns", true, 2);
  c.required_patterns = string_list(w, t, "required_patterns", false, 0);
  for (size_t i = 0; i < c.required_patterns.size(); ++i)
    if (std::find(c.zone_patterns.begin(), c.zone_patterns.end(), c.required_patterns[i]) == c.zone_patterns.end())
      w.bad("required_patterns[" + std::to_string(i) + "]", t.get("required_patterns"),
            "'" + c.required_patterns[i] + "' is not one of zone_patterns");
  c.valid_tags = string_list(w, t, "valid_tags", true, 0);
  if (c.valid_tags.size() > kMaxTags)
    w.bad("valid_tags", t.get("valid_tags"), std::to_string(c.valid_tags.size()) + " tags; at most 32");
  const toml::node* dm = t.get("default_max_token_length");
  if (!dm) w.bad("default_max_token_length", &t, "missing");
  c.default_max_token_length = uint32_t(integer_value(w, dm, "default_max_token_length", 1, kMaxCount));
  c.sequences = string_list(w, t, "sequences", true, 1);
  for (size_t i = 0; i < c.sequences.size(); ++i)
    if (c.sequences[i] == "config")
      w.bad("sequences[" + std::to_string(i) + "]", t.get("sequences"), "'config' is reserved for the [config] table");
  c.control_pattern = string_value(w, t, "control_pattern", true);
  if (c.control_pattern.empty()) w.bad("control_pattern", t.get("control_pattern"), "must not be empty");
  if (t.contains("escape_patterns")) {
    const std::vector<std::string> e = string_list(w, t, "escape_patterns", false, 0);
    if (e.size() != 2)
      w.bad("escape_patterns", t.get("escape_patterns"),
            "needs exactly 2 patterns (open, close), has " + std::to_string(e.size()));
    c.escape_open = e[0];
    c.escape_close = e[1];
  }
  c.tools = string_list(w, t, "tools", false, 0);
  check_patterns_distinct(w, t, c);
  return c;
}

Placeholder parse_placeholder(const Where& w, const std::string& name, const toml::node& node) {
  const toml::table& t = *node.as_table();
  for (auto&& [k, v] : t)
    if (k.str() != "name" && k.str() != "type" && k.str() != "arguments")
      w.bad(name + "." + std::string(k.str()), &v, "unknown key (expected one of: name, type, arguments)");
  Placeholder p;
  p.name = name;
  p.resource = name;
  if (const toml::node* n = t.get("name")) {
    if (!n->is_string() || n->as_string()->get().empty())
      w.bad(name + ".name", n, "expected a non-empty string (the resource name)");
    p.resource = n->as_string()->get();
  }
  if (const toml::node* n = t.get("type")) {
    const std::string s = n->is_string() ? n->as_string()->get() : std::string();
    if (s == "standard") p.type = PlaceholderType::Standard;
    else if (s == "custom") p.type = PlaceholderType::Custom;
    else if (s == "argument") p.type = PlaceholderType::Argument;
    else w.bad(name + ".type", n, "expected \"standard\", \"custom\" or \"argument\"");
  }
  if (const toml::node* n = t.get("arguments")) {
    if (p.type != PlaceholderType::Custom) w.bad(name + ".arguments", n, "arguments are only passed to custom resources");
    if (!n->is_table()) w.bad(name + ".arguments", n, std::string("expected a table of strings, got ") + type_name(*n));
    for (auto&& [k, v] : *n->as_table()) {
      if (!v.is_string())
        w.bad(name + ".arguments." + std::string(k.str()), &v, std::string("expected a string, got ") + type_name(v));
      p.arguments[std::string(k.str())] = v.as_string()->get();
    }
  }
  return p;
}

// One `tags` value: a list of tag names per zone between patterns -> a mask per zone.
std::vector<uint32_t> parse_tags(const Where& w, const UdplConfig& c, const toml::node& node, const std::string& field) {
  const size_t zones = c.zone_patterns.size() - 1;
  if (!node.is_array()) w.bad(field, &node, std::string("expected an array of tag lists, got ") + type_name(node));
  const toml::array& a = *node.as_array();
  if (a.size() != zones)
    w.bad(field, &node, "has " + std::to_string(a.size()) + " tag lists; needs " + std::to_string(zones) +
                            " (one per zone between the " + std::to_string(c.zone_patterns.size()) + " zone patterns)");
  std::vector<uint32_t> masks(c.zone_patterns.size(), 0);  // zone 0, the lead-in, is untagged
  for (size_t z = 0; z < zones; ++z) {
    const std::string fz = field + "[" + std::to_string(z) + "]";
    if (!a[z].is_array()) w.bad(fz, &a[z], std::string("expected an array of tag names, got ") + type_name(a[z]));
    const toml::array& names = *a[z].as_array();
    for (size_t i = 0; i < names.size(); ++i) {
      const std::string fi = fz + "[" + std::to_string(i) + "]";
      if (!names[i].is_string()) w.bad(fi, &names[i], std::string("expected a tag name, got ") + type_name(names[i]));
      const std::string& tag = names[i].as_string()->get();
      const auto it = std::find(c.valid_tags.begin(), c.valid_tags.end(), tag);
      if (it == c.valid_tags.end()) w.bad(fi, &names[i], "'" + tag + "' is not one of valid_tags");
      const uint32_t bit = 1u << uint32_t(it - c.valid_tags.begin());
      if (masks[z + 1] & bit) w.bad(fi, &names[i], "tag '" + tag + "' appears twice in this zone");
      masks[z + 1] |= bit;
    }
  }
  return masks;
}

void parse_block(const std::string& file, const UdplConfig& c, const std::string& seq, uint32_t index,
                 const toml::node& node, Sequence& out, std::vector<std::string>& warnings) {
  const Where w{file, "sequence '" + seq + "' block " + std::to_string(index)};
  if (!node.is_table()) w.bad(seq, &node, std::string("expected a [[" + seq + "]] table, got ") + type_name(node));
  const toml::table& t = *node.as_table();
  Block b;
  b.source_block = index;
  b.text = string_value(w, t, "text", true);
  b.line = line_of(t.get("text"));
  b.timeout = c.default_max_token_length;
  if (const toml::node* n = t.get("max_gen_tokens")) b.timeout = uint32_t(integer_value(w, n, "max_gen_tokens", 1, kMaxCount));
  b.allow = string_list(w, t, "allow", false, 1);

  const std::vector<std::string> used = placeholder_names(b.text);
  for (auto&& [k, v] : t) {
    const std::string key(k.str());
    if (key == "text" || key == "tags" || key == "tagset" || key == "repeats" || key == "max_gen_tokens" || key == "allow") continue;
    if (!v.is_table())
      w.bad(key, &v, "unknown key (expected text, tags, tagset, repeats, max_gen_tokens, allow or a placeholder table [" + seq +
                         "." + key + "])");
    if (std::find(used.begin(), used.end(), key) == used.end())
      w.bad(key, &v, "placeholder table for {" + key + "}, which the text does not use");
    b.placeholders.push_back(parse_placeholder(w, key, v));
  }
  for (const std::string& name : used)
    if (!t.get(name) || !t.get(name)->is_table())
      w.bad("text", t.get("text"), "placeholder {" + name + "} has no [" + seq + "." + name + "] table");

  // Lint the text as written: placeholders are opaque here and checked again once resolved.
  const SplitResult split = split_zones(b.text, c.patterns(), w.at_field("text", t.get("text")), &warnings);
  for (const std::string& r : c.required_patterns) {
    const uint32_t k = uint32_t(std::find(c.zone_patterns.begin(), c.zone_patterns.end(), r) - c.zone_patterns.begin());
    if (k >= split.closed_zones) w.bad("text", t.get("text"), "required pattern '" + r + "' is missing");
  }

  const toml::node* tags = t.get("tags");
  const toml::node* tagset = t.get("tagset");
  const toml::node* repeats = t.get("repeats");
  if (tags && tagset) w.bad("tagset", tagset, "give either tags or tagset, not both");
  if (!tags && !tagset) w.bad("tags", &t, "missing (give tags, or tagset for one block copy per entry)");
  if (tagset && repeats) w.bad("repeats", repeats, "repeats cannot be combined with tagset (tagset already makes one copy per entry)");
  std::vector<std::vector<uint32_t>> copies;
  if (tags) {
    const int64_t n = repeats ? integer_value(w, repeats, "repeats", 1, kMaxRepeats) : 1;
    copies.assign(size_t(n), parse_tags(w, c, *tags, "tags"));
  } else {
    if (!tagset->is_array() || tagset->as_array()->empty())
      w.bad("tagset", tagset, "expected a non-empty array of tag lists-of-lists (one block copy per entry)");
    const toml::array& a = *tagset->as_array();
    if (a.size() > size_t(kMaxRepeats)) w.bad("tagset", tagset, "more than " + std::to_string(kMaxRepeats) + " copies");
    for (size_t i = 0; i < a.size(); ++i) copies.push_back(parse_tags(w, c, a[i], "tagset[" + std::to_string(i) + "]"));
  }
  // Copies of a long text multiply: check what they expand to before making them.
  uint64_t expanded = uint64_t(copies.size()) * b.text.size();
  for (const Block& earlier : out.blocks) expanded += earlier.text.size();
  check_input_limit(kExpandedTextBytes, expanded, w.at_field(repeats ? "repeats" : "tagset", repeats ? repeats : tagset ? tagset : &t));
  for (auto& masks : copies) {
    b.zone_tags = std::move(masks);
    out.blocks.push_back(b);
  }
}

void parse_sequence(const std::string& file, const UdplConfig& c, const std::string& name, const toml::node& node,
                    Sequence& out, std::vector<std::string>& warnings) {
  if (!node.is_array() || node.as_array()->empty())
    fail(ErrorCode::BadInput, located(file, line_of(&node)) + ": sequence '" + name +
                                  "': expected one or more [[" + name + "]] blocks, got " + type_name(node));
  out.name = name;
  out.file = file;
  const toml::array& a = *node.as_array();
  for (size_t i = 0; i < a.size(); ++i) parse_block(file, c, name, uint32_t(i), a[i], out, warnings);
}

struct Document {
  std::string path;
  toml::table table;
};

Document parse_document(const std::string& path, std::string_view text) {
  try {
    return {path, toml::parse(toml_text_for_parser(std::string(text), path), path)};
  } catch (const toml::parse_error& e) {
    fail(ErrorCode::BadInput, path + ":" + std::to_string(e.source().begin.line) + ":" +
                                  std::to_string(e.source().begin.column) + ": TOML syntax error: " +
                                  std::string(e.description()));
  }
}

std::string read_file(const std::string& path) { return read_text_file(path); }

Prompts build(const std::vector<Document>& docs) {
  const Document* config_doc = nullptr;
  for (const Document& d : docs)
    if (d.table.contains("config")) {
      if (config_doc)
        fail(ErrorCode::BadInput, d.path + ": a second [config] (the first is in " + config_doc->path +
                                      "); exactly one UDPL file of a folder holds [config]");
      config_doc = &d;
    }
  if (!config_doc)
    fail(ErrorCode::BadInput, (docs.empty() ? std::string("UDPL folder") : docs[0].path) +
                                  (docs.size() > 1 ? " (and the other files of the folder)" : "") +
                                  ": no [config] table; exactly one UDPL file must hold it");
  Prompts p;
  p.config_file = config_doc->path;
  p.config = parse_config(config_doc->path, *config_doc->table.get("config"));
  p.sequences.resize(p.config.sequences.size());
  for (const Document& d : docs)
    for (auto&& [k, v] : d.table) {
      const std::string key(k.str());
      if (key == "config") continue;
      const auto it = std::find(p.config.sequences.begin(), p.config.sequences.end(), key);
      if (it == p.config.sequences.end())
        fail(ErrorCode::BadInput, located(d.path, line_of(&v)) + ": '" + key +
                                      "' is not a sequence declared in [config] sequences (" + p.config_file + ")");
      Sequence& s = p.sequences[size_t(it - p.config.sequences.begin())];
      if (!s.file.empty())
        fail(ErrorCode::BadInput, located(d.path, line_of(&v)) + ": sequence '" + key + "' is already defined in " + s.file);
      parse_sequence(d.path, p.config, key, v, s, p.warnings);
    }
  for (size_t i = 0; i < p.sequences.size(); ++i)
    if (p.sequences[i].file.empty())
      fail(ErrorCode::BadInput, p.config_file + ": [config]: field 'sequences': sequence '" + p.config.sequences[i] +
                                    "' has no [[" + p.config.sequences[i] + "]] blocks in any UDPL file");
  return p;
}

// Calls `visit(start, end, name)` for each `{identifier}` in the text.
template <class Visit>
void each_placeholder(std::string_view text, Visit&& visit) {
  auto ident = [](char ch, bool first) {
    return ch == '_' || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (!first && ch >= '0' && ch <= '9');
  };
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '{') continue;
    size_t j = i + 1;
    while (j < text.size() && ident(text[j], j == i + 1)) ++j;
    if (j > i + 1 && j < text.size() && text[j] == '}') {
      visit(i, j + 1, std::string(text.substr(i + 1, j - i - 1)));
      i = j;
    }
  }
}

}  // namespace

std::vector<std::string> placeholder_names(std::string_view text) {
  std::vector<std::string> names;
  each_placeholder(text, [&](size_t, size_t, const std::string& name) {
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  });
  return names;
}

std::string substitute_placeholders(std::string_view text, const std::map<std::string, std::string>& values) {
  std::string out;
  size_t copied = 0;
  each_placeholder(text, [&](size_t start, size_t end, const std::string& name) {
    const auto it = values.find(name);
    if (it == values.end()) return;
    out.append(text.substr(copied, start - copied));
    out += it->second;
    copied = end;
  });
  out.append(text.substr(copied));
  return out;
}

std::string block_where(const std::string& file, const std::string& sequence, uint32_t block, uint32_t line,
                        const std::string& field) {
  return located(file, line) + ": sequence '" + sequence + "' block " + std::to_string(block) + ": field '" + field + "'";
}

uint32_t Prompts::sequence_index(const std::string& name) const {
  for (size_t i = 0; i < config.sequences.size(); ++i)
    if (config.sequences[i] == name) return uint32_t(i);
  std::string known;
  for (const std::string& s : config.sequences) known += (known.empty() ? "" : ", ") + s;
  fail(ErrorCode::BadInput, "unknown sequence '" + name + "' (declared in " + config_file + ": " + known + ")");
}

Prompts parse_udpl(std::string_view text, const std::string& path) {
  std::vector<Document> docs;
  docs.push_back(parse_document(path, text));
  return build(docs);
}

Prompts parse_udpl_documents(const std::vector<std::pair<std::string, std::string>>& documents) {
  std::vector<Document> docs;
  for (const auto& [path, text] : documents) docs.push_back(parse_document(path, text));
  return build(docs);
}

Prompts load_udpl(const std::string& path) {
  std::error_code ec;
  if (!fs::is_directory(path, ec)) return parse_udpl(read_file(path), path);
  std::vector<std::string> files;
  for (const fs::directory_entry& e : fs::directory_iterator(path, ec))
    if (e.is_regular_file() && e.path().extension() == ".toml") files.push_back(e.path().string());
  if (ec) fail(ErrorCode::BadInput, path + ": cannot list the folder: " + ec.message());
  if (files.empty()) fail(ErrorCode::BadInput, path + ": the folder holds no .toml UDPL files");
  std::sort(files.begin(), files.end());
  std::vector<Document> docs;
  for (const std::string& f : files) docs.push_back(parse_document(f, read_file(f)));
  return build(docs);
}

}  // namespace weft::token_vm
