// Vendor-hostile cases: the sizes, limits and memory paths where drivers and engines differ.
// Every size here comes from the device (subgroup size, shared memory, atom size) or is chosen
// to straddle a workgroup or alignment boundary; results are exact against host arithmetic.
#include <algorithm>
#include <random>
#include <string>

#include "conformance.h"

namespace weft::conformance {
namespace {

// The start of a run-time kernel whose arguments are `args` (an X-macro body, weft_args.h).
std::string prelude(const std::string& args) {
  return "#version 450\n#extension GL_GOOGLE_include_directive : require\n#define WEFT_ARGS(X) " + args +
         "\n#include \"weft.glsl\"\n";
}

// y = 3x + 1 over n words of Globals, local size 64, one invocation per word.
Result odd_sizes(Device& dev) {
  const std::string src = prelude("X(WEFT_IN(Globals), x) X(WEFT_OUT(Globals), y) X(WEFT_U32, n)") +
                          "layout(local_size_x = 64) in;\n"
                          "void main() { uint i = gl_GlobalInvocationID.x; if (i < pc.args.n) "
                          "globals_u[pc.args.y + i] = 3u * globals_u[pc.args.x + i] + 1u; }\n";
  const KernelRef k = compile_kernel_source("odd_sizes.comp", src);
  const uint32_t sizes[] = {1, 31, 33, 63, 64, 65, 127, 129, 255, 257, 1023, 1025, 4097, 65537};
  for (uint32_t n : sizes) {
    Program p("odd");
    p.globals().add("x", uint64_t(n) * 4);
    p.globals().add("y", uint64_t(n + 1) * 4);  // one guard word past the end
    const InstanceId in = p.add_instance("a", 1);
    StageSpec s;
    s.name = "affine";
    s.kernel = k;
    s.instance = in;
    s.groups = {groups_for(n, 64), 1, 1};
    s.args = {arg("x", p.segment(Binding::Globals, "x")), arg("y", p.segment(Binding::Globals, "y")), arg("n", n)};
    p.add_stage(s);
    Executable exe(dev, std::move(p));
    std::vector<uint32_t> x(n), y(n + 1, 0xDEADBEEFu);
    std::mt19937 rng(n);
    for (auto& v : x) v = rng();
    exe.write_segment(Binding::Globals, "x", x.data(), x.size() * 4);
    exe.write_segment(Binding::Globals, "y", y.data(), y.size() * 4);
    exe.run();
    exe.read_segment(Binding::Globals, "y", y.data(), y.size() * 4);
    for (uint32_t i = 0; i < n; ++i)
      if (y[i] != 3u * x[i] + 1u)
        return Result::fail("n = " + std::to_string(n) + ": word " + std::to_string(i) + " is wrong");
    if (y[n] != 0xDEADBEEFu) return Result::fail("n = " + std::to_string(n) + ": the guard word past the end was written");
  }
  return Result::pass("14 sizes from 1 to 65537 words, each straddling a 64-wide workgroup");
}

// A workgroup sum by subgroupAdd, combined across the workgroup's subgroups in shared memory:
// whatever subgroup size the device picks (and it may vary per pipeline), the sum is exact.
Result subgroup_reduction(Device& dev) {
  const DeviceInfo& info = dev.info();
  constexpr uint32_t kArithmetic = 0x4;  // VK_SUBGROUP_FEATURE_ARITHMETIC_BIT
  if (!info.subgroup_in_compute || !(info.subgroup_operations & kArithmetic))
    return Result::skip("no subgroup arithmetic in compute shaders (subgroupSupportedOperations)");
  const std::string src = prelude("X(WEFT_IN(Globals), x) X(WEFT_OUT(Globals), result)") +
                          "#extension GL_KHR_shader_subgroup_arithmetic : require\n"
                          "layout(local_size_x = 256) in;\n"
                          "shared uint partial[256];\n"
                          "void main() {\n"
                          "  const uint v = globals_u[pc.args.x + gl_GlobalInvocationID.x];\n"
                          "  const uint s = subgroupAdd(v);\n"
                          "  if (subgroupElect()) partial[gl_SubgroupID] = s;\n"
                          "  barrier();\n"
                          "  if (gl_LocalInvocationID.x == 0) {\n"
                          "    uint total = 0;\n"
                          "    for (uint i = 0; i < gl_NumSubgroups; ++i) total += partial[i];\n"
                          "    globals_u[pc.args.result + 2 * gl_WorkGroupID.x] = total;\n"
                          "    globals_u[pc.args.result + 2 * gl_WorkGroupID.x + 1] = gl_SubgroupSize;\n"
                          "  }\n"
                          "}\n";
  const KernelRef k = compile_kernel_source("subgroup_sum.comp", src);
  const uint32_t groups = 37, n = groups * 256;
  Program p("subgroups");
  p.globals().add("x", n * 4);
  p.globals().add("out", groups * 8);
  const InstanceId in = p.add_instance("a", 1);
  StageSpec s;
  s.name = "sum";
  s.kernel = k;
  s.instance = in;
  s.groups = {groups, 1, 1};
  s.args = {arg("x", p.segment(Binding::Globals, "x")), arg("result", p.segment(Binding::Globals, "out"))};
  p.add_stage(s);
  Executable exe(dev, std::move(p));
  std::vector<uint32_t> x(n);
  std::mt19937 rng(5);
  for (auto& v : x) v = rng() & 0xFFFFF;
  exe.write_segment(Binding::Globals, "x", x.data(), x.size() * 4);
  exe.run();
  const auto out = exe.read_segment<uint32_t>(Binding::Globals, "out");
  uint32_t seen = 0;
  for (uint32_t g = 0; g < groups; ++g) {
    uint32_t want = 0;
    for (uint32_t i = 0; i < 256; ++i) want += x[g * 256 + i];
    if (out[2 * g] != want) return Result::fail("workgroup " + std::to_string(g) + ": subgroup sum is wrong");
    const uint32_t size = out[2 * g + 1];
    if (size == 0 || size > 128 || (size & (size - 1)))
      return Result::fail("gl_SubgroupSize " + std::to_string(size) + " is not a power of two in 1..128");
    seen = size;
  }
  return Result::pass("gl_SubgroupSize " + std::to_string(seen) + " (device default " + std::to_string(info.subgroup_size) +
                      ")");
}

// The largest shared array the device allows (up to 16 Ki words), filled and summed by one
// workgroup: sizes from the device's limit, not from a vendor's typical value.
Result shared_memory_limit(Device& dev) {
  const uint32_t limit = dev.info().max_compute_shared_memory;
  if (limit < 1024) return Result::fail("maxComputeSharedMemorySize " + std::to_string(limit) + " is below the Vulkan minimum");
  const uint32_t words = std::min<uint32_t>(limit / 4, 16384);
  const std::string src = prelude("X(WEFT_IN(Globals), x) X(WEFT_OUT(Globals), result)") +
                          "layout(local_size_x = 64) in;\n"
                          "shared uint big[WORDS];\n"
                          "void main() {\n"
                          "  for (uint i = gl_LocalInvocationID.x; i < WORDS; i += 64) big[i] = globals_u[pc.args.x + i];\n"
                          "  barrier();\n"
                          "  if (gl_LocalInvocationID.x == 0) {\n"
                          "    uint total = 0;\n"
                          "    for (uint i = 0; i < WORDS; ++i) total += big[(i * 7919u) % WORDS] * (i + 1u);\n"
                          "    globals_u[pc.args.result] = total;\n"
                          "  }\n"
                          "}\n";
  CompileOptions opts;
  opts.defines.push_back({"WORDS", std::to_string(words) + "u"});
  const KernelRef k = compile_kernel_source("shared_limit.comp", src, opts);
  Program p("shared");
  p.globals().add("x", words * 4);
  p.globals().add("out", 4);
  const InstanceId in = p.add_instance("a", 1);
  StageSpec s;
  s.name = "fill_and_sum";
  s.kernel = k;
  s.instance = in;
  s.args = {arg("x", p.segment(Binding::Globals, "x")), arg("result", p.segment(Binding::Globals, "out"))};
  p.add_stage(s);
  Executable exe(dev, std::move(p));
  std::vector<uint32_t> x(words);
  for (uint32_t i = 0; i < words; ++i) x[i] = i * 2654435761u;
  exe.write_segment(Binding::Globals, "x", x.data(), x.size() * 4);
  exe.run();
  uint32_t want = 0;
  for (uint32_t i = 0; i < words; ++i) want += x[(uint64_t(i) * 7919u) % words] * (i + 1u);
  const uint32_t got = exe.read_segment<uint32_t>(Binding::Globals, "out")[0];
  if (got != want) return Result::fail("sum over " + std::to_string(words) + " shared words is wrong");
  return Result::pass(std::to_string(words * 4) + " bytes of shared memory (device limit " + std::to_string(limit) + ")");
}

// Host writes and reads at offsets and sizes that are not multiples of nonCoherentAtomSize,
// through the flush/invalidate path of non-coherent memory, around a kernel that rewrites the
// data. On devices whose memory is coherent the path is forced (flushing coherent memory is
// valid); validation then checks every range the engine flushes or invalidates.
Result non_coherent_path(Device& dev) {
  const std::string src = prelude("X(WEFT_INOUT(Globals), x) X(WEFT_U32, n)") +
                          "layout(local_size_x = 64) in;\n"
                          "void main() { uint i = gl_GlobalInvocationID.x; if (i < pc.args.n) "
                          "globals_u[pc.args.x + i] = globals_u[pc.args.x + i] ^ 0x5A5A5A5Au; }\n";
  const KernelRef k = compile_kernel_source("xor.comp", src);
  const uint32_t n = 3001;
  Program p("noncoherent");
  p.globals().add("pad", 12);
  p.globals().add("x", n * 4, 4);
  const InstanceId in = p.add_instance("a", 1);
  StageSpec s;
  s.name = "xor";
  s.kernel = k;
  s.instance = in;
  s.groups = {groups_for(n, 64), 1, 1};
  s.args = {arg("x", p.segment(Binding::Globals, "x")), arg("n", n)};
  p.add_stage(s);
  Executable exe(dev, std::move(p));
  Buffer& globals = exe.buffer(Binding::Globals);
  const bool forced = globals.coherent();
  globals.treat_as_non_coherent();
  std::vector<uint32_t> x(n);
  std::mt19937 rng(11);
  for (auto& v : x) v = rng();
  // Three writes that each start and end off the atom grid.
  exe.write_segment(Binding::Globals, "x", x.data(), 1000 * 4, 0);
  exe.write_segment(Binding::Globals, "x", x.data() + 1000, 1001 * 4, 1000 * 4);
  exe.write_segment(Binding::Globals, "x", x.data() + 2001, 1000 * 4, 2001 * 4);
  exe.run();
  std::vector<uint32_t> back(n);
  exe.read_segment(Binding::Globals, "x", back.data() + 17, (n - 17) * 4, 17 * 4);
  exe.read_segment(Binding::Globals, "x", back.data(), 17 * 4, 0);
  for (uint32_t i = 0; i < n; ++i)
    if (back[i] != (x[i] ^ 0x5A5A5A5Au)) return Result::fail("word " + std::to_string(i) + " differs after the round trip");
  return Result::pass(std::string(forced ? "forced on coherent memory" : "the device's non-coherent memory") +
                      ", atom " + std::to_string(dev.info().non_coherent_atom_size) + " bytes");
}

// A 3-D dispatch: every workgroup of a 3 x 5 x 7 grid (local 4 x 2 x 1) writes its own cell.
Result three_d_dispatch(Device& dev) {
  const std::string src = prelude("X(WEFT_OUT(Globals), cells)") +
                          "layout(local_size_x = 4, local_size_y = 2) in;\n"
                          "void main() {\n"
                          "  const uvec3 g = gl_GlobalInvocationID, n = gl_NumWorkGroups * gl_WorkGroupSize;\n"
                          "  const uint i = g.x + n.x * (g.y + n.y * g.z);\n"
                          "  globals_u[pc.args.cells + i] = (g.x << 16) | (g.y << 8) | g.z;\n"
                          "}\n";
  const KernelRef k = compile_kernel_source("grid3d.comp", src);
  const uint32_t gx = 3, gy = 5, gz = 7, nx = gx * 4, ny = gy * 2, nz = gz, n = nx * ny * nz;
  Program p("grid");
  p.globals().add("cells", n * 4);
  const InstanceId in = p.add_instance("a", 1);
  StageSpec s;
  s.name = "grid";
  s.kernel = k;
  s.instance = in;
  s.groups = {gx, gy, gz};
  s.args = {arg("cells", p.segment(Binding::Globals, "cells"))};
  p.add_stage(s);
  Executable exe(dev, std::move(p));
  exe.run();
  const auto cells = exe.read_segment<uint32_t>(Binding::Globals, "cells");
  for (uint32_t z = 0; z < nz; ++z)
    for (uint32_t y = 0; y < ny; ++y)
      for (uint32_t x = 0; x < nx; ++x)
        if (cells[x + nx * (y + ny * z)] != ((x << 16) | (y << 8) | z))
          return Result::fail("cell (" + std::to_string(x) + ", " + std::to_string(y) + ", " + std::to_string(z) + ") is wrong");
  return Result::pass();
}

}  // namespace

std::vector<Case> hostile_cases() {
  return {
      {"hostile.odd_sizes_straddle_workgroups", "exact", odd_sizes},
      {"hostile.subgroup_reduction_device_size", "exact (integer sums)", subgroup_reduction},
      {"hostile.shared_memory_at_device_limit", "exact (integer sums)", shared_memory_limit},
      {"hostile.non_coherent_flush_invalidate", "exact", non_coherent_path},
      {"hostile.three_d_dispatch", "exact", three_d_dispatch},
  };
}

}  // namespace weft::conformance
