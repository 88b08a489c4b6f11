// The barrier planner, checked on programs alone (no device).
#include "support.h"

using namespace weft;

namespace {

StageSpec globals_stage(Program& p, const char* name, std::vector<Range> reads, std::vector<Range> writes) {
  StageSpec s;
  s.name = name;
  s.kernel = weft_test_kernels.get("globals_bump");
  s.instance = p.instances().empty() ? p.add_instance("i", 1) : InstanceId{0};
  s.reads = std::move(reads);
  s.writes = std::move(writes);
  return s;
}

}  // namespace

TEST_CASE("stages touching disjoint ranges of one buffer need no barrier") {
  Program p;
  p.globals().add("a", 64);
  p.globals().add("b", 64);
  p.add_stage(globals_stage(p, "wa", {}, {p.segment(Binding::Globals, "a")}));
  p.add_stage(globals_stage(p, "wb", {}, {p.segment(Binding::Globals, "b")}));
  Plan plan = plan_program(p, BarrierMode::Planned);
  CHECK(plan.barriers.empty());
  CHECK(plan.hazards.empty());
}

TEST_CASE("overlapping byte ranges are a hazard even when segments differ") {
  Program p;
  p.globals().add("a", 64);
  p.add_stage(globals_stage(p, "w", {}, {{Binding::Globals, 0, 40}}));
  p.add_stage(globals_stage(p, "r", {{Binding::Globals, 36, 8}}, {}));
  Plan plan = plan_program(p, BarrierMode::Planned);
  REQUIRE(plan.hazards.size() == 1);
  CHECK(plan.hazards[0].kind == HazardKind::ReadAfterWrite);
}

TEST_CASE("a stage dispatched from a slot that an earlier stage wrote waits at the indirect stage") {
  Program p;
  SlotId slot = p.add_slot("n", {1, 1, 1});
  p.add_stage(globals_stage(p, "size", {}, {p.slot(slot)}));
  StageSpec s = globals_stage(p, "use", {}, {});
  s.indirect = slot;
  p.add_stage(s);
  Plan plan = plan_program(p, BarrierMode::Planned);
  REQUIRE(plan.barriers.size() == 1);
  const Barrier& b = plan.barriers[0];
  CHECK((b.dst_stages & VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT) != 0);
  CHECK((b.dst_access & VK_ACCESS_INDIRECT_COMMAND_READ_BIT) != 0);
  CHECK((b.src_access & VK_ACCESS_SHADER_WRITE_BIT) != 0);
}

TEST_CASE("independent stages are recorded together ahead of the stages that wait") {
  Program p;
  p.globals().add("a", 64);
  p.globals().add("b", 64);
  p.add_stage(globals_stage(p, "wa", {}, {p.segment(Binding::Globals, "a")}));
  p.add_stage(globals_stage(p, "ra", {p.segment(Binding::Globals, "a")}, {}));
  p.add_stage(globals_stage(p, "wb", {}, {p.segment(Binding::Globals, "b")}));
  Plan plan = plan_program(p, BarrierMode::Planned);
  CHECK(plan.order == std::vector<uint32_t>{0, 2, 1});
  REQUIRE(plan.barriers.size() == 1);
  CHECK(plan.barriers[0].before == 2);
}

TEST_CASE("a dependency that skips a level is still covered by one barrier per level") {
  Program p;
  p.globals().add("a", 64);
  p.globals().add("b", 64);
  p.add_stage(globals_stage(p, "wa", {}, {p.segment(Binding::Globals, "a")}));
  p.add_stage(globals_stage(p, "a->b", {p.segment(Binding::Globals, "a")}, {p.segment(Binding::Globals, "b")}));
  p.add_stage(globals_stage(p, "read a,b", {p.segment(Binding::Globals, "a"), p.segment(Binding::Globals, "b")}, {}));
  Plan plan = plan_program(p, BarrierMode::Planned);
  CHECK(plan.level == std::vector<uint32_t>{0, 1, 2});
  CHECK(plan.barriers.size() == 2);
}

TEST_CASE("EveryStage mode puts a full barrier between every pair of stages") {
  Program p;
  p.globals().add("a", 64);
  for (int i = 0; i < 5; ++i) p.add_stage(globals_stage(p, "s", {}, {}));
  CHECK(plan_program(p, BarrierMode::EveryStage).barriers.size() == 4);
  CHECK(plan_program(p, BarrierMode::Planned).barriers.empty());
}

TEST_CASE("the plan description names every stage, barrier and hazard") {
  Program p;
  p.globals().add("a", 64);
  p.add_stage(globals_stage(p, "producer", {}, {p.segment(Binding::Globals, "a")}));
  p.add_stage(globals_stage(p, "consumer", {p.segment(Binding::Globals, "a")}, {}));
  const std::string text = plan_program(p, BarrierMode::Planned).describe(p);
  CHECK(text.find("producer") != std::string::npos);
  CHECK(text.find("RAW Globals producer->consumer") != std::string::npos);
  CHECK(text.find("2 stages, 1 barriers") != std::string::npos);
}
