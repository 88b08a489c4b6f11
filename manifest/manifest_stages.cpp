// Manifest parsing of [[stages]]: kernel stages (push words, dispatch, declared ranges) and
// regulator passes (rules). References stay text here; build_program resolves them.
#include <cmath>
#include <cstring>

#include "manifest.h"
#include "manifest_toml.h"

namespace weft::manifest_detail {

namespace {

ManifestArg parse_arg(const Table& t, const std::string& name, const toml::node& n, const std::string& where) {
  ManifestArg a;
  a.name = name;
  a.key = where;
  if (n.is_string()) {
    a.kind = ManifestArg::Kind::Ref;
    a.ref = {n.as_string()->get(), where, line_of(&n)};
    return a;
  }
  if (n.is_floating_point()) {
    a.kind = ManifestArg::Kind::Float;
    a.number = n.as_floating_point()->get();
    return a;
  }
  if (n.is_integer()) {
    a.integer = t.integer_node(n, where, INT32_MIN, UINT32_MAX);
    return a;
  }
  if (n.is_boolean()) {
    a.integer = n.as_boolean()->get() ? 1 : 0;
    return a;
  }
  bad(t.file(), where, std::string("expected a number, a boolean or a reference string, got ") + type_name(n), &n);
}

struct Named {
  const char* name;
  uint32_t value;
};
constexpr Named kCompares[] = {{"less", WEFT_CMP_LESS},       {"<", WEFT_CMP_LESS},         {"greater", WEFT_CMP_GREATER},
                               {">", WEFT_CMP_GREATER},       {"outside", WEFT_CMP_OUTSIDE}, {"zero", WEFT_CMP_EQ_ZERO},
                               {"== 0", WEFT_CMP_EQ_ZERO},    {"nonzero", WEFT_CMP_NE_ZERO}, {"!= 0", WEFT_CMP_NE_ZERO},
                               {"always", WEFT_CMP_ALWAYS}};
constexpr Named kActions[] = {{"set", WEFT_ACTION_SET_WORD},        {"scale", WEFT_ACTION_SCALE_WORD},
                              {"clamp", WEFT_ACTION_CLAMP_WORD},    {"set_slot", WEFT_ACTION_SET_SLOT},
                              {"zero_slots", WEFT_ACTION_ZERO_SLOTS}, {"halt", WEFT_ACTION_HALT},
                              {"set_status", WEFT_ACTION_SET_STATUS}};
constexpr Named kFields[] = {{"norm", WEFT_METRIC_NORM},         {"max_abs", WEFT_METRIC_MAX_ABS},
                             {"ticks_lo", WEFT_METRIC_TICKS_LO}, {"ticks_hi", WEFT_METRIC_TICKS_HI},
                             {"status", WEFT_METRIC_STATUS},     {"sequence", WEFT_METRIC_SEQUENCE}};

template <size_t N>
uint32_t lookup(const Table& t, const char* k, const Named (&table)[N], const std::string& what) {
  const std::string v = t.str(k, true);
  std::string list;
  for (const auto& e : table) {
    if (v == e.name) return e.value;
    list += (list.empty() ? "" : ", ") + std::string(e.name);
  }
  t.bad_key(k, "unknown " + what + " '" + v + "' (expected one of: " + list + ")");
}

void parse_source(const Manifest& m, const Table& t, ManifestRule* out) {
  ManifestRule& r = *out;
  const std::string source = t.str("source", true);
  const size_t dot = source.rfind('.');
  if (dot == std::string::npos || dot == 0) t.bad_key("source", "expected INSTANCE.FIELD (e.g. \"a.norm\"), got '" + source + "'");
  r.source_instance = source.substr(0, dot);
  bool known = false;
  for (const auto& in : m.instances) known = known || in.name == r.source_instance;
  if (!known) t.bad_key("source", "unknown instance '" + r.source_instance + "'");
  const std::string field = source.substr(dot + 1);
  bool found = false;
  for (const auto& f : kFields)
    if (field == f.name) r.source_field = f.value, found = true;
  if (!found && field.rfind("counter", 0) == 0 && field.size() > 7) {
    const std::string digits = field.substr(7);
    if (digits.find_first_not_of("0123456789") == std::string::npos && digits.size() <= 2 && std::stoi(digits) < WEFT_METRICS_COUNTERS)
      r.source_field = WEFT_METRIC_COUNTER0 + uint32_t(std::stoi(digits)), found = true;
  }
  if (!found) t.bad_key("source", "unknown metrics field '" + field + "' (norm, max_abs, ticks_lo, ticks_hi, status, sequence, counter0..counter9)");
  r.source_type = (r.source_field == WEFT_METRIC_NORM || r.source_field == WEFT_METRIC_MAX_ABS) ? WEFT_SOURCE_F32 : WEFT_SOURCE_U32;
  if (t.has("source_type")) {
    const std::string st = t.str("source_type", true);
    if (st == "f32") r.source_type = WEFT_SOURCE_F32;
    else if (st == "u32") r.source_type = WEFT_SOURCE_U32;
    else t.bad_key("source_type", "expected \"f32\" or \"u32\", got '" + st + "'");
  }
}

ManifestRule parse_rule(const Manifest& m, const toml::table& tt, const std::string& path) {
  Table t(m.path, tt, path,
          {"source", "source_type", "when", "threshold", "bounds", "action", "target", "value", "denominator", "limits", "count"});
  ManifestRule r;
  r.key = path;
  r.compare = lookup(t, "when", kCompares, "comparison");
  if (r.compare != WEFT_CMP_ALWAYS || t.has("source")) parse_source(m, t, &r);
  if (r.compare == WEFT_CMP_ALWAYS && r.source_instance.empty() && t.has("source_type"))
    t.bad_key("source_type", "a rule without a source has no source type");
  Number n;
  if (r.compare == WEFT_CMP_LESS || r.compare == WEFT_CMP_GREATER) {
    if (!t.number("threshold", &n)) t.missing("threshold", "when = less/greater compares against threshold");
    r.lo = r.hi = n.as_double();
    if (t.has("bounds")) t.bad_key("bounds", "bounds is only used with when = \"outside\"");
  } else if (r.compare == WEFT_CMP_OUTSIDE) {
    const toml::array* b = t.array("bounds");
    if (!b) t.missing("bounds", "when = outside needs bounds = [lo, hi]");
    if (b->size() != 2) t.bad_key("bounds", "expected [lo, hi], got " + std::to_string(b->size()) + " values");
    r.lo = t.number_node((*b)[0], t.key("bounds") + "[0]").as_double();
    r.hi = t.number_node((*b)[1], t.key("bounds") + "[1]").as_double();
    if (r.lo > r.hi) t.bad_key("bounds", "lo is greater than hi");
    if (t.has("threshold")) t.bad_key("threshold", "threshold is only used with when = less/greater");
  } else {
    if (t.has("threshold")) t.bad_key("threshold", "threshold is only used with when = less/greater");
    if (t.has("bounds")) t.bad_key("bounds", "bounds is only used with when = \"outside\"");
  }
  // A NaN threshold makes every comparison false: the rule could never fire.
  if (std::isnan(r.lo) || std::isnan(r.hi))
    t.bad_key(t.has("bounds") ? "bounds" : "threshold", "NaN compares false with everything; give a number");
  if (r.source_type == WEFT_SOURCE_U32 && (r.lo < 0 || r.hi < 0 || r.lo != std::floor(r.lo) || r.hi != std::floor(r.hi)))
    t.bad_key(t.has("bounds") ? "bounds" : "threshold", "an integer source compares against non-negative integers");

  r.action = lookup(t, "action", kActions, "action");
  const bool word_action = r.action == WEFT_ACTION_SET_WORD || r.action == WEFT_ACTION_SCALE_WORD || r.action == WEFT_ACTION_CLAMP_WORD;
  const bool slot_action = r.action == WEFT_ACTION_SET_SLOT || r.action == WEFT_ACTION_ZERO_SLOTS;
  if (word_action || slot_action) {
    if (!t.has("target")) t.missing("target", slot_action ? "a slot: \"slot.NAME\"" : "a control word: \"control.NAME\" or \"instance.NAME.scale\"");
    r.target = {t.str("target", true), t.key("target"), line_of(t.get("target"))};
  } else if (r.action == WEFT_ACTION_SET_STATUS && t.has("target")) {
    r.target = {t.str("target", true), t.key("target"), line_of(t.get("target"))};  // an instance; default: the source
  } else if (t.has("target")) {
    t.bad_key("target", "action \"halt\" takes no target");
  }
  const bool needs_value = r.action == WEFT_ACTION_SET_WORD || r.action == WEFT_ACTION_SCALE_WORD ||
                           r.action == WEFT_ACTION_SET_SLOT || r.action == WEFT_ACTION_SET_STATUS;
  if (needs_value) {
    if (!t.number("value", &n)) t.missing("value");
    r.value = n.as_double();
    r.value_given = true;
    if ((r.action == WEFT_ACTION_SET_SLOT || r.action == WEFT_ACTION_SET_STATUS) && (!n.is_int || n.i < 0 || n.i > UINT32_MAX))
      t.bad_key("value", "expected a non-negative integer");
  } else if (t.has("value")) {
    t.bad_key("value", "this action takes no value");
  }
  if (r.action == WEFT_ACTION_SCALE_WORD) {
    r.value2 = double(t.integer("denominator", false, 1, 1, UINT32_MAX));
    r.denominator_given = t.has("denominator");
  } else if (t.has("denominator")) {
    t.bad_key("denominator", "denominator is only used with action = \"scale\"");
  }
  if (r.action == WEFT_ACTION_CLAMP_WORD) {
    const toml::array* l = t.array("limits");
    if (!l) t.missing("limits", "clamp needs limits = [lo, hi]");
    if (l->size() != 2) t.bad_key("limits", "expected [lo, hi], got " + std::to_string(l->size()) + " values");
    r.value = t.number_node((*l)[0], t.key("limits") + "[0]").as_double();
    r.value2 = t.number_node((*l)[1], t.key("limits") + "[1]").as_double();
    if (r.value > r.value2) t.bad_key("limits", "lo is greater than hi");
  } else if (t.has("limits")) {
    t.bad_key("limits", "limits is only used with action = \"clamp\"");
  }
  if (r.action == WEFT_ACTION_ZERO_SLOTS) r.value2 = double(t.integer("count", false, 1, 1, 1 << 20));
  else if (t.has("count")) t.bad_key("count", "count is only used with action = \"zero_slots\"");
  return r;
}

}  // namespace

void parse_stages(Manifest& m, const Table& root) {
  const toml::node* n = root.get("stages");
  if (!n) return;
  if (!n->is_array()) bad(m.path, "stages", std::string("expected an array of tables ([[stages]]), got ") + type_name(*n), n);
  const toml::array& all = *n->as_array();
  for (size_t i = 0; i < all.size(); ++i) {
    const std::string path = "stages[" + std::to_string(i) + "]";
    if (!all[i].is_table()) bad(m.path, path, std::string("expected a table, got ") + type_name(all[i]), &all[i]);
    const toml::table& tt = *all[i].as_table();
    ManifestStage s;
    s.key = path;
    if (tt.contains("rules")) {
      Table t(m.path, tt, path, {"name", "rules"});
      s.name = t.str("name", false, "regulator" + std::to_string(i));
      const toml::array* rules = t.array("rules");
      if (rules->empty()) t.bad_key("rules", "a regulator pass needs at least one rule");
      for (size_t k = 0; k < rules->size(); ++k) {
        const std::string rp = t.key("rules") + "[" + std::to_string(k) + "]";
        if (!(*rules)[k].is_table()) bad(m.path, rp, std::string("expected a table, got ") + type_name((*rules)[k]), &(*rules)[k]);
        s.rules.push_back(parse_rule(m, *(*rules)[k].as_table(), rp));
      }
      m.stages.push_back(std::move(s));
      continue;
    }
    Table t(m.path, tt, path,
            {"name", "kernel", "instance", "dispatch", "indirect", "units", "args", "reads", "writes", "message", "honour_halt",
             "iteration"});
    s.kernel = t.str("kernel", true);
    bool known = false;
    for (const auto& k : m.kernels) known = known || k.name == s.kernel;
    if (!known) t.bad_key("kernel", "unknown kernel '" + s.kernel + "' (declare it in [[kernels]])");
    s.name = t.str("name", false, s.kernel);
    s.instance = t.str("instance", true);
    known = false;
    for (const auto& in : m.instances) known = known || in.name == s.instance;
    if (!known) t.bad_key("instance", "unknown instance '" + s.instance + "' (declare it in [[instances]])");
    if (int(t.has("dispatch")) + int(t.has("indirect")) + int(t.has("units")) > 1)
      t.bad_key(t.has("units") ? "units" : "indirect", "give one of dispatch, indirect or units");
    if (t.has("units")) {
      s.units = uint64_t(t.integer("units", true, 0, 1, INT64_MAX));
    } else if (t.has("dispatch")) {
      s.groups = t.groups("dispatch");
    } else if (t.has("indirect")) {
      s.indirect = t.str("indirect", true);
      known = false;
      for (const auto& sl : m.slots) known = known || sl.name == s.indirect;
      if (!known) t.bad_key("indirect", "unknown slot '" + s.indirect + "' (declare it in [[slots]])");
    } else {
      t.missing("dispatch", "dispatch = groups, indirect = \"slot\", or units = N for a streaming kernel");
    }
    if (const toml::node* args = t.get("args")) {
      if (!args->is_table()) t.bad_key("args", std::string("expected a table of argument = value, got ") + type_name(*args));
      for (const auto& [name, value] : *args->as_table())
        s.args.push_back(parse_arg(t, std::string(name.str()), value, t.key("args") + "." + std::string(name.str())));
    }
    for (const auto& r : t.strings("reads")) s.reads.push_back({r.text, r.key, r.line});
    for (const auto& w : t.strings("writes")) s.writes.push_back({w.text, w.key, w.line});
    s.message = t.boolean("message", false);
    s.honour_halt = t.boolean("honour_halt", false);
    s.iteration = uint32_t(t.integer("iteration", false, 0, 0, UINT32_MAX));
    m.stages.push_back(std::move(s));
  }
}

}  // namespace weft::manifest_detail
