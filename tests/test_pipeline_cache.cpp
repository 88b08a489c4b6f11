// The pipeline cache on disk: written when a device closes, atomically (a temporary file renamed
// over the old one), and checked before the driver sees it; a corrupt, torn, truncated or foreign
// file is ignored and replaced, never loaded.
#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "support.h"

using namespace weft;
namespace fs = std::filesystem;

namespace {

// Points WEFT_PIPELINE_CACHE at a fresh folder for one test, and back afterwards.
struct CacheFolder {
  fs::path dir = fs::temp_directory_path() / ("weft-pipeline-cache-" + std::to_string(::getpid()));
  std::string old;
  bool had = false;
  CacheFolder() {
    if (const char* v = std::getenv("WEFT_PIPELINE_CACHE")) had = true, old = v;
    fs::remove_all(dir);
    setenv("WEFT_PIPELINE_CACHE", dir.c_str(), 1);
  }
  ~CacheFolder() {
    if (had) setenv("WEFT_PIPELINE_CACHE", old.c_str(), 1);
    else unsetenv("WEFT_PIPELINE_CACHE");
    fs::remove_all(dir);
  }
  std::vector<fs::path> files() const {
    std::vector<fs::path> out;
    if (fs::exists(dir))
      for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path());
    return out;
  }
};

std::vector<uint8_t> bytes_of(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
void write_bytes(const fs::path& p, const std::vector<uint8_t>& b) {
  std::ofstream(p, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
}

// Opens a device with validation, builds and runs one kernel, closes it; what its cache said.
std::string session() {
  DeviceOptions o;
  o.validation = true;
  auto dev = Device::open(o);
  Program p("cache");
  p.globals().add("x", 64);
  StageSpec s;
  s.name = "x+=1";
  s.kernel = weft_test_kernels.get("globals_add");
  s.instance = p.add_instance("a", 1);
  s.args = conformance::GlobalsAddArgs{.words = p.segment(Binding::Globals, "x"), .count = 16, .add = 1}.bind();
  p.add_stage(s);
  {
    Executable exe(*dev, std::move(p));
    exe.run();
    CHECK(exe.read_segment<uint32_t>(Binding::Globals, "x")[0] == 1);
  }
  for (const auto& m : dev->validation().messages()) FAIL_CHECK("validation: " << m);
  return dev->pipelines().rejected();
}

}  // namespace

TEST_CASE("a device's pipeline cache is written when it closes and read back by the next") {
  CacheFolder folder;
  CHECK(session().empty());
  const auto files = folder.files();
  REQUIRE(files.size() == 1);  // the cache, no temporary file left behind
  CHECK(files[0].filename().string().starts_with("pipelines-"));
  const auto first = bytes_of(files[0]);
  REQUIRE(first.size() > 24);
  CHECK(std::string(first.begin(), first.begin() + 7) == "WEFTPC1");
  CHECK(session().empty());  // accepted on the next open
}

TEST_CASE("a corrupt, truncated or foreign cache file is ignored and replaced") {
  CacheFolder folder;
  session();
  const fs::path file = folder.files().at(0);
  const auto good = bytes_of(file);
  auto flipped = good;
  flipped.back() ^= 0x5A;
  write_bytes(file, flipped);
  CHECK(session().find("checksum mismatch") != std::string::npos);
  CHECK(bytes_of(file).size() > 24);
  CHECK(session().empty());  // the rewritten file is good again

  write_bytes(file, std::vector<uint8_t>(good.begin(), good.begin() + good.size() / 2));
  CHECK(session().find("the file holds") != std::string::npos);

  auto foreign = good;  // a valid Weft frame around another device's data
  foreign[24 + 8] ^= 0xFF;  // the Vulkan header's vendorID
  uint64_t sum = 1469598103934665603ull;
  for (size_t i = 24; i < foreign.size(); ++i) sum = (sum ^ foreign[i]) * 1099511628211ull;
  std::memcpy(foreign.data() + 16, &sum, 8);
  write_bytes(file, foreign);
  CHECK(session().find("another device or driver") != std::string::npos);

  write_bytes(file, {'n', 'o', 't', ' ', 'a', ' ', 'c', 'a', 'c', 'h', 'e', '!', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
  CHECK(session().find("magic") != std::string::npos);
}

TEST_CASE("a write cut off before its rename leaves the previous cache in place") {
  CacheFolder folder;
  session();
  const fs::path file = folder.files().at(0);
  const auto good = bytes_of(file);
  // What a process killed mid-write leaves: a partial temporary file beside the cache.
  write_bytes(file.string() + ".tmp.99999.1", std::vector<uint8_t>(good.begin(), good.begin() + 10));
  CHECK(session().empty());
  CHECK(bytes_of(file).size() == good.size());
}

TEST_CASE("WEFT_PIPELINE_CACHE=off writes nothing") {
  CacheFolder folder;
  setenv("WEFT_PIPELINE_CACHE", "off", 1);
  session();
  CHECK(folder.files().empty());
}
