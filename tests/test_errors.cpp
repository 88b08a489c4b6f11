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

TEST_CASE("a heap above maxStorageBufferRange on a device without buffer device address is a missing feature") {
  DeviceInfo limited = test::device().info();
  limited.buffer_device_address = false;
  limited.max_storage_buffer_range = 1 << 20;
  Program p("big");
  p.heap().add("weights", (1 << 20) + 64);
  CHECK(test::error_code_of([&] { p.validate(limited); }) == ErrorCode::MissingFeature);
  const std::string msg = test::error_message_of([&] { p.validate(limited); });
  CHECK(msg.find("Heap") != std::string::npos);
  CHECK(msg.find("bufferDeviceAddress") != std::string::npos);
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
