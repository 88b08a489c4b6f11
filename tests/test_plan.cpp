// The barrier planner, checked on programs alone (no device).
#include <random>
#include <set>
#include <tuple>

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

namespace {

// The planner's hazards by the definition: every pair of stages, every pair of their accesses,
// one hazard per (earlier stage, kind, binding, indirect) of each later stage, and the levels.
struct Reference {
  std::vector<std::tuple<uint32_t, uint32_t, HazardKind, Binding, bool>> hazards;
  std::vector<uint32_t> level;
};

Reference plan_by_every_pair(const Program& p) {
  struct Access {
    Range range;
    bool write, indirect;
  };
  const auto& stages = p.stages();
  std::vector<std::vector<Access>> acc(stages.size());
  for (const Stage& s : stages) {
    for (const Range& r : p.stage_reads(s)) acc[s.index].push_back({r, false, false});
    for (const Range& r : p.stage_writes(s)) acc[s.index].push_back({r, true, false});
    if (s.indirect) acc[s.index].push_back({p.slot(*s.indirect), false, true});
  }
  Reference ref;
  ref.level.assign(stages.size(), 0);
  for (uint32_t j = 0; j < stages.size(); ++j) {
    std::set<std::tuple<uint32_t, HazardKind, Binding, bool, bool>> seen;
    for (uint32_t i = 0; i < j; ++i)
      for (const Access& a : acc[i])
        for (const Access& b : acc[j]) {
          if (!(a.write || b.write) || !a.range.overlaps(b.range)) continue;
          const HazardKind kind = a.write ? (b.write ? HazardKind::WriteAfterWrite : HazardKind::ReadAfterWrite)
                                          : HazardKind::WriteAfterRead;
          const bool indirect = b.indirect && !b.write;
          if (!seen.insert({i, kind, a.range.binding, indirect, a.indirect}).second) continue;
          ref.hazards.push_back({i, j, kind, a.range.binding, indirect});
          ref.level[j] = std::max(ref.level[j], ref.level[i] + 1);
        }
  }
  return ref;
}

}  // namespace

TEST_CASE("the planner finds exactly the hazards and levels of comparing every pair of stages") {
  std::mt19937 rng(1234);
  auto pick = [&](uint32_t n) { return uint32_t(rng() % n); };
  for (int trial = 0; trial < 200; ++trial) {
    Program p;
    p.globals().add("g", 512);
    const SlotId slots[2] = {p.add_slot("s0", {1, 1, 1}), p.add_slot("s1", {1, 1, 1})};
    const uint32_t stages = 1 + pick(24);
    for (uint32_t k = 0; k < stages; ++k) {
      auto ranges = [&] {
        std::vector<Range> out;
        for (uint32_t m = pick(4); m > 0; --m) {
          if (pick(6) == 0) {
            out.push_back(p.slot(slots[pick(2)]));
          } else {
            const uint64_t at = 4 * pick(120), size = 4 * pick(std::min<uint32_t>(17, uint32_t((512 - at) / 4) + 1));
            out.push_back({Binding::Globals, at, size});  // empty ranges too
          }
        }
        return out;
      };
      StageSpec s = globals_stage(p, "s", ranges(), ranges());
      if (pick(4) == 0) s.indirect = slots[pick(2)];
      p.add_stage(s);
    }
    const Plan plan = plan_program(p, BarrierMode::Planned);
    const Reference ref = plan_by_every_pair(p);
    CAPTURE(trial);
    REQUIRE(plan.hazards.size() == ref.hazards.size());
    for (size_t h = 0; h < ref.hazards.size(); ++h) {
      const Hazard& got = plan.hazards[h];
      CHECK(std::tuple{got.earlier, got.later, got.kind, got.binding, got.indirect} == ref.hazards[h]);
    }
    CHECK(plan.level == ref.level);
  }
}

TEST_CASE("a program of 20,000 chained stages is planned: one hazard and one barrier per link") {
  Program p;
  p.globals().add("g", 20001 * 4);
  for (uint32_t k = 0; k < 20000; ++k)
    p.add_stage(globals_stage(p, "s", {{Binding::Globals, uint64_t(k) * 4, 4}}, {{Binding::Globals, uint64_t(k + 1) * 4, 4}}));
  const Plan plan = plan_program(p, BarrierMode::Planned);
  CHECK(plan.hazards.size() == 19999);
  CHECK(plan.barriers.size() == 19999);
  CHECK(plan.level.back() == 19999);
}
