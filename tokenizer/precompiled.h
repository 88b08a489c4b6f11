// The Precompiled normalizer: SentencePiece's compiled normalization rules, as converted
// SentencePiece models carry them in tokenizer.json.
#pragma once

#include "pipeline.h"

namespace weft::tokenizer {

std::unique_ptr<Normalizer> make_precompiled(const Json& j, const JsonPath& at);

}  // namespace weft::tokenizer
