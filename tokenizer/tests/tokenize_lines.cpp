// weft_tokenize_lines TOKENIZER.json TEXTS.jsonl [--gguf PRE]: one JSON array of ids per input
// line (each line a JSON string), for side-by-side checks against the reference tokenizer. With
// --gguf the tokenizer.json is first made a GGUF vocabulary (llama.cpp's view of it; PRE is its
// tokenizer.ggml.pre name, "" for SentencePiece files), to check against llama.cpp.
#include <fstream>
#include <iostream>
#include <string_view>

#include <nlohmann/json.hpp>

#include "gguf_vocabulary.h"
#include "tokenizer.h"

int main(int argc, char** argv) {
  const bool gguf = argc == 5 && std::string_view(argv[3]) == "--gguf";
  if (argc != 3 && !gguf) {
    std::cerr << "usage: weft_tokenize_lines TOKENIZER.json TEXTS.jsonl [--gguf PRE]\n";
    return 2;
  }
  try {
    const auto tok = gguf ? weft::tokenizer::tokenizer_from_gguf(weft::tokenizer::gguf_vocabulary_from_tokenizer_file(argv[1], argv[4]))
                          : weft::tokenizer::Tokenizer::load(argv[1]);
    std::ifstream in(argv[2]);
    for (std::string line; std::getline(in, line);) {
      const std::string text = nlohmann::json::parse(line).get<std::string>();
      std::cout << nlohmann::json(tok.encode(text)).dump() << "\n";
    }
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
}
