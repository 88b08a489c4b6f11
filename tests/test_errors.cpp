// Errors name what failed and where; bad input never corrupts what was there.
#include "support.h"

using namespace weft;

TEST_CASE("an undeclared binding names the program, stage, kernel and binding") {
  test::ValidationClean clean;
  Program p("prog");
  InstanceId i = p.add_instance("a", 1);
  StageSpec s;
  s.name = "adder";
  s.kernel = conformance::test_kernel("globals_add");
  s.instance = i;
  p.add_stage(s);
  const std::string msg = test::error_message_of([&] { Executable e(test::device(), std::move(p)); });
  CHECK(msg.find("undeclared binding") != std::string::npos);
  CHECK(msg.find("'prog'") != std::string::npos);
  CHECK(msg.find("'adder'") != std::string::npos);
  CHECK(msg.find("globals_add") != std::string::npos);
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
