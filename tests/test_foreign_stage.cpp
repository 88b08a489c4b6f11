// Foreign stages (engine/foreign_stage.h): commands of another library recorded between kernel
// stages, ordered by the planner's barriers like any stage, timed like any stage, and refused
// where they cannot work. The foreign commands here are vkCmdCopyBuffer and vkCmdFillBuffer.
#include <numeric>
#include <thread>

#include "support.h"

using namespace weft;

namespace {

class CopyCommands : public ForeignCommands {
 public:
  CopyCommands(BufferSpan src, BufferSpan dst) : src_(src), dst_(dst) {}
  void record(VkCommandBuffer cmd) override {
    const VkBufferCopy c{src_.offset, dst_.offset, src_.size};
    vkCmdCopyBuffer(cmd, src_.buffer, dst_.buffer, 1, &c);
  }

 private:
  BufferSpan src_, dst_;
};

class FillCommands : public ForeignCommands {
 public:
  FillCommands(BufferSpan dst, uint32_t word) : dst_(dst), word_(word) {}
  void record(VkCommandBuffer cmd) override { vkCmdFillBuffer(cmd, dst_.buffer, dst_.offset, dst_.size, word_); }

 private:
  BufferSpan dst_;
  uint32_t word_;
};

// Copies its one read range onto its one written range, as transfers.
std::shared_ptr<ForeignStage> copy_stage() {
  auto f = std::make_shared<ForeignStage>();
  f->what = "vkCmdCopyBuffer";
  f->pipeline_stages = VK_PIPELINE_STAGE_TRANSFER_BIT;
  f->prepare = [](Device&, const ForeignBuffers& b) -> std::unique_ptr<ForeignCommands> {
    REQUIRE(b.reads.size() == 1);
    REQUIRE(b.writes.size() == 1);
    return std::make_unique<CopyCommands>(b.reads[0], b.writes[0]);
  };
  return f;
}

std::shared_ptr<ForeignStage> fill_stage(uint32_t word) {
  auto f = std::make_shared<ForeignStage>();
  f->what = "vkCmdFillBuffer";
  f->pipeline_stages = VK_PIPELINE_STAGE_TRANSFER_BIT;
  f->prepare = [word](Device&, const ForeignBuffers& b) -> std::unique_ptr<ForeignCommands> {
    return std::make_unique<FillCommands>(b.writes.at(0), word);
  };
  return f;
}

// A foreign stage reading `read` and writing `write`.
StageSpec foreign_spec(const char* name, InstanceId i, std::shared_ptr<ForeignStage> f, Range read, Range write) {
  StageSpec s;
  s.name = name;
  s.instance = i;
  s.foreign = std::move(f);
  s.reads = {read};
  s.writes = {write};
  return s;
}

constexpr uint32_t kWords = 64;

// before: a += 1 (kernel) -> copy a to b (foreign) -> after: c = b * 3 + 5 (kernel). Segment
// "pad" keeps a, b and c apart so that the copy really moves data between offsets.
struct Chain {
  Program p{"foreign"};
  Chain(std::shared_ptr<ForeignStage> middle, bool middle_reads_a = true, bool with_before = true) {
    const InstanceId i = p.add_instance("i", 1);
    for (const char* s : {"a", "pad", "b", "c"}) p.globals().add(s, kWords * 4);
    const Range a = seg("a"), b = seg("b"), c = seg("c");
    StageSpec before = kernel_stage("before", "globals_add", i);
    before.args = conformance::GlobalsAddArgs{.words = a, .count = kWords, .add = 1}.bind();
    if (with_before) p.add_stage(before);
    StageSpec copy = foreign_spec("middle", i, std::move(middle), a, b);
    if (!middle_reads_a) copy.reads.clear();
    p.add_stage(copy);
    StageSpec after = kernel_stage("after", "globals_copy", i);
    after.args = conformance::GlobalsCopyArgs{.src = b, .dst = c, .count = kWords, .mul = 3, .add = 5}.bind();
    p.add_stage(after);
  }
  Range seg(const char* s) const { return p.segment(Binding::Globals, s); }
  static StageSpec kernel_stage(const char* name, const char* kernel, InstanceId i) {
    StageSpec s;
    s.name = name;
    s.kernel = weft_test_kernels.get(kernel);
    s.instance = i;
    return s;
  }
};

}  // namespace

TEST_CASE("a foreign copy between kernel stages: ordered by planned barriers, timed, re-binds Weft's state") {
  test::ValidationClean clean;
  Chain chain(copy_stage());
  const Plan plan = plan_program(chain.p, BarrierMode::Planned);
  REQUIRE(plan.level == std::vector<uint32_t>{0, 1, 2});
  REQUIRE(plan.barriers.size() == 2);
  // Kernel write -> transfer read, then transfer write -> kernel read.
  CHECK(plan.barriers[0].src_stages == VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT);
  CHECK(plan.barriers[0].dst_stages == VK_PIPELINE_STAGE_TRANSFER_BIT);
  CHECK(plan.barriers[0].dst_access == VK_ACCESS_TRANSFER_READ_BIT);
  CHECK(plan.barriers[1].src_stages == VK_PIPELINE_STAGE_TRANSFER_BIT);
  CHECK(plan.barriers[1].src_access == VK_ACCESS_TRANSFER_WRITE_BIT);
  CHECK(plan.barriers[1].dst_access == VK_ACCESS_SHADER_READ_BIT);
  const std::string text = plan.describe(chain.p);
  CHECK(test::contains(text, "middle  foreign=\"vkCmdCopyBuffer\""));
  CHECK(test::contains(text, "transfer-write -> shader-read"));

  Executable exe(test::device(), chain.p);
  std::vector<uint32_t> a(kWords);
  std::iota(a.begin(), a.end(), 100u);
  exe.write_segment(Binding::Globals, "a", a.data(), kWords * 4);
  for (uint32_t run = 1; run <= 3; ++run) {
    exe.run();  // a grows by one per run; the later kernel must see this run's copy
    const auto c = exe.read_segment<uint32_t>(Binding::Globals, "c");
    for (uint32_t k = 0; k < kWords; ++k) REQUIRE(c[k] == (100 + k + run) * 3 + 5);
  }
  const Timings t = exe.timings();
  REQUIRE(t.valid);
  REQUIRE(t.stage_ns.size() == 3);
  CHECK(t.stage_ns[1] >= 0);
}

TEST_CASE("a foreign fill is ordered after the kernels that read its range (write after read)") {
  test::ValidationClean clean;
  Chain chain(fill_stage(7), false);  // middle fills b with 7: after reads 7 * 3 + 5 everywhere
  const Plan plan = plan_program(chain.p, BarrierMode::Planned);
  CHECK(plan.level == std::vector<uint32_t>{0, 0, 1});
  Executable exe(test::device(), chain.p);
  exe.run();
  const auto c = exe.read_segment<uint32_t>(Binding::Globals, "c");
  for (uint32_t k = 0; k < kWords; ++k) REQUIRE(c[k] == 26u);
}

TEST_CASE("every-stage barriers cover a foreign transfer stage too") {
  test::ValidationClean clean;
  Chain chain(copy_stage());
  RecordOptions o;
  o.barriers = BarrierMode::EveryStage;
  Executable exe(test::device(), chain.p, o);
  const std::vector<uint32_t> a(kWords, 40);
  exe.write_segment(Binding::Globals, "a", a.data(), kWords * 4);
  exe.run();
  CHECK(exe.read_segment<uint32_t>(Binding::Globals, "c")[5] == (40u + 1) * 3 + 5);
}

// Synchronization validation reports transfer hazards (test_sync_validation.cpp): the planned
// barriers around a foreign copy leave it silent, and without them it speaks. The kernel after
// the copy writes Metrics, not Globals: the layer takes a kernel's write as one of its
// descriptor's whole range, so a kernel writing elsewhere in Globals would read to it as a
// write-after-write with the copy that is not one.
TEST_CASE("synchronization validation: clean with the planned barriers, hazards without them") {
  static std::unique_ptr<Device> dev = [] {
    DeviceOptions o;
    o.sync_validation = true;
    return Device::open(o);
  }();
  auto run = [&](BarrierMode mode) {
    Program p("foreign-sync");
    const InstanceId i = p.add_instance("i", 1);
    p.globals().add("a", 64);
    p.globals().add("b", 64);
    p.add_stage(foreign_spec("copy", i, copy_stage(), p.segment(Binding::Globals, "a"), p.segment(Binding::Globals, "b")));
    StageSpec record = Chain::kernel_stage("record", "metric_source", i);
    record.args = conformance::MetricSourceArgs{.record = p.segment(Binding::Globals, "b")}.bind();
    record.writes = {p.metrics(i)};
    p.add_stage(record);
    dev->validation().clear();
    RecordOptions o;
    o.barriers = mode;
    Executable exe(*dev, p, o);
    std::vector<uint32_t> a(16);
    std::iota(a.begin(), a.end(), 1u);
    exe.write_segment(Binding::Globals, "a", a.data(), 64);
    exe.run();
    exe.run();
    return std::pair{exe.metrics(i), dev->validation().messages()};
  };
  const auto [metrics, planned] = run(BarrierMode::Planned);
  for (const auto& m : planned) FAIL_CHECK("validation: " << m);
  CHECK(metrics.counters[0] == 7);  // word 6 of the record (counters[0]): a[6] = 7, through the copy
  CHECK(!run(BarrierMode::None).second.empty());
}

// Cancel zeroes the dispatch table kernel stages dispatch from; a foreign stage's commands are its
// own, so in a cancelled run it still runs, and the kernel stage after it does not.
TEST_CASE("cancel: a foreign stage runs whole in a cancelled run; the next kernel stage is not dispatched") {
  test::ValidationClean clean;
  Program p("foreign-cancel");
  const InstanceId i = p.add_instance("i", 1);
  for (const char* s : {"out", "mark", "acc"}) p.globals().add(s, 16);
  const Range out = p.segment(Binding::Globals, "out"), mark = p.segment(Binding::Globals, "mark");
  StageSpec spin = Chain::kernel_stage("spin", "spin", i);
  spin.groups = {1024, 1, 1};  // about a second on lavapipe: the cancel lands while it runs
  spin.args = conformance::SpinArgs{.rounds = 2, .sink = out}.bind();
  p.add_stage(spin);
  p.add_stage(foreign_spec("fill", i, fill_stage(7), out, mark));
  StageSpec add = Chain::kernel_stage("add", "globals_add", i);
  add.args = conformance::GlobalsAddArgs{.words = p.segment(Binding::Globals, "acc"), .count = 4, .add = 1}.bind();
  add.reads = {mark};
  p.add_stage(add);
  Executable exe(test::device(), p);
  const Ticket ticket = exe.submit();
  std::thread([&] { exe.cancel(); }).join();
  CHECK(exe.wait(ticket).code == ErrorCode::Cancelled);
  CHECK(exe.read_segment<uint32_t>(Binding::Globals, "mark") == std::vector<uint32_t>(4, 7));
  CHECK(exe.read_segment<uint32_t>(Binding::Globals, "acc") == std::vector<uint32_t>(4, 0));
  exe.run();  // the next run is whole
  CHECK(exe.read_segment<uint32_t>(Binding::Globals, "acc") == std::vector<uint32_t>(4, 1));
}

TEST_CASE("foreign stages refuse what they cannot honour, with InvalidProgram naming the stage") {
  Program p("refusals");
  const InstanceId i = p.add_instance("i", 1);
  p.globals().add("x", 256);
  p.globals().add_far("far_x", 256);
  const Range x = p.segment(Binding::Globals, "x");
  auto spec = [&] { return foreign_spec("lib", i, copy_stage(), x, x); };
  auto refused = [&](StageSpec s, const char* piece) {
    try {
      p.add_stage(s);
      FAIL("accepted: " << piece);
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::InvalidProgram);
      CHECK_MESSAGE(test::contains(e.what(), piece), e.what());
      CHECK(test::contains(e.what(), "stage 'lib'"));
    }
  };
  StageSpec far = spec();
  far.writes = {p.segment(Binding::Globals, "far_x")};
  refused(far, "far segment of Globals");
  StageSpec message = spec();
  message.message = true;
  refused(message, "message traffic");
  StageSpec both = spec();
  both.kernel = weft_test_kernels.get("globals_add");
  refused(both, "both a kernel and foreign commands");
  StageSpec slot = spec();
  slot.indirect = p.add_slot("s", {1, 1, 1});
  refused(slot, "indirect dispatch slot");
  CHECK(p.add_stage(spec()).index == 0);
}
