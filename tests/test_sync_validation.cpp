// With Khronos synchronization validation on, the planned recording of each hazard is clean.
//
// The layer shipped with Debian 12 (1.3.239) reports transfer hazards but no dispatch-to-dispatch
// hazard, even for a program recorded with BarrierMode::None, so it cannot prove here that a
// dropped barrier is caught. That proof is the plan assertions (barriers.* conformance cases,
// test_plan.cpp), which fail if the planner omits a barrier or weakens its masks. On a newer
// layer these cases also catch a missing barrier directly.
#include "support.h"

using namespace weft;

namespace {

Device& sync_device() {
  static std::unique_ptr<Device> dev = [] {
    DeviceOptions o;
    o.sync_validation = true;
    return Device::open(o);
  }();
  return *dev;
}

// Two stages over segments of Globals; each kernel reads `reads` and writes `writes`.
Program two_stage_program(bool first_writes_x, bool second_writes_x) {
  Program p("sync");
  InstanceId i = p.add_instance("i", 1);
  p.globals().add("x", 256);
  p.globals().add("y", 256);
  const Range x = p.segment(Binding::Globals, "x"), y = p.segment(Binding::Globals, "y");
  auto stage = [&](const char* name, bool writes_x) {
    StageSpec s;
    s.name = name;
    s.kernel = weft_test_kernels.get(writes_x ? "globals_add" : "globals_copy");
    s.instance = i;
    // globals_add x: read+write x. globals_copy x->y: read x, write y.
    s.args = writes_x ? conformance::GlobalsAddArgs{.words = x, .count = 64, .add = 1}.bind()
                      : conformance::GlobalsCopyArgs{.src = x, .dst = y, .count = 64, .mul = 1, .add = 0}.bind();
    p.add_stage(s);
  };
  stage("first", first_writes_x);
  stage("second", second_writes_x);
  return p;
}

size_t messages_for(Program p, BarrierMode mode) {
  Device& dev = sync_device();
  dev.validation().clear();
  {
    RecordOptions o;
    o.barriers = mode;
    Executable exe(dev, std::move(p), o);
    exe.run();
    exe.run();
  }
  return dev.validation().count();
}

}  // namespace

TEST_CASE("read-after-write: the planned recording is clean under synchronization validation") {
  CHECK(messages_for(two_stage_program(true, false), BarrierMode::Planned) == 0);
}

TEST_CASE("write-after-read: the planned recording is clean under synchronization validation") {
  CHECK(messages_for(two_stage_program(false, true), BarrierMode::Planned) == 0);
}

TEST_CASE("write-after-write: the planned recording is clean under synchronization validation") {
  CHECK(messages_for(two_stage_program(true, true), BarrierMode::Planned) == 0);
}

TEST_CASE("replays of one command buffer are ordered against each other") {
  // Each run rewrites x; the head barrier must order it after the previous run's accesses.
  CHECK(messages_for(two_stage_program(true, true), BarrierMode::Planned) == 0);
}
