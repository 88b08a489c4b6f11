#include <thread>
#include <vector>

#include "support.h"

using namespace weft;

TEST_CASE("a program recorded once replays 1000 times with fresh inputs each run") {
  test::ValidationClean clean;
  Program p("replay1000");
  InstanceId a = p.add_instance("a", 4);
  p.globals().add("acc", 4 * 4);
  StageSpec s;
  s.name = "acc+=input";
  s.kernel = weft_test_kernels.get("globals_add");
  s.instance = a;
  s.args = conformance::GlobalsAddArgs{.words = p.segment(Binding::Globals, "acc"), .count = 4, .add = 0}.bind();
  p.add_stage(s);
  Executable exe(test::device(), std::move(p));
  uint64_t expected = 0;
  for (uint32_t run = 0; run < 1000; ++run) {
    const uint32_t input[4] = {run, run * 2, run * 3, 7};
    exe.write_segment(Binding::Globals, "acc", input, sizeof input);
    exe.run();
    auto got = exe.read_segment<uint32_t>(Binding::Globals, "acc");
    REQUIRE(got[0] == run);  // the add of 0 leaves the fresh input: no stale state
    REQUIRE(got[3] == 7);
    expected += got[1];
  }
  CHECK(expected == 2ull * 999 * 1000 / 2);
}

TEST_CASE("submit does not block and wait returns once the run is done") {
  test::ValidationClean clean;
  Program p("async");
  InstanceId a = p.add_instance("a", 1);
  p.globals().add("x", 1 << 20);
  StageSpec s;
  s.name = "x+=1";
  s.kernel = weft_test_kernels.get("globals_add");
  s.instance = a;
  s.groups = {64, 1, 1};
  s.args = conformance::GlobalsAddArgs{.words = p.segment(Binding::Globals, "x"), .count = (1 << 20) / 4, .add = 1}.bind();
  p.add_stage(s);
  Executable exe(test::device(), std::move(p));  // buffers start zeroed
  Ticket t1 = exe.submit();
  Ticket t2 = exe.submit();  // two runs queued back to back
  CHECK(t2.value == t1.value + 1);
  REQUIRE(exe.wait(t2));
  CHECK(exe.done(t1));
  auto x = exe.read_segment<uint32_t>(Binding::Globals, "x");
  CHECK(x[0] == 2);
  CHECK(x.back() == 2);
  CHECK_FALSE(exe.wait(Ticket{99}));
}

TEST_CASE("two executables append into one caller-owned command buffer and run with one submit") {
  test::ValidationClean clean;
  auto make = [](uint32_t add) {
    Program p("append" + std::to_string(add));
    InstanceId a = p.add_instance("a", 1);
    p.globals().add("x", 64 * 4);
    StageSpec s;
    s.name = "x+=" + std::to_string(add);
    s.kernel = weft_test_kernels.get("globals_add");
    s.instance = a;
    s.args = conformance::GlobalsAddArgs{.words = p.segment(Binding::Globals, "x"), .count = 64, .add = add}.bind();
    p.add_stage(s);
    return Executable(test::device(), std::move(p));
  };
  Executable first = make(3), second = make(5);
  test::device().run_once([&](VkCommandBuffer cmd) {
    first.record_into(cmd);
    second.record_into(cmd);
  });
  CHECK(first.read_segment<uint32_t>(Binding::Globals, "x") == std::vector<uint32_t>(64, 3));
  CHECK(second.read_segment<uint32_t>(Binding::Globals, "x") == std::vector<uint32_t>(64, 5));
}

namespace {
// A quick stage, then one of `groups` workgroups spinning 2^16 rounds per invocation (long
// loops are no way to make a stage long: llvmpipe stops them after 65535 iterations), then a
// quick one.
Program spinning_program(uint32_t groups) {
  Program p("spinning");
  p.globals().add("out", 16);
  const InstanceId a = p.add_instance("a", 1);
  for (const char* name : {"before", "spin", "after"}) {
    StageSpec s;
    s.name = name;
    s.kernel = weft_test_kernels.get("spin");
    s.instance = a;
    const bool spin = std::string(name) == "spin";
    s.groups = {spin ? groups : 1u, 1, 1};
    s.args = conformance::SpinArgs{.rounds = spin ? 2u : 1u, .sink = p.segment(Binding::Globals, "out")}.bind();
    p.add_stage(s);
  }
  return p;
}
}  // namespace

TEST_CASE("a run past its deadline is a Timeout naming the program and, where the device tells, the stage") {
  test::ValidationClean clean;
  RecordOptions o;
  // 1 ms against a stage of about 0.1 s on lavapipe (128 groups): long enough to pass the deadline,
  // short enough to end within the 1 s that run() then grants it even on a loaded machine.
  o.run_deadline_ns = 1'000'000;
  Executable exe(test::device(), spinning_program(128), o);
  const std::string msg = test::error_message_of([&] { exe.run(); });
  CHECK(msg.find("timeout: program 'spinning': run 1 still running after 1 ms") == 0);
  if (test::device().info().type == "cpu") CHECK(msg.find("a CPU device reports no stage") != std::string::npos);
  else CHECK(msg.find("in stage 1 'spin' (2 of 3 in recorded order)") != std::string::npos);
  CHECK(msg.find("the rest of the run was cancelled") != std::string::npos);
  // The run is cancelled, not left running: waiting on it says so, and the next run is judged the same way.
  CHECK(exe.wait(Ticket{1}).code == ErrorCode::Cancelled);
  CHECK(test::error_code_of([&] { exe.run(); }) == ErrorCode::Timeout);
  CHECK(exe.wait(Ticket{2}).code == ErrorCode::Cancelled);
}

namespace {
// The spinning program, then acc[0..3] += 1: whether the last stage ran shows in acc.
Program spin_then_add(uint32_t groups) {
  Program p = spinning_program(groups);
  const InstanceId a = p.add_instance("adder", 4);
  p.globals().add("acc", 16);
  StageSpec s;
  s.name = "acc+=1";
  s.kernel = weft_test_kernels.get("globals_add");
  s.instance = a;
  s.args = conformance::GlobalsAddArgs{.words = p.segment(Binding::Globals, "acc"), .count = 4, .add = 1}.bind();
  s.reads.push_back(p.segment(Binding::Globals, "out"));  // after the spin stages, not beside them
  p.add_stage(s);
  return p;
}

std::vector<uint32_t> acc_after(Executable& exe) { return exe.read_segment<uint32_t>(Binding::Globals, "acc"); }
}  // namespace

TEST_CASE("cancel from another thread ends a run early: its later stages do no work and waiting on it is Cancelled") {
  test::ValidationClean clean;
  Executable exe(test::device(), spin_then_add(1024));
  const Ticket ticket = exe.submit();
  std::thread([&] { exe.cancel(); }).join();
  const Status waited = exe.wait(ticket);
  CHECK(waited.code == ErrorCode::Cancelled);
  CHECK(waited.message.find("were not dispatched") != std::string::npos);
  CHECK(acc_after(exe) == std::vector<uint32_t>(4, 0));  // the last stage was not dispatched
}

TEST_CASE("after a cancel the next run is whole") {
  test::ValidationClean clean;
  Executable exe(test::device(), spin_then_add(1024));
  exe.submit();
  exe.cancel();
  exe.run();  // waits for the cancelled run first (its adder was not dispatched), then restores the table
  CHECK(acc_after(exe) == std::vector<uint32_t>(4, 1));
}

TEST_CASE("cancel leaves a run that had ended, and later runs, good") {
  test::ValidationClean clean;
  Executable exe(test::device(), spin_then_add(1));
  const Ticket first = exe.submit();
  REQUIRE(exe.wait(first));
  exe.cancel();  // nothing in flight
  CHECK(exe.wait(first));
  exe.run();
  CHECK(acc_after(exe) == std::vector<uint32_t>(4, 2));
}

TEST_CASE("the run deadline comes from WEFT_RUN_DEADLINE_S, and 0 there means none") {
  {
    const test::ScopedEnv deadline("WEFT_RUN_DEADLINE_S", "0");
    Executable exe(test::device(), spinning_program(4));
    CHECK_NOTHROW(exe.run());
  }
  const test::ScopedEnv bad("WEFT_RUN_DEADLINE_S", "soon");
  CHECK(test::error_message_of([&] { Executable(test::device(), spinning_program(1)); }).find("WEFT_RUN_DEADLINE_S='soon'") !=
        std::string::npos);
}
