// Engine invariants: the layout, transfers, messages, barriers, replay, errors.
#include <cmath>
#include <cstring>
#include <random>
#include <sstream>

#include "conformance.h"

namespace weft::conformance {

namespace {

template <class F>
ErrorCode error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.code();
  }
  return ErrorCode(-1);
}

// ---- bindings ------------------------------------------------------------------------------

Result layout_agrees(Device& dev) {
  Program p("layout");
  const uint32_t width = 64;
  InstanceId a = p.add_instance("a", width);
  InstanceId b = p.add_instance("b", width);
  p.connect(a, b);
  p.add_slot("unused", {1, 1, 1});
  const uint32_t free_words = p.add_control_words("free", {7, 8});
  StageSpec s;
  s.name = "probe";
  s.kernel = weft_test_kernels.get("layout_probe");
  s.instance = b;
  s.iteration = 5;
  s.honour_halt = true;
  for (uint32_t u = 0; u < WEFT_PUSH_ARG_WORDS; ++u) s.args.push_back(arg("a" + std::to_string(u), 1000 + u));
  s.writes = {p.registers(b), p.metrics(b)};
  s.reads = {p.whole(Binding::Control)};
  p.add_stage(s);
  Executable exe(dev, std::move(p));
  exe.run();
  const Program& prog = exe.program();

  abi::WeftMetrics m{};
  exe.read(Binding::Metrics, sizeof(abi::WeftMetrics) * b.index, &m, sizeof m);
  if (m.norm != 1.5f || m.max_abs != 2.5f) return Result::fail("Metrics norm/max_abs misplaced");
  if (m.ticks_lo != 0xA0000001u || m.ticks_hi != 0xB0000001u) return Result::fail("Metrics ticks " + fmt_words(m.ticks_lo, 0xA0000001u));
  if (m.status != 0xC0000001u || m.sequence != 0xD0000001u) return Result::fail("Metrics status/sequence " + fmt_words(m.status, 0xC0000001u));
  for (uint32_t c = 0; c < WEFT_METRICS_COUNTERS; ++c)
    if (m.counters[c] != 0xE0000000u + 16 + c) return Result::fail("Metrics counter " + std::to_string(c) + " " + fmt_words(m.counters[c], 0xE0000000u + 16 + c));

  std::vector<uint32_t> regs(width * WEFT_REGISTERS_PER_INSTANCE);
  exe.read(Binding::Registers, uint64_t(prog.instance(b).window) * 4, regs.data(), regs.size() * 4);
  const Instance& ia = prog.instance(a);
  const Instance& ib = prog.instance(b);
  const uint32_t want_push[10] = {b.index, a.index, ib.window, width, ia.window + WEFT_R_OUTBOX * width,
                                  ib.window + WEFT_R_OUTBOX * width, 0, 5, WEFT_PUSH_HONOUR_HALT, ib.control};
  for (int k = 0; k < 10; ++k)
    if (regs[k] != want_push[k]) return Result::fail("push header word " + std::to_string(k) + " " + fmt_words(regs[k], want_push[k]));
  for (uint32_t u = 0; u < WEFT_PUSH_ARG_WORDS; ++u)
    if (regs[12 + u] != 1000 + u) return Result::fail("push user word " + std::to_string(u) + " " + fmt_words(regs[12 + u], 1000 + u));
  const uint32_t want_control[5] = {2, 1, 0, uint32_t(prog.control_bytes() / 4), 0};
  for (int k = 0; k < 5; ++k)
    if (regs[32 + k] != want_control[k]) return Result::fail("control header word " + std::to_string(k) + " " + fmt_words(regs[32 + k], want_control[k]));
  float scale;
  std::memcpy(&scale, &regs[40], 4);
  if (scale != 1.0f || regs[41] != WEFT_INSTANCE_ENABLED) return Result::fail("instance control record misplaced");
  if (exe.control_word(free_words + 1) != 8) return Result::fail("free control words misplaced");
  return Result::pass("every Metrics, push, Control field at its C++ offset");
}

// ---- transfers -------------------------------------------------------------------------------

Result round_trip(Device& dev, MemoryUse use) {
  const uint64_t size = (1u << 20) + 13;
  Buffer buf(dev, size, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, use, "round-trip");
  std::mt19937 rng(42);
  const uint64_t cases[][2] = {{0, 1}, {1, 3}, {3, 7}, {4093, 4097}, {65535, 65537}, {size - 5, 5}, {0, size}, {777, 300001}};
  for (const auto& c : cases) {
    std::vector<uint8_t> data(c[1]), back(c[1]);
    for (auto& x : data) x = uint8_t(rng());
    buf.write(c[0], data.data(), data.size());
    buf.read(c[0], back.data(), back.size());
    if (data != back)
      return Result::fail("bytes differ after a round trip of " + std::to_string(c[1]) + " bytes at offset " + std::to_string(c[0]));
  }
  // Neighbours of a small write stay untouched.
  std::vector<uint8_t> ones(64, 0x11), mid(3, 0x77), back(64);
  buf.write(100, ones.data(), 64);
  buf.write(130, mid.data(), 3);
  buf.read(100, back.data(), 64);
  for (int i = 0; i < 64; ++i) {
    const uint8_t want = (i >= 30 && i < 33) ? 0x77 : 0x11;
    if (back[i] != want) return Result::fail("a 3-byte write at offset 130 changed byte " + std::to_string(100 + i));
  }
  if (error_of([&] { buf.write(size - 2, ones.data(), 3); }) != ErrorCode::SegmentOutOfRange)
    return Result::fail("a write past the end was not refused with SegmentOutOfRange");
  return Result::pass(buf.mapped() ? "mapped path" : "staged path");
}

// ---- messages --------------------------------------------------------------------------------

Result three_instance_chain(Device& dev) {
  const uint32_t width = 100;  // not a multiple of the workgroup size
  Program p("chain");
  InstanceId in[3] = {p.add_instance("i0", width), p.add_instance("i1", width), p.add_instance("i2", width)};
  p.connect(in[0], in[1]);
  p.connect(in[1], in[2]);
  const float mul[3] = {2.0f, -0.5f, 3.0f}, add[3] = {1.0f, 0.25f, -2.0f};
  for (int k = 0; k < 3; ++k) {
    StageSpec s;
    s.name = "hop" + std::to_string(k);
    s.kernel = weft_test_kernels.get("chain_step");
    s.instance = in[k];
    s.message = true;
    s.args = ChainStepArgs{.mul = mul[k], .add = add[k]}.bind();
    p.add_stage(s);
  }
  Executable exe(dev, std::move(p));
  std::vector<float> x(width);
  for (uint32_t j = 0; j < width; ++j) x[j] = float(j) * 0.125f - 3.0f;
  exe.write_register(in[0], WEFT_R_INBOX, x.data(), x.size() * 4);
  exe.run();
  double worst = 0;
  for (int k = 0; k < 3; ++k) {
    double sq = 0, mx = 0;
    for (auto& v : x) {
      v = v * mul[k] + add[k];
      sq += double(v) * v;
      mx = std::max(mx, double(std::fabs(v)));
    }
    auto got = exe.read_register<float>(in[k], WEFT_R_OUTBOX);
    for (uint32_t j = 0; j < width; ++j)
      if (got[j] != x[j]) return Result::fail("instance " + std::to_string(k) + " outbox word " + std::to_string(j) + " differs");
    abi::WeftMetrics m = exe.metrics(in[k]);
    const double norm_err = std::fabs(m.norm - std::sqrt(sq)) / std::sqrt(sq);
    worst = std::max(worst, norm_err);
    if (norm_err > 1e-5) return Result::fail("instance " + std::to_string(k) + " norm off by " + std::to_string(norm_err), worst);
    if (m.max_abs != float(mx)) return Result::fail("instance " + std::to_string(k) + " max_abs differs", worst);
    if (m.status != WEFT_STATUS_OK || m.sequence != 1) return Result::fail("instance " + std::to_string(k) + " status/sequence wrong", worst);
    // ticks come from the shader clock; without one the contract says 0.
    const uint64_t ticks = (uint64_t(m.ticks_hi) << 32) | m.ticks_lo;
    if (dev.info().shader_clock ? ticks == 0 : ticks != 0)
      return Result::fail("instance " + std::to_string(k) + " ticks = " + std::to_string(ticks) + " with shader clock " +
                          (dev.info().shader_clock ? "present" : "absent"), worst);
  }
  if (exe.plan().barriers.size() != 2) return Result::fail("expected 2 barriers for a 3-hop chain, got " + std::to_string(exe.plan().barriers.size()));
  return Result::pass({}, worst);
}

// ---- hazards ---------------------------------------------------------------------------------

struct GlobalsProgram {
  Program p{"hazard"};
  InstanceId inst;
  uint32_t n = 1000;
  GlobalsProgram() {
    inst = p.add_instance("h", 1);
    for (const char* s : {"x", "y", "z", "w"}) p.globals().add(s, n * 4);
  }
  Range range(const char* s) const { return p.segment(Binding::Globals, s); }
  void add(const char* name, const char* seg, uint32_t value) {
    StageSpec s;
    s.name = name;
    s.kernel = weft_test_kernels.get("globals_add");
    s.instance = inst;
    s.groups = {4, 1, 1};
    s.args = GlobalsAddArgs{.words = range(seg), .count = n, .add = value}.bind();
    p.add_stage(s);
  }
  void copy(const char* name, const char* src, const char* dst, uint32_t mul = 1, uint32_t add = 0) {
    StageSpec s;
    s.name = name;
    s.kernel = weft_test_kernels.get("globals_copy");
    s.instance = inst;
    s.groups = {4, 1, 1};
    s.args = GlobalsCopyArgs{.src = range(src), .dst = range(dst), .count = n, .mul = mul, .add = add}.bind();
    p.add_stage(s);
  }
};

std::vector<uint32_t> iota_words(uint32_t n, uint32_t base) {
  std::vector<uint32_t> v(n);
  for (uint32_t i = 0; i < n; ++i) v[i] = base + i * 3;
  return v;
}

Result expect_words(Executable& exe, const char* seg, const std::vector<uint32_t>& want, const char* what) {
  auto got = exe.read_segment<uint32_t>(Binding::Globals, seg);
  for (size_t i = 0; i < want.size(); ++i)
    if (got[i] != want[i]) return Result::fail(std::string(what) + ": " + seg + "[" + std::to_string(i) + "] " + fmt_words(got[i], want[i]));
  return Result::pass();
}

Result check_barrier(const Plan& plan, VkAccessFlags src, VkAccessFlags dst, HazardKind kind) {
  if (plan.barriers.size() != 1) return Result::fail("expected exactly one barrier, got " + std::to_string(plan.barriers.size()));
  const Barrier& b = plan.barriers[0];
  if ((b.src_access & src) != src || (b.dst_access & dst) != dst) return Result::fail("barrier access masks too weak");
  if (b.hazards.empty() || b.hazards[0].kind != kind) return Result::fail(std::string("barrier not attributed to ") + hazard_name(kind));
  return Result::pass();
}

Result read_after_write(Device& dev) {
  GlobalsProgram g;
  g.add("x+=5", "x", 5);
  g.copy("y=x", "x", "y");
  Executable exe(dev, std::move(g.p));
  auto x = iota_words(g.n, 10);
  exe.write_segment(Binding::Globals, "x", x.data(), x.size() * 4);
  exe.run();
  for (auto& v : x) v += 5;
  if (auto r = expect_words(exe, "y", x, "RAW"); r.outcome != Outcome::Pass) return r;
  return check_barrier(exe.plan(), VK_ACCESS_SHADER_WRITE_BIT, VK_ACCESS_SHADER_READ_BIT, HazardKind::ReadAfterWrite);
}

Result write_after_read(Device& dev) {
  GlobalsProgram g;
  g.copy("y=x", "x", "y");
  g.add("x+=7", "x", 7);
  Executable exe(dev, std::move(g.p));
  auto x = iota_words(g.n, 20);
  exe.write_segment(Binding::Globals, "x", x.data(), x.size() * 4);
  exe.run();
  if (auto r = expect_words(exe, "y", x, "WAR (reader saw the later write)"); r.outcome != Outcome::Pass) return r;
  for (auto& v : x) v += 7;
  if (auto r = expect_words(exe, "x", x, "WAR"); r.outcome != Outcome::Pass) return r;
  return check_barrier(exe.plan(), 0, 0, HazardKind::WriteAfterRead);
}

Result write_after_write(Device& dev) {
  GlobalsProgram g;
  g.copy("x=z", "z", "x");
  g.copy("x=w*2", "w", "x", 2, 0);
  Executable exe(dev, std::move(g.p));
  auto z = iota_words(g.n, 1), w = iota_words(g.n, 500);
  exe.write_segment(Binding::Globals, "z", z.data(), z.size() * 4);
  exe.write_segment(Binding::Globals, "w", w.data(), w.size() * 4);
  exe.run();
  for (auto& v : w) v *= 2;
  if (auto r = expect_words(exe, "x", w, "WAW (the earlier write won)"); r.outcome != Outcome::Pass) return r;
  return check_barrier(exe.plan(), VK_ACCESS_SHADER_WRITE_BIT, VK_ACCESS_SHADER_WRITE_BIT, HazardKind::WriteAfterWrite);
}

Result independent_stages(Device& dev) {
  GlobalsProgram g;
  g.add("x+=1", "x", 1);
  g.add("y+=2", "y", 2);
  g.add("z+=3", "z", 3);
  g.copy("w=x", "x", "w");  // depends on the first stage only
  Executable exe(dev, std::move(g.p));
  const Plan& plan = exe.plan();
  if (plan.barriers.size() != 1) return Result::fail("expected 1 barrier (before w=x), got " + std::to_string(plan.barriers.size()));
  if (plan.level[0] || plan.level[1] || plan.level[2] || plan.level[3] != 1) return Result::fail("independent stages not in level 0");
  if (plan.barriers[0].hazards.size() != 1 || plan.barriers[0].hazards[0].earlier != 0)
    return Result::fail("the barrier covers stages it need not");
  auto x = iota_words(g.n, 0);
  exe.write_segment(Binding::Globals, "x", x.data(), x.size() * 4);
  exe.run();
  for (auto& v : x) v += 1;
  return expect_words(exe, "w", x, "independent");
}

// ---- replay ----------------------------------------------------------------------------------

Result replay(Device& dev, int runs) {
  Program p("replay");
  const uint32_t width = 16;
  InstanceId a = p.add_instance("a", width);
  StageSpec s;
  s.name = "scale";
  s.kernel = weft_test_kernels.get("chain_step");
  s.instance = a;
  s.message = true;
  const float mul = 3.0f, add = 0.5f;
  s.args = ChainStepArgs{.mul = mul, .add = add}.bind();
  p.add_stage(s);
  Executable exe(dev, std::move(p));
  std::vector<float> in(width), out(width);
  for (int r = 0; r < runs; ++r) {
    for (uint32_t j = 0; j < width; ++j) in[j] = float(r) + float(j) * 0.5f;
    exe.write_register(a, WEFT_R_INBOX, in.data(), width * 4);
    exe.run();
    exe.read_register(a, WEFT_R_OUTBOX, out.data(), width * 4);
    for (uint32_t j = 0; j < width; ++j)
      if (out[j] != in[j] * mul + add) return Result::fail("run " + std::to_string(r) + " word " + std::to_string(j) + " is stale or wrong");
    if (exe.metrics(a).sequence != 1) return Result::fail("Metrics were not reset between runs");
  }
  return Result::pass(std::to_string(runs) + " replays of one recording");
}

// ---- errors ----------------------------------------------------------------------------------

// A globals_add stage over an 8-word segment with the arguments `args(segment)`, built into an
// executable (so both add_stage and the device checks run).
template <class Args>
void add_globals_add(Device& dev, Args&& args) {
  Program p;
  p.globals().add("x", 32);
  StageSpec s;
  s.name = "add";
  s.kernel = weft_test_kernels.get("globals_add");
  s.instance = p.add_instance("a", 1);
  s.args = args(p.segment(Binding::Globals, "x"));
  p.add_stage(s);
  Executable exe(dev, std::move(p));
}

Result typed_errors(Device& dev) {
  struct Check {
    const char* what;
    ErrorCode want;
    std::function<void()> fn;
  };
  auto stage = [](Program& p, InstanceId i) {
    StageSpec s;
    s.name = "s";
    s.kernel = weft_test_kernels.get("globals_bump");
    s.instance = i;
    return s;
  };
  std::vector<Check> checks = {
      {"register past the window", ErrorCode::RegisterWindowOverflow, [] { Program p; p.registers(p.add_instance("a", 4), 30, 3); }},
      {"wider receiver than sender", ErrorCode::RegisterWindowOverflow,
       [] { Program p; auto a = p.add_instance("a", 4); auto b = p.add_instance("b", 8); p.connect(a, b); }},
      {"unknown segment", ErrorCode::SegmentOutOfRange, [] { Program p; p.globals().add("x", 16); p.segment(Binding::Globals, "y"); }},
      {"range past a buffer", ErrorCode::SegmentOutOfRange,
       [&] {
         Program p; auto i = p.add_instance("a", 1); p.globals().add("x", 64);
         auto s = stage(p, i); s.reads = {{Binding::Globals, 32, 64}}; s.writes = s.reads; p.add_stage(s);
         Executable exe(dev, std::move(p));
       }},
      {"register range across windows", ErrorCode::RegisterWindowOverflow,
       [&] {
         Program p; auto i = p.add_instance("a", 1); p.add_instance("b", 1); p.globals().add("x", 64);
         auto s = stage(p, i); s.reads = {p.segment(Binding::Globals, "x"), {Binding::Registers, 120, 16}};
         s.writes = {p.segment(Binding::Globals, "x")}; p.add_stage(s);
         Executable exe(dev, std::move(p));
       }},
      {"kernel uses an undeclared binding", ErrorCode::UndeclaredBinding,
       [&] { Program p; auto i = p.add_instance("a", 1); p.add_stage(stage(p, i)); Executable exe(dev, std::move(p)); }},
      {"kernel writes a read-only declaration", ErrorCode::UndeclaredBinding,
       [&] {
         Program p; auto i = p.add_instance("a", 1); p.globals().add("x", 64);
         auto s = stage(p, i); s.reads = {p.segment(Binding::Globals, "x")}; p.add_stage(s);
         Executable exe(dev, std::move(p));
       }},
      {"stage writes Heap", ErrorCode::InvalidProgram,
       [&] {
         Program p; auto i = p.add_instance("a", 1); p.globals().add("x", 64); p.heap().add("h", 64);
         auto s = stage(p, i); s.reads = {p.segment(Binding::Globals, "x")};
         s.writes = {p.segment(Binding::Globals, "x"), p.segment(Binding::Heap, "h")}; p.add_stage(s);
         Executable exe(dev, std::move(p));
       }},

      {"dispatch beyond the device limit", ErrorCode::InvalidProgram,
       [&] {
         Program p; auto i = p.add_instance("a", 1); p.globals().add("x", 64);
         auto s = stage(p, i); s.reads = s.writes = {p.segment(Binding::Globals, "x")};
         s.groups = {dev.info().max_workgroup_count[0] + 1u, 1, 1}; p.add_stage(s);
         Executable exe(dev, std::move(p));
       }},
      {"rule sets a slot beyond the device limit", ErrorCode::InvalidProgram,
       [&] {
         Program p; auto i = p.add_instance("a", 1); p.globals().add("x", 64);
         const SlotId slot = p.add_slot("s", {1, 1, 1});
         auto s = stage(p, i); s.reads = s.writes = {p.segment(Binding::Globals, "x")}; s.indirect = slot; p.add_stage(s);
         add_regulator(p, "regulator", {rule(Condition::always(), Action::set_slot(p, slot, 0xFFFFFFFFu))});
         Executable exe(dev, std::move(p));
       }},
      {"unknown instance", ErrorCode::InvalidProgram, [] { Program p; p.metrics(InstanceId{3}); }},
      {"missing indirect slot", ErrorCode::InvalidProgram,
       [&] { Program p; auto i = p.add_instance("a", 1); auto s = stage(p, i); s.indirect = SlotId{0}; p.add_stage(s); }},
      {"not SPIR-V", ErrorCode::ShaderCompile, [] { Kernel k("junk", {1, 2, 3, 4, 5, 6}); }},
      {"argument not bound", ErrorCode::InvalidProgram, [&] { add_globals_add(dev, [](const Range& x) {
         return std::vector{arg("words", x), arg("count", 4)}; }); }},
      {"argument bound twice", ErrorCode::InvalidProgram, [&] { add_globals_add(dev, [](const Range& x) {
         return std::vector{arg("words", x), arg("count", 4), arg("add", 1), arg("count", 4)}; }); }},
      {"argument the kernel does not declare", ErrorCode::InvalidProgram, [&] { add_globals_add(dev, [](const Range& x) {
         return std::vector{arg("words", x), arg("count", 4), arg("add", 1), arg("extra", 1)}; }); }},
      {"range of another binding", ErrorCode::InvalidProgram, [&] { add_globals_add(dev, [](const Range&) {
         return std::vector{arg("words", Range{Binding::Control, 0, 16}), arg("count", 4), arg("add", 1)}; }); }},
      {"scalar for a range", ErrorCode::InvalidProgram, [&] { add_globals_add(dev, [](const Range&) {
         return std::vector{arg("words", 0), arg("count", 4), arg("add", 1)}; }); }},
      {"negative value for a u32", ErrorCode::InvalidProgram, [&] { add_globals_add(dev, [](const Range& x) {
         return std::vector{arg("words", x), arg("count", -1), arg("add", 1)}; }); }},
      {"float for an integer", ErrorCode::InvalidProgram, [&] { add_globals_add(dev, [](const Range& x) {
         return std::vector{arg("words", x), arg("count", 4), arg("add", 1.5f)}; }); }},
      {"range not word-aligned", ErrorCode::InvalidProgram, [&] { add_globals_add(dev, [](const Range&) {
         return std::vector{arg("words", Range{Binding::Globals, 2, 8}), arg("count", 4), arg("add", 1)}; }); }},
      {"another kernel's typed arguments", ErrorCode::InvalidProgram, [&] { add_globals_add(dev, [](const Range& x) {
         return TallyArgs{.counter = x, .tag = 1}.bind(); }); }},
      {"kernel declaring more arguments than fit", ErrorCode::ShaderCompile,
       [] {
         std::string list;
         for (int k = 0; k <= WEFT_PUSH_ARG_WORDS; ++k) list += " X(WEFT_U32, a" + std::to_string(k) + ")";
         compile_kernel_source("many.comp", "#version 450\n#extension GL_GOOGLE_include_directive : require\n"
                               "#define WEFT_ARGS(X)" + list + "\n#include \"weft.glsl\"\nvoid main() {}\n");
       }},
      {"signature that the module does not hold", ErrorCode::ShaderCompile,
       [] {
         const KernelRef k = weft_test_kernels.get("globals_add");
         Kernel changed("globals_add", k->spirv(false), {}, {ArgSpec{"words", ArgType::InOut, Binding::Globals}});
       }},
      {"duplicate segment", ErrorCode::BadInput, [] { Program p; p.heap().add("a", 4); p.heap().add("a", 4); }},
      {"unknown device", ErrorCode::NoDevice, [] { DeviceOptions o; o.select = "no-such-gpu-name"; Device::open(o); }},
      {"device index out of range", ErrorCode::NoDevice, [] { DeviceOptions o; o.select = "4096"; Device::open(o); }},
  };
  for (auto& c : checks) {
    ErrorCode got = error_of(c.fn);
    if (got != c.want)
      return Result::fail(std::string(c.what) + ": expected '" + to_string(c.want) + "', got " +
                          (int(got) == -1 ? std::string("no error") : std::string("'") + to_string(got) + "'"));
  }
  // A refused operation leaves the executable as it was.
  GlobalsProgram g;
  g.add("x+=1", "x", 1);
  Executable exe(dev, std::move(g.p));
  auto x = iota_words(g.n, 3);
  exe.write_segment(Binding::Globals, "x", x.data(), x.size() * 4);
  std::vector<uint32_t> big(g.n + 1, 0xDEAD);
  if (error_of([&] { exe.write_segment(Binding::Globals, "x", big.data(), big.size() * 4); }) != ErrorCode::SegmentOutOfRange)
    return Result::fail("an oversize segment write was not refused");
  exe.run();
  for (auto& v : x) v += 1;
  if (auto r = expect_words(exe, "x", x, "state after a refused write"); r.outcome != Outcome::Pass) return r;
  return Result::pass(std::to_string(checks.size()) + " error paths");
}

Result compile_error_location(Device&) {
  const std::string src =
      "#version 450\n#extension GL_GOOGLE_include_directive : require\n#include \"weft.glsl\"\n"
      "layout(local_size_x = 1) in;\nvoid main() {\n  undefined_thing = 1;\n}\n";
  try {
    compile_glsl(src, "broken.comp");
  } catch (const Error& e) {
    const std::string msg = e.what();
    if (e.code() != ErrorCode::ShaderCompile) return Result::fail("wrong error code");
    if (msg.find("broken.comp:6:") == std::string::npos) return Result::fail("message lacks 'broken.comp:6:': " + msg);
    if (msg.find("undefined_thing") == std::string::npos) return Result::fail("message does not name the identifier: " + msg);
    return Result::pass();
  }
  return Result::fail("a broken shader compiled");
}

Result runtime_kernel_runs(Device& dev) {
  const std::string src =
      "#version 450\n#extension GL_GOOGLE_include_directive : require\n"
      "#define WEFT_ARGS(X) X(WEFT_OUT(Globals), squares) X(WEFT_U32, n)\n#include \"weft.glsl\"\n"
      "layout(local_size_x = 32) in;\n"
      "void main() { uint i = gl_GlobalInvocationID.x; if (i < pc.args.n) globals_u[pc.args.squares + i] = i * i + SHIFT; }\n";
  CompileOptions opts;
  opts.defines.push_back({"SHIFT", "7u"});
  KernelRef k = compile_kernel_source("squares.comp", src, opts);
  Program p("runtime");
  p.globals().add("sq", 100 * 4);
  InstanceId i = p.add_instance("a", 1);
  StageSpec s;
  s.name = "squares";
  s.kernel = k;
  s.instance = i;
  s.groups = {4, 1, 1};
  s.args = {arg("squares", p.segment(Binding::Globals, "sq")), arg("n", 100)};
  p.add_stage(s);
  Executable exe(dev, std::move(p));
  exe.run();
  auto got = exe.read_segment<uint32_t>(Binding::Globals, "sq");
  for (uint32_t j = 0; j < 100; ++j)
    if (got[j] != j * j + 7) return Result::fail("word " + std::to_string(j) + " " + fmt_words(got[j], j * j + 7));
  return Result::pass();
}

Result pipelines_are_cached(Device& dev) {
  auto build = [&] {
    GlobalsProgram g;
    g.add("a", "x", 1);
    g.add("b", "y", 1);
    return Executable(dev, std::move(g.p));
  };
  { auto e = build(); }
  const size_t before = dev.pipelines().size();
  { auto e = build(); }
  if (dev.pipelines().size() != before) return Result::fail("a second program with the same kernel built a new pipeline");
  return Result::pass();
}

Result stage_timestamps(Device& dev) {
  if (!dev.info().timestamps) return Result::skip("the compute queue has no timestamps");
  GlobalsProgram g;
  g.add("a", "x", 1);
  g.copy("b", "x", "y");
  Executable exe(dev, std::move(g.p));
  exe.run();
  Timings t = exe.timings();
  if (!t.valid || t.stage_ns.size() != 2) return Result::fail("no per-stage timings");
  if (t.total_ns <= 0 || t.stage_ns[0] < 0 || t.stage_ns[1] < 0) return Result::fail("non-positive GPU times");
  if (t.stage_ns[0] + t.stage_ns[1] > t.total_ns * 1.0001) return Result::fail("stage times exceed the run");
  return Result::pass();
}

// The device's own loop cap, as Device::loop_iteration_limit reports it: a loop of exactly that
// many iterations runs whole and one more stops there (a driver that stops loops silently).
Result loop_iteration_limit(Device& dev) {
  const uint32_t limit = dev.loop_iteration_limit();
  if (limit == UINT32_MAX) {
    if (loop_iterations_run(dev, 1u << 20) != 1u << 20) return Result::fail("a loop of 2^20 iterations stopped early");
    return Result::pass("no cap up to 2^20 iterations per invocation");
  }
  if (loop_iterations_run(dev, limit) != limit || loop_iterations_run(dev, limit + 1) != limit)
    return Result::fail("the reported cap of " + std::to_string(limit) + " iterations does not hold");
  return Result::pass("the driver stops loops after " + std::to_string(limit) + " iterations per invocation");
}

// A loop of n iterations followed by a check, weft_require_loop_end(the loop ended) or, at the
// kernel's end, weft_require_loops_whole(): the count it reached, or the typed error that says
// the driver stopped it early.
uint32_t counted_loop(Device& dev, uint32_t n, const std::string& check) {
  const std::string src =
      "#version 450\n#extension GL_GOOGLE_include_directive : require\n"
      "#define WEFT_ARGS(X) X(WEFT_OUT(Globals), ran) X(WEFT_U32, n)\n#include \"weft.glsl\"\n"
      "layout(local_size_x = 1) in;\n"
      "void main() { uint i = 0u; for (; i < pc.args.n; ++i) {} globals_u[pc.args.ran] = i; " + check + "; }\n";
  Program p("counted_loop");
  p.globals().add("ran", 4);
  StageSpec s;
  s.name = "count";
  s.kernel = compile_kernel_source("counted_loop.comp", src, {});
  s.instance = p.add_instance("a", 1);
  s.args = {arg("ran", p.segment(Binding::Globals, "ran")), arg("n", n)};
  p.add_stage(s);
  Executable exe(dev, std::move(p));
  exe.run();
  return exe.read_segment<uint32_t>(Binding::Globals, "ran")[0];
}

// A loop the driver stops early is a MissingFeature naming the stage, never a wrong count, with
// either check; a loop within the device's cap runs whole and passes both.
Result loop_cut_is_reported(Device& dev) {
  const uint32_t limit = dev.loop_iteration_limit();
  const uint32_t whole = limit == UINT32_MAX ? 1u << 20 : limit / 2;
  for (const std::string check : {"weft_require_loop_end(i == pc.args.n)", "weft_require_loops_whole()"}) {
    if (const uint32_t ran = counted_loop(dev, whole, check); ran != whole)
      return Result::fail(check + ": a loop of " + std::to_string(whole) + " iterations ran " + std::to_string(ran));
    if (limit == UINT32_MAX) continue;
    try {
      const uint32_t ran = counted_loop(dev, limit + 1000, check);
      return Result::fail(check + ": a loop stopped after " + std::to_string(ran) + " of " + std::to_string(limit + 1000) +
                          " iterations was not reported");
    } catch (const Error& e) {
      if (e.code() != ErrorCode::MissingFeature) return Result::fail(check + ": wrong error code: " + e.what());
      if (std::string(e.what()).find("stage 'count'") == std::string::npos) return Result::fail(check + ": stage not named: " + e.what());
    }
  }
  return Result::pass(limit == UINT32_MAX ? "no cap: nothing to report" : "both checks report a stopped loop");
}

}  // namespace

std::vector<Case> engine_cases() {
  return {
      {"bindings.layout_agrees", "exact", layout_agrees},
      {"transfer.round_trip_mapped", "exact", [](Device& d) { return round_trip(d, MemoryUse::DeviceLocal); }},
      {"transfer.round_trip_staged", "exact", [](Device& d) { return round_trip(d, MemoryUse::DeviceOnly); }},
      {"messages.three_instance_chain", "payload exact; norm rel 1e-5 (f32 tree sum)", three_instance_chain},
      {"barriers.read_after_write", "exact", read_after_write},
      {"barriers.write_after_read", "exact", write_after_read},
      {"barriers.write_after_write", "exact", write_after_write},
      {"barriers.independent_stages_unbarriered", "exact", independent_stages},
      {"replay.changing_inputs", "exact", [](Device& d) { return replay(d, 200); }},
      {"errors.typed", "exact", typed_errors},
      {"compile.error_names_file_and_line", "exact", compile_error_location},
      {"compile.runtime_kernel_runs", "exact", runtime_kernel_runs},
      {"pipelines.cached_by_spirv", "exact", pipelines_are_cached},
      {"timing.stage_timestamps", "consistent", stage_timestamps},
      {"limits.loop_iterations", "exact", loop_iteration_limit},
      {"limits.loop_stopped_early_is_an_error", "exact", loop_cut_is_reported},
  };
}

}  // namespace weft::conformance
