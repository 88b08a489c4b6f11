// A short, seeded mutation run of a libFuzzer target in the normal build, for ctest: the target's
// LLVMFuzzerTestOneInput is linked with this driver instead of libFuzzer, replays its corpus
// (files of the given folders, optionally only those whose names start with --prefix), then
// mutates corpus entries — bit flips, interesting bytes, inserted, erased, duplicated and
// spliced ranges — until --seconds have passed. A finding is what it is under libFuzzer: the
// target traps, crashes or lets an exception escape, which ends this process abnormally and
// fails the test. No coverage guidance and no sanitizers here: the long runs (clang,
// -DWEFT_FUZZ=ON) do that; this keeps every target compiling and catching the easy breaks.
//
//   fuzz_smoke [--seconds S] [--seed N] [--max-len BYTES] [--prefix NAME] CORPUS_DIR...
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

using Input = std::vector<uint8_t>;

struct Options {
  double seconds = 5;
  uint64_t seed = 1;
  size_t max_len = 65536;
  std::string prefix;
  std::vector<std::string> dirs;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto value = [&] {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "fuzz smoke: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return std::string(argv[++i]);
    };
    if (a == "--seconds") o.seconds = std::stod(value());
    else if (a == "--seed") o.seed = std::stoull(value());
    else if (a == "--max-len") o.max_len = std::stoull(value());
    else if (a == "--prefix") o.prefix = value();
    else o.dirs.push_back(a);
  }
  return o;
}

std::vector<Input> load_corpus(const Options& o) {
  std::vector<std::filesystem::path> files;
  for (const std::string& d : o.dirs)
    for (const auto& e : std::filesystem::directory_iterator(d))
      if (e.is_regular_file() && e.file_size() <= o.max_len && e.path().filename().string().starts_with(o.prefix))
        files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::vector<Input> corpus;
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    corpus.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  if (corpus.empty()) corpus.emplace_back();
  return corpus;
}

void mutate(Input& x, const std::vector<Input>& corpus, std::mt19937_64& rng, size_t max_len) {
  static const uint8_t interesting[] = {0, 1, 0x7F, 0x80, 0xFF, '0', '9', ' ', '\n', '"', '\\', '{', '}', '[', ']', '<', '>', ',', ':', '='};
  const auto pick = [&](size_t n) { return n ? size_t(rng() % n) : 0; };
  switch (rng() % 7) {
    case 0:
      if (!x.empty()) x[pick(x.size())] ^= uint8_t(1u << (rng() % 8));
      break;
    case 1:
      if (!x.empty()) x[pick(x.size())] = interesting[pick(std::size(interesting))];
      break;
    case 2:
      x.insert(x.begin() + pick(x.size() + 1), 1 + pick(8), uint8_t(rng()));
      break;
    case 3:
      if (!x.empty()) {
        const size_t at = pick(x.size()), n = 1 + pick(std::min<size_t>(x.size() - at, 64));
        x.erase(x.begin() + at, x.begin() + at + n);
      }
      break;
    case 4:
      if (!x.empty()) {
        const size_t at = pick(x.size()), n = 1 + pick(std::min<size_t>(x.size() - at, 64));
        const Input chunk(x.begin() + at, x.begin() + at + n);
        x.insert(x.begin() + pick(x.size() + 1), chunk.begin(), chunk.end());
      }
      break;
    case 5: {
      const Input& other = corpus[pick(corpus.size())];
      if (!other.empty()) {
        const size_t at = pick(other.size()), n = 1 + pick(std::min<size_t>(other.size() - at, 128));
        x.insert(x.begin() + pick(x.size() + 1), other.begin() + at, other.begin() + at + n);
      }
      break;
    }
    default:
      x.resize(pick(x.size() + 1));
  }
  if (x.size() > max_len) x.resize(max_len);
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  std::vector<Input> pool = load_corpus(o);
  const size_t seeds = pool.size();
  for (const Input& x : pool) LLVMFuzzerTestOneInput(x.data(), x.size());
  std::mt19937_64 rng(o.seed);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(o.seconds);
  uint64_t runs = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    Input x = pool[rng() % pool.size()];
    for (uint64_t k = 1 + rng() % 4; k > 0; --k) mutate(x, pool, rng, o.max_len);
    LLVMFuzzerTestOneInput(x.data(), x.size());
    if (++runs % 64 == 0 && pool.size() < 4096) pool.push_back(std::move(x));  // mutants breed further mutants
  }
  std::printf("fuzz smoke: %zu corpus inputs replayed, %llu mutated inputs in %.0f s (seed %llu), no finding\n", seeds,
              static_cast<unsigned long long>(runs), o.seconds, static_cast<unsigned long long>(o.seed));
  return 0;
}
