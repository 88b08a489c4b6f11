// Far segments: Heap and Globals data larger than the storage-buffer window, in one allocation
// or split over several, written and read back by the host and transformed and gathered by
// kernels. The host never holds a whole segment: it writes and checks piece by piece.
#include <algorithm>

#include "conformance.h"

namespace weft::conformance {

namespace {

constexpr uint64_t kPiece = 16ull << 20;          // host bytes per write or check
constexpr uint64_t kLargestWindowTested = 4ull << 30;  // beyond this the case's memory is too much

uint32_t pattern(uint64_t word) { return uint32_t(word * 2654435761u) ^ uint32_t(word >> 7); }

// Writes pattern(w) into every word of a far segment, kPiece at a time.
void fill_pattern(Executable& exe, Binding b, const std::string& name, uint64_t bytes) {
  std::vector<uint32_t> piece;
  for (uint64_t at = 0; at < bytes; at += kPiece) {
    const uint64_t n = std::min(kPiece, bytes - at);
    piece.resize(n / 4);
    for (uint64_t i = 0; i < piece.size(); ++i) piece[i] = pattern(at / 4 + i);
    exe.write_segment(b, name, piece.data(), n, at);
  }
}

// The first word where the segment differs from want(word), or an empty string.
template <class Want>
std::string first_mismatch(Executable& exe, Binding b, const std::string& name, uint64_t bytes, Want&& want) {
  std::vector<uint32_t> piece;
  for (uint64_t at = 0; at < bytes; at += kPiece) {
    const uint64_t n = std::min(kPiece, bytes - at);
    piece.resize(n / 4);
    exe.read_segment(b, name, piece.data(), n, at);
    for (uint64_t i = 0; i < piece.size(); ++i)
      if (piece[i] != want(at / 4 + i))
        return std::string(binding_name(b)) + " far segment '" + name + "' word " + std::to_string(at / 4 + i) + ": " +
               fmt_words(piece[i], want(at / 4 + i));
  }
  return {};
}

// A Heap far segment of `bytes` in records of 12 bytes (so chunks are not powers of two in
// bytes), copied by a kernel into a Globals far segment as x * 3 + 1 and gathered at chunk
// edges; the host writes one and reads both back.
Result far_round_trip(Device& dev, uint64_t bytes, uint64_t max_allocation, uint64_t min_chunks) {
  if (!dev.info().buffer_device_address) return Result::skip("no bufferDeviceAddress: far kernels are refused (see the errors cases)");
  constexpr uint32_t record_words = 3;
  const uint64_t records = bytes / (record_words * 4);
  bytes = records * record_words * 4;
  Program p("far");
  p.heap().add_far("table", bytes, record_words * 4);
  p.globals().add_far("copy", bytes, record_words * 4);
  RecordOptions options;
  options.max_allocation_bytes = max_allocation;
  const FarPlacement placed = place_far_segment(p.heap().at("table"), "Heap", std::min(max_allocation, dev.info().max_memory_allocation_size));
  if (placed.chunk_count < min_chunks)
    return Result::fail("the placement gave " + std::to_string(placed.chunk_count) + " allocations; expected at least " + std::to_string(min_chunks));
  const uint64_t chunk_words = placed.chunk_bytes / 4, words = bytes / 4;
  std::vector<uint32_t> index = {0, 1, 5, uint32_t(chunk_words - 1), uint32_t(std::min(chunk_words, words - 1)),
                                 uint32_t(std::min(chunk_words + 4, words - 1)), uint32_t(words / 2), uint32_t(words - 1)};
  const uint32_t n = uint32_t(index.size());
  p.globals().add("index", n * 4);
  p.globals().add("gathered", n * 4);
  const InstanceId inst = p.add_instance("far", 1);
  StageSpec t;
  t.name = "transform";
  t.kernel = weft_test_kernels.get("far_transform");
  t.instance = inst;
  t.groups = {uint32_t(std::min<uint64_t>(grid_stride_groups(records, 64), dev.info().max_workgroup_count[0])), 1, 1};
  t.args = FarTransformArgs{.src = p.segment(Binding::Heap, "table"), .dst = p.segment(Binding::Globals, "copy"),
                            .records = uint32_t(records), .record_words = record_words, .mul = 3, .add = 1}.bind();
  p.add_stage(t);
  StageSpec g;
  g.name = "gather";
  g.kernel = weft_test_kernels.get("far_gather");
  g.instance = inst;
  g.args = FarGatherArgs{.table = p.segment(Binding::Heap, "table"), .index = p.segment(Binding::Globals, "index"),
                         .gathered = p.segment(Binding::Globals, "gathered"), .count = n, .record_words = record_words}.bind();
  p.add_stage(g);
  Executable exe(dev, std::move(p), options);
  fill_pattern(exe, Binding::Heap, "table", bytes);
  exe.write_segment(Binding::Globals, "index", index.data(), n * 4);
  exe.run();
  const auto gathered = exe.read_segment<uint32_t>(Binding::Globals, "gathered");
  for (uint32_t k = 0; k < n; ++k)
    if (gathered[k] != pattern(index[k]))
      return Result::fail("gather of Heap far word " + std::to_string(index[k]) + ": " + fmt_words(gathered[k], pattern(index[k])));
  if (auto bad = first_mismatch(exe, Binding::Heap, "table", bytes, pattern); !bad.empty()) return Result::fail(bad);
  if (auto bad = first_mismatch(exe, Binding::Globals, "copy", bytes, [](uint64_t w) { return pattern(w) * 3u + 1u; }); !bad.empty())
    return Result::fail(bad);
  return Result::pass(std::to_string(bytes >> 20) + " MiB per segment in " + std::to_string(placed.chunk_count) +
                      " allocation(s) of up to " + std::to_string(placed.chunk_bytes >> 20) + " MiB; window " +
                      std::to_string(dev.info().max_storage_buffer_range >> 20) + " MiB");
}

Result beyond_window(Device& dev) {
  const uint64_t window = dev.info().max_storage_buffer_range;
  if (window > kLargestWindowTested)
    return Result::skip("maxStorageBufferRange is " + std::to_string(window >> 20) + " MiB; a segment above it exceeds this case's budget");
  return far_round_trip(dev, window + (24ull << 20), UINT64_MAX, 1);
}

Result split_allocations(Device& dev) {
  // Capped at 48 MiB per allocation, 160 MiB is split over at least four.
  return far_round_trip(dev, 160ull << 20, 48ull << 20, 4);
}

// One kernel, one stage description, the table in the window and then in a far segment split
// over allocations of 4 KiB: the engine picks the kernel's variant, the results are the same.
Result reference_either_placement(Device& dev) {
  if (!dev.info().buffer_device_address) return Result::skip("no bufferDeviceAddress: far segments are refused");
  constexpr uint32_t words = 10000;
  const std::vector<uint32_t> index = {0, 1, 1023, 1024, 1025, 4095, 4096, 7777, words - 1};
  std::vector<uint32_t> table(words);
  for (uint32_t w = 0; w < words; ++w) table[w] = pattern(w);
  std::string variants;
  for (const bool far : {false, true}) {
    Program p(far ? "ref-far" : "ref-window");
    if (far) p.heap().add_far("table", words * 4);
    else p.heap().add("table", words * 4);
    p.globals().add("index", index.size() * 4);
    p.globals().add("gathered", index.size() * 4);
    StageSpec s;
    s.name = "gather";
    s.kernel = weft_test_kernels.get("ref_gather");
    s.instance = p.add_instance("gather", 1);
    s.args = RefGatherArgs{.table = p.segment(Binding::Heap, "table"), .index = p.segment(Binding::Globals, "index"),
                           .gathered = p.segment(Binding::Globals, "gathered"), .count = uint32_t(index.size())}.bind();
    const StageId id = p.add_stage(s);
    const bool far_kernel = p.stages()[id.index].kernel->interface(false).far_access();
    if (far_kernel != far) return Result::fail(std::string("the stage runs the ") + (far_kernel ? "far" : "plain") + " variant");
    variants += far ? "far" : "plain, ";
    RecordOptions o;
    o.max_allocation_bytes = 4096;
    Executable exe(dev, std::move(p), o);
    exe.write_segment(Binding::Heap, "table", table.data(), words * 4);
    exe.write_segment(Binding::Globals, "index", index.data(), index.size() * 4);
    exe.run();
    const auto gathered = exe.read_segment<uint32_t>(Binding::Globals, "gathered");
    for (size_t k = 0; k < index.size(); ++k)
      if (gathered[k] != table[index[k]])
        return Result::fail(std::string(far ? "far" : "in-window") + " table word " + std::to_string(index[k]) + ": " +
                            fmt_words(gathered[k], table[index[k]]));
  }
  return Result::pass("variants run: " + variants);
}

// Far memory the caller owns, imported by two programs one after the other: the host fills
// `table` once, the first program's kernel transforms it into `copy` (imported too) and is
// destroyed, and the second program gathers from `copy` as its Heap table. The contents live in
// the memory, not in either executable.
Result imported_memory_outlives_programs(Device& dev) {
  if (!dev.info().buffer_device_address) return Result::skip("no bufferDeviceAddress: far segments are refused");
  constexpr uint32_t record_words = 3, records = 5000, words = records * record_words;
  auto table = std::make_shared<FarSegmentMemory>(dev, "table", words * 4, record_words * 4, 4096);
  auto copy = std::make_shared<FarSegmentMemory>(dev, "copy", words * 4, record_words * 4, 4096);
  std::vector<uint32_t> data(words);
  for (uint32_t w = 0; w < words; ++w) data[w] = pattern(w);
  table->write(0, data.data(), words * 4);
  {
    Program p("import-transform");
    p.heap().add_far("table", table);
    p.globals().add_far("copy", copy);
    StageSpec t;
    t.name = "transform";
    t.kernel = weft_test_kernels.get("far_transform");
    t.instance = p.add_instance("far", 1);
    t.groups = {grid_stride_groups(records, 64), 1, 1};
    t.args = FarTransformArgs{.src = p.segment(Binding::Heap, "table"), .dst = p.segment(Binding::Globals, "copy"),
                              .records = records, .record_words = record_words, .mul = 3, .add = 1}.bind();
    p.add_stage(t);
    Executable exe(dev, std::move(p));
    exe.run();
  }
  const std::vector<uint32_t> index = {0, 1, 340, 341, 342, 1023, 1024, words / 2, words - 1};
  const uint32_t n = uint32_t(index.size());
  Program p("import-gather");
  p.heap().add_far("table", copy);
  p.globals().add("index", n * 4);
  p.globals().add("gathered", n * 4);
  StageSpec g;
  g.name = "gather";
  g.kernel = weft_test_kernels.get("far_gather");
  g.instance = p.add_instance("far", 1);
  g.args = FarGatherArgs{.table = p.segment(Binding::Heap, "table"), .index = p.segment(Binding::Globals, "index"),
                         .gathered = p.segment(Binding::Globals, "gathered"), .count = n, .record_words = record_words}.bind();
  p.add_stage(g);
  Executable exe(dev, std::move(p));
  if (exe.far_memory().describe().find("imported ('copy')") == std::string::npos)
    return Result::fail("the layout listing does not show the imported memory:\n" + exe.far_memory().describe());
  exe.write_segment(Binding::Globals, "index", index.data(), n * 4);
  exe.run();
  const auto gathered = exe.read_segment<uint32_t>(Binding::Globals, "gathered");
  for (uint32_t k = 0; k < n; ++k)
    if (gathered[k] != pattern(index[k]) * 3u + 1u)
      return Result::fail("gather of imported word " + std::to_string(index[k]) + ": " + fmt_words(gathered[k], pattern(index[k]) * 3u + 1u));
  std::vector<uint32_t> back(words);
  copy->read(0, back.data(), words * 4);
  for (uint32_t w = 0; w < words; ++w)
    if (back[w] != pattern(w) * 3u + 1u) return Result::fail("imported memory word " + std::to_string(w) + ": " + fmt_words(back[w], pattern(w) * 3u + 1u));
  return Result::pass(std::to_string(copy->chunk_count()) + " allocation(s) per memory, read by a second program");
}

}  // namespace

std::vector<Case> far_segment_cases() {
  return {
      {"far.beyond_storage_buffer_range", "exact", beyond_window},
      {"far.split_over_allocations", "exact", split_allocations},
      {"far.reference_argument_either_placement", "exact", reference_either_placement},
      {"far.imported_memory_outlives_programs", "exact", imported_memory_outlives_programs},
  };
}

}  // namespace weft::conformance
