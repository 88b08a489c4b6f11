// libFuzzer target: the manifest parser (TOML, then every table and key a manifest may hold) on
// arbitrary bytes. Any input must either parse or throw weft::Error. Kernel files resolve against
// a folder that does not exist, so no GLSL is compiled here: the parser itself is the target.
#include <cstddef>
#include <cstdint>
#include <string>

#include <weft/error.h>
#include <weft/manifest.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    weft::parse_manifest(std::string(reinterpret_cast<const char*>(data), size), "/nonexistent-weft-fuzz/manifest.toml");
  } catch (const weft::Error&) {
  }
  return 0;
}
