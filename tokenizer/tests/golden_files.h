// Test data files, read whole; a name ending in .xz is decompressed (liblzma), which keeps the
// committed tokenizer.json files to a few MB.
#pragma once

#include <filesystem>
#include <string>

namespace weft::test {

std::string read_maybe_xz(const std::filesystem::path& path);

}  // namespace weft::test
