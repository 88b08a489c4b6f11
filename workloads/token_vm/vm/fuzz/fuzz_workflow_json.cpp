// libFuzzer target for the workflow loader: any bytes must either load into a workflow that
// passes validate() (and saves back to text that loads to the same text) or be refused with
// weft::Error(BadInput). Anything else (a crash, a sanitizer report, another exception) is a bug.
#include <cstdint>
#include <cstdlib>
#include <string>

#include <weft/error.h>

#include "serialize.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const weft::token_vm::Workflow w = weft::token_vm::workflow_from_json(text, "fuzz");
    weft::token_vm::validate(w);
    const std::string saved = weft::token_vm::workflow_to_json(w);
    if (weft::token_vm::workflow_to_json(weft::token_vm::workflow_from_json(saved, "fuzz-resaved")) != saved) std::abort();
  } catch (const weft::Error& e) {
    if (e.code() != weft::ErrorCode::BadInput) std::abort();
  }
  return 0;
}
