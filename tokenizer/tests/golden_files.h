// Test data files, read whole; a name ending in .xz is decompressed (liblzma), which keeps the
// committed tokenizer.json files to a few MB.
#pragma once

#include <filesystem>
#include <cstdint>
#include <string>
#include <vector>

namespace weft::test {

std::string read_maybe_xz(const std::filesystem::path& path);
// `plain` when it exists, else `plain`.xz.
std::filesystem::path existing_maybe_xz(const std::filesystem::path& plain);

// (NAME, file) for each file in `dir` whose name contains `marker`, NAME being the part before it.
std::vector<std::pair<std::string, std::filesystem::path>> named_files(const std::filesystem::path& dir, const std::string& marker);
// WEFT_TOKENIZER_GOLDENS_EXTRA: a folder of goldens kept out of the repository, or empty.
std::filesystem::path extra_goldens_dir();

// The texts of goldens/corpus.jsonl.
std::vector<std::string> golden_corpus();

// Where two id lists first differ and a few ids after it, for a readable failure.
std::string first_difference(const std::vector<uint32_t>& want, const std::vector<uint32_t>& got);

}  // namespace weft::test
