// Ports: the named inputs and outputs a workload's part of a program offers to compositions.
#include "support.h"

using namespace weft;

TEST_CASE("a port gives back the range or instance it was declared with") {
  Program p;
  p.globals().add("mask", 64);
  const InstanceId last = p.add_instance("last", 4);
  Ports ports("gnn");
  ports.add_segment("node_mask", p.segment(Binding::Globals, "mask"), "u32[nodes]").add_instance("readout", last, "R30: mean");
  CHECK(ports.segment("node_mask").offset == p.segment(Binding::Globals, "mask").offset);
  CHECK(ports.segment("node_mask").size == 64);
  CHECK(ports.instance("readout") == last);
  CHECK(ports.describe().find("gnn.node_mask  Globals [") != std::string::npos);
}

TEST_CASE("an unknown port is an error naming the owner and listing its ports") {
  Ports ports("game");
  ports.add_segment("results", Range{Binding::Globals, 0, 16}, "root results");
  const std::string msg = test::error_message_of([&] { ports.segment("result"); });
  CHECK(msg.find("game has no port 'result' (ports: results)") != std::string::npos);
}

TEST_CASE("a port of the other kind, or declared twice, is an InvalidProgram error") {
  Ports ports("physics");
  ports.add_segment("positions", Range{Binding::Globals, 0, 12}, "xyz");
  CHECK(test::error_code_of([&] { ports.instance("positions"); }) == ErrorCode::InvalidProgram);
  CHECK(test::error_code_of([&] { ports.add_instance("positions", InstanceId{0}, ""); }) == ErrorCode::InvalidProgram);
}
