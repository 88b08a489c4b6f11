// The fixed layout: C++ sizes are static_asserted in weft_layout.h; the GLSL half is checked on
// the device by the conformance case bindings.layout_agrees. These pin the contract's numbers.
#include "support.h"

using namespace weft;

TEST_CASE("binding numbers are the contract's: registers 0, metrics 1, globals 2, control 3, heap 4") {
  CHECK(uint32_t(Binding::Registers) == 0);
  CHECK(uint32_t(Binding::Metrics) == 1);
  CHECK(uint32_t(Binding::Globals) == 2);
  CHECK(uint32_t(Binding::Control) == 3);
  CHECK(uint32_t(Binding::Heap) == 4);
}

TEST_CASE("the push-constant block is exactly 128 bytes with a 48-byte header") {
  CHECK(sizeof(abi::WeftPush) == 128);
  CHECK(sizeof(abi::WeftPushHeader) == 48);
}

TEST_CASE("R30 is the outbox and R31 the inbox of a 32-register window") {
  Program p;
  InstanceId a = p.add_instance("a", 8);
  InstanceId b = p.add_instance("b", 8);
  p.connect(a, b);
  CHECK(p.outbox(a).offset == (30 * 8) * 4);
  CHECK(p.inbox(b).offset == p.outbox(a).offset);  // zero copy: b reads a's outbox in place
  CHECK(p.inbox(a).offset == (31 * 8) * 4);        // an unconnected instance owns its R31
  CHECK(p.registers(b).offset == 32 * 8 * 4);
}

TEST_CASE("the GLSL records agree with the C++ header on the device") {
  test::ValidationClean clean;
  for (const auto& c : conformance::engine_cases())
    if (c.name == "bindings.layout_agrees") {
      auto r = c.run(test::device());
      INFO(r.detail);
      CHECK(r.outcome == conformance::Outcome::Pass);
    }
}
