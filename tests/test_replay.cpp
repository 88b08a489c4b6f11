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
