// Kernel shapes: a streaming kernel's workgroup size and units per invocation are the engine's,
// chosen per device, and the kernel computes the same result at every shape.
#include <algorithm>

#include "support.h"

using namespace weft;

namespace {

DeviceInfo limits(uint32_t max_invocations, uint32_t subgroup) {
  DeviceInfo d;
  d.name = "test device";
  d.type = "discrete";
  d.max_workgroup_invocations = max_invocations;
  d.max_workgroup_size[0] = max_invocations;
  d.subgroup_size = subgroup;
  return d;
}

// The engine's copy kernel moving `units` 16-byte units from src to dst at `shape` (empty: the
// device's), with a guard segment after dst that must stay zero.
struct ShapedCopy {
  Executable exe;
  std::vector<uint32_t> pattern;

  static Program program(uint32_t units, const KernelShape& shape) {
    Program p("shaped copy");
    p.globals().add("src", uint64_t(units) * 16);
    p.globals().add("dst", uint64_t(units) * 16);
    p.globals().add("guard", 4096);
    StageSpec s;
    s.name = "copy";
    s.kernel = engine_kernel("copy");
    s.instance = p.add_instance("copy", 1);
    s.streaming_units = units;
    s.shape = shape;
    s.args = CopyArgs{.src = p.segment(Binding::Globals, "src"), .dst = p.segment(Binding::Globals, "dst"), .count = units}.bind();
    p.add_stage(s);
    return p;
  }
  ShapedCopy(uint32_t units, const KernelShape& shape) : exe(test::device(), program(units, shape)), pattern(units * 4) {
    for (size_t k = 0; k < pattern.size(); ++k) pattern[k] = uint32_t(k * 2654435761u + 1);
    exe.write_segment(Binding::Globals, "src", pattern.data(), pattern.size() * 4);
    exe.run();
  }
  bool exact() { return exe.read_segment<uint32_t>(Binding::Globals, "dst") == pattern; }
  bool guard_untouched() {
    for (uint32_t w : exe.read_segment<uint32_t>(Binding::Globals, "guard"))
      if (w) return false;
    return true;
  }
};

}  // namespace

TEST_CASE("a GPU's shape from its limits is 256 invocations, whole subgroups, 4 units each, within the limits") {
  CHECK(streaming_shape_from_limits(limits(1024, 32)) == KernelShape{256, 4});
  CHECK(streaming_shape_from_limits(limits(128, 32)) == KernelShape{128, 4});
  CHECK(streaming_shape_from_limits(limits(200, 64)) == KernelShape{192, 4});
  CHECK(streaming_shape_from_limits(limits(1024, 0)) == KernelShape{256, 4});
  CHECK(streaming_shape_from_limits(limits(48, 64)) == KernelShape{48, 4});
}

TEST_CASE("a CPU device's shape is fewer, larger workgroups: 1024 invocations of 16 units, within its limits") {
  DeviceInfo cpu = limits(1024, 8);
  cpu.type = "cpu";
  CHECK(streaming_shape_from_limits(cpu) == KernelShape{1024, 16});
  cpu.max_workgroup_invocations = cpu.max_workgroup_size[0] = 512;
  CHECK(streaming_shape_from_limits(cpu) == KernelShape{512, 16});
}

TEST_CASE("a kernel shape is read as WxU, and anything else is refused naming where it came from") {
  CHECK(parse_kernel_shape("256x4", "here") == KernelShape{256, 4});
  CHECK(parse_kernel_shape("1x1", "here") == KernelShape{1, 1});
  for (const char* bad : {"", "256", "x4", "256x", "0x4", "256x0", "ax4", "70000x1", "256x4x1", "-1x4", " 256x4"}) {
    CAPTURE(bad);
    CHECK(test::error_code_of([&] { parse_kernel_shape(bad, "WEFT_STREAMING_SHAPE"); }) == ErrorCode::BadInput);
    CHECK(test::contains(test::error_message_of([&] { parse_kernel_shape(bad, "WEFT_STREAMING_SHAPE"); }), "WEFT_STREAMING_SHAPE"));
  }
}

TEST_CASE("WEFT_STREAMING_SHAPE overrides the device's shape, and one the device cannot run is refused") {
  const DeviceInfo d = limits(256, 8);
  {
    test::ScopedEnv env("WEFT_STREAMING_SHAPE", "64x16");
    CHECK(streaming_shape(d) == KernelShape{64, 16});
  }
  {
    test::ScopedEnv env("WEFT_STREAMING_SHAPE", "512x1");
    CHECK(test::error_code_of([&] { streaming_shape(d); }) == ErrorCode::InvalidProgram);
  }
  CHECK(streaming_shape(d) == streaming_shape_from_limits(d));
}

TEST_CASE("a streaming stage gets enough grid-stride groups for its units, at least one, at most 65535") {
  CHECK(streaming_groups(0, {256, 4})[0] == 1);
  CHECK(streaming_groups(1024, {256, 4})[0] == 1);
  CHECK(streaming_groups(1025, {256, 4})[0] == 2);
  CHECK(streaming_groups(uint64_t(1) << 40, {256, 4})[0] == kGuaranteedGroupCount);
  CHECK(streaming_groups(100, {65536, 65536})[0] == 1);
}

TEST_CASE("the engine's streaming copy is exact at every shape, leaving the bytes after it alone") {
  test::ValidationClean clean;
  const DeviceInfo& info = test::device().info();
  const uint32_t widest = std::min(info.max_workgroup_invocations, info.max_workgroup_size[0]);
  for (const KernelShape shape : {KernelShape{1, 1}, KernelShape{7, 3}, KernelShape{64, 1}, KernelShape{64, 16},
                                  KernelShape{256, 4}, KernelShape{widest, 1}, KernelShape{}}) {
    CAPTURE(shape.describe());
    ShapedCopy copy(100003, shape);  // a prime: no shape divides it
    CHECK(copy.exact());
    CHECK(copy.guard_untouched());
  }
}

TEST_CASE("a stage that gives no shape runs at the shape the device gives its unit count") {
  for (uint32_t units : {1000u, 1u << 21}) {
    ShapedCopy copy(units, {});
    const Stage& s = copy.exe.program().stages()[0];
    CHECK(s.shape == streaming_shape(test::device().info(), units));
    CHECK(s.groups[0] == streaming_groups(units, s.shape)[0]);
    CHECK(copy.exact());
  }
}

TEST_CASE("a long stage keeps the device's shape; a short one gets a smaller shape that spans enough workgroups") {
  for (const char* type : {"cpu", "discrete"}) {
    DeviceInfo d = limits(1024, 32);
    d.type = type;
    CAPTURE(type);
    const KernelShape full = streaming_shape(d);
    CHECK(streaming_shape(d, uint64_t(1) << 28) == full);
    for (uint64_t units : {uint64_t(1), uint64_t(1000), uint64_t(10000), uint64_t(300000)}) {
      CAPTURE(units);
      const KernelShape s = streaming_shape(d, units);
      CHECK(s.workgroup_size <= full.workgroup_size);
      CHECK(s.units_per_invocation <= full.units_per_invocation);
      CHECK(s.workgroup_size % 32 == 0);  // still whole subgroups
      const bool smallest = s.workgroup_size == 64 && s.units_per_invocation == 1;
      CHECK((streaming_groups(units, s)[0] >= min_streaming_groups(d) || smallest));
    }
  }
}

TEST_CASE("WEFT_STREAMING_SHAPE is taken as it is for a stage of any length") {
  test::ScopedEnv env("WEFT_STREAMING_SHAPE", "256x2");
  CHECK(streaming_shape(limits(1024, 8), 10) == KernelShape{256, 2});
}

TEST_CASE("a streaming kernel without units, or units or a shape for a plain kernel, is refused naming the stage") {
  Program p;
  StageSpec s;
  s.name = "copy";
  s.kernel = engine_kernel("copy");
  s.instance = p.add_instance("i", 1);
  p.globals().add("g", 64);
  s.args = CopyArgs{.src = p.segment(Binding::Globals, "g"), .dst = p.segment(Binding::Globals, "g"), .count = 1}.bind();
  CHECK(test::contains(test::error_message_of([&] { p.add_stage(s); }), "stage 'copy': kernel 'copy' is a streaming kernel"));

  StageSpec plain = s;
  plain.kernel = engine_kernel("loop_probe");
  plain.args = LoopProbeArgs{.iterations = 1, .ran = p.segment(Binding::Globals, "g")}.bind();
  plain.streaming_units = 10;
  CHECK(test::error_code_of([&] { p.add_stage(plain); }) == ErrorCode::InvalidProgram);
  plain.streaming_units = 0;
  plain.shape = {64, 1};
  CHECK(test::error_code_of([&] { p.add_stage(plain); }) == ErrorCode::InvalidProgram);
}

TEST_CASE("a stage of more than 2^31 units, or a shape covering more than 2^24 units a step, is refused") {
  Program p;
  p.globals().add("g", 64);
  StageSpec s;
  s.name = "copy";
  s.kernel = engine_kernel("copy");
  s.instance = p.add_instance("i", 1);
  s.args = CopyArgs{.src = p.segment(Binding::Globals, "g"), .dst = p.segment(Binding::Globals, "g"), .count = 1}.bind();
  s.streaming_units = kMaxStreamingUnits + 1;
  CHECK(test::contains(test::error_message_of([&] { p.add_stage(s); }), "a streaming stage takes at most 2147483648"));
  DeviceInfo d = limits(1024, 8);
  CHECK(test::error_code_of([&] { check_kernel_shape({1024, 16385}, d, "x"); }) == ErrorCode::InvalidProgram);
  CHECK_NOTHROW(check_kernel_shape({1024, 16384}, d, "x"));
}

TEST_CASE("a shape wider than the device allows is refused when the program meets the device") {
  const uint32_t too_wide = test::device().info().max_workgroup_invocations + 1;
  CHECK(test::error_code_of([&] { ShapedCopy copy(64, {too_wide, 1}); }) == ErrorCode::InvalidProgram);
}

TEST_CASE("the dry-run plan names a streaming stage's units") {
  const Program p = ShapedCopy::program(5000, {});
  const std::string plan = plan_program(p, BarrierMode::Planned).describe(p);
  CHECK(test::contains(plan, "dispatch=streaming(5000 units"));
}

namespace {

// Copies of `units[i]` units from src to dst, each dispatched from `slot` (one slot for all).
Program slot_copies(const std::vector<uint32_t>& units, bool plain_stage_too = false) {
  Program p("slot copies");
  const uint32_t most = *std::max_element(units.begin(), units.end());
  p.globals().add("src", uint64_t(most) * 16);
  p.globals().add("dst", uint64_t(most) * 16);
  const SlotId slot = p.add_slot("copies", {1, 1, 1});
  for (uint32_t n : units) {
    StageSpec s;
    s.name = "copy" + std::to_string(n);
    s.kernel = engine_kernel("copy");
    s.instance = p.add_instance(s.name, 1);
    s.streaming_units = n;
    s.indirect = slot;
    s.args = CopyArgs{.src = p.segment(Binding::Globals, "src"), .dst = p.segment(Binding::Globals, "dst"), .count = n}.bind();
    p.add_stage(s);
  }
  if (plain_stage_too) {
    StageSpec s;
    s.name = "plain";
    s.kernel = weft_test_kernels.get("globals_add");
    s.instance = p.add_instance("plain", 1);
    s.indirect = slot;
    s.args = conformance::GlobalsAddArgs{.words = p.segment(Binding::Globals, "dst"), .count = 4, .add = 1}.bind();
    p.add_stage(s);
  }
  return p;
}

}  // namespace

TEST_CASE("a streaming stage may dispatch from an indirect slot: the engine sizes it, and zero skips the stage") {
  test::ValidationClean clean;
  const uint32_t units = 100003;
  Executable exe(test::device(), slot_copies({units}));
  const Stage& s = exe.program().stages()[0];
  const IndirectSlot& slot = exe.program().slots()[0];
  CHECK(slot.groups[0] == streaming_groups(units, s.shape)[0]);
  std::vector<uint32_t> pattern(units * 4);
  for (size_t k = 0; k < pattern.size(); ++k) pattern[k] = uint32_t(k * 2654435761u + 3);
  exe.write_segment(Binding::Globals, "src", pattern.data(), pattern.size() * 4);
  exe.run();
  CHECK(exe.read_segment<uint32_t>(Binding::Globals, "dst") == pattern);

  const std::vector<uint32_t> zeros(pattern.size(), 0);
  exe.write_segment(Binding::Globals, "dst", zeros.data(), zeros.size() * 4);
  exe.set_control_word(exe.program().slot_word({0}), 0);
  exe.run();
  CHECK(exe.read_segment<uint32_t>(Binding::Globals, "dst") == zeros);
}

TEST_CASE("streaming stages that need different sizes, or a plain stage, on one indirect slot are refused naming them") {
  const std::string differ = test::error_message_of([] { Executable exe(test::device(), slot_copies({64, 1u << 20})); });
  CHECK(test::contains(differ, "'copy64' and 'copy1048576' share indirect slot 'copies'"));
  const std::string plain = test::error_message_of([] { Executable exe(test::device(), slot_copies({1000}, true)); });
  CHECK(test::contains(plain, "stage 'plain' dispatches from indirect slot 'copies', which streaming stage 'copy1000'"));
}
