// Errors name what failed and where; bad input never corrupts what was there.
#include "support.h"

using namespace weft;

TEST_CASE("an unbound kernel argument names the stage, the kernel and the argument with its type") {
  Program p("prog");
  p.globals().add("x", 64);
  StageSpec s;
  s.name = "adder";
  s.kernel = weft_test_kernels.get("globals_add");
  s.instance = p.add_instance("a", 1);
  s.args = {arg("words", p.segment(Binding::Globals, "x")), arg("add", 1)};
  const std::string msg = test::error_message_of([&] { p.add_stage(s); });
  CHECK(msg.find("'adder'") != std::string::npos);
  CHECK(msg.find("globals_add") != std::string::npos);
  CHECK(msg.find("'u32 count' is not bound") != std::string::npos);
}

TEST_CASE("an undeclared binding names the program, stage, kernel and binding") {
  test::ValidationClean clean;
  Program p("prog");
  InstanceId i = p.add_instance("a", 1);
  StageSpec s;
  s.name = "adder";
  s.kernel = weft_test_kernels.get("globals_bump");
  s.instance = i;
  p.add_stage(s);
  const std::string msg = test::error_message_of([&] { Executable e(test::device(), std::move(p)); });
  CHECK(msg.find("undeclared binding") != std::string::npos);
  CHECK(msg.find("'prog'") != std::string::npos);
  CHECK(msg.find("'adder'") != std::string::npos);
  CHECK(msg.find("globals_bump") != std::string::npos);
  CHECK(msg.find("Globals") != std::string::npos);
}

TEST_CASE("an unknown segment lists the segments that exist") {
  Program p;
  p.heap().add("weights", 64);
  p.heap().add("bias", 64);
  const std::string msg = test::error_message_of([&] { p.segment(Binding::Heap, "wieghts"); });
  CHECK(msg.find("'wieghts'") != std::string::npos);
  CHECK(msg.find("weights, bias") != std::string::npos);
}

TEST_CASE("a register window overflow names the instance and the registers") {
  Program p;
  InstanceId a = p.add_instance("layer3", 16);
  const std::string msg = test::error_message_of([&] { p.registers(a, 31, 2); });
  CHECK(msg.find("register window overflow") != std::string::npos);
  CHECK(msg.find("R31..R32") != std::string::npos);
  CHECK(msg.find("'layer3'") != std::string::npos);
}

TEST_CASE("a shader compile error reads file:line: message") {
  const std::string msg = test::error_message_of([] {
    compile_glsl("#version 450\nlayout(local_size_x = 1) in;\nvoid main() {\n  int x = ;\n}\n", "dir/kern.comp");
  });
  CHECK(msg.find("dir/kern.comp:4:") != std::string::npos);
}

TEST_CASE("a missing include is a compile error naming the include") {
  const std::string msg = test::error_message_of([] {
    compile_glsl("#version 450\n#extension GL_GOOGLE_include_directive : require\n#include \"nope.glsl\"\nvoid main() {}\n", "k.comp");
  });
  CHECK(msg.find("nope.glsl") != std::string::npos);
  CHECK(msg.find("k.comp:3:") != std::string::npos);
}

TEST_CASE("a kernel file that does not exist is bad input naming the path") {
  CHECK(test::error_code_of([] { compile_kernel_file("/no/such/kernel.comp"); }) == ErrorCode::BadInput);
  CHECK(test::error_message_of([] { compile_kernel_file("/no/such/kernel.comp"); }).find("/no/such/kernel.comp") !=
        std::string::npos);
}

TEST_CASE("waiting on a ticket that was never submitted is a bad-input status, not a hang") {
  test::ValidationClean clean;
  Program p;
  p.add_instance("a", 1);
  Executable exe(test::device(), std::move(p));
  Status s = exe.wait(Ticket{5});
  CHECK_FALSE(s.ok);
  CHECK(s.code == ErrorCode::BadInput);
}

TEST_CASE("an empty program runs") {
  test::ValidationClean clean;
  Program p;
  Executable exe(test::device(), std::move(p));
  exe.run();
  CHECK(exe.plan().order.empty());
}

TEST_CASE("a heap above the storage-buffer window is refused, pointing at far segments") {
  DeviceInfo limited = test::device().info();
  limited.max_storage_buffer_range = 1 << 20;
  Program p("big");
  p.heap().add("weights", (1 << 20) + 64);
  CHECK(test::error_code_of([&] { p.validate(limited); }) == ErrorCode::InvalidProgram);
  const std::string msg = test::error_message_of([&] { p.validate(limited); });
  CHECK(msg.find("Heap needs 1048640 bytes") != std::string::npos);
  CHECK(msg.find("add_far") != std::string::npos);
}

TEST_CASE("a far segment takes no room in the bound buffer and may pass the window") {
  DeviceInfo limited = test::device().info();
  limited.max_storage_buffer_range = 1 << 20;
  Program p("big");
  p.heap().add("small", 64);
  p.heap().add_far("weights", 64 << 20, 16);
  CHECK(p.heap().size() == 64);
  CHECK_NOTHROW(p.validate(limited));
  const Range r = p.segment(Binding::Heap, "weights");
  CHECK(r.far == 1);
  CHECK(r.size == (64u << 20));
  CHECK_FALSE(r.overlaps(p.segment(Binding::Heap, "small")));  // both start at byte 0, in different spaces
}

namespace {
// A program whose one stage gathers from a Heap far segment.
Program far_gather_program() {
  Program p("far");
  p.heap().add_far("table", 4096);
  p.globals().add("index", 16);
  p.globals().add("out", 16);
  StageSpec s;
  s.name = "gather";
  s.kernel = weft_test_kernels.get("far_gather");
  s.instance = p.add_instance("a", 1);
  s.args = {arg("table", p.segment(Binding::Heap, "table")), arg("index", p.segment(Binding::Globals, "index")),
            arg("gathered", p.segment(Binding::Globals, "out")), arg("count", 4), arg("record_words", 1)};
  p.add_stage(s);
  return p;
}
}  // namespace

TEST_CASE("a stage reaching a far segment on a device without buffer device address is a missing feature") {
  DeviceInfo limited = test::device().info();
  limited.buffer_device_address = false;
  const Program p = far_gather_program();
  CHECK(test::error_code_of([&] { p.validate(limited); }) == ErrorCode::MissingFeature);
  const std::string msg = test::error_message_of([&] { p.validate(limited); });
  CHECK(msg.find("'gather' reaches far segment 'table'") != std::string::npos);
  CHECK(msg.find("bufferDeviceAddress") != std::string::npos);
}

TEST_CASE("a far argument takes a whole far segment, and a bound-buffer argument refuses one") {
  Program p("far");
  p.heap().add_far("table", 4096);
  p.heap().add("near", 4096);
  p.globals().add("index", 16);
  StageSpec s;
  s.name = "gather";
  s.kernel = weft_test_kernels.get("far_gather");
  s.instance = p.add_instance("a", 1);
  auto with_table = [&](const Range& table) {
    s.args = {arg("table", table), arg("index", p.segment(Binding::Globals, "index")),
              arg("gathered", p.segment(Binding::Globals, "index")), arg("count", 4), arg("record_words", 1)};
    return test::error_message_of([&] { p.add_stage(s); });
  };
  CHECK(with_table(p.segment(Binding::Heap, "near")).find("takes a far segment") != std::string::npos);
  CHECK(with_table(p.segment(Binding::Heap, "table").part(64, 64)).find("takes a whole far segment") != std::string::npos);
  StageSpec add;
  add.name = "add";
  add.kernel = weft_test_kernels.get("globals_add");
  add.instance = s.instance;
  p.globals().add_far("big", 4096);
  add.args = {arg("words", p.segment(Binding::Globals, "big")), arg("count", 4), arg("add", 1)};
  CHECK(test::error_message_of([&] { p.add_stage(add); }).find("got a far segment") != std::string::npos);
}

TEST_CASE("a reference argument pushes a window range's word, or the far bit and a far segment's index") {
  Program p("ref");
  p.heap().add("pad", 256);
  p.heap().add("near", 4096);
  p.heap().add_far("first", 4096);
  p.heap().add_far("table", 4096);
  p.globals().add("index", 16);
  StageSpec s;
  s.name = "gather";
  s.kernel = weft_test_kernels.get("ref_gather");
  s.instance = p.add_instance("a", 1);
  auto push_for = [&](const Range& table) {
    s.args = {arg("table", table), arg("index", p.segment(Binding::Globals, "index")),
              arg("gathered", p.segment(Binding::Globals, "index")), arg("count", 4)};
    const StageId id = p.add_stage(s);
    return std::make_pair(p.stages()[id.index].push_words.at(0), p.stages()[id.index].kernel->interface(false).far_access());
  };
  CHECK(push_for(p.segment(Binding::Heap, "near")) == std::make_pair(256u / 4, false));
  CHECK(push_for(p.segment(Binding::Heap, "table")) == std::make_pair(WEFT_REF_FAR | 1u, true));  // its far variant
  CHECK(test::error_message_of([&] { push_for(p.segment(Binding::Heap, "table").part(64, 64)); })
            .find("takes a whole far segment") != std::string::npos);
}

TEST_CASE("a stage declaring a far segment its kernel cannot reach is refused, naming both") {
  Program p("undeclared");
  p.globals().add_far("big", 4096);
  p.globals().add("words", 64);
  StageSpec add;
  add.name = "add";
  add.kernel = weft_test_kernels.get("globals_add");  // no far variant
  add.instance = p.add_instance("a", 1);
  add.args = {arg("words", p.segment(Binding::Globals, "words")), arg("count", 4), arg("add", 1)};
  add.reads = {p.segment(Binding::Globals, "big")};
  p.add_stage(add);
  const std::string msg = test::error_message_of([&] { p.validate(test::device().info()); });
  CHECK(msg.find("declares far segment 'big'") != std::string::npos);
  CHECK(msg.find("kernel 'globals_add' has no far access") != std::string::npos);
}

TEST_CASE("far segments are split into chunks of a power-of-two number of whole records") {
  Segment s{"rows", 0, 1000 * 12, 1, 12};
  const FarPlacement one = place_far_segment(s, "Heap", 1 << 20);
  CHECK(one.chunk_count == 1);
  CHECK(one.chunk_bytes == 12000);
  const FarPlacement split = place_far_segment(s, "Heap", 1024);  // 85 records fit; 64 is the power of two
  CHECK(split.chunk_records_log2 == 6);
  CHECK(split.chunk_bytes == 64 * 12);
  CHECK(split.chunk_count == 16);  // ceil(1000 / 64)
  CHECK(test::error_code_of([&] { place_far_segment(s, "Heap", 8); }) == ErrorCode::OutOfMemory);
}

TEST_CASE("far segments refuse sizes that are not whole records") {
  SegmentLayout heap("Heap");
  CHECK(test::error_code_of([&] { heap.add_far("a", 10, 4); }) == ErrorCode::BadInput);
  CHECK(test::error_code_of([&] { heap.add_far("b", 12, 6); }) == ErrorCode::BadInput);
  CHECK(test::error_code_of([&] { heap.add_far("c", 0, 4); }) == ErrorCode::BadInput);
  heap.add_far("d", 12, 12);
  CHECK(test::error_code_of([&] { heap.add_far("d", 12, 12); }) == ErrorCode::BadInput);
}

TEST_CASE("a program needing more than the device's memory names both sizes") {
  Device& dev = test::device();
  Program p("huge");
  p.heap().add_far("weights", (dev.info().device_local_bytes / 16 + 1) * 16 + 16, 16);
  const std::string msg = test::error_message_of([&] { Executable e(dev, std::move(p)); });
  CHECK(msg.find("bytes of device memory") != std::string::npos);
  CHECK(msg.find(std::to_string(dev.info().device_local_bytes)) != std::string::npos);
}

TEST_CASE("Registers above maxStorageBufferRange are refused: only Heap and Globals have far access") {
  DeviceInfo limited = test::device().info();
  limited.max_storage_buffer_range = 4096;
  Program p("wide");
  p.add_instance("a", 64);  // 32 registers x 64 words x 4 bytes = 8 KiB
  CHECK(test::error_code_of([&] { p.validate(limited); }) == ErrorCode::InvalidProgram);
}

TEST_CASE("a buffer beyond maxMemoryAllocationSize is out of memory, and the device stays usable") {
  test::ValidationClean clean;
  Device& dev = test::device();
  const uint64_t too_big = dev.info().max_memory_allocation_size + (1u << 20);
  CHECK(test::error_code_of([&] {
          Buffer b(dev, too_big, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, MemoryUse::DeviceLocal, "huge");
        }) == ErrorCode::OutOfMemory);
  Buffer ok(dev, 64, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, MemoryUse::DeviceLocal, "small");
  const uint32_t v = 42;
  ok.write(8, &v, 4);
  uint32_t back = 0;
  ok.read(8, &back, 4);
  CHECK(back == 42);
}

TEST_CASE("an indirect slot that starts larger than the device's group limit is refused") {
  DeviceInfo info = test::device().info();
  Program p("slots");
  p.add_slot("huge", {info.max_workgroup_count[0] + 1u, 1, 1});
  CHECK(test::error_code_of([&] { p.validate(info); }) == ErrorCode::InvalidProgram);
  CHECK(test::error_message_of([&] { p.validate(info); }).find("'huge'") != std::string::npos);
}

TEST_CASE("a kernel declaring more shared memory than the device allows is refused, naming the sizes") {
  const uint32_t limit = test::device().info().max_compute_shared_memory;
  const uint32_t words = limit / 4 + 16;
  const KernelRef k = compile_kernel_source("too_much_shared.comp",
      "#version 450\n#extension GL_GOOGLE_include_directive : require\n#define WEFT_ARGS(X) X(WEFT_OUT(Globals), result)\n"
      "#include \"weft.glsl\"\nlayout(local_size_x = 64) in;\nshared uint big[" + std::to_string(words) + "];\n"
      "void main() {\n  big[gl_LocalInvocationID.x] = 1u;\n  barrier();\n  globals_u[pc.args.result] = big[63];\n}\n");
  CHECK(k->interface(false).shared_bytes == uint64_t(words) * 4);
  Program p("greedy");
  p.globals().add("out", 4);
  StageSpec s;
  s.name = "hoard";
  s.kernel = k;
  s.instance = p.add_instance("a", 1);
  s.args = {arg("result", p.segment(Binding::Globals, "out"))};
  p.add_stage(s);
  const std::string msg = test::error_message_of([&] { Executable e(test::device(), std::move(p)); });
  INFO(msg);
  CHECK(msg.find("kernel 'too_much_shared' declares " + std::to_string(words * 4) + " bytes of shared memory") != std::string::npos);
  CHECK(msg.find("allows " + std::to_string(limit)) != std::string::npos);
}
