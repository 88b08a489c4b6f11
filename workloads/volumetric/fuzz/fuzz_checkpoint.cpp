// libFuzzer target: the volumetric checkpoint loader (magic, model text, packed matrices and
// vectors per layer) on arbitrary bytes. Only weft::Error(BadInput) is an accepted refusal; a
// crash, a sanitizer report or any other exception is a finding, and so is a loaded network that
// breaks what the format promises: finite weights and vectors (pack() refuses anything else) and
// save -> load being bit-exact (what a loaded network saves loads back to the same bytes).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <weft/error.h>

#include "checkpoint.h"

namespace {

bool all_finite(const std::vector<float>& v) {
  for (float x : v)
    if (!std::isfinite(x)) return false;
  return true;
}

bool values_finite(const weft::volumetric::Layer& l) {
  for (const weft::volumetric::WeightStore& m : l.mats)
    if (!all_finite(m.master())) return false;
  for (const std::vector<float>& v : l.vecs)
    if (!all_finite(v)) return false;
  for (const weft::volumetric::Layer& c : l.children)
    if (!values_finite(c)) return false;
  return true;
}

void check_loaded(weft::volumetric::Network& net) {
  for (uint32_t i = 0; i < net.size(); ++i)
    if (!values_finite(net.at(i))) __builtin_trap();
  const std::string saved = weft::volumetric::checkpoint_bytes(net);
  try {
    weft::volumetric::Network again = weft::volumetric::parse_checkpoint(saved, "fuzz.ckpt (saved back)");
    if (weft::volumetric::checkpoint_bytes(again) != saved) __builtin_trap();
  } catch (const weft::Error&) {
    __builtin_trap();  // what the loader accepted, saved, must load again
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    weft::volumetric::Network net =
        weft::volumetric::parse_checkpoint(std::string(reinterpret_cast<const char*>(data), size), "fuzz.ckpt");
    check_loaded(net);
  } catch (const weft::Error& e) {
    if (e.code() != weft::ErrorCode::BadInput) __builtin_trap();
  }
  return 0;
}
