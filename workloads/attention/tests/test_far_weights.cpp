// Far weights on the device: the decoder with every matrix in a far segment of its own
// (WeightPlacement::Far, or Auto for a model over the storage-buffer window) against the CPU
// reference (reference.cpp) with the bound the conformance cases use for the decoder's logits,
// and against the in-window decoder, which does the same arithmetic on the same words: its
// logits must be bit-identical. Allocations are capped small so each tensor spans several.
//
// WEFT_LARGE_TESTS=1 adds a seeded model of more than 1 GiB decoded with Auto placement (a few
// minutes and about 3 GB of memory on lavapipe; not for CI).
#include <doctest/doctest.h>

#include <chrono>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "attention.h"
#include "conformance.h"
#include "device_under_test.h"

namespace {

using namespace weft;
using namespace weft::attention;
using weft::conformance::compare;

// conformance.cpp's bound on the decoder's logits (normalized mean squared error vs the f64
// reference): every op, 2 layers and the head in f32.
constexpr double kForwardBound = 1e-8;
// Small enough that every matrix of the seeded models spans two or more allocations.
constexpr uint64_t kAllocationCap = 1024;

Model seeded(const SeededOptions& o) { return Model::from(gguf::File::parse(seeded_model(o).bytes(), "<seeded model>")); }

// The seeded model with every matrix (embeddings, attention, MLP, head) of one ggml type.
SeededOptions all_of(uint32_t type) {
  SeededOptions o;
  o.attn_type = o.ffn_type = o.embd_type = o.output_type = type;
  o.seed = 11 + type;
  return o;
}

DecoderOptions placed(WeightPlacement w, uint32_t max_batch = 0) {
  DecoderOptions o;
  o.weights = w;
  o.max_batch = max_batch;
  o.max_allocation_bytes = kAllocationCap;
  return o;
}

// Allocations behind the executable's far segments (from FarMemory::describe's lines).
uint64_t far_allocations(const Executable& exe) {
  std::istringstream lines(exe.far_memory().describe());
  uint64_t n = 0;
  for (std::string line; std::getline(lines, line);) {
    const size_t end = line.find(" allocation(s)"), start = line.rfind(", ", end);
    REQUIRE(end != std::string::npos);
    n += std::stoull(line.substr(start + 2, end - start - 2));
  }
  return n;
}

// One run's logits: within the bound of the reference's and, with the window's, identical; the
// sampled (greedy) token is the reference sampler's choice from the device's logits.
void check_run(Decoder& far, Decoder& window, const std::vector<float>& logits, const std::vector<float>& window_logits,
               const std::vector<double>& reference, const std::string& where) {
  INFO(where);
  const double e = compare(logits, reference).nmse();
  CHECK_MESSAGE(e <= kForwardBound, "logits NMSE " << e);
  CHECK(logits == window_logits);
  CHECK(far.sampled() == window.sampled());
  CHECK(far.sampled() == ref::sample(logits, Sampling{}, 0.0f));
}

// Prefill of `prompt` then `steps` greedy decode steps, far vs window vs reference.
void decode_and_check(const Model& m, Decoder& far, Decoder& window, const std::vector<uint32_t>& prompt, uint32_t steps) {
  Reference ref(m, far.context(), {}, far.program().max_batch);
  check_run(far, window, far.prefill(prompt), window.prefill(prompt), ref.forward(prompt), "prefill");
  for (uint32_t s = 0; s < steps; ++s) {
    const uint32_t one[1] = {far.sampled()};
    check_run(far, window, far.step(one[0]), window.step(one[0]), ref.forward(one), "decode step " + std::to_string(s));
  }
}

}  // namespace

TEST_CASE("far weights: each weight type decodes as the reference does, and bit for bit as in the window") {
  test::ValidationClean clean;
  for (uint32_t type : {gguf::type::F32, gguf::type::F16, gguf::type::Q8_0, gguf::type::Q4_0}) {
    CAPTURE(gguf::type_name(type));
    const Model m = seeded(all_of(type));
    // max_batch 4: the 9-token prompt runs in chunks, so the token tiles of matvec vary too.
    Decoder far(test::device(), m, placed(WeightPlacement::Far, 4)), window(test::device(), m, placed(WeightPlacement::InWindow, 4));
    REQUIRE(far.program().weights == WeightPlacement::Far);
    REQUIRE(window.program().weights == WeightPlacement::InWindow);
    // A far segment per matrix: embeddings, 7 per layer, the head; each split by the cap.
    const uint32_t matrices = 1 + 7 * m.config.layers + 1;
    CHECK(far.executable().program().heap().far_count() == matrices);
    CHECK(far_allocations(far.executable()) >= 2 * matrices);
    decode_and_check(m, far, window, tokenize(m.vocab, "far weights"), 3);
  }
}

TEST_CASE("far weights: a tied head reads the embedding table's far segment") {
  test::ValidationClean clean;
  SeededOptions o;
  o.tied = true;
  o.embd_type = gguf::type::Q4_0;
  const Model m = seeded(o);
  REQUIRE(m.tied);
  Decoder far(test::device(), m, placed(WeightPlacement::Far)), window(test::device(), m, placed(WeightPlacement::InWindow));
  CHECK(far.executable().program().heap().far_count() == 1 + 7 * m.config.layers);
  decode_and_check(m, far, window, tokenize(m.vocab, "tied"), 2);
}

TEST_CASE("far weights: a model read from a file is written from the file, tensor by tensor") {
  test::ValidationClean clean;
  conformance::TempDir dir("attention-far");
  const std::string path = dir.path() + "/seeded.gguf";
  write_seeded_model(path, {});
  const Model from_file = Model::load(path), in_memory = seeded({});
  REQUIRE(from_file.file.path() == path);
  REQUIRE(in_memory.file.path().empty());
  Decoder a(test::device(), from_file, placed(WeightPlacement::Far)), b(test::device(), in_memory, placed(WeightPlacement::Far));
  const auto prompt = tokenize(from_file.vocab, "from the file");
  Reference ref(from_file, a.context());
  const std::vector<float> logits = a.prefill(prompt);
  CHECK(logits == b.prefill(prompt));
  CHECK(compare(logits, ref.forward(prompt)).nmse() <= kForwardBound);
  const uint32_t one[1] = {a.sampled()};
  CHECK(compare(a.step(one[0]), ref.forward(one)).nmse() <= kForwardBound);
}

TEST_CASE("weight placement: Auto keeps weights that fit in the window and puts the others far") {
  const Model m = seeded({});
  DecoderProgram dp;
  DeviceInfo info = test::device().info();
  const uint64_t in_window = decoder_program(info, m, placed(WeightPlacement::InWindow), dp).heap().size();
  CHECK(decoder_program(info, m, placed(WeightPlacement::Auto), dp).heap().far_count() == 0);
  CHECK(dp.weights == WeightPlacement::InWindow);
  // A window just short of the in-window layout's Heap: the weights go far, the rest fits.
  info.max_storage_buffer_range = in_window - 4;
  const Program p = decoder_program(info, m, placed(WeightPlacement::Auto), dp);
  CHECK(dp.weights == WeightPlacement::Far);
  CHECK(p.heap().far_count() == 1 + 7 * m.config.layers + 1);
  CHECK(p.heap().size() < info.max_storage_buffer_range);
  CHECK(parse_placement("far") == WeightPlacement::Far);
  CHECK(test::error_code_of([] { parse_placement("near"); }) == ErrorCode::BadInput);
}

TEST_CASE("weight placement: far weights without bufferDeviceAddress are a MissingFeature that says so") {
  const Model m = seeded({});
  DecoderProgram dp;
  DeviceInfo limited = test::device().info();
  limited.buffer_device_address = false;
  auto forced = [&] { decoder_program(limited, m, placed(WeightPlacement::Far), dp); };
  CHECK(test::error_code_of(forced) == ErrorCode::MissingFeature);
  std::string msg = test::error_message_of(forced);
  CHECK(msg.find("bufferDeviceAddress") != std::string::npos);
  CHECK(msg.find("as asked") != std::string::npos);
  // Auto on a window too small for the weights: the same, saying why they went far.
  limited.max_storage_buffer_range = 8192;
  auto automatic = [&] { decoder_program(limited, m, placed(WeightPlacement::Auto), dp); };
  CHECK(test::error_code_of(automatic) == ErrorCode::MissingFeature);
  msg = test::error_message_of(automatic);
  CHECK(msg.find("exceed the storage-buffer window of 8192 bytes") != std::string::npos);
  CHECK(msg.find("<seeded model>") != std::string::npos);
}

TEST_CASE("weight placement: with the weights far, a KV cache over the window is still refused by name") {
  const Model m = seeded({});
  DecoderProgram dp;
  DeviceInfo info = test::device().info();
  // The far layout's Heap (norms, RoPE table: about 5 KiB) fits; Globals (caches, scores) does not.
  info.max_storage_buffer_range = 16384;
  auto build = [&] { decoder_program(info, m, placed(WeightPlacement::Auto), dp); };
  CHECK(test::error_code_of(build) == ErrorCode::BadInput);
  const std::string msg = test::error_message_of(build);
  CHECK(msg.find("Globals needs") != std::string::npos);
  CHECK(msg.find("--context") != std::string::npos);
}

TEST_CASE("attention: a context longer than the driver's loop cap allows is refused, naming a context that fits") {
  // head_dim 16: attn_values loops over every position in one invocation, 70,001 of them.
  SeededOptions o;
  o.context = 70000;
  const Model m = seeded(o);
  DecoderOptions d;
  d.context = 70000;
  if (test::device().loop_iteration_limit() < 70009) {
    const std::string msg = test::error_message_of([&] { Decoder(test::device(), m, d); });
    CHECK(msg.find("missing feature: attention: a context of 70000 positions needs 70009 loop steps") == 0);
    CHECK(msg.find("use --context") != std::string::npos);
  } else {
    CHECK_NOTHROW(Decoder(test::device(), m, d));
  }
}

// The Done-when item: a GGUF model over 1 GiB (so over lavapipe's 128 MiB window: Auto puts the
// weights far) decodes a few tokens as its CPU reference does. The reference reads every weight
// in f64 per token (seconds each), so the prompt is short.
TEST_CASE("far weights: a seeded model over 1 GiB decodes as its CPU reference (WEFT_LARGE_TESTS=1)" * doctest::skip(!weft::conformance::large_tests_enabled())) {
  test::ValidationClean clean;
  using clock = std::chrono::steady_clock;
  auto secs = [](clock::time_point t) { return std::chrono::duration<double>(clock::now() - t).count(); };
  conformance::TempDir dir("attention-large");
  const std::string path = dir.path() + "/large.gguf";
  SeededOptions o;  // Q8_0 attention, Q4_0 MLP, F16 embeddings, F32 head, as the small model
  o.dim = 2048, o.heads = 16, o.kv_heads = 4, o.ffn = 5632, o.layers = 36, o.context = 64;
  auto t = clock::now();
  write_seeded_model(path, o);
  MESSAGE("wrote " << path << " in " << secs(t) << " s");
  const Model m = Model::load(path);
  REQUIRE(m.file.file_size() > (uint64_t(1) << 30));
  t = clock::now();
  Decoder dec(test::device(), m);
  MESSAGE("decoder built and " << m.file.file_size() << " bytes uploaded in " << secs(t) << " s");
  CHECK(dec.program().weights == WeightPlacement::Far);
  Reference ref(m, dec.context(), {}, dec.program().max_batch);
  const std::vector<uint32_t> prompt = tokenize(m.vocab, "1 GiB");
  t = clock::now();
  std::vector<float> logits = dec.prefill(prompt);
  MESSAGE("device prefill of " << prompt.size() << " tokens: " << secs(t) << " s");
  t = clock::now();
  double worst = compare(logits, ref.forward(prompt)).nmse();
  MESSAGE("reference prefill: " << secs(t) << " s");
  for (uint32_t s = 0; s < 2; ++s) {
    const uint32_t tok = dec.sampled();
    CHECK(tok == ref::sample(logits, Sampling{}, 0.0f));
    t = clock::now();
    logits = dec.step(tok);
    MESSAGE("device decode step: " << secs(t) << " s");
    const uint32_t one[1] = {tok};
    worst = std::max(worst, compare(logits, ref.forward(one)).nmse());
  }
  MESSAGE("worst logits NMSE vs the reference: " << worst);
  CHECK(worst <= kForwardBound);
}
