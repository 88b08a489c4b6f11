// libFuzzer target for the GGUF loader: any byte string must either load (container, llama
// model table, tokenizer) or be refused with weft::Error BadInput; never crash, hang or leak.
// Built only with WEFT_FUZZ=ON and clang (see ../CMakeLists.txt); links no Vulkan.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "error.h"
#include "gguf.h"
#include "model.h"
#include "quant.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    weft::gguf::File file = weft::gguf::File::parse({data, size}, "<fuzz>");
    // Touch what a loader reads: every value and every tensor's data.
    for (const auto& t : file.tensors()) {
      const auto bytes = file.data(t);
      if (bytes.size() != t.bytes) std::abort();
      if (weft::attention::supported_weight_type(t.type) && t.elements <= 4096)
        (void)weft::attention::decode(t.type, bytes, t.elements);
    }
    weft::attention::Model m = weft::attention::Model::from(std::move(file));
    (void)weft::attention::tokenize(m.vocab, "Hello, weft \xE2\x96\x81!", true);
    (void)weft::attention::detokenize(m.vocab, {0, 1, 2, 3, 300});
  } catch (const weft::Error& e) {
    if (e.code() != weft::ErrorCode::BadInput) std::abort();  // only BadInput is a valid refusal
  }
  return 0;
}
