// What a program does when the driver fails under it: a lost device, device memory that runs
// out. The faults come from VK_LAYER_WEFT_fault (fault_layer/), which ctest puts between the
// engine and a healthy driver, so these cases run on any device, lavapipe included.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
// The C ABI's cases are in test_faults_capi.cpp: its header and the engine's both name the bindings.

#include <weft/weft.h>

#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "conformance.h"
#include "device_under_test.h"
#include "fault_layer/fault_layer.h"

using namespace weft;

namespace {

std::unique_ptr<Device> open_device() {
  DeviceOptions o;
  o.validation = true;
  return Device::open(o);
}

// acc[i] += add over `words` words of Globals, one stage.
Program adding_program(uint32_t words, uint32_t add) {
  Program p("adder");
  const InstanceId a = p.add_instance("a", 4);
  p.globals().add("acc", uint64_t(words) * 4);
  StageSpec s;
  s.name = "acc+=add";
  s.kernel = weft_test_kernels.get("globals_add");
  s.instance = a;
  s.args = conformance::GlobalsAddArgs{.words = p.segment(Binding::Globals, "acc"), .count = words, .add = add}.bind();
  p.add_stage(s);
  return p;
}

// Runs the adder once on `device` from zeros and says whether every word came out as `add`.
bool adder_runs_right(Device& device, uint32_t add) {
  Executable exe(device, adding_program(64, add));
  exe.write_segment(Binding::Globals, "acc", std::vector<uint32_t>(64, 0).data(), 64 * 4);
  exe.run();
  const auto got = exe.read_segment<uint32_t>(Binding::Globals, "acc");
  return got == std::vector<uint32_t>(64, add);
}

}  // namespace

TEST_CASE("the fault layer sits between the engine and the driver") {
  const uint64_t before = test::FaultLayer::get().devices_created();
  auto device = open_device();
  CHECK(test::FaultLayer::get().devices_created() == before + 1);
  CHECK(adder_runs_right(*device, 3));
  CHECK(device->validation().count() == 0);
}

TEST_CASE("a lost device fails the run with DeviceLost naming the device and program") {
  auto device = open_device();
  Executable exe(*device, adding_program(64, 1));
  exe.run();
  test::FaultLayer::get().lose_devices();
  const std::string msg = test::error_message_of([&] { exe.run(); });
  CHECK(test::error_code_of([&] { exe.run(); }) == ErrorCode::DeviceLost);
  CHECK(test::contains(msg, "device lost: "));
  CHECK(test::contains(msg, "device '" + device->info().name + "'"));
  CHECK(device->lost());
}

TEST_CASE("after a loss every later call on the device's executables is DeviceLost, not stale data") {
  auto device = open_device();
  Executable exe(*device, adding_program(64, 1));
  const Ticket before = exe.submit();
  test::FaultLayer::get().lose_devices();
  const Status waited = exe.wait(before);
  CHECK_FALSE(waited.ok);
  CHECK(waited.code == ErrorCode::DeviceLost);
  CHECK(exe.done(before));  // nothing more will finish: pollers move on to wait()
  std::vector<uint32_t> words(64);
  CHECK(test::error_code_of([&] { exe.read_segment(Binding::Globals, "acc", words.data(), 256); }) == ErrorCode::DeviceLost);
  CHECK(test::error_code_of([&] { exe.write_segment(Binding::Globals, "acc", words.data(), 256); }) == ErrorCode::DeviceLost);
  CHECK(test::error_code_of([&] { exe.submit(); }) == ErrorCode::DeviceLost);
  CHECK(test::error_code_of([&] { exe.metrics(InstanceId{0}); }) == ErrorCode::DeviceLost);
  CHECK(test::error_code_of([&] { exe.timings(); }) == ErrorCode::DeviceLost);
  const std::string fresh = test::error_message_of([&] { Executable(*device, adding_program(64, 1)); });
  CHECK(test::contains(fresh, "device lost: "));
}

TEST_CASE("a thread waiting on a run when the device is lost gets DeviceLost") {
  auto device = open_device();
  Executable exe(*device, adding_program(1 << 16, 1));
  Status seen;
  const Ticket ticket = exe.submit();
  test::FaultLayer::get().lose_devices();
  std::thread waiter([&] { seen = exe.wait(ticket); });
  waiter.join();
  CHECK(seen.code == ErrorCode::DeviceLost);
}

TEST_CASE("a device opened after a loss runs programs correctly") {
  {
    auto lost = open_device();
    Executable exe(*lost, adding_program(64, 1));
    test::FaultLayer::get().lose_devices();
    CHECK(test::error_code_of([&] { exe.run(); }) == ErrorCode::DeviceLost);
  }  // the executable and the lost device are destroyed without a hang
  auto reopened = open_device();
  CHECK_FALSE(reopened->lost());
  CHECK(adder_runs_right(*reopened, 5));
  CHECK(reopened->validation().count() == 0);
}

TEST_CASE("device memory that runs out is OutOfMemory naming the buffer and size, and the device stays usable") {
  auto device = open_device();
  test::FaultLayer::get().limit_allocations(64u << 20);
  const std::string msg = test::error_message_of([&] { Executable(*device, adding_program(24u << 20, 1)); });
  test::FaultLayer::get().limit_allocations(0);
  CHECK(msg.find("out of memory: ") == 0);
  CHECK(test::contains(msg, "Globals"));
  CHECK(test::contains(msg, "VK_ERROR_OUT_OF_DEVICE_MEMORY"));
  CHECK(adder_runs_right(*device, 7));
  CHECK(device->validation().count() == 0);
}
