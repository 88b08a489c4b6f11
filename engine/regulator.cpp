#include "regulator.h"

#include <cmath>
#include <cstddef>
#include <cstring>

#include "engine_kernels.h"
#include "bits.h"
#include "error.h"

namespace weft {

namespace {


// Fields the engine itself writes as integers; comparing them as floats would round counts.
bool integer_field(uint32_t field) {
  return field == WEFT_METRIC_TICKS_LO || field == WEFT_METRIC_TICKS_HI || field == WEFT_METRIC_STATUS ||
         field == WEFT_METRIC_SEQUENCE;
}

uint32_t natural_type(uint32_t field) {
  return field == WEFT_METRIC_NORM || field == WEFT_METRIC_MAX_ABS ? WEFT_SOURCE_F32 : WEFT_SOURCE_U32;
}

void check_field(uint32_t field, uint32_t type, const char* what) {
  if (field >= WEFT_METRICS_WORDS)
    fail(ErrorCode::InvalidProgram, std::string("Condition::") + what + ": Metrics field " + std::to_string(field) +
                                        " does not exist (a record has " + std::to_string(WEFT_METRICS_WORDS) + " words)");
  if (type == WEFT_SOURCE_F32 && integer_field(field))
    fail(ErrorCode::InvalidProgram, std::string("Condition::") + what + ": Metrics field " + std::to_string(field) +
                                        " is an integer; compare it with an integer threshold (e.g. 5u), not a float");
}

Condition make(InstanceId instance, uint32_t field, uint32_t type, uint32_t compare, uint32_t lo, uint32_t hi,
               const char* what) {
  check_field(field, type, what);
  return {instance.index, field, type, compare, lo, hi};
}

}  // namespace

// ---- conditions -----------------------------------------------------------------------------

Condition Condition::less(InstanceId i, uint32_t field, float t) {
  if (std::isnan(t)) fail(ErrorCode::InvalidProgram, "Condition::less: a NaN threshold compares false with everything");
  return make(i, field, WEFT_SOURCE_F32, WEFT_CMP_LESS, f32_bits(t), 0, "less");
}
Condition Condition::less(InstanceId i, uint32_t field, uint32_t t) {
  return make(i, field, WEFT_SOURCE_U32, WEFT_CMP_LESS, t, 0, "less");
}
Condition Condition::greater(InstanceId i, uint32_t field, float t) {
  if (std::isnan(t)) fail(ErrorCode::InvalidProgram, "Condition::greater: a NaN threshold compares false with everything");
  return make(i, field, WEFT_SOURCE_F32, WEFT_CMP_GREATER, f32_bits(t), 0, "greater");
}
Condition Condition::greater(InstanceId i, uint32_t field, uint32_t t) {
  return make(i, field, WEFT_SOURCE_U32, WEFT_CMP_GREATER, t, 0, "greater");
}
Condition Condition::outside(InstanceId i, uint32_t field, float lo, float hi) {
  if (!(lo <= hi)) fail(ErrorCode::InvalidProgram, "Condition::outside: lo must not exceed hi (and neither may be NaN)");
  return make(i, field, WEFT_SOURCE_F32, WEFT_CMP_OUTSIDE, f32_bits(lo), f32_bits(hi), "outside");
}
Condition Condition::outside(InstanceId i, uint32_t field, uint32_t lo, uint32_t hi) {
  if (lo > hi) fail(ErrorCode::InvalidProgram, "Condition::outside: lo must not exceed hi");
  return make(i, field, WEFT_SOURCE_U32, WEFT_CMP_OUTSIDE, lo, hi, "outside");
}
Condition Condition::eq_zero(InstanceId i, uint32_t field, std::optional<uint32_t> type) {
  return make(i, field, type.value_or(natural_type(field)), WEFT_CMP_EQ_ZERO, 0, 0, "eq_zero");
}
Condition Condition::ne_zero(InstanceId i, uint32_t field, std::optional<uint32_t> type) {
  return make(i, field, type.value_or(natural_type(field)), WEFT_CMP_NE_ZERO, 0, 0, "ne_zero");
}
Condition Condition::always() { return {WEFT_NONE, 0, WEFT_SOURCE_U32, WEFT_CMP_ALWAYS, 0, 0}; }

// ---- actions --------------------------------------------------------------------------------

Action Action::set_word(uint32_t word, float v) { return {WEFT_ACTION_SET_WORD, word, WEFT_SOURCE_F32, f32_bits(v), 0}; }
Action Action::set_word(uint32_t word, uint32_t v) { return {WEFT_ACTION_SET_WORD, word, WEFT_SOURCE_U32, v, 0}; }
Action Action::scale_word(uint32_t word, float f) { return {WEFT_ACTION_SCALE_WORD, word, WEFT_SOURCE_F32, f32_bits(f), 0}; }
Action Action::scale_word(uint32_t word, uint32_t num, uint32_t den) {
  if (den == 0) fail(ErrorCode::InvalidProgram, "Action::scale_word: control word " + std::to_string(word) + " scaled by " +
                                                    std::to_string(num) + "/0");
  return {WEFT_ACTION_SCALE_WORD, word, WEFT_SOURCE_U32, num, den};
}
Action Action::clamp_word(uint32_t word, float lo, float hi) {
  if (!(lo <= hi)) fail(ErrorCode::InvalidProgram, "Action::clamp_word: control word " + std::to_string(word) + ": lo must not exceed hi");
  return {WEFT_ACTION_CLAMP_WORD, word, WEFT_SOURCE_F32, f32_bits(lo), f32_bits(hi)};
}
Action Action::clamp_word(uint32_t word, uint32_t lo, uint32_t hi) {
  if (lo > hi) fail(ErrorCode::InvalidProgram, "Action::clamp_word: control word " + std::to_string(word) + ": lo must not exceed hi");
  return {WEFT_ACTION_CLAMP_WORD, word, WEFT_SOURCE_U32, lo, hi};
}
Action Action::set_slot(const Program& p, SlotId slot, uint32_t groups_x) {
  return {WEFT_ACTION_SET_SLOT, p.slot_word(slot), WEFT_SOURCE_U32, groups_x, 0};
}
namespace {

// `count` slots from `first` must exist and follow each other in Control, so that the kernel can
// zero them as one strided run of words.
void check_contiguous(const Program& p, SlotId first, uint32_t count, const std::string& who) {
  if (count == 0) fail(ErrorCode::InvalidProgram, who + ": a count of 0 slots from slot " + std::to_string(first.index));
  const uint32_t word = p.slot_word(first);
  for (uint32_t k = 1; k < count; ++k) {
    const SlotId s{first.index + k};
    if (s.index >= p.slots().size())
      fail(ErrorCode::InvalidProgram, who + ": slots " + std::to_string(first.index) + ".." +
                                          std::to_string(first.index + count - 1) + " run past the last slot (" +
                                          std::to_string(p.slots().size()) + " slots)");
    if (p.slot_word(s) != word + k * WEFT_INDIRECT_SLOT_WORDS)
      fail(ErrorCode::InvalidProgram, who + ": slot " + std::to_string(s.index) + " '" + p.slots()[s.index].name +
                                          "' is not contiguous with slot " + std::to_string(first.index) + " '" +
                                          p.slots()[first.index].name + "' in Control (other control data lies between)");
  }
}

}  // namespace

Action Action::zero_slots(const Program& p, SlotId first, uint32_t count) {
  check_contiguous(p, first, count, "Action::zero_slots");
  return {WEFT_ACTION_ZERO_SLOTS, p.slot_word(first), WEFT_SOURCE_U32, 0, count};
}
Action Action::halt() { return {WEFT_ACTION_HALT, 0, WEFT_SOURCE_U32, 0, 0}; }
Action Action::set_status(InstanceId instance, uint32_t status) {
  return {WEFT_ACTION_SET_STATUS, instance.index, WEFT_SOURCE_U32, status, 0};
}

abi::WeftRule rule(const Condition& when, const Action& then) {
  abi::WeftRule r{};
  r.source_instance = when.instance;
  r.source_field = when.field;
  r.source_type = when.type;
  r.compare = when.compare;
  r.lo = when.lo;
  r.hi = when.hi;
  r.action = then.action;
  r.target = then.target;
  r.target_type = then.target_type;
  r.value = then.value;
  r.value2 = then.value2;
  return r;
}

// ---- the regulator stage ----------------------------------------------------------------------

namespace {

// The slot whose x word is `word`, or fails naming the rule.
uint32_t slot_at(const Program& p, uint32_t word, const std::string& who) {
  for (size_t s = 0; s < p.slots().size(); ++s)
    if (p.slots()[s].word == word) return uint32_t(s);
  fail(ErrorCode::InvalidProgram, who + ": control word " + std::to_string(word) + " is not an indirect slot");
}

void check_type(uint32_t type, const std::string& who, const char* what) {
  if (type != WEFT_SOURCE_F32 && type != WEFT_SOURCE_U32)
    fail(ErrorCode::InvalidProgram, who + ": " + what + " type " + std::to_string(type) + " is neither f32 (0) nor u32 (1)");
}

}  // namespace

StageId add_regulator(Program& program, const std::string& name, const std::vector<abi::WeftRule>& rules) {
  return add_regulator(program, name, rules, RegulatorOptions{});
}

StageId add_regulator(Program& p, const std::string& name, const std::vector<abi::WeftRule>& rules,
                      const RegulatorOptions& options) {
  const std::string where = "regulator '" + name + "'";
  if (rules.empty()) fail(ErrorCode::InvalidProgram, where + " has no rules");
  if (rules.size() > kMaxRulesPerPass)
    fail(ErrorCode::InvalidProgram, where + " has " + std::to_string(rules.size()) + " rules; one pass evaluates at most " +
                                        std::to_string(kMaxRulesPerPass));
  if (p.instances().empty()) fail(ErrorCode::InvalidProgram, where + ": the program has no instance to run it in");
  if (options.indirect) (void)p.slot_word(*options.indirect);  // before anything is allocated
  const uint32_t control_words = uint32_t(p.control_bytes() / 4);
  const uint32_t instances = uint32_t(p.instances().size());

  std::vector<Range> reads, writes;
  bool writes_status = false;
  std::optional<InstanceId> home;
  auto add_once = [](std::vector<Range>& v, const Range& r) {
    for (const Range& x : v)
      if (x.binding == r.binding && x.offset == r.offset && x.size == r.size) return;
    v.push_back(r);
  };
  auto check_instance = [&](uint32_t index, const std::string& who, const char* role) {
    if (index >= instances)
      fail(ErrorCode::InvalidProgram, who + ": " + role + " instance " +
                                          (index == WEFT_NONE ? std::string("(none)") : std::to_string(index)) +
                                          " does not exist (" + std::to_string(instances) + " instances)");
  };

  for (size_t k = 0; k < rules.size(); ++k) {
    const abi::WeftRule& r = rules[k];
    const std::string who = where + ", rule " + std::to_string(k);
    if (r.compare > WEFT_CMP_ALWAYS) fail(ErrorCode::InvalidProgram, who + ": unknown comparison " + std::to_string(r.compare));
    if (r.compare != WEFT_CMP_ALWAYS) {
      check_instance(r.source_instance, who, "source");
      if (r.source_field >= WEFT_METRICS_WORDS)
        fail(ErrorCode::InvalidProgram, who + ": source field " + std::to_string(r.source_field) + " is past the " +
                                            std::to_string(WEFT_METRICS_WORDS) + "-word Metrics record");
      check_type(r.source_type, who, "source");
      if (r.source_type == WEFT_SOURCE_F32 && integer_field(r.source_field))
        fail(ErrorCode::InvalidProgram, who + ": source field " + std::to_string(r.source_field) +
                                            " is an integer but the rule reads it as f32");
      add_once(reads, p.metrics({r.source_instance}));
      if (!home) home = InstanceId{r.source_instance};
    }
    auto check_word = [&] {
      if (r.target < WEFT_CONTROL_HEADER_WORDS || r.target >= control_words)
        fail(ErrorCode::InvalidProgram, who + ": target control word " + std::to_string(r.target) + " is outside [" +
                                            std::to_string(WEFT_CONTROL_HEADER_WORDS) + ", " + std::to_string(control_words) +
                                            ") (the header is changed only by halt; words must exist before the rule)");
      check_type(r.target_type, who, "target");
      add_once(writes, p.control_words(r.target, 1));
    };
    switch (r.action) {
      case WEFT_ACTION_SET_WORD: check_word(); break;
      case WEFT_ACTION_SCALE_WORD:
        check_word();
        if (r.target_type == WEFT_SOURCE_U32 && r.value2 == 0)
          fail(ErrorCode::InvalidProgram, who + ": integer scale of control word " + std::to_string(r.target) + " by " +
                                              std::to_string(r.value) + "/0");
        break;
      case WEFT_ACTION_CLAMP_WORD:
        check_word();
        if (r.target_type == WEFT_SOURCE_U32 ? r.value > r.value2 : !(bits_f32(r.value) <= bits_f32(r.value2)))
          fail(ErrorCode::InvalidProgram, who + ": clamp of control word " + std::to_string(r.target) + " has lo > hi");
        break;
      case WEFT_ACTION_SET_SLOT: add_once(writes, p.slot({slot_at(p, r.target, who)})); break;
      case WEFT_ACTION_ZERO_SLOTS: {
        const uint32_t first = slot_at(p, r.target, who);
        // Raw rules (manifests) bypass the builder: check again.
        check_contiguous(p, {first}, r.value2, who + ": zero_slots");
        for (uint32_t s = 0; s < r.value2; ++s) add_once(writes, p.slot({first + s}));
        break;
      }
      case WEFT_ACTION_HALT: add_once(writes, p.control_header()); break;
      case WEFT_ACTION_SET_STATUS:
        check_instance(r.target, who, "status target");
        add_once(writes, p.metrics({r.target}));
        writes_status = true;
        break;
      default: fail(ErrorCode::InvalidProgram, who + ": unknown action " + std::to_string(r.action));
    }
  }

  // Stored with fired = 0: the counter belongs to the device.
  std::vector<abi::WeftRule> stored = rules;
  for (auto& r : stored) r.fired = 0;
  const uint32_t first = p.add_rules(stored);
  const Range block = p.control_words(first, uint32_t(stored.size()) * WEFT_RULE_WORDS);
  // The kernel contains a Metrics store (SET_STATUS); when no rule sets a status, an empty
  // range declares the binding without inventing a dependency.
  if (!writes_status) writes.push_back({Binding::Metrics, 0, 0});

  StageSpec s;
  s.name = name;
  s.kernel = engine_kernel("regulator");
  s.instance = home.value_or(InstanceId{0});
  s.groups = {1, 1, 1};
  s.indirect = options.indirect;
  s.iteration = options.iteration;
  s.honour_halt = options.honour_halt;
  s.args = RegulatorArgs{.rules = block, .rule_count = uint32_t(stored.size())}.bind();
  s.reads = std::move(reads);
  s.writes = std::move(writes);
  return p.add_stage(std::move(s));
}

uint32_t regulator_rule_word(const Program& p, StageId id) {
  if (id.index >= p.stages().size())
    fail(ErrorCode::InvalidProgram, "regulator stage " + std::to_string(id.index) + " does not exist");
  const Stage& s = p.stages()[id.index];
  if (s.kernel->name() != "regulator" || s.push_words.size() < 2)
    fail(ErrorCode::InvalidProgram, "stage " + std::to_string(id.index) + " '" + s.name + "' is not a regulator");
  return s.push_words[0];
}

uint32_t regulator_fired_word(const Program& p, StageId id, uint32_t index) {
  const uint32_t first = regulator_rule_word(p, id);
  const Stage& s = p.stages()[id.index];
  if (index >= s.push_words[1])
    fail(ErrorCode::InvalidProgram, "regulator '" + s.name + "' has " + std::to_string(s.push_words[1]) + " rules, not rule " +
                                        std::to_string(index));
  return first + index * WEFT_RULE_WORDS + uint32_t(offsetof(abi::WeftRule, fired) / 4);
}

// ---- loops --------------------------------------------------------------------------------------

SlotId Loop::slot(uint32_t iteration, uint32_t shape) const {
  if (iteration >= iterations || shape >= shapes)
    fail(ErrorCode::InvalidProgram, "loop '" + name + "': no slot for iteration " + std::to_string(iteration) + " shape " +
                                        std::to_string(shape) + " (" + std::to_string(iterations) + " iterations, " +
                                        std::to_string(shapes) + " shapes)");
  return {first.index + iteration * shapes + shape};
}

Action Loop::exit_after(const Program& p, uint32_t iteration) const {
  if (iteration + 1 >= iterations)
    fail(ErrorCode::InvalidProgram, "loop '" + name + "': exit_after(" + std::to_string(iteration) + ") but iteration " +
                                        std::to_string(iterations - 1) + " is the last; nothing follows it");
  return Action::zero_slots(p, slot(iteration + 1, 0), (iterations - 1 - iteration) * shapes);
}

StageId LoopIteration::add_stage(Program& p, StageSpec spec, uint32_t shape) const {
  spec.indirect = slot(shape);
  spec.iteration = index;
  spec.name += '[' + std::to_string(index) + ']';
  return p.add_stage(std::move(spec));
}

StageId LoopIteration::add_regulator(Program& p, const std::string& name, const std::vector<abi::WeftRule>& rules,
                                     uint32_t shape, bool honour_halt) const {
  RegulatorOptions o;
  o.indirect = slot(shape);
  o.iteration = index;
  o.honour_halt = honour_halt;
  return weft::add_regulator(p, name + "[" + std::to_string(index) + "]", rules, o);
}

Loop add_loop(Program& p, const std::string& name, uint32_t iterations, const std::vector<std::array<uint32_t, 3>>& shapes,
              const LoopBody& body) {
  if (iterations == 0) fail(ErrorCode::InvalidProgram, "loop '" + name + "': at least one iteration");
  if (shapes.empty()) fail(ErrorCode::InvalidProgram, "loop '" + name + "': at least one dispatch shape per iteration");
  Loop loop{name, iterations, uint32_t(shapes.size()), {}};
  // All slots first, back to back, so any tail of iterations is one contiguous run of slots.
  for (uint32_t i = 0; i < iterations; ++i)
    for (uint32_t k = 0; k < loop.shapes; ++k) {
      const SlotId s = p.add_slot(name + "[" + std::to_string(i) + "]." + std::to_string(k), shapes[k]);
      if (i == 0 && k == 0) loop.first = s;
    }
  for (uint32_t i = 0; i < iterations; ++i) body(p, LoopIteration{loop, i});
  return loop;
}

}  // namespace weft
