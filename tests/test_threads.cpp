// Several threads on one device, each with its own programs: the rule embedding.md states
// ("different handles may be used from different threads at the same time"), with the
// validation layer watching (its thread-safety checks included) and every result checked.
#include <atomic>
#include <thread>
#include <vector>

#include "support.h"

using namespace weft;

namespace {

// A program adding `add` to each of `words` words of Globals per run.
Program adder(const std::string& name, uint32_t words, uint32_t add) {
  Program p(name);
  InstanceId a = p.add_instance("a", 1);
  p.globals().add("x", uint64_t(words) * 4);
  StageSpec s;
  s.name = "x+=add";
  s.kernel = weft_test_kernels.get("globals_add");
  s.instance = a;
  s.groups = {grid_stride_groups(words, 64), 1, 1};
  s.args = conformance::GlobalsAddArgs{.words = p.segment(Binding::Globals, "x"), .count = words, .add = add}.bind();
  p.add_stage(s);
  return p;
}

}  // namespace

TEST_CASE("four threads record, run and read their own programs on one device at the same time") {
  test::ValidationClean clean;
  constexpr uint32_t kThreads = 4, kRuns = 25, kWords = 4096;
  std::atomic<uint32_t> wrong{0};
  std::vector<std::thread> threads;
  for (uint32_t t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      // Each thread builds its executables on the shared device, so recording, pipeline
      // creation and submission all interleave with the other threads'.
      Executable one(test::device(), adder("thread" + std::to_string(t) + "a", kWords, t + 1));
      Executable two(test::device(), adder("thread" + std::to_string(t) + "b", kWords / 2, 2 * t + 3));
      for (uint32_t r = 0; r < kRuns; ++r) {
        one.run();
        const Ticket ticket = two.submit();
        if (!two.wait(ticket)) ++wrong;
      }
      const auto x = one.read_segment<uint32_t>(Binding::Globals, "x"), y = two.read_segment<uint32_t>(Binding::Globals, "x");
      for (uint32_t v : x) wrong += v != kRuns * (t + 1);
      for (uint32_t v : y) wrong += v != kRuns * (2 * t + 3);
    });
  for (auto& th : threads) th.join();
  CHECK(wrong == 0);
}

TEST_CASE("an executable outlives a thread that ran it and is used, then destroyed, on another") {
  test::ValidationClean clean;
  auto exe = std::make_unique<Executable>(test::device(), adder("handoff", 256, 5));
  std::thread([&] { exe->run(); }).join();
  std::thread([&] {
    exe->run();
    const auto x = exe->read_segment<uint32_t>(Binding::Globals, "x");
    CHECK(x.front() == 10);
    CHECK(x.back() == 10);
    exe.reset();
  }).join();
  CHECK(exe == nullptr);
}
