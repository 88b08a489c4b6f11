#include "flow_file.h"

#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <toml++/toml.h>

#include <weft/error.h>
#include <weft/input_file.h>

namespace weft::token_vm {
namespace {

// An error that already names its file and step (not wrapped again on the way out).
struct StepError : Error {
  using Error::Error;
};

constexpr int64_t kMaxBound = int64_t(1) << 31;
constexpr size_t kMaxDepth = 64;  // nesting of bodies and subroutines
constexpr size_t kMaxSteps = 100000;  // what a flow (or any step list in it) may unfold to

size_t count_steps(const std::vector<Program::Step>& steps) {
  size_t n = steps.size();
  for (const Program::Step& s : steps) n += count_steps(s.body) + count_steps(s.other);
  return n;
}

class FlowReader {
 public:
  FlowReader(const std::string& path, const toml::table& root, std::shared_ptr<const Prompts> prompts)
      : path_(path), root_(root), prompts_(std::move(prompts)) {}

  Program read() {
    for (auto&& [k, v] : root_)
      if (k.str() != "flow" && k.str() != "subroutines")
        bad(&v, std::string(k.str()), "unknown key (expected flow, and optionally [subroutines])");
    if (const toml::node* s = root_.get("subroutines"); s && !s->is_table())
      bad(s, "subroutines", "expected a table of step lists ([subroutines] name = [ ... ])");
    const toml::node* flow = root_.get("flow");
    if (!flow) bad(&root_, "flow", "missing: the list of steps");
    Program p(prompts_);
    steps(p, *flow, "flow", 0);
    return p;
  }

 private:
  [[noreturn]] void bad(const toml::node* at, const std::string& step, const std::string& what) const {
    const uint32_t line = at ? uint32_t(at->source().begin.line) : 0;
    throw StepError(ErrorCode::BadInput, path_ + (line ? ":" + std::to_string(line) : std::string()) + ": " + step + ": " + what);
  }

  void steps(Program& p, const toml::node& list, const std::string& where, size_t depth) {
    if (depth > kMaxDepth) bad(&list, where, "nested more than " + std::to_string(kMaxDepth) + " levels deep");
    if (!list.is_array()) bad(&list, where, "expected an array of steps");
    const toml::array& a = *list.as_array();
    // What `p` unfolds to, bodies included, counted as steps arrive (each once per level), so
    // plain steps count as well as loops and subroutine calls, without recounting `p` each time.
    size_t unfolded = 0;
    for (size_t i = 0; i < a.size(); ++i) {
      const std::string at = where + "[" + std::to_string(i) + "]";
      const size_t before = p.steps().size();
      step(p, a[i], at, depth);
      for (size_t k = before; k < p.steps().size(); ++k)
        unfolded += 1 + count_steps(p.steps()[k].body) + count_steps(p.steps()[k].other);
      if (unfolded > kMaxSteps) bad(&a[i], at, "the flow unfolds to more than " + std::to_string(kMaxSteps) + " steps");
    }
  }

  std::string text(const toml::table& t, const char* key, const std::string& where) const {
    const toml::node* n = t.get(key);
    if (!n) bad(&t, where, std::string("missing '") + key + "'");
    if (!n->is_string()) bad(n, where + "." + key, "expected a string");
    return n->as_string()->get();
  }

  uint32_t bound(const toml::table& t, const char* key, const std::string& where, bool required) const {
    const toml::node* n = t.get(key);
    if (!n) {
      if (required) bad(&t, where, std::string("missing '") + key + "'");
      return 0;
    }
    if (!n->is_integer() || n->as_integer()->get() < 0 || n->as_integer()->get() >= kMaxBound)
      bad(n, where + "." + key, "expected an integer in [0, 2^31)");
    return uint32_t(n->as_integer()->get());
  }

  void step(Program& p, const toml::node& node, const std::string& where, size_t depth) {
    if (!node.is_table()) bad(&node, where, "expected a step table such as { run = \"name\" }");
    const toml::table& t = *node.as_table();
    static const std::map<std::string, std::set<std::string>> kinds = {
        {"run", {}}, {"loop", {"body", "min", "max"}}, {"when", {"then", "else"}}, {"capture", {"tool"}},
        {"feed", {}}, {"subroutine", {}}, {"extract", {"tags"}}};
    std::string kind;
    for (auto&& [k, v] : t)
      if (kinds.count(std::string(k.str()))) {
        if (!kind.empty()) bad(&t, where, "a step has one kind; found both '" + kind + "' and '" + std::string(k.str()) + "'");
        kind = std::string(k.str());
      }
    if (kind.empty()) bad(&t, where, "no step kind (expected one of run, loop, when, capture, feed, subroutine, extract)");
    for (auto&& [k, v] : t) {
      const std::string key(k.str());
      if (key != kind && !kinds.at(kind).count(key)) bad(&v, where + "." + key, "unknown key for a '" + kind + "' step");
    }
    const std::string name = text(t, kind.c_str(), where);
    try {
      if (kind == "run") p.run(name);
      else if (kind == "feed") p.feed(name);
      else if (kind == "capture") p.capture(name, text(t, "tool", where));
      else if (kind == "loop") {
        const toml::node* body = t.get("body");
        if (!body) bad(&t, where, "missing 'body' (the steps the loop repeats)");
        const uint32_t min = bound(t, "min", where, false), max = bound(t, "max", where, true);
        p.loop(name, min, max, [&](Program& b) { steps(b, *body, where + ".body", depth + 1); });
      } else if (kind == "when") {
        const toml::node* yes = t.get("then");
        const toml::node* no = t.get("else");
        p.when(name, [&](Program& b) { if (yes) steps(b, *yes, where + ".then", depth + 1); },
               [&](Program& b) { if (no) steps(b, *no, where + ".else", depth + 1); });
      } else if (kind == "subroutine") {
        p.subroutine(subroutine(name, t, where, depth));
      } else {
        const toml::node* tags = t.get("tags");
        if (!tags) bad(&t, where, "missing 'tags' (the tags whose tokens the extraction collects)");
        if (!tags->is_array()) bad(tags, where + ".tags", "expected an array of tag names");
        std::vector<std::string> names;
        for (const toml::node& n : *tags->as_array()) {
          if (!n.is_string()) bad(&n, where + ".tags", "expected tag names (strings)");
          names.push_back(n.as_string()->get());
        }
        p.extract(name, names);
      }
    } catch (const StepError&) {
      throw;
    } catch (const Error& e) {
      std::string what = e.what();  // "bad input: flow: ...": keep only the problem
      for (const std::string prefix : {std::string(to_string(e.code())) + ": ", std::string("flow: ")})
        if (what.rfind(prefix, 0) == 0) what = what.substr(prefix.size());
      bad(&t, where, what);
    }
  }

  const Program& subroutine(const std::string& name, const toml::table& t, const std::string& where, size_t depth) {
    if (auto it = built_.find(name); it != built_.end()) return it->second;
    const toml::node* subs = root_.get("subroutines");
    const toml::node* list = subs ? subs->as_table()->get(name) : nullptr;
    if (!list) bad(&t, where, "no subroutine '" + name + "' in [subroutines]");
    if (!active_.insert(name).second) bad(&t, where, "subroutine '" + name + "' calls itself");
    Program p(prompts_);
    steps(p, *list, "subroutines." + name, depth + 1);
    active_.erase(name);
    return built_.emplace(name, std::move(p)).first->second;
  }

  const std::string& path_;
  const toml::table& root_;
  std::shared_ptr<const Prompts> prompts_;
  std::map<std::string, Program> built_;
  std::set<std::string> active_;
};

}  // namespace

Program parse_flow(std::string_view text, const std::string& path, std::shared_ptr<const Prompts> prompts) {
  toml::table root;
  try {
    root = toml::parse(toml_text_for_parser(std::string(text), path), path);
  } catch (const toml::parse_error& e) {
    fail(ErrorCode::BadInput, path + ":" + std::to_string(e.source().begin.line) + ":" +
                                  std::to_string(e.source().begin.column) + ": TOML syntax error: " +
                                  std::string(e.description()));
  }
  return FlowReader(path, root, std::move(prompts)).read();
}

Program load_flow(const std::string& path, std::shared_ptr<const Prompts> prompts) {
  return parse_flow(read_text_file(path, "cannot open the flow file"), path, std::move(prompts));
}

}  // namespace weft::token_vm
