// libFuzzer target: the .npy reader (magic, version, header dict, dtype, shape, data length) on
// arbitrary bytes. Any input must either give an array whose data matches its shape or throw
// weft::Error; a header claiming more elements than the bytes hold is refused, not read past.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include <weft/error.h>

#include "npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const weft::NpyArray a = weft::parse_npy(data, size, "fuzz.npy");
    if (a.data.size() != a.count() * weft::dtype_size(a.dtype)) std::abort();  // the reader's own promise
    const std::vector<uint8_t> again = weft::encode_npy(a);
    if (weft::parse_npy(again.data(), again.size(), "fuzz.npy (written back)").data != a.data) std::abort();
  } catch (const weft::Error&) {
  }
  return 0;
}
