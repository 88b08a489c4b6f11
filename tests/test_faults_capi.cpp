// The C ABI under a lost device (test_faults.cpp has the engine's cases and says where the
// faults come from).
#include <doctest/doctest.h>

#include <cstring>
#include <string>

#include "capi/weft.h"
#include "fault_layer/fault_layer.h"

TEST_CASE("C ABI: a lost device is WEFT_ERROR_DEVICE_LOST, and a device opened again runs") {
  const std::string manifest = std::string(WEFT_EXAMPLES_DIR) + "/chain/chain.toml";
  weft_device* device = nullptr;
  REQUIRE(weft_device_open(nullptr, &device) == WEFT_OK);
  weft_program* program = nullptr;
  REQUIRE(weft_program_from_manifest(device, manifest.c_str(), &program) == WEFT_OK);
  REQUIRE(weft_program_run(program) == WEFT_OK);
  float good[4] = {};
  REQUIRE(weft_program_read_segment(program, WEFT_BIND_GLOBALS, "result", 0, good, sizeof good) == WEFT_OK);
  weft::test::FaultLayer::get().lose_devices();
  CHECK(weft_program_run(program) == WEFT_ERROR_DEVICE_LOST);
  CHECK(std::string(weft_last_error()).find("was lost") != std::string::npos);
  float stale[4] = {};
  CHECK(weft_program_read_segment(program, WEFT_BIND_GLOBALS, "result", 0, stale, sizeof stale) == WEFT_ERROR_DEVICE_LOST);
  weft_program_release(program);
  weft_device_release(device);

  REQUIRE(weft_device_open(nullptr, &device) == WEFT_OK);
  REQUIRE(weft_program_from_manifest(device, manifest.c_str(), &program) == WEFT_OK);
  REQUIRE(weft_program_run(program) == WEFT_OK);
  float again[4] = {};
  REQUIRE(weft_program_read_segment(program, WEFT_BIND_GLOBALS, "result", 0, again, sizeof again) == WEFT_OK);
  CHECK(std::memcmp(good, again, sizeof good) == 0);
  weft_program_release(program);
  weft_device_release(device);
}
