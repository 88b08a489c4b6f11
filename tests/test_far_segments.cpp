// Far segments from the host's side: transfers across allocations, from mapped files, with
// progress. (Kernels reaching them are conformance cases: conformance/far_segment_cases.cpp.)
#include <fstream>

#include "support.h"

using namespace weft;

namespace {
// An executable holding one Globals far segment of `bytes` in allocations of at most `cap`.
Executable far_executable(uint64_t bytes, uint64_t cap) {
  Program p("far");
  p.globals().add_far("big", bytes, 16);
  RecordOptions o;
  o.max_allocation_bytes = cap;
  return Executable(test::device(), std::move(p), o);
}
}  // namespace

TEST_CASE("a write across allocation boundaries reads back exactly, at any offset") {
  test::ValidationClean clean;
  Executable exe = far_executable(1 << 20, 64 << 10);  // 16 allocations of 64 KiB
  CHECK(exe.far_memory().describe().find("16 allocation(s) of up to 65536 bytes") != std::string::npos);
  std::vector<uint8_t> data(300000);
  for (size_t i = 0; i < data.size(); ++i) data[i] = uint8_t(i * 31 + 7);
  exe.write_segment(Binding::Globals, "big", data.data(), data.size(), 65536 - 1000);
  std::vector<uint8_t> back(data.size());
  exe.read_segment(Binding::Globals, "big", back.data(), back.size(), 65536 - 1000);
  CHECK(back == data);
  std::vector<uint8_t> untouched(1000);
  exe.read_segment(Binding::Globals, "big", untouched.data(), 1000);
  CHECK(std::all_of(untouched.begin(), untouched.end(), [](uint8_t b) { return b == 0; }));  // far segments start zeroed
}

TEST_CASE("a transfer past a far segment's end is refused, naming the segment") {
  Executable exe = far_executable(4096, 1 << 20);
  std::vector<uint8_t> data(64);
  const std::string msg = test::error_message_of([&] { exe.write_segment(Binding::Globals, "big", data.data(), 64, 4064); });
  CHECK(msg.find("Globals segment 'big'") != std::string::npos);
}

TEST_CASE("a long transfer reports its progress piece by piece") {
  Executable exe = far_executable(80ull << 20, 32ull << 20);
  std::vector<std::pair<uint64_t, uint64_t>> calls;
  exe.set_transfer_progress([&](uint64_t done, uint64_t total) { calls.emplace_back(done, total); });
  std::vector<uint8_t> data(80ull << 20, 0x5a);
  exe.write_segment(Binding::Globals, "big", data.data(), data.size());
  REQUIRE(calls.size() >= 2);
  CHECK(calls.back().first == data.size());
  CHECK(calls.back().second == data.size());
  for (size_t i = 1; i < calls.size(); ++i) CHECK(calls[i].first > calls[i - 1].first);
}

TEST_CASE("a segment is written straight from a mapped file") {
  conformance::TempDir dir("far-file");
  const std::string path = dir.path() + "/blob.bin";
  std::vector<uint8_t> blob(200000);
  for (size_t i = 0; i < blob.size(); ++i) blob[i] = uint8_t(i * 13 + 1);
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(blob.data()), std::streamsize(blob.size()));
  Executable exe = far_executable(1 << 20, 64 << 10);
  exe.write_segment_from_file(Binding::Globals, "big", path, 1000, 150000, 16);
  std::vector<uint8_t> back(150000);
  exe.read_segment(Binding::Globals, "big", back.data(), back.size(), 16);
  CHECK(std::equal(back.begin(), back.end(), blob.begin() + 1000));
  CHECK(test::error_message_of([&] { exe.write_segment_from_file(Binding::Globals, "big", path, 100000, 150000); })
            .find("outside file " + path) != std::string::npos);
  CHECK(test::error_code_of([&] { exe.write_segment_from_file(Binding::Globals, "big", dir.path() + "/none", 0, 4); }) ==
        ErrorCode::BadInput);
}
