// One factory per tokenizer.json model type (make_model in models.cpp picks by "type").
#pragma once

#include "../pipeline.h"

namespace weft::tokenizer {

std::unique_ptr<Model> make_bpe(const Json& j, const JsonPath& at);

}  // namespace weft::tokenizer
