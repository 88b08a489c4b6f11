// weft_tokenize_lines TOKENIZER.json TEXTS.jsonl: one JSON array of ids per input line (each line
// a JSON string), for side-by-side checks against the reference tokenizer.
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include "tokenizer.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: weft_tokenize_lines TOKENIZER.json TEXTS.jsonl\n";
    return 2;
  }
  try {
    const auto tok = weft::tokenizer::Tokenizer::load(argv[1]);
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
