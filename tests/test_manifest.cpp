// Manifests: loading, reference resolution, every class of error, dry runs, robustness. The
// device runs of manifests are conformance cases (conformance/manifest_cases.cpp); .npy files
// are tested in test_npy.cpp.
#include <cmath>
#include <cstring>
#include <filesystem>
#include <random>

#include <weft/manifest.h>

#include "support.h"

using namespace weft;
using conformance::TempDir;

namespace {

// The fixture manifest with `from` replaced by `to` (which must be there).
std::string fixture_with(const std::string& from, const std::string& to) {
  std::string text = conformance::manifest_fixture_text();
  const size_t at = text.find(from);
  REQUIRE_MESSAGE(at != std::string::npos, "fixture lacks: " << from);
  return text.replace(at, from.size(), to);
}

// Loads `text` as the fixture manifest; returns the error (code checked by the caller).
Error load_error(const std::string& text) {
  TempDir dir("manifest-test");
  const std::string path = conformance::write_manifest_fixture(dir.path(), text);
  try {
    load_manifest(path);
  } catch (const Error& e) {
    return e;
  }
  return Error(ErrorCode(-1), "(no error)");
}

void expect_manifest_error(const std::string& text, const std::string& key, const std::string& problem) {
  const Error e = load_error(text);
  const std::string msg = e.what();
  INFO("message: " << msg);
  CHECK(e.code() == ErrorCode::BadInput);
  CHECK(msg.find("fixture.toml: ") != std::string::npos);
  CHECK(msg.find(key + ": ") != std::string::npos);
  CHECK(msg.find(problem) != std::string::npos);
}

// Loads and builds `text` as the fixture manifest: BadInput naming the key and the problem.
void expect_manifest_build_error(const std::string& text, const std::string& key, const std::string& problem) {
  TempDir dir("manifest-test");
  const std::string path = conformance::write_manifest_fixture(dir.path(), text);
  std::string msg = "(no error)";
  ErrorCode code = ErrorCode(-1);
  try {
    build_program(load_manifest(path));
  } catch (const Error& e) {
    msg = e.what();
    code = e.code();
  }
  INFO("message: " << msg);
  CHECK(code == ErrorCode::BadInput);
  CHECK(msg.find(key) != std::string::npos);
  CHECK(msg.find(problem) != std::string::npos);
}

const char* const kRegulatorStage =
    "\n[[stages]]\nname = \"reg\"\n\n[[stages.rules]]\nsource = \"a.norm\"\nwhen = \">\"\nthreshold = 1.0\n"
    "action = \"scale\"\ntarget = \"control.k\"\nvalue = 0.5\n";

}  // namespace

// ---- manifests: loading -----------------------------------------------------------------------

// A kernel with one argument per kind of reference a manifest can bind (it touches nothing).
const char* const kProbeKernel = R"(#version 450
#extension GL_GOOGLE_include_directive : require
#define WEFT_ARGS(X) X(WEFT_F32, c) X(WEFT_IN(Heap), x) X(WEFT_INOUT(Globals), acc) X(WEFT_IN(Control), k) \
  X(WEFT_I32, minus_two) X(WEFT_F32, three) X(WEFT_U32, yes) X(WEFT_U32, instance_b) X(WEFT_U32, slot_s) \
  X(WEFT_U32, x_count) X(WEFT_U32, x_words) X(WEFT_U32, a_scale) X(WEFT_U32, a_outbox) X(WEFT_U32, b_inbox) \
  X(WEFT_U32, b_r2) X(WEFT_U32, k0) X(WEFT_U32, b_width)
#include "weft.glsl"
layout(local_size_x = 1) in;
void main() {}
)";

TEST_CASE("manifest: the fixture loads and every kind of argument resolves to the program's words") {
  TempDir dir("manifest-test");
  const std::string text = std::string(conformance::manifest_fixture_text()) + R"(
[[kernels]]
name = "probe"
file = "probe.comp"

[[stages]]
name = "probe"
kernel = "probe"
instance = "b"
dispatch = 1

[stages.args]   # the table form of args, for long lists
c = 1.5
x = "heap.x"
acc = "globals.acc"
k = "control.k"
minus_two = -2
three = 3
yes = true
instance_b = "instance.b"
slot_s = "slot.s"
x_count = "heap.x.count"
x_words = "heap.x.words"
a_scale = "instance.a.scale"
a_outbox = "outbox.a"
b_inbox = "inbox.b"
b_r2 = "registers.b.R2"
k0 = "control.k[0]"
b_width = "instance.b.width"
)";
  const std::string path = conformance::write_manifest_fixture(dir.path(), text);
  conformance::write_text(dir.path() + "/probe.comp", kProbeKernel);
  const Manifest m = load_manifest(path);
  const Program p = build_program(m);
  REQUIRE(p.stages().size() == 3);
  REQUIRE(p.instances().size() == 2);
  CHECK(p.instances()[1].inbox_from == 0);
  const auto& push = p.stages()[2].push_words;
  REQUIRE(push.size() == 17);
  const uint32_t k_word = p.control_image().size() - 1;  // the last word allocated
  CHECK(push[0] == f32_bits(1.5f));
  CHECK(push[1] == p.heap().at("x").word_offset());
  CHECK(push[2] == p.globals().at("acc").word_offset());
  CHECK(push[3] == k_word);
  CHECK(push[4] == uint32_t(-2));
  CHECK(push[5] == f32_bits(3.0f));
  CHECK(push[6] == 1u);
  CHECK(push[7] == 1u);
  CHECK(push[8] == p.slot_word(SlotId{0}));
  CHECK(push[9] == 8u);
  CHECK(push[10] == 8u);
  CHECK(push[11] == p.instance_control_word(InstanceId{0}, 0));
  CHECK(push[12] == p.window_word(InstanceId{0}, WEFT_R_OUTBOX));
  CHECK(push[13] == p.window_word(InstanceId{0}, WEFT_R_OUTBOX));  // b's inbox is a's outbox
  CHECK(push[14] == p.window_word(InstanceId{1}, 2));
  CHECK(push[15] == k_word);
  CHECK(push[16] == 8u);
  CHECK(p.stages()[1].push_words[0] == f32_bits(-1.0f));  // an integer for an f32 argument
  CHECK(p.stages()[1].indirect.has_value());
  CHECK(m.controls[0].words == std::vector<uint32_t>{f32_bits(2.0f)});
  // The segment arguments declare their ranges as the kernel's types say.
  const Stage& probe = p.stages()[2];
  auto declared = [](const std::vector<Range>& rs, const Range& r) {
    for (const Range& x : rs)
      if (x.binding == r.binding && x.offset == r.offset && x.size == r.size) return true;
    return false;
  };
  CHECK(declared(probe.reads, p.segment(Binding::Heap, "x")));
  CHECK(!declared(probe.writes, p.segment(Binding::Heap, "x")));
  CHECK(declared(probe.reads, p.segment(Binding::Globals, "acc")));
  CHECK(declared(probe.writes, p.segment(Binding::Globals, "acc")));
  CHECK(declared(probe.reads, p.control_words(k_word, 1)));
}

TEST_CASE("manifest errors: an argument the kernel does not declare, of the wrong kind, or missing") {
  expect_manifest_build_error(fixture_with("c = 1.5,", "c = 1.5, d = 2,"), "stages[0].args.d", "declares no argument 'd'");
  expect_manifest_build_error(fixture_with("x = \"heap.x\", acc", "x = 3, acc"), "stages[0].args.x", "takes a range");
  expect_manifest_build_error(fixture_with("c = 1.5, ", ""), "stages[0]", "argument 'f32 c' is not bound");
  expect_manifest_build_error(fixture_with("c = 1.5,", "c = \"heap.x.count\","), "stages[0].args.c", "names an integer word");
}

TEST_CASE("manifest: a dry run lists the stages, the barriers and the layout") {
  TempDir dir("manifest-test");
  const std::string text = describe_dry_run(load_manifest(conformance::write_manifest_fixture(dir.path())));
  INFO(text);
  CHECK(text.find("program 'fixture': 2 stages, 1 barriers") != std::string::npos);
  CHECK(text.find("[0] first  kernel=affine instance=a dispatch=1x1x1") != std::string::npos);
  CHECK(text.find("[1] second  kernel=affine instance=b dispatch=indirect(s)") != std::string::npos);
  CHECK(text.find("RAW Globals first->second") != std::string::npos);
  CHECK(text.find("RAW Registers first->second") != std::string::npos);
  CHECK(text.find("instance 'b': width 8") != std::string::npos);
  CHECK(text.find("output b.npy") != std::string::npos);
  const std::string ex = WEFT_EXAMPLES_DIR;
  const std::string chain = describe_dry_run(load_manifest(ex + "/chain/chain.toml"));
  CHECK(chain.find("3 stages, 2 barriers") != std::string::npos);
  CHECK(chain.find("[2] reduce") != std::string::npos);
  const std::string gain = describe_dry_run(load_manifest(ex + "/gain/gain.toml"));
  CHECK(gain.find("[1] limiter  kernel=regulator") != std::string::npos);
  CHECK(gain.find("RAW Control limiter->apply_gain") != std::string::npos);
}

TEST_CASE("manifest: a regulator stage becomes a rule block the program evaluates") {
  TempDir dir("manifest-test");
  const Manifest m = load_manifest(conformance::write_manifest_fixture(dir.path(), std::string(conformance::manifest_fixture_text()) + kRegulatorStage));
  const Program p = build_program(m);
  REQUIRE(p.stages().size() == 3);
  CHECK(p.rule_count() == 1);
  const uint32_t first = regulator_rule_word(p, StageId{2});
  abi::WeftRule r;
  std::memcpy(&r, &p.control_image()[first], sizeof r);
  CHECK(r.source_instance == 0);
  CHECK(r.source_field == WEFT_METRIC_NORM);
  CHECK(r.compare == WEFT_CMP_GREATER);
  CHECK(r.lo == f32_bits(1.0f));
  CHECK(r.action == WEFT_ACTION_SCALE_WORD);
  CHECK(r.target_type == WEFT_SOURCE_F32);
  CHECK(r.value == f32_bits(0.5f));
}

TEST_CASE("manifest: every comparison and action is encoded as the regulator reads it") {
  const std::string rules = R"(
[[control]]
name = "n"
dtype = "u4"
values = [10]

[[stages]]
name = "reg"

[[stages.rules]]
source = "b.sequence"
when = "outside"
bounds = [1, 3]
action = "scale"
target = "control.n"
value = 3
denominator = 2

[[stages.rules]]
source = "a.max_abs"
when = "<"
threshold = 0.5
action = "clamp"
target = "control.k"
limits = [0.0, 4.0]

[[stages.rules]]
when = "always"
action = "set_slot"
target = "slot.s"
value = 3

[[stages.rules]]
source = "a.status"
when = "nonzero"
action = "halt"

[[stages.rules]]
source = "a.norm"
when = "zero"
action = "set_status"
target = "b"
value = 17

[[stages.rules]]
source = "a.counter3"
when = ">"
threshold = 5
action = "set"
target = "instance.b.limit"
value = 9
)";
  TempDir dir("manifest-test");
  const Program p =
      build_program(load_manifest(conformance::write_manifest_fixture(dir.path(), std::string(conformance::manifest_fixture_text()) + rules)));
  REQUIRE(p.rule_count() == 6);
  std::vector<abi::WeftRule> r(6);
  std::memcpy(r.data(), &p.control_image()[regulator_rule_word(p, StageId{2})], 6 * sizeof(abi::WeftRule));
  const uint32_t n_word = p.control_image().size() - 1 - 6 * WEFT_RULE_WORDS;  // allocated just before the rules
  CHECK(r[0].source_field == WEFT_METRIC_SEQUENCE);
  CHECK(r[0].source_type == WEFT_SOURCE_U32);
  CHECK((r[0].compare == WEFT_CMP_OUTSIDE && r[0].lo == 1 && r[0].hi == 3));
  CHECK((r[0].action == WEFT_ACTION_SCALE_WORD && r[0].target == n_word && r[0].target_type == WEFT_SOURCE_U32));
  CHECK((r[0].value == 3 && r[0].value2 == 2));
  CHECK((r[1].compare == WEFT_CMP_LESS && r[1].lo == f32_bits(0.5f) && r[1].source_type == WEFT_SOURCE_F32));
  CHECK((r[1].action == WEFT_ACTION_CLAMP_WORD && r[1].value == f32_bits(0.0f) && r[1].value2 == f32_bits(4.0f)));
  CHECK(r[1].target_type == WEFT_SOURCE_F32);
  CHECK((r[2].compare == WEFT_CMP_ALWAYS && r[2].source_instance == WEFT_NONE));
  CHECK((r[2].action == WEFT_ACTION_SET_SLOT && r[2].target == p.slot_word(SlotId{0}) && r[2].value == 3));
  CHECK((r[3].compare == WEFT_CMP_NE_ZERO && r[3].source_field == WEFT_METRIC_STATUS && r[3].action == WEFT_ACTION_HALT));
  CHECK((r[4].compare == WEFT_CMP_EQ_ZERO && r[4].action == WEFT_ACTION_SET_STATUS && r[4].target == 1 && r[4].value == 17));
  CHECK((r[5].source_field == WEFT_METRIC_COUNTER0 + 3 && r[5].source_type == WEFT_SOURCE_U32 && r[5].lo == 5));
  CHECK((r[5].action == WEFT_ACTION_SET_WORD && r[5].target == p.instance_control_word(InstanceId{1}, 2) && r[5].value == 9));
  CHECK(r[5].target_type == WEFT_SOURCE_U32);
}

// ---- manifests: every class of error names the file, the key path and the problem ----------

TEST_CASE("manifest errors: unknown keys") {
  expect_manifest_error(fixture_with("name = \"fixture\"", "name = \"fixture\"\ncolour = \"red\""), "colour", "unknown key");
  expect_manifest_error(fixture_with("name = \"first\"", "name = \"first\"\ndispach = 1"), "stages[0].dispach", "unknown key");
  expect_manifest_error(fixture_with("name = \"s\"\ngroups", "name = \"s\"\nsize = 2\ngroups"), "slots[0].size",
                        "expected one of: name, groups");
  expect_manifest_error(std::string(conformance::manifest_fixture_text()) + "[[instances]]\nname = \"c\"\nwidth = 1\nchain = [\"a\"]\n",
                        "instances[2].chain", "go before the first [[...]] header");
}

TEST_CASE("manifest errors: wrong types") {
  expect_manifest_error(fixture_with("width = 8\ninbox", "width = \"8\"\ninbox"), "instances[0].width", "expected an integer, got a string");
  expect_manifest_error(fixture_with("dispatch = 1", "dispatch = \"one\""), "stages[0].dispatch",
                        "expected an integer or an array of 1-3 integers, got a string");
  expect_manifest_error(fixture_with("dispatch = 1", "dispatch = [1, 1, 1, 1]"), "stages[0].dispatch", "an array of 4");
  expect_manifest_error(fixture_with("message = true", "message = 1"), "stages[0].message", "expected true or false");
  expect_manifest_error(fixture_with("c = 1.5,", "c = [1.5],"), "stages[0].args.c", "got an array");
  std::string heap_scalar = fixture_with("[[heap]]\nname = \"x\"\nfile = \"x.npy\"\n", "");
  heap_scalar.replace(heap_scalar.find("chain ="), 0, "heap = 3\n");
  expect_manifest_error(heap_scalar, "heap", "expected an array of tables ([[heap]]), got an integer");
  expect_manifest_error(fixture_with("width = 8\ninbox", "width = -8\ninbox"), "instances[0].width", "outside [1,");
}

TEST_CASE("manifest errors: missing required keys") {
  expect_manifest_error(fixture_with("instance = \"a\"\n", ""), "stages[0].instance", "missing required key");
  expect_manifest_error(fixture_with("dispatch = 1\n", ""), "stages[0].dispatch", "missing required key");
  expect_manifest_error(fixture_with("file = \"affine.comp\"\n", ""), "kernels[0].file", "missing required key");
  expect_manifest_error(fixture_with("dtype = \"f4\"\ncount = 8\n", "dtype = \"f4\"\n"), "globals[0].count", "missing required key");
  expect_manifest_error(fixture_with("source = \"outbox.b\"\n", ""), "outputs[0].source", "missing required key");
  const std::string no_threshold = std::string(kRegulatorStage).replace(std::string(kRegulatorStage).find("threshold = 1.0\n"), 16, "");
  expect_manifest_error(std::string(conformance::manifest_fixture_text()) + no_threshold, "stages[2].rules[0].threshold",
                        "missing required key");
  // Regression: a NaN threshold was accepted (the rule could never fire).
  const std::string nan_threshold = std::string(kRegulatorStage).replace(std::string(kRegulatorStage).find("threshold = 1.0\n"), 16, "threshold = nan\n");
  expect_manifest_error(std::string(conformance::manifest_fixture_text()) + nan_threshold, "stages[2].rules[0].threshold",
                        "NaN compares false with everything");
}

TEST_CASE("manifest errors: unknown references") {
  expect_manifest_error(fixture_with("kernel = \"affine\"\ninstance = \"a\"", "kernel = \"affin\"\ninstance = \"a\""), "stages[0].kernel",
                        "unknown kernel 'affin'");
  expect_manifest_error(fixture_with("chain = [\"a\", \"b\"]", "chain = [\"a\", \"c\"]"), "chain[1]", "unknown instance 'c'");
  // Regression: a cycle was accepted.
  expect_manifest_error(fixture_with("chain = [\"a\", \"b\"]", "chain = [\"a\", \"b\", \"a\"]"), "chain[2]", "instance 'a' closes a cycle");
  expect_manifest_error(fixture_with("indirect = \"s\"", "indirect = \"t\""), "stages[1].indirect", "unknown slot 't'");
  expect_manifest_build_error(fixture_with("acc = \"globals.acc\"", "acc = \"globals.acd\""), "stages[0].args.acc",
                              "no globals segment 'acd'");
  auto with_reads = [](const std::string& second) {
    return fixture_with("k = \"control.k\" }\n", "k = \"control.k\" }\nreads = [\"heap.x\", " + second + "]\n");
  };
  expect_manifest_error(with_reads("\"control.kk\""), "stages[0].reads[1]", "no control block 'kk'");
  expect_manifest_error(with_reads("\"registers.a.R40\""), "stages[0].reads[1]", "expected a register R0..R31");
  expect_manifest_error(with_reads("\"control.k[1]\""), "stages[0].reads[1]", "has 1 words; index 1 is past it");
  expect_manifest_error(with_reads("\"weights.k\""), "stages[0].reads[1]", "cannot resolve 'weights.k'");
  expect_manifest_error(fixture_with("source = \"outbox.b\"", "source = \"outbox.z\""), "outputs[0].source", "no instance 'z'");
  expect_manifest_error(std::string(conformance::manifest_fixture_text()) +
                            std::string(kRegulatorStage).replace(std::string(kRegulatorStage).find("a.norm"), 6, "a.nrm"),
                        "stages[2].rules[0].source", "unknown metrics field 'nrm'");
  expect_manifest_error(std::string(conformance::manifest_fixture_text()) +
                            std::string(kRegulatorStage).replace(std::string(kRegulatorStage).find("control.k"), 9, "control.q"),
                        "stages[2].rules[0].target", "no control block 'q'");
  expect_manifest_error(std::string(conformance::manifest_fixture_text()) +
                            std::string(kRegulatorStage).replace(std::string(kRegulatorStage).find("\"scale\""), 7, "\"explode\""),
                        "stages[2].rules[0].action", "unknown action 'explode'");
  expect_manifest_error(fixture_with("file = \"x.npy\"", "file = \"missing.npy\""), "heap[0].file", "cannot open");
}

TEST_CASE("manifest errors: sizes and types that do not match") {
  expect_manifest_error(fixture_with("file = \"x.npy\"", "file = \"x.npy\"\nshape = [9]"), "heap[0].shape",
                        "declared [9] but the file has shape [8]");
  expect_manifest_error(fixture_with("file = \"x.npy\"", "file = \"x.npy\"\ndtype = \"i4\""), "heap[0].dtype",
                        "declared <i4 but the file holds <f4");
  expect_manifest_error(fixture_with("file = \"b.npy\"", "file = \"b.npy\"\nshape = [3, 3]"), "outputs[0].shape",
                        "shape holds 9 elements but 'outbox.b' has 8");
  expect_manifest_error(fixture_with("width = 8\ninbox", "width = 4\ninbox"), "instances[0].inbox", "holds 32 bytes");
  expect_manifest_error(fixture_with("name = \"b\"\nwidth = 8", "name = \"b\"\nwidth = 16"), "chain", "its inbox would run past");
  expect_manifest_error(fixture_with("values = [2.0]", "values = [2.0]\ncount = 2"), "control[0].count", "does not match");
  expect_manifest_error(fixture_with("dtype = \"f4\"\ncount = 8", "dtype = \"u1\"\ncount = 8\nfill = 300"), "globals[0].fill",
                        "does not fit |u1");
  expect_manifest_error(fixture_with("dtype = \"f4\"\ncount = 8", "dtype = \"c8\"\ncount = 8"), "globals[0].dtype", "unsupported dtype 'c8'");
  expect_manifest_error(fixture_with("dtype = \"f4\"\ncount = 8", "dtype = \"f4\"\ncount = 8\nshape = [2, 3]"), "globals[0].count",
                        "does not match shape [2, 3]");
  expect_manifest_error(fixture_with("name = \"b\"\nwidth = 8", "name = \"a\"\nwidth = 8"), "instances[1].name", "duplicate instance name 'a'");
  expect_manifest_error(fixture_with("indirect = \"s\"", "indirect = \"s\"\ndispatch = 2"), "stages[1].indirect", "give one of dispatch, indirect or units");
  expect_manifest_error(fixture_with("file = \"b.npy\"", "file = \"../b.npy\""), "outputs[0].file", "relative path inside the output folder");
}

TEST_CASE("manifest errors: declarations the kernel contradicts, and invalid programs") {
  expect_manifest_error(fixture_with("k = \"control.k\" }\n", "k = \"control.k\" }\nwrites = [\"heap.x\"]\n"), "stages[0].writes[0]", "Heap is read-only");
  // Arguments declare their own ranges; the message traffic is declared by `message`.
  expect_manifest_error(fixture_with("k = \"control.k\" }\nmessage = true\n", "k = \"control.k\" }\n"), "stages[0].reads",
                        "uses Registers but the stage declares no Registers range");
  expect_manifest_error(fixture_with("k = \"control.k\" }\nmessage = true\n", "k = \"control.k\" }\nreads = [\"registers.a\", \"metrics.a\"]\n"), "stages[0].writes",
                        "writes Registers but the stage declares no Registers write");
  expect_manifest_build_error(fixture_with("x = \"heap.x\"", "x = \"globals.acc\""), "stages[0]",
                              "takes a Heap range; got one of Globals");
  const std::string zero_two_slots =
      "\n[[stages]]\nname = \"reg\"\n\n[[stages.rules]]\nsource = \"a.norm\"\nwhen = \">\"\nthreshold = 1.0\n"
      "action = \"zero_slots\"\ntarget = \"slot.s\"\ncount = 2\n";
  expect_manifest_error(std::string(conformance::manifest_fixture_text()) + zero_two_slots,
                        "stages[2].rules[0].count", "only 1 consecutive slot(s) start there");
}

TEST_CASE("manifest errors: a kernel declaring more arguments than the push block holds") {
  TempDir dir("manifest-test");
  const std::string path = conformance::write_manifest_fixture(dir.path());
  std::string list;
  for (int k = 0; k <= WEFT_PUSH_ARG_WORDS; ++k) list += " X(WEFT_U32, a" + std::to_string(k) + ")";
  conformance::write_text(dir.path() + "/affine.comp", "#version 450\n#extension GL_GOOGLE_include_directive : require\n"
                                                       "#define WEFT_ARGS(X)" + list + "\n#include \"weft.glsl\"\nvoid main() {}\n");
  const std::string msg = test::error_message_of([&] { load_manifest(path); });
  CHECK(msg.find("21 arguments; at most 20 fit") != std::string::npos);
}

TEST_CASE("manifest errors: syntax, unreadable files and kernels that do not compile") {
  const Error syntax = load_error(fixture_with("name = \"fixture\"", "name = \"fixture"));
  CHECK(syntax.code() == ErrorCode::BadInput);
  CHECK(std::string(syntax.what()).find("fixture.toml:2:") != std::string::npos);
  CHECK(std::string(syntax.what()).find("TOML syntax error") != std::string::npos);
  const std::string missing = test::error_message_of([] { load_manifest("/nonexistent/weft.toml"); });
  CHECK(missing.find("/nonexistent/weft.toml: cannot read") != std::string::npos);
  // A kernel that does not compile is a ShaderCompile error at file:line.
  TempDir dir("manifest-test");
  const std::string path = conformance::write_manifest_fixture(dir.path());
  conformance::write_text(dir.path() + "/affine.comp", "#version 450\nlayout(local_size_x = 1) in;\nvoid main() { nope = 1; }\n");
  try {
    load_manifest(path);
    FAIL("a broken kernel loaded");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::ShaderCompile);
    CHECK(std::string(e.what()).find("affine.comp:3:") != std::string::npos);
  }
}

TEST_CASE("manifest: a run with an unusable output folder fails cleanly and leaves inputs alone") {
  test::ValidationClean clean;
  TempDir dir("manifest-test");
  const Manifest m = load_manifest(conformance::write_manifest_fixture(dir.path()));
  const auto x_before = read_npy(dir.path() + "/x.npy").data;
  conformance::write_text(dir.path() + "/blocker", "a file, not a folder");
  const std::string msg = test::error_message_of([&] { run_manifest(test::device(), m, dir.path() + "/blocker/out"); });
  CHECK(msg.find("cannot create the output folder") != std::string::npos);
  CHECK(read_npy(dir.path() + "/x.npy").data == x_before);
}

// ---- robustness: corrupted inputs are typed errors, never crashes ---------------------------

TEST_CASE("manifest: random corruptions of the text load or fail with a typed error, never crash") {
  TempDir dir("manifest-fuzz");
  const std::string valid = conformance::manifest_fixture_text();
  const std::string path = conformance::write_manifest_fixture(dir.path());
  std::mt19937 rng(5);
  const char alphabet[] = "[]{}=\".,#\n 0123456789-abcxyz_";
  int refused = 0;
  for (int trial = 0; trial < 150; ++trial) {
    std::string text = valid;
    const int edits = 1 + int(rng() % 3);
    for (int e = 0; e < edits; ++e) {
      const size_t at = rng() % text.size();
      if (rng() % 2) text[at] = alphabet[rng() % (sizeof alphabet - 1)];
      else text.erase(at, 1 + rng() % 8);
    }
    try {
      parse_manifest(text, path);
    } catch (const Error& e) {
      INFO(e.what());
      REQUIRE((e.code() == ErrorCode::BadInput || e.code() == ErrorCode::ShaderCompile));
      ++refused;
    }
  }
  CHECK(refused > 50);
}

// toml++ 3.3 reaches __builtin_unreachable() on U+00A1..U+0499 where it expects whitespace
// (found by fuzzing); such characters are refused before it parses, where TOML allows none.
TEST_CASE("manifest errors: a non-ASCII character outside a string or comment is refused by line and column") {
  try {
    parse_manifest("name = \"x\"\nvalues = [1.\xce\xa2\n", "/nonexistent/m.toml");
    FAIL("parsed");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::BadInput);
    CHECK(std::string(e.what()).find("m.toml:2:13: TOML syntax error: a non-ASCII character outside a string or comment") !=
          std::string::npos);
  }
  // Inside strings and comments it is text like any other: the parse then fails later, on the
  // missing stages, not on the characters.
  for (const char* text : {"name = \"caf\xc3\xa9\" # \xce\xa2\n", "name = '\xc3\xa9'\n", "name = \"\"\"\n\xc3\xa9\\\"\"\"\"\n",
                           "name = '''\xc3\xa9\n'''\n"}) {
    INFO(text);
    try {
      parse_manifest(text, "/nonexistent/m.toml");
      FAIL("parsed");
    } catch (const Error& e) {
      CHECK(std::string(e.what()).find("non-ASCII") == std::string::npos);
    }
  }
}

TEST_CASE("manifest: non-ASCII text inside strings reads as written, after a line-ending backslash too") {
  TempDir dir("manifest-test");
  const std::string text = fixture_with("name = \"fixture\"", "name = \"\"\"\\\n   \xc3\xa9t\xc3\xa9 \xf0\x9f\x99\x82 \xce\xa2\"\"\"");
  const Manifest m = load_manifest(conformance::write_manifest_fixture(dir.path(), text));
  CHECK(m.name == "\xc3\xa9t\xc3\xa9 \xf0\x9f\x99\x82 \xce\xa2");
  CHECK(load_error(fixture_with("name = \"fixture\"", "name = \"\xc3\x28\"")).code() == ErrorCode::BadInput);  // not UTF-8
}

// ---- far segments ------------------------------------------------------------------------------

namespace {
// Writes `text` with `from` replaced by `to` to `path` and builds it: the error's message.
std::string build_error_with(const std::string& path, std::string text, const std::string& from, const std::string& to) {
  text.replace(text.find(from), from.size(), to);
  conformance::write_text(path, text);
  return test::error_message_of([&] { build_program(load_manifest(path)); });
}

// A manifest doubling a filled Heap far segment into a Globals far segment it writes out.
std::string far_manifest(TempDir& dir) {
  conformance::write_text(dir.path() + "/far_double.comp",
                          "#version 450\n#extension GL_GOOGLE_include_directive : require\n#define WEFT_FAR_ACCESS\n"
                          "#define WEFT_ARGS(X) X(WEFT_FAR_IN(Heap), src) X(WEFT_FAR_OUT(Globals), dst) X(WEFT_U32, records)\n"
                          "#include \"weft.glsl\"\nlayout(local_size_x = 64) in;\n"
                          "void main() {\n  uint r = gl_GlobalInvocationID.x;\n  if (r >= pc.args.records) return;\n"
                          "  for (uint w = 0u; w < 2u; ++w) weft_far_set_f(weft_far_globals(pc.args.dst), r, w, 2.0 * weft_far_f(weft_far_heap(pc.args.src), r, w));\n}\n");
  const std::string path = dir.path() + "/far.toml";
  conformance::write_text(path, R"(name = "far"
[[kernels]]
name = "double"
file = "far_double.comp"
[[heap]]
name = "src"
count = 1000
fill = 1.5
far = true
record_bytes = 8
[[globals]]
name = "dst"
count = 1000
far = true
record_bytes = 8
[[instances]]
name = "a"
width = 1
[[stages]]
kernel = "double"
instance = "a"
dispatch = 8
args = { src = "heap.src", dst = "globals.dst", records = 500 }
[[outputs]]
source = "globals.dst"
)");
  return path;
}
}  // namespace

TEST_CASE("manifest: far segments are declared with far = true, run, write outputs and show in a dry run") {
  test::ValidationClean clean;
  TempDir dir("manifest-far");
  const Manifest m = load_manifest(far_manifest(dir));
  const std::string plan = describe_dry_run(m);
  CHECK(plan.find("Heap 'src': far, 4000 bytes in records of 8 bytes") != std::string::npos);
  run_manifest(test::device(), m, dir.path() + "/out");
  const NpyArray out = read_npy(dir.path() + "/out/globals_dst.npy");
  REQUIRE(out.count() == 1000);
  std::vector<float> v(1000);
  std::memcpy(v.data(), out.data.data(), 4000);
  CHECK(std::all_of(v.begin(), v.end(), [](float x) { return x == 3.0f; }));
}

TEST_CASE("manifest errors: far segment keys") {
  TempDir dir("manifest-far");
  const std::string path = far_manifest(dir), text = read_text_file(path);
  auto error_for = [&](const std::string& from, const std::string& to) { return build_error_with(path, text, from, to); };
  CHECK(error_for("far = true\nrecord_bytes = 8\n[[globals]]", "record_bytes = 8\n[[globals]]").find("only used with far = true") != std::string::npos);
  CHECK(error_for("record_bytes = 8\n[[globals]]", "record_bytes = 6\n[[globals]]").find("whole number of 32-bit words") != std::string::npos);
  CHECK(error_for("count = 1000\nfill", "count = 999\nfill").find("not a whole number of 8-byte records") != std::string::npos);
  CHECK(error_for("records = 500 }", "records = \"heap.src\" }").find("a far segment has no word offset") != std::string::npos);
}

// ---- streaming kernels -------------------------------------------------------------------------

namespace {
// A manifest tripling 100,003 Heap floats into Globals with a streaming kernel (units = N).
std::string streaming_manifest(TempDir& dir) {
  conformance::write_text(dir.path() + "/triple.comp",
                          "#version 450\n#extension GL_GOOGLE_include_directive : require\n"
                          "#define WEFT_ARGS(X) X(WEFT_IN(Heap), src) X(WEFT_OUT(Globals), dst) X(WEFT_U32, n)\n"
                          "#include \"weft.glsl\"\nWEFT_STREAMING_KERNEL;\n"
                          "void main() {\n  WEFT_FOR_EACH_UNIT(i, pc.args.n) globals_f[pc.args.dst + i] = 3.0 * heap_f[pc.args.src + i];\n}\n");
  const std::string path = dir.path() + "/streaming.toml";
  conformance::write_text(path, R"(name = "streaming"
[[kernels]]
name = "triple"
file = "triple.comp"
[[heap]]
name = "src"
count = 100003
fill = 1.5
[[globals]]
name = "dst"
count = 100003
[[instances]]
name = "a"
width = 1
[[stages]]
kernel = "triple"
instance = "a"
units = 100003
args = { src = "heap.src", dst = "globals.dst", n = 100003 }
[[outputs]]
source = "globals.dst"
)");
  return path;
}
}  // namespace

TEST_CASE("manifest: a streaming kernel's stage gives units, and the engine shapes and sizes its dispatch") {
  test::ValidationClean clean;
  TempDir dir("manifest-streaming");
  const Manifest m = load_manifest(streaming_manifest(dir));
  CHECK(describe_dry_run(m).find("dispatch=streaming(100003 units, shaped per device)") != std::string::npos);
  run_manifest(test::device(), m, dir.path() + "/out");
  const NpyArray out = read_npy(dir.path() + "/out/globals_dst.npy");
  REQUIRE(out.count() == 100003);
  std::vector<float> v(100003);
  std::memcpy(v.data(), out.data.data(), v.size() * 4);
  CHECK(std::all_of(v.begin(), v.end(), [](float x) { return x == 4.5f; }));
}

TEST_CASE("manifest errors: a streaming kernel without units, and units for a plain kernel") {
  TempDir dir("manifest-streaming");
  const std::string path = streaming_manifest(dir), text = read_text_file(path);
  auto error_for = [&](const std::string& from, const std::string& to) { return build_error_with(path, text, from, to); };
  CHECK(error_for("units = 100003", "dispatch = 8").find("is a streaming kernel") != std::string::npos);
  CHECK(error_for("units = 100003", "units = 0").find("stages[0].units") != std::string::npos);
  CHECK(error_for("units = 100003", "units = 5\ndispatch = 2").find("give one of dispatch, indirect or units") != std::string::npos);
  conformance::write_text(dir.path() + "/triple.comp",
                          "#version 450\n#extension GL_GOOGLE_include_directive : require\n"
                          "#define WEFT_ARGS(X) X(WEFT_IN(Heap), src) X(WEFT_OUT(Globals), dst) X(WEFT_U32, n)\n"
                          "#include \"weft.glsl\"\nlayout(local_size_x = 64) in;\nvoid main() {}\n");
  CHECK(error_for("units = 100003", "units = 100003").find("is not a streaming kernel") != std::string::npos);
}
