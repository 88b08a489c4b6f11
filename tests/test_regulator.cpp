// The regulator's host side: rule builders, the checks add_regulator makes on raw rules, the
// declarations its stage makes for the planner, and unrolled loops. No device needed.
#include <cstring>

#include "regulator_demo.h"
#include "support.h"

using namespace weft;

namespace {

bool declares(const std::vector<Range>& v, const Range& r) {
  for (const Range& x : v)
    if (x.binding == r.binding && x.offset == r.offset && x.size == r.size) return true;
  return false;
}

}  // namespace

TEST_CASE("condition builders encode the source type from the threshold's type") {
  Program p;
  InstanceId i = p.add_instance("a", 1);
  abi::WeftRule f = rule(Condition::greater(i, WEFT_METRIC_NORM, 4.0f), Action::halt());
  CHECK(f.source_instance == i.index);
  CHECK(f.source_field == WEFT_METRIC_NORM);
  CHECK(f.source_type == WEFT_SOURCE_F32);
  CHECK(f.compare == WEFT_CMP_GREATER);
  CHECK(f.lo == f32_bits(4.0f));
  CHECK(f.action == WEFT_ACTION_HALT);

  abi::WeftRule u = rule(Condition::outside(i, WEFT_METRIC_COUNTER0 + 2, 16777216u, 16777218u), Action::halt());
  CHECK(u.source_type == WEFT_SOURCE_U32);
  CHECK(u.compare == WEFT_CMP_OUTSIDE);
  CHECK(u.lo == 16777216u);
  CHECK(u.hi == 16777218u);  // exact: no trip through a float

  CHECK(Condition::eq_zero(i, WEFT_METRIC_NORM).type == WEFT_SOURCE_F32);
  CHECK(Condition::eq_zero(i, WEFT_METRIC_STATUS).type == WEFT_SOURCE_U32);
  CHECK(Condition::ne_zero(i, WEFT_METRIC_COUNTER0, WEFT_SOURCE_F32).type == WEFT_SOURCE_F32);
  CHECK(Condition::always().compare == WEFT_CMP_ALWAYS);
}

TEST_CASE("integer Metrics fields refuse float thresholds") {
  Program p;
  InstanceId i = p.add_instance("a", 1);
  CHECK(test::error_code_of([&] { Condition::greater(i, WEFT_METRIC_SEQUENCE, 3.0f); }) == ErrorCode::InvalidProgram);
  CHECK(test::error_message_of([&] { Condition::less(i, WEFT_METRIC_STATUS, 1.0f); }).find("integer threshold") != std::string::npos);
  CHECK(test::error_code_of([&] { Condition::less(i, WEFT_METRICS_WORDS, 1u); }) == ErrorCode::InvalidProgram);
  CHECK(test::error_code_of([&] { Condition::outside(i, WEFT_METRIC_NORM, 2.0f, 1.0f); }) == ErrorCode::InvalidProgram);
}

TEST_CASE("action builders encode targets and values") {
  Program p;
  InstanceId i = p.add_instance("a", 1);
  const uint32_t gain = p.add_control_words("gain", {f32_bits(1.0f)});
  SlotId s = p.add_slot("s", {1, 1, 1});

  Action a = Action::scale_word(gain, 0.5f);
  CHECK(a.action == WEFT_ACTION_SCALE_WORD);
  CHECK(a.target == gain);
  CHECK(a.target_type == WEFT_SOURCE_F32);
  CHECK(a.value == f32_bits(0.5f));
  Action q = Action::scale_word(gain, 3u, 4u);
  CHECK(q.target_type == WEFT_SOURCE_U32);
  CHECK((q.value == 3 && q.value2 == 4));
  CHECK(Action::clamp_word(gain, 1u, 5u).value2 == 5u);
  CHECK(Action::set_slot(p, s, 9).target == p.slot_word(s));
  CHECK(Action::set_slot(p, s, 9).value == 9u);
  CHECK(Action::set_status(i, WEFT_STATUS_ATTENTION).target == i.index);

  CHECK(test::error_code_of([&] { Action::scale_word(gain, 1u, 0u); }) == ErrorCode::InvalidProgram);
  CHECK(test::error_code_of([&] { Action::clamp_word(gain, 2.0f, 1.0f); }) == ErrorCode::InvalidProgram);
  CHECK(test::error_code_of([&] { Action::set_slot(p, SlotId{5}, 1); }) == ErrorCode::InvalidProgram);
}

TEST_CASE("zero_slots accepts contiguous slots and names the gap otherwise") {
  Program p;
  p.add_instance("a", 1);
  SlotId s0 = p.add_slot("s0", {1, 1, 1});
  SlotId s1 = p.add_slot("s1", {1, 1, 1});
  p.add_control_words("between", {0});
  p.add_slot("s2", {1, 1, 1});
  Action ok = Action::zero_slots(p, s0, 2);
  CHECK(ok.target == p.slot_word(s0));
  CHECK(ok.value2 == 2u);
  CHECK(Action::zero_slots(p, s1, 1).target == p.slot_word(s1));

  const std::string gap = test::error_message_of([&] { Action::zero_slots(p, s0, 3); });
  CHECK(gap.find("slot 2 's2'") != std::string::npos);
  CHECK(gap.find("not contiguous") != std::string::npos);
  CHECK(test::error_code_of([&] { Action::zero_slots(p, s0, 3); }) == ErrorCode::InvalidProgram);
  CHECK(test::error_message_of([&] { Action::zero_slots(p, SlotId{2}, 2); }).find("past the last slot") != std::string::npos);
  CHECK(test::error_code_of([&] { Action::zero_slots(p, s0, 0); }) == ErrorCode::InvalidProgram);
}

TEST_CASE("add_regulator names the regulator, the rule and the problem for bad raw rules") {
  Program p;
  InstanceId i = p.add_instance("a", 1);
  const uint32_t w = p.add_control_words("w", {0});
  SlotId s = p.add_slot("s", {1, 1, 1});
  auto msg = [&](abi::WeftRule r) {
    return test::error_message_of([&] { add_regulator(p, "reg", {rule(Condition::always(), Action::halt()), r}); });
  };
  auto code = [&](abi::WeftRule r) {
    return test::error_code_of([&] { add_regulator(p, "reg", {rule(Condition::always(), Action::halt()), r}); });
  };
  const size_t stages = p.stages().size();
  const uint32_t rules = p.rule_count();

  abi::WeftRule unknown = rule(Condition::greater(InstanceId{7}, WEFT_METRIC_NORM, 1.0f), Action::halt());
  CHECK(code(unknown) == ErrorCode::InvalidProgram);
  CHECK(msg(unknown).find("regulator 'reg', rule 1: source instance 7 does not exist") != std::string::npos);

  abi::WeftRule bad_slot = rule(Condition::always(), Action::set_word(w, 1u));
  bad_slot.action = WEFT_ACTION_SET_SLOT;  // a control word that is not a slot
  CHECK(code(bad_slot) == ErrorCode::InvalidProgram);
  CHECK(msg(bad_slot).find("control word " + std::to_string(w) + " is not an indirect slot") != std::string::npos);

  abi::WeftRule too_many = rule(Condition::always(), Action::zero_slots(p, s, 1));
  too_many.value2 = 2;
  CHECK(msg(too_many).find("rule 1: zero_slots: slots 0..1 run past the last slot") != std::string::npos);

  CHECK(msg(rule(Condition::always(), Action::set_word(3, 1u))).find("target control word 3") != std::string::npos);
  CHECK(msg(rule(Condition::always(), Action::set_word(w + 1000, 1u))).find("outside") != std::string::npos);
  CHECK(code(rule(Condition::always(), Action::set_status(InstanceId{9}, 2))) == ErrorCode::InvalidProgram);

  abi::WeftRule float_seq = rule(Condition::greater(i, WEFT_METRIC_SEQUENCE, 2u), Action::halt());
  float_seq.source_type = WEFT_SOURCE_F32;
  CHECK(msg(float_seq).find("integer") != std::string::npos);
  abi::WeftRule junk = rule(Condition::always(), Action::halt());
  junk.action = 99;
  CHECK(msg(junk).find("unknown action 99") != std::string::npos);
  junk = rule(Condition::always(), Action::halt());
  junk.compare = 42;
  CHECK(msg(junk).find("unknown comparison 42") != std::string::npos);
  CHECK(test::error_code_of([&] { add_regulator(p, "empty", {}); }) == ErrorCode::InvalidProgram);
  CHECK(test::error_code_of([&] { Program none; add_regulator(none, "r", {rule(Condition::always(), Action::halt())}); }) ==
        ErrorCode::InvalidProgram);

  RegulatorOptions gated;
  gated.indirect = SlotId{99};
  CHECK(test::error_code_of([&] { add_regulator(p, "gated", {rule(Condition::always(), Action::halt())}, gated); }) ==
        ErrorCode::InvalidProgram);

  // A refused regulator leaves the program as it was.
  CHECK(p.stages().size() == stages);
  CHECK(p.rule_count() == rules);
}

TEST_CASE("the regulator stage declares what its rules read and write") {
  Program p;
  InstanceId a = p.add_instance("a", 1);
  InstanceId b = p.add_instance("b", 1);
  InstanceId c = p.add_instance("c", 1);
  const uint32_t gain = p.add_control_words("gain", {f32_bits(1.0f)});
  SlotId s0 = p.add_slot("s0", {1, 1, 1});
  SlotId s1 = p.add_slot("s1", {1, 1, 1});
  abi::WeftRule raw = rule(Condition::greater(a, WEFT_METRIC_NORM, 1.0f), Action::scale_word(gain, 0.5f));
  raw.fired = 77;  // the device owns the counter: stored as 0
  StageId reg = add_regulator(p, "reg",
                              {raw, rule(Condition::less(b, WEFT_METRIC_COUNTER0, 3u), Action::zero_slots(p, s0, 2)),
                               rule(Condition::always(), Action::set_status(c, WEFT_STATUS_ATTENTION))});
  const Stage& st = p.stages()[reg.index];
  const auto reads = p.stage_reads(st);
  const auto writes = p.stage_writes(st);
  const uint32_t first = regulator_rule_word(p, reg);
  CHECK(declares(reads, p.metrics(a)));
  CHECK(declares(reads, p.metrics(b)));
  CHECK(!declares(reads, p.metrics(c)));
  CHECK(declares(reads, p.control_words(first, 3 * WEFT_RULE_WORDS)));
  CHECK(declares(writes, p.control_words(first, 3 * WEFT_RULE_WORDS)));
  CHECK(declares(writes, p.control_words(gain, 1)));
  CHECK(declares(writes, p.slot(s0)));
  CHECK(declares(writes, p.slot(s1)));
  CHECK(declares(writes, p.metrics(c)));
  CHECK(!declares(writes, p.control_header()));  // no halt rule
  CHECK(st.push_words == std::vector<uint32_t>{first, 3});
  CHECK(p.control_image()[regulator_fired_word(p, reg, 0)] == 0u);
  CHECK(regulator_fired_word(p, reg, 2) == first + 2 * WEFT_RULE_WORDS + 11);
  CHECK(test::error_code_of([&] { regulator_fired_word(p, reg, 3); }) == ErrorCode::InvalidProgram);
}

TEST_CASE("a stage dispatched from a slot a rule writes waits at the indirect stage") {
  Program p;
  InstanceId a = p.add_instance("a", 1);
  p.globals().add("x", 64);
  SlotId s = p.add_slot("s", {1, 1, 1});
  add_regulator(p, "reg", {rule(Condition::eq_zero(a, WEFT_METRIC_STATUS), Action::set_slot(p, s, 4))});
  StageSpec use;
  use.name = "use";
  use.kernel = weft_test_kernels.get("globals_bump");
  use.instance = a;
  use.indirect = s;
  use.writes = {p.segment(Binding::Globals, "x")};
  p.add_stage(use);
  Plan plan = plan_program(p, BarrierMode::Planned);
  REQUIRE(plan.barriers.size() == 1);
  CHECK((plan.barriers[0].dst_stages & VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT) != 0);
  CHECK((plan.barriers[0].dst_access & VK_ACCESS_INDIRECT_COMMAND_READ_BIT) != 0);
  CHECK(plan.level[1] == 1);
}

TEST_CASE("halt rules write the header, so honouring stages wait for the regulator") {
  Program p;
  InstanceId a = p.add_instance("a", 1);
  p.globals().add("x", 64);
  StageId reg = add_regulator(p, "reg", {rule(Condition::ne_zero(a, WEFT_METRIC_STATUS), Action::halt())});
  CHECK(declares(p.stage_writes(p.stages()[reg.index]), p.control_header()));
  StageSpec s;
  s.name = "later";
  s.kernel = weft_test_kernels.get("globals_bump");
  s.instance = a;
  s.writes = {p.segment(Binding::Globals, "x")};
  s.honour_halt = true;
  p.add_stage(s);
  Plan plan = plan_program(p, BarrierMode::Planned);
  REQUIRE(plan.hazards.size() == 1);
  CHECK(plan.hazards[0].kind == HazardKind::ReadAfterWrite);
  CHECK(plan.hazards[0].binding == Binding::Control);
}

TEST_CASE("add_loop allocates contiguous per-iteration slots and exit_after zeroes the tail") {
  Program p;
  InstanceId a = p.add_instance("a", 1);
  std::vector<uint32_t> seen;
  Loop loop = add_loop(p, "L", 5, {{4, 1, 1}, {1, 1, 1}}, [&](Program& prog, const LoopIteration& it) {
    seen.push_back(it.index);
    StageSpec s;
    s.name = "body";
    s.kernel = weft_test_kernels.get("tiny");
    s.instance = a;
    StageId id = it.add_stage(prog, s, 1);
    CHECK(prog.stages()[id.index].indirect->index == it.slot(1).index);
    CHECK(prog.stages()[id.index].iteration == it.index);
    CHECK(prog.stages()[id.index].name == std::string("body[") + std::to_string(it.index) + "]");
  });
  CHECK(seen == std::vector<uint32_t>{0, 1, 2, 3, 4});
  CHECK(p.slots().size() == 10);
  for (uint32_t i = 0; i < 5; ++i)
    for (uint32_t k = 0; k < 2; ++k) CHECK(p.slot_word(loop.slot(i, k)) == p.slot_word(loop.first) + (2 * i + k) * WEFT_INDIRECT_SLOT_WORDS);
  CHECK(p.slots()[loop.slot(3, 0).index].groups[0] == 4u);

  Action exit = loop.exit_after(p, 1);
  CHECK(exit.action == WEFT_ACTION_ZERO_SLOTS);
  CHECK(exit.target == p.slot_word(loop.slot(2, 0)));
  CHECK(exit.value2 == 6u);  // iterations 2, 3, 4, two slots each
  CHECK(test::error_message_of([&] { loop.exit_after(p, 4); }).find("is the last") != std::string::npos);
  CHECK(test::error_code_of([&] { loop.slot(5); }) == ErrorCode::InvalidProgram);
  CHECK(test::error_code_of([&] { add_loop(p, "none", 0, {{1, 1, 1}}, [](Program&, const LoopIteration&) {}); }) ==
        ErrorCode::InvalidProgram);
}

TEST_CASE("a regulator program is accepted by the device and runs clean under validation") {
  test::ValidationClean clean;
  Program p;
  InstanceId a = p.add_instance("a", 1);
  const uint32_t w = p.add_control_words("w", {5});
  add_regulator(p, "reg", {rule(Condition::eq_zero(a, WEFT_METRIC_SEQUENCE), Action::scale_word(w, 3u, 1u))});
  Executable exe(test::device(), std::move(p));
  exe.run();
  CHECK(exe.control_word(w) == 15u);
  exe.run();  // Control starts from the image every run
  CHECK(exe.control_word(w) == 15u);
}

TEST_CASE("the self-stopping Jacobi loop records clean under synchronization validation") {
  DeviceOptions o;
  o.sync_validation = true;
  auto dev = Device::open(o);
  const auto sys = conformance::make_jacobi_system(24, 5);
  auto jp = conformance::jacobi_program(24, 40, 1e-4f, true);
  Executable exe(*dev, std::move(jp.program));
  const auto run = conformance::run_jacobi(exe, sys, jp.solver);
  CHECK(run.sweeps > 1);
  CHECK(run.sweeps < 40);
  CHECK(run.residual < 1e-4f);
  for (const auto& m : dev->validation().messages()) FAIL_CHECK("validation: " << m);
}
