// libFuzzer target: the volumetric model file (JSON: the grid, its layers, nested containers) on
// arbitrary bytes. Any input must either build a network or throw weft::Error, within the input
// limits (nesting depth, layer sizes), never exhausting memory.
#include <cstddef>
#include <cstdint>
#include <string>

#include <weft/error.h>

#include "model.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    weft::volumetric::parse_model(std::string(reinterpret_cast<const char*>(data), size), "fuzz.json");
  } catch (const weft::Error&) {
  }
  return 0;
}
