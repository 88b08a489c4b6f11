/* The C ABI, exercised from C: every entry point, its results checked against values computed
 * here independently, and its error paths (NULLs, bad ids, malformed manifests, out-of-range
 * reads) returning the documented status with a message. Runs with validation on; any
 * validation message fails the test.
 *
 * usage: test_capi EXAMPLES_DIR TEMP_DIR MODEL.gguf (the seeded model, context 1024) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weft.h>

static int failures = 0;

#define CHECK(cond)                                                        \
  do {                                                                     \
    if (!(cond)) {                                                         \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                          \
    }                                                                      \
  } while (0)

/* A call that must succeed. */
#define OK(call)                                                                                  \
  do {                                                                                            \
    weft_status s_ = (call);                                                                      \
    if (s_ != WEFT_OK) {                                                                          \
      fprintf(stderr, "%s:%d: %s -> %s: %s\n", __FILE__, __LINE__, #call, weft_status_name(s_),   \
              weft_last_error());                                                                 \
      ++failures;                                                                                 \
    }                                                                                             \
  } while (0)

/* A call that must fail with `expected` and leave a message containing `needle`. */
static void expect_error(weft_status got, weft_status expected, const char* needle, const char* what, int line) {
  if (got != expected) {
    fprintf(stderr, "line %d: %s returned %s, expected %s (%s)\n", line, what, weft_status_name(got),
            weft_status_name(expected), weft_last_error());
    ++failures;
  } else if (!strstr(weft_last_error(), needle)) {
    fprintf(stderr, "line %d: %s: message '%s' does not name '%s'\n", line, what, weft_last_error(), needle);
    ++failures;
  }
}
#define FAILS(call, status, needle) expect_error((call), (status), (needle), #call, __LINE__)

static float bits_to_float(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}
static uint32_t float_to_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

static void test_library(void) {
  CHECK(weft_abi_version() == WEFT_ABI_VERSION);
  CHECK(strlen(weft_version()) > 0);
  CHECK(strcmp(weft_status_name(WEFT_ERROR_BAD_INPUT), "WEFT_ERROR_BAD_INPUT") == 0);
  CHECK(strcmp(weft_status_name(WEFT_OK), "WEFT_OK") == 0);
}

static void test_devices(void) {
  uint32_t count = 0;
  OK(weft_device_count(&count));
  CHECK(count >= 1);
  weft_device_info info;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  OK(weft_device_describe(0, &info));
  CHECK(strlen(info.name) > 0 && strlen(info.api_version) > 0);
  FAILS(weft_device_describe(count, &info), WEFT_ERROR_BAD_INPUT, "does not exist");
  FAILS(weft_device_count(NULL), WEFT_ERROR_INVALID_ARGUMENT, "weft_device_count: count");
  info.struct_size = 3;
  FAILS(weft_device_describe(0, &info), WEFT_ERROR_INVALID_ARGUMENT, "struct_size");

  weft_device_options options = {sizeof options, "no-such-gpu-anywhere", 1};
  weft_device* device = NULL;
  FAILS(weft_device_open(&options, &device), WEFT_ERROR_NO_DEVICE, "no-such-gpu-anywhere");
  CHECK(device == NULL);
  FAILS(weft_device_open(NULL, NULL), WEFT_ERROR_INVALID_ARGUMENT, "device");
  weft_device_release(NULL); /* a no-op */
}

static void test_buffers(weft_device* device) {
  weft_buffer* buffer = NULL;
  OK(weft_buffer_create(device, 4096, &buffer));
  uint64_t size = 0;
  OK(weft_buffer_size(buffer, &size));
  CHECK(size == 4096);
  uint32_t in[1024], out[1024];
  for (uint32_t i = 0; i < 1024; ++i) in[i] = i * 2654435761u;
  OK(weft_buffer_upload(buffer, 0, in, sizeof in));
  memset(out, 0, sizeof out);
  OK(weft_buffer_download(buffer, 0, out, sizeof out));
  CHECK(memcmp(in, out, sizeof in) == 0);
  /* An unaligned window in the middle. */
  OK(weft_buffer_download(buffer, 13, out, 100));
  CHECK(memcmp((const char*)in + 13, out, 100) == 0);
  FAILS(weft_buffer_download(buffer, 4000, out, 100), WEFT_ERROR_SEGMENT_OUT_OF_RANGE, "4000");
  FAILS(weft_buffer_upload(buffer, 0, NULL, 4), WEFT_ERROR_INVALID_ARGUMENT, "data");
  weft_buffer* empty = NULL;
  FAILS(weft_buffer_create(device, 0, &empty), WEFT_ERROR_BAD_INPUT, "at least 1 byte");
  weft_buffer_release(buffer);
}

/* examples/gain: amplify x3, a rule scales control.gain by 0.25 when the peak exceeds 2, the
 * output stage multiplies by the gain. Expectations are computed here from the signal. */
static void test_program(weft_device* device, const char* examples, const char* temp) {
  char path[1024];
  snprintf(path, sizeof path, "%s/gain/gain.toml", examples);
  weft_program* program = NULL;
  OK(weft_program_from_manifest(device, path, &program));
  if (!program) return;

  uint64_t bytes = 0;
  OK(weft_program_segment_size(program, WEFT_BIND_HEAP, "signal", &bytes));
  CHECK(bytes == 256 * sizeof(float));
  float signal[256];
  float peak = 0;
  for (int i = 0; i < 256; ++i) {
    signal[i] = 0.8f * sinf(0.1f * (float)i) * (i % 7 == 3 ? -1.0f : 1.0f);
    if (fabsf(signal[i]) > peak) peak = fabsf(signal[i]);
  }
  OK(weft_program_write_segment(program, WEFT_BIND_HEAP, "signal", 0, signal, sizeof signal));
  float back[256];
  OK(weft_program_read_segment(program, WEFT_BIND_HEAP, "signal", 0, back, sizeof back));
  CHECK(memcmp(signal, back, sizeof back) == 0);

  uint32_t instances = 0, amp = 99, out = 99;
  OK(weft_program_instance_count(program, &instances));
  CHECK(instances == 2);
  OK(weft_program_instance(program, "amp", &amp));
  OK(weft_program_instance(program, "out", &out));
  CHECK(amp == 0 && out == 1);

  /* Run 1 through submit/wait: the peak 3 * 0.8 exceeds 2, so the gain drops to 0.25. */
  uint64_t ticket = 0;
  OK(weft_program_submit(program, &ticket));
  OK(weft_program_wait(program, ticket, UINT64_MAX));
  weft_metrics m;
  OK(weft_program_metrics(program, amp, &m));
  CHECK(fabsf(m.max_abs - 3.0f * peak) <= 1e-5f);
  OK(weft_program_metrics(program, out, &m));
  CHECK(fabsf(m.max_abs - 0.75f * peak) <= 1e-5f);
  uint32_t gain_bits = 0;
  OK(weft_program_control_get(program, "gain", 0, &gain_bits));
  CHECK(bits_to_float(gain_bits) == 0.25f);

  /* Run 2 starts from gain 2.0: the rule still fires, 2.0 * 0.25 = 0.5, output peak 1.5 * peak. */
  OK(weft_program_control_set(program, "gain", 0, float_to_bits(2.0f)));
  OK(weft_program_run(program));
  OK(weft_program_metrics(program, out, &m));
  CHECK(fabsf(m.max_abs - 1.5f * peak) <= 1e-5f);
  double gpu_ns = -1;
  OK(weft_program_gpu_time_ns(program, &gpu_ns));
  CHECK(gpu_ns >= 0);

  char outputs[1024];
  snprintf(outputs, sizeof outputs, "%s/capi-gain-out", temp);
  OK(weft_program_write_outputs(program, outputs));
  char file[1200];
  snprintf(file, sizeof file, "%s/output.npy", outputs);
  FILE* f = fopen(file, "rb");
  CHECK(f != NULL);
  if (f) {
    char magic[6] = {0};
    CHECK(fread(magic, 1, 6, f) == 6 && memcmp(magic, "\x93NUMPY", 6) == 0);
    fclose(f);
  }

  /* Error paths: nothing here may change the program. */
  FAILS(weft_program_read_segment(program, WEFT_BIND_HEAP, "signal", 1000, back, 100), WEFT_ERROR_SEGMENT_OUT_OF_RANGE,
        "signal");
  FAILS(weft_program_read_segment(program, WEFT_BIND_HEAP, "no_such_segment", 0, back, 4), WEFT_ERROR_SEGMENT_OUT_OF_RANGE,
        "no_such_segment");
  FAILS(weft_program_read_segment(program, WEFT_BIND_REGISTERS, "signal", 0, back, 4), WEFT_ERROR_BAD_INPUT, "Heap or Globals");
  FAILS(weft_program_instance(program, "nobody", &amp), WEFT_ERROR_BAD_INPUT, "nobody");
  FAILS(weft_program_metrics(program, 7, &m), WEFT_ERROR_BAD_INPUT, "instance 7");
  FAILS(weft_program_control_get(program, "gain", 3, &gain_bits), WEFT_ERROR_BAD_INPUT, "element 3");
  FAILS(weft_program_control_set(program, "volume", 0, 0), WEFT_ERROR_BAD_INPUT, "volume");
  FAILS(weft_program_submit(program, NULL), WEFT_ERROR_INVALID_ARGUMENT, "ticket");
  FAILS(weft_program_run(NULL), WEFT_ERROR_INVALID_ARGUMENT, "program");
  /* Still runs and still computes the same thing after all that. */
  OK(weft_program_control_set(program, "gain", 0, float_to_bits(1.0f)));
  OK(weft_program_run(program));
  OK(weft_program_metrics(program, out, &m));
  CHECK(fabsf(m.max_abs - 0.75f * peak) <= 1e-5f);

  weft_program_release(program);

  /* Lifetime: a program keeps its device alive after the caller's last device reference. */
  weft_device_options options = {sizeof options, NULL, 1};
  weft_device* second = NULL;
  OK(weft_device_open(&options, &second));
  weft_device_retain(second); /* two references ... */
  weft_device_release(second);
  weft_program* orphan = NULL;
  OK(weft_program_from_manifest(second, path, &orphan));
  weft_device_release(second); /* ... and the caller's last one is gone */
  if (orphan) {
    OK(weft_program_run(orphan));
    OK(weft_program_metrics(orphan, 0, &m));
    CHECK(m.max_abs > 0);
    weft_program_release(orphan);
  }

  weft_program* bad = NULL;
  FAILS(weft_program_from_manifest(device, "/nonexistent/manifest.toml", &bad), WEFT_ERROR_BAD_INPUT, "manifest.toml");
  CHECK(bad == NULL);
  FAILS(weft_program_from_manifest_text(device, "name = \"x\"\n[[stages]]\nname = 3\n", temp, &bad), WEFT_ERROR_BAD_INPUT,
        "stages");
  FAILS(weft_program_from_manifest_text(device, "this is = = not toml", temp, &bad), WEFT_ERROR_BAD_INPUT, "<text>");
  CHECK(bad == NULL);
}

/* Nodes on a 3x3x3 lattice, features per node; one LM, a few steps on the CPU and the Vulkan
 * backend with the same inputs. The CPU backend (float64) is the reference; the Vulkan backend
 * (float32) must agree within its documented evidence tolerance (vulkan_tolerance.h: 1e-4). */
/* A 3x3x3 lattice 1 cm apart with Monty's 16 feature columns, and an LM config over hsv and
   curvatures. */
enum { LATTICE_NODES = 27, LATTICE_COLS = 16 };
static const double hsv_tol[3] = {0.1, 0.2, 0.2}, hsv_w[3] = {1, 0.5, 0.5};
static const double curv_tol[2] = {1, 1}, curv_w[2] = {1, 1};
static const weft_hypothesis_update_feature lattice_features[2] = {{"hsv", 3, hsv_tol, hsv_w, 1},
                                                                  {"principal_curvatures_log", 2, curv_tol, curv_w, 0}};

static void lattice_graph(double* pos, double* x) {
  enum { N = LATTICE_NODES, COLS = LATTICE_COLS };
  for (int i = 0; i < N; ++i) {
    pos[i * 3 + 0] = 0.01 * (i % 3);
    pos[i * 3 + 1] = 0.01 * ((i / 3) % 3);
    pos[i * 3 + 2] = 0.01 * (i / 9);
    double* row = x + i * COLS;
    memset(row, 0, COLS * sizeof(double));
    row[0] = i;
    const double a = 0.3 * i, c = cos(a), s = sin(a);
    const double frame[9] = {c, s, 0, -s, c, 0, 0, 0, 1};
    memcpy(row + 1, frame, sizeof frame);
    row[10] = i % 2;
    row[11] = 0.03 * i;
    row[12] = 0.5;
    row[13] = 0.5;
    row[14] = 0.1 * (i % 5) - 0.2;
    row[15] = 0.2 - 0.1 * (i % 4);
  }
}

static weft_hypothesis_update_config lattice_config(void) {
  weft_hypothesis_update_config config;
  weft_hypothesis_update_config_default(&config);
  config.threshold = "80%";
  config.features = lattice_features;
  config.feature_count = 2;
  config.curvature_feature = 1;
  return config;
}

/* Step `step` of the walk both hypothesis tests feed an LM: the sensed frame turns about y. */
static weft_hypothesis_update_channel lattice_channel(int step, double* sensed) {
  const double a = 0.7 * step, c = cos(a), s = sin(a);
  weft_hypothesis_update_channel channel = {{c, 0, s, 0, 1, 0, -s, 0, c}, 1, sensed, 5};
  sensed[0] = 0.03 * (step + 4), sensed[1] = 0.5, sensed[2] = 0.5, sensed[3] = 0.1 * step - 0.2, sensed[4] = 0.1;
  return channel;
}

static void test_hypothesis(weft_device* device) {
  enum { N = LATTICE_NODES, COLS = LATTICE_COLS };
  double pos[N * 3], x[N * COLS];
  lattice_graph(pos, x);
  const weft_hypothesis_update_config config = lattice_config();

  weft_hypothesis_update_backend* backends[2] = {NULL, NULL};
  OK(weft_hypothesis_update_backend_cpu(1, &backends[0]));
  OK(weft_hypothesis_update_backend_vulkan(device, &backends[1]));
  if (!backends[0] || !backends[1]) return;
  int lms[2] = {-1, -1};
  for (int b = 0; b < 2; ++b) {
    int graph = -1;
    OK(weft_hypothesis_update_add_graph(backends[b], "lattice", pos, N, x, COLS, 5, &graph));
    CHECK(graph == 0);
    OK(weft_hypothesis_update_add_learning_module(backends[b], &config, &graph, 1, &lms[b]));
    CHECK(lms[b] == 0);
  }

  for (int step = 0; step < 4; ++step) {
    double sensed[5];
    const weft_hypothesis_update_channel channel = lattice_channel(step, sensed);
    weft_hypothesis_update_input input = {0, step > 0, {0.01, 0.0, 0.0}, &channel, 1};
    for (int b = 0; b < 2; ++b) {
      OK(weft_hypothesis_update_dispatch(backends[b], &input, 1));
      OK(weft_hypothesis_update_wait(backends[b]));
    }
  }
  uint64_t counts[2] = {0, 0};
  for (int b = 0; b < 2; ++b) OK(weft_hypothesis_update_count(backends[b], 0, 0, &counts[b]));
  CHECK(counts[0] > 0 && counts[0] == counts[1]);
  if (counts[0] > 0 && counts[0] == counts[1]) {
    const uint64_t h = counts[0];
    double* evidence[2] = {malloc(h * sizeof(double)), malloc(h * sizeof(double))};
    double* locations = malloc(h * 3 * sizeof(double));
    double* rotations = malloc(h * 9 * sizeof(double));
    uint8_t* possible = malloc(h);
    OK(weft_hypothesis_update_read(backends[0], 0, 0, h, evidence[0], locations, rotations, possible));
    OK(weft_hypothesis_update_read(backends[1], 0, 0, h, evidence[1], NULL, NULL, NULL));
    double worst = 0, spread = 0;
    for (uint64_t i = 0; i < h; ++i) {
      const double d = fabs(evidence[0][i] - evidence[1][i]);
      if (d > worst) worst = d;
      if (fabs(evidence[0][i] - evidence[0][0]) > spread) spread = fabs(evidence[0][i] - evidence[0][0]);
    }
    printf("hypothesis: %llu hypotheses, evidence spread %.3g, worst |cpu - vulkan| %.3g\n", (unsigned long long)h,
           spread, worst);
    CHECK(spread > 0.1); /* the steps really moved the evidence */
    CHECK(worst <= 1e-4);
    FAILS(weft_hypothesis_update_read(backends[0], 0, 0, h - 1, evidence[0], NULL, NULL, NULL), WEFT_ERROR_BAD_INPUT, "capacity");
    free(evidence[0]);
    free(evidence[1]);
    free(locations);
    free(rotations);
    free(possible);
  }
  weft_hypothesis_update_step_info info[2];
  int graphs[2];
  int64_t best[2];
  double best_evidence[2];
  for (int b = 0; b < 2; ++b) {
    OK(weft_hypothesis_update_step_info_get(backends[b], 0, 0, &info[b]));
    OK(weft_hypothesis_update_most_likely(backends[b], 0, &graphs[b], &best[b], &best_evidence[b]));
  }
  CHECK(info[0].updated && info[1].updated && info[0].tested == info[1].tested);
  CHECK(fabs(info[0].threshold - info[1].threshold) <= 1e-4);
  CHECK(graphs[0] == 0 && graphs[1] == 0 && fabs(best_evidence[0] - best_evidence[1]) <= 1e-4);

  /* Error paths: an unknown LM, a wrong feature count, a bad threshold, a bad struct size. */
  double one = 0.5;
  weft_hypothesis_update_channel short_channel = {{1, 0, 0, 0, 1, 0, 0, 0, 1}, 1, &one, 1};
  weft_hypothesis_update_input bad_input = {0, 1, {0, 0, 0}, &short_channel, 1};
  FAILS(weft_hypothesis_update_dispatch(backends[0], &bad_input, 1), WEFT_ERROR_BAD_INPUT, "features");
  bad_input.lm = 5;
  FAILS(weft_hypothesis_update_dispatch(backends[0], &bad_input, 1), WEFT_ERROR_BAD_INPUT, "unknown LM 5");
  uint64_t c = 0;
  FAILS(weft_hypothesis_update_count(backends[0], 3, 0, &c), WEFT_ERROR_BAD_INPUT, "3");
  weft_hypothesis_update_config broken = config;
  broken.threshold = "eighty";
  int lm = -1, graph0 = 0;
  FAILS(weft_hypothesis_update_add_learning_module(backends[0], &broken, &graph0, 1, &lm), WEFT_ERROR_BAD_INPUT, "eighty");
  broken = config;
  broken.struct_size = 8;
  FAILS(weft_hypothesis_update_add_learning_module(backends[0], &broken, &graph0, 1, &lm), WEFT_ERROR_INVALID_ARGUMENT, "struct_size");
  OK(weft_hypothesis_update_reset_episode(backends[0]));
  for (int b = 0; b < 2; ++b) weft_hypothesis_update_backend_release(backends[b]);
}

/* Two LMs voting for each other in one group: the Vulkan backend (vote on the device, in the
   update's submission) follows the CPU backend, and the votes change the evidence (against the
   same run with vote_weight 0). */
static void test_hypothesis_votes(weft_device* device) {
  enum { N = LATTICE_NODES, COLS = LATTICE_COLS, BACKENDS = 3 };
  double pos[N * 3], x[N * COLS];
  lattice_graph(pos, x);
  const weft_hypothesis_update_config config = lattice_config();
  weft_hypothesis_update_backend* backends[BACKENDS] = {NULL, NULL, NULL}; /* cpu, vulkan, cpu without vote weight */
  OK(weft_hypothesis_update_backend_cpu(1, &backends[0]));
  OK(weft_hypothesis_update_backend_vulkan(device, &backends[1]));
  OK(weft_hypothesis_update_backend_cpu(1, &backends[2]));
  if (!backends[0] || !backends[1] || !backends[2]) return;
  const int group[2] = {0, 1}, senders[2] = {1, 0};
  const uint32_t group_size = 2, sender_counts[2] = {1, 1};
  for (int b = 0; b < BACKENDS; ++b) {
    int graph = -1, lm = -1;
    OK(weft_hypothesis_update_add_graph(backends[b], "lattice", pos, N, x, COLS, 5, &graph));
    for (int l = 0; l < 2; ++l) OK(weft_hypothesis_update_add_learning_module(backends[b], &config, &graph, 1, &lm));
    OK(weft_hypothesis_update_set_groups(backends[b], group, &group_size, 1));
    OK(weft_hypothesis_update_set_votes(backends[b], senders, sender_counts, 2, 0.8, b == 2 ? 0.0 : 1.0));
  }
  for (int step = 0; step < 4; ++step) {
    double sensed[2][5];
    weft_hypothesis_update_channel channels[2];
    weft_hypothesis_update_input inputs[2];
    double located[2][3];
    /* The two sensors a few mm apart, moving together: off the lattice's 1 cm, so no vote lands
       within float32 rounding of max_match_distance (where float32 and float64 may decide
       differently, workloads/hypothesis_update/README.md). */
    for (int l = 0; l < 2; ++l) {
      channels[l] = lattice_channel(step + l, sensed[l]);
      const weft_hypothesis_update_input in = {l, step > 0, {0.01, 0.0, 0.0}, &channels[l], 1};
      inputs[l] = in;
      located[l][0] = 0.01 * step, located[l][1] = 0.0043 * l, located[l][2] = 0.0017 * l;
    }
    for (int b = 0; b < BACKENDS; ++b) {
      OK(weft_hypothesis_update_dispatch_located(backends[b], inputs, &located[0][0], 2));
      OK(weft_hypothesis_update_wait(backends[b]));
    }
  }
  double worst = 0, voted = 0;
  for (int l = 0; l < 2; ++l) {
    uint64_t counts[BACKENDS];
    for (int b = 0; b < BACKENDS; ++b) OK(weft_hypothesis_update_count(backends[b], l, 0, &counts[b]));
    CHECK(counts[0] > 0 && counts[0] == counts[1] && counts[0] == counts[2]);
    if (!(counts[0] > 0 && counts[0] == counts[1] && counts[0] == counts[2])) continue;
    double* evidence[BACKENDS];
    for (int b = 0; b < BACKENDS; ++b) {
      evidence[b] = malloc(counts[0] * sizeof(double));
      OK(weft_hypothesis_update_read(backends[b], l, 0, counts[0], evidence[b], NULL, NULL, NULL));
    }
    for (uint64_t i = 0; i < counts[0]; ++i) {
      if (fabs(evidence[0][i] - evidence[1][i]) > worst) worst = fabs(evidence[0][i] - evidence[1][i]);
      if (fabs(evidence[0][i] - evidence[2][i]) > voted) voted = fabs(evidence[0][i] - evidence[2][i]);
    }
    for (int b = 0; b < BACKENDS; ++b) free(evidence[b]);
  }
  printf("hypothesis votes: worst |cpu - vulkan| %.3g, largest change by the votes %.3g\n", worst, voted);
  CHECK(worst <= 1e-4);
  CHECK(voted > 0.1);

  /* Refusals: a voting LM's input without its sensed location, a sender count list without its
     senders, an LM voting for itself. */
  double sensed[5];
  const weft_hypothesis_update_channel channel = lattice_channel(0, sensed);
  const weft_hypothesis_update_input unlocated = {0, 1, {0.01, 0.0, 0.0}, &channel, 1};
  FAILS(weft_hypothesis_update_dispatch(backends[0], &unlocated, 1), WEFT_ERROR_BAD_INPUT, "sensed_location");
  const uint32_t one = 1;
  FAILS(weft_hypothesis_update_set_votes(backends[0], NULL, &one, 1, 0.8, 1.0), WEFT_ERROR_INVALID_ARGUMENT, "senders");
  OK(weft_hypothesis_update_reset_episode(backends[0]));
  const int self[2] = {0, 1};
  FAILS(weft_hypothesis_update_set_votes(backends[0], self, sender_counts, 2, 0.8, 1.0), WEFT_ERROR_BAD_INPUT, "itself");
  for (int b = 0; b < BACKENDS; ++b) weft_hypothesis_update_backend_release(backends[b]);
}

/* ---- token VM ---- */

/* The example's calculator tool, as a C callback: evaluates + - * over integers. */
typedef struct calc_state {
  int calls;
} calc_state;

static long calc_expr(const char** p);
static void calc_skip(const char** p) {
  while (**p == ' ') ++*p;
}
static long calc_number(const char** p, int* ok) {
  calc_skip(p);
  if (**p == '(') {
    ++*p;
    long v = calc_expr(p);
    calc_skip(p);
    if (**p == ')') ++*p;
    else *ok = 0;
    return v;
  }
  if (**p < '0' || **p > '9') *ok = 0;
  long v = 0;
  while (**p >= '0' && **p <= '9') v = v * 10 + (*(*p)++ - '0');
  return v;
}
static int calc_ok = 1;
static long calc_term(const char** p) {
  long v = calc_number(p, &calc_ok);
  for (calc_skip(p); **p == '*'; calc_skip(p)) {
    ++*p;
    v *= calc_number(p, &calc_ok);
  }
  return v;
}
static long calc_expr(const char** p) {
  long v = calc_term(p);
  for (calc_skip(p); **p == '+' || **p == '-'; calc_skip(p)) {
    const char op = *(*p)++;
    v = op == '+' ? v + calc_term(p) : v - calc_term(p);
  }
  return v;
}

static weft_status calculator(void* user, const char* captured, uint64_t length, weft_token_vm_answer* answer) {
  ((calc_state*)user)->calls++;
  char text[256];
  const size_t n = length < sizeof text - 1 ? (size_t)length : sizeof text - 1;
  memcpy(text, captured, n);
  text[n] = '\0';
  char* end = strstr(text, "[EOS]");  /* the zone's closing pattern is part of the capture */
  if (end) *end = '\0';
  const char* p = text;
  calc_ok = 1;
  const long v = calc_expr(&p);
  calc_skip(&p);
  char out[64];
  if (calc_ok && *p == '\0') snprintf(out, sizeof out, "%ld\n", v);
  else snprintf(out, sizeof out, "error\n");
  return weft_token_vm_answer_set(answer, out, strlen(out));
}

/* Runs the example workflow over two scripted streams; returns the machine (done). The script
 * advances a stream only when the VM took its sampled token (or timed out on it). */
static weft_token_vm_machine* run_example(weft_device* device, weft_token_vm_workflow* workflow, calc_state* calc) {
  static const char* lines[2] = {
      " more[EOS] 17 * 23 = 391, plus 4.[EOS] stop[Jump] 17 * 23 + 4[EOS][EOS] [EOS] 395[EOS] 395[EOS]",
      " more[EOS] 17 * 20 = 340[EOS] more[EOS] 340 + 69 = 409[EOS][Jump] (17 * 20) + (17 * 3) + 4[EOS][EOS][Jump] I "
      "added 69 instead of 51.[EOS] 395[EOS] 395[EOS]"};
  uint32_t script[2][256];
  uint64_t length[2], cursor[2] = {0, 0};
  for (int b = 0; b < 2; ++b) OK(weft_token_vm_encode(workflow, lines[b], script[b], 256, &length[b]));
  weft_token_vm_machine* m = NULL;
  OK(weft_token_vm_machine_create(device, workflow, 2, 1, &m));
  if (!m) return NULL;
  OK(weft_token_vm_set_tool(m, "calculator", calculator, calc));
  int done = 0;
  for (int step = 0; step < 2000 && !done; ++step) {
    uint32_t sampled[2], out[2], tags[2];
    for (int b = 0; b < 2; ++b) sampled[b] = script[b][cursor[b] % length[b]];
    OK(weft_token_vm_step(m, sampled, out, tags));
    for (uint32_t b = 0; b < 2; ++b) {
      weft_token_vm_record last;
      uint64_t count = 0;
      OK(weft_token_vm_records(m, b, NULL, 0, &count));
      weft_token_vm_record* all = (weft_token_vm_record*)malloc(sizeof *all * (size_t)count);
      OK(weft_token_vm_records(m, b, all, count, &count));
      last = all[count - 1];
      free(all);
      CHECK(last.token == out[b] && last.tags == tags[b]);
      if (last.source == WEFT_TOKEN_VM_SRC_SAMPLED || last.source == WEFT_TOKEN_VM_SRC_TIMEOUT) ++cursor[b];
    }
    int ready = 0;
    OK(weft_token_vm_callbacks_ready(m, &ready));
    if (ready) {
      uint32_t pending = 0, stream = 99;
      const char *tool = NULL, *text = NULL;
      OK(weft_token_vm_pending_count(m, &pending));
      CHECK(pending >= 1);
      OK(weft_token_vm_pending_call(m, 0, &stream, &tool, &text));
      CHECK(stream < 2 && tool && strcmp(tool, "calculator") == 0 && text && strlen(text) > 0);
      uint64_t resolved = 0;
      OK(weft_token_vm_resolve_callbacks(m, &resolved));
      CHECK(resolved == pending);
    }
    OK(weft_token_vm_done(m, &done));
  }
  CHECK(done == 1);
  return m;
}

/* The example workflow's files and the compile options it needs (its flow and one resource). */
typedef struct example_workflow {
  char prompts[1024], flow[1024];
  weft_token_vm_compile_options options;
} example_workflow;
static const char* example_names[1] = {"problem"};
static const char* example_values[1] = {"What is 17 * 23 + 4?"};

static void example_workflow_init(example_workflow* e, const char* examples) {
  snprintf(e->prompts, sizeof e->prompts, "%s/token_vm/prompts.toml", examples);
  snprintf(e->flow, sizeof e->flow, "%s/token_vm/flow.toml", examples);
  weft_token_vm_compile_options_default(&e->options);
  e->options.flow = e->flow;
  e->options.resource_names = example_names;
  e->options.resource_values = example_values;
  e->options.resource_count = 1;
}

static void test_token_vm(weft_device* device, const char* examples, const char* temp) {
  example_workflow e;
  example_workflow_init(&e, examples);
  const char* prompts = e.prompts;
  weft_token_vm_compile_options options = e.options;
  char saved[1024];
  snprintf(saved, sizeof saved, "%s/token_vm_workflow.json", temp);
  weft_token_vm_workflow* workflow = NULL;
  OK(weft_token_vm_compile(prompts, &options, &workflow));
  if (!workflow) return;
  uint32_t vocab = 0;
  OK(weft_token_vm_vocab_size(workflow, &vocab));
  CHECK(vocab == 257);  /* bytes + the pad */
  uint32_t tokens[8];
  uint64_t count = 0, length = 0;
  OK(weft_token_vm_encode(workflow, "hi!", tokens, 8, &count));
  CHECK(count == 3 && tokens[0] == 'h' && tokens[2] == '!');
  char text[64];
  OK(weft_token_vm_decode(workflow, tokens, count, text, sizeof text, &length));
  CHECK(length == 3 && strcmp(text, "hi!") == 0);
  OK(weft_token_vm_decode(workflow, tokens, count, text, 2, &length));  /* truncated, full length reported */
  CHECK(length == 3 && strcmp(text, "h") == 0);
  const uint32_t past_vocabulary[2] = {'h', 1000000000u};  /* decoded to "h" before: an id past the vocabulary */
  FAILS(weft_token_vm_decode(workflow, past_vocabulary, 2, text, sizeof text, &length), WEFT_ERROR_BAD_INPUT,
        "token 1 is id 1000000000, not in the tokenizer's vocabulary of 257 ids");

  /* The device and the CPU reference, same script and tool: identical streams and answers. */
  calc_state device_calc = {0}, reference_calc = {0};
  weft_token_vm_machine* on_device = run_example(device, workflow, &device_calc);
  weft_token_vm_machine* on_reference = run_example(NULL, workflow, &reference_calc);
  if (!on_device || !on_reference) return;
  CHECK(device_calc.calls == 2 && reference_calc.calls == 2);
  uint64_t steps_d = 0, steps_r = 0;
  OK(weft_token_vm_steps_taken(on_device, &steps_d));
  OK(weft_token_vm_steps_taken(on_reference, &steps_r));
  CHECK(steps_d == steps_r && steps_d > 100);
  printf("token VM: 2 streams, %llu steps, device == reference, %d calculator calls each\n", (unsigned long long)steps_d,
         device_calc.calls);
  uint32_t batch = 0, status[2] = {9, 9};
  OK(weft_token_vm_batch(on_device, &batch));
  CHECK(batch == 2);
  OK(weft_token_vm_stream_status(on_device, status));
  CHECK(status[0] == WEFT_TOKEN_VM_DONE && status[1] == WEFT_TOKEN_VM_DONE);
  for (uint32_t b = 0; b < 2; ++b) {
    uint32_t raw_d[4096], raw_r[4096], zones_d[256], zones_r[256];
    uint64_t nd = 0, nr = 0, zd = 0, zr = 0;
    OK(weft_token_vm_raw_stream(on_device, b, raw_d, 4096, &nd));
    OK(weft_token_vm_raw_stream(on_reference, b, raw_r, 4096, &nr));
    CHECK(nd == nr && nd <= 4096 && memcmp(raw_d, raw_r, sizeof raw_d[0] * (size_t)nd) == 0);
    OK(weft_token_vm_decisions(on_device, b, zones_d, 256, &zd));
    OK(weft_token_vm_decisions(on_reference, b, zones_r, 256, &zr));
    CHECK(zd == zr && zd > 5 && memcmp(zones_d, zones_r, sizeof zones_d[0] * (size_t)zd) == 0);
    char answer[256], work[1024], seen[8192];
    OK(weft_token_vm_extract(on_device, b, "answer", answer, sizeof answer, &length));
    CHECK(strcmp(answer, " 395[EOS]") == 0);
    OK(weft_token_vm_extract(on_device, b, "work", work, sizeof work, &length));
    CHECK(strstr(work, "395\n") != NULL);  /* the C calculator's answer, fed back */
    OK(weft_token_vm_generative_sequence(on_device, b, seen, sizeof seen, &length));
    CHECK(strstr(seen, "Solve this problem: What is 17 * 23 + 4?") != NULL);
  }
  /* Save, load, and the loaded workflow gives the same first step. */
  OK(weft_token_vm_save(workflow, saved));
  weft_token_vm_workflow* loaded = NULL;
  OK(weft_token_vm_load(saved, NULL, &loaded));
  weft_token_vm_machine* again = NULL;
  OK(weft_token_vm_machine_create(NULL, loaded, 1, 1, &again));
  weft_token_vm_workflow_release(loaded);  /* the machine keeps it alive */
  uint32_t sampled = 'x', first = 0, first_loaded = 0;
  weft_token_vm_machine* fresh = NULL;
  OK(weft_token_vm_machine_create(NULL, workflow, 1, 1, &fresh));
  OK(weft_token_vm_step(again, &sampled, &first_loaded, NULL));
  OK(weft_token_vm_step(fresh, &sampled, &first, NULL));
  CHECK(first == first_loaded && first == '[');  /* the forced "[Prompt]" starts */
  /* Scripted steps through weft_token_vm_run, and a host-side feed and resolve. */
  uint32_t script[16];
  for (int i = 0; i < 16; ++i) script[i] = 'a';
  OK(weft_token_vm_run(fresh, script, 16));
  OK(weft_token_vm_steps_taken(fresh, &steps_d));
  CHECK(steps_d == 17);
  OK(weft_token_vm_feed(fresh, 0, "queued"));

  /* Errors. */
  weft_token_vm_workflow* bad = NULL;
  char bad_path[1024];
  snprintf(bad_path, sizeof bad_path, "%s/no_such_prompts.toml", temp);
  FAILS(weft_token_vm_compile(bad_path, &options, &bad), WEFT_ERROR_BAD_INPUT, "no_such_prompts.toml");
  CHECK(bad == NULL);
  FAILS(weft_token_vm_compile(NULL, &options, &bad), WEFT_ERROR_INVALID_ARGUMENT, "prompts");
  weft_token_vm_compile_options old = options;
  old.struct_size = 8;
  FAILS(weft_token_vm_compile(prompts, &old, &bad), WEFT_ERROR_INVALID_ARGUMENT, "struct_size");
  FAILS(weft_token_vm_load(prompts, NULL, &bad), WEFT_ERROR_BAD_INPUT, "prompts.toml");
  FAILS(weft_token_vm_set_tool(fresh, "no_such_tool", calculator, &device_calc), WEFT_ERROR_BAD_INPUT, "no_such_tool");
  FAILS(weft_token_vm_feed(fresh, 5, "x"), WEFT_ERROR_BAD_INPUT, "stream 5");
  FAILS(weft_token_vm_extract(on_device, 0, "nothing", text, sizeof text, &length), WEFT_ERROR_BAD_INPUT, "nothing");
  FAILS(weft_token_vm_raw_stream(on_device, 2, NULL, 0, &count), WEFT_ERROR_BAD_INPUT, "stream 2");
  FAILS(weft_token_vm_step(NULL, &sampled, NULL, NULL), WEFT_ERROR_INVALID_ARGUMENT, "machine");
  uint32_t out_of_vocab = 100000;
  FAILS(weft_token_vm_step(fresh, &out_of_vocab, NULL, NULL), WEFT_ERROR_BAD_INPUT, "100000");
  FAILS(weft_token_vm_machine_create(NULL, workflow, 0, 1, &again), WEFT_ERROR_BAD_INPUT, "batch");
  FAILS(weft_token_vm_pending_call(fresh, 3, NULL, NULL, NULL), WEFT_ERROR_BAD_INPUT, "index 3");
  int any = 0;
  OK(weft_token_vm_allowed(fresh, 0, &any, NULL, 0, &count));
  CHECK(any == 1 && count == 0);  /* the example has no `allow` */
  FAILS(weft_token_vm_allowed(fresh, 4, &any, NULL, 0, &count), WEFT_ERROR_BAD_INPUT, "stream 4");

  weft_token_vm_machine_release(again);
  weft_token_vm_machine_release(fresh);
  weft_token_vm_machine_release(on_device);
  weft_token_vm_machine_release(on_reference);
  weft_token_vm_workflow_release(workflow);
  weft_token_vm_workflow_release(NULL);
  weft_token_vm_machine_release(NULL);
}

/* A logit mask (UDPL `allow`) offered to a host sampler: none in the free zone, the digits in the
 * masked one. */
static void test_allowed(const char* temp) {
  char path[1024];
  snprintf(path, sizeof path, "%s/allow.toml", temp);
  FILE* f = fopen(path, "w");
  if (!f) return;
  fputs("[config]\nzone_patterns = [\"[A]\", \"[E]\"]\nvalid_tags = []\ndefault_max_token_length = 4\n"
        "sequences = [\"free\", \"digits\"]\ncontrol_pattern = \"[J]\"\n"
        "[[free]]\ntext = \"q[A]\"\ntags = [[]]\n[[digits]]\ntext = \"n?[A]\"\ntags = [[]]\nallow = [\"0123456789\"]\n", f);
  fclose(f);
  weft_token_vm_workflow* w = NULL;
  OK(weft_token_vm_compile(path, NULL, &w));
  weft_token_vm_machine* m = NULL;
  if (w) OK(weft_token_vm_machine_create(NULL, w, 1, 1, &m));
  if (!m) return;
  int any = 0, steps = 0;
  uint32_t tokens[16];
  uint64_t count = 0;
  OK(weft_token_vm_allowed(m, 0, &any, tokens, 16, &count));
  CHECK(any == 1 && count == 0);
  const char* free_answer = "xx[E]";
  for (const char* c = free_answer; *c; ++c) {
    const uint32_t t = (uint32_t)(unsigned char)*c;
    OK(weft_token_vm_step(m, &t, NULL, NULL));
  }
  OK(weft_token_vm_allowed(m, 0, &any, tokens, 16, &count));
  while (any && steps++ < 32) {  /* through the forced "n?[A]" */
    const uint32_t t = 'x';
    OK(weft_token_vm_step(m, &t, NULL, NULL));
    OK(weft_token_vm_allowed(m, 0, &any, tokens, 16, &count));
  }
  CHECK(any == 0 && count == 10 && tokens[0] == '0' && tokens[9] == '9');
  weft_token_vm_machine_release(m);
  weft_token_vm_workflow_release(w);
}

/* The example workflow steering a GGUF model (the seeded test model, written by `weft attention
 * write-model`) on the device: the C calculator answers between submissions, the run replayed
 * on the CPU references agrees, and pads (waiting, done) took no position of the model's. */
static void test_steered(weft_device* device, const char* examples, const char* model_path) {
  example_workflow e;
  example_workflow_init(&e, examples);
  const char* prompts = e.prompts;
  weft_token_vm_compile_options options = e.options;
  weft_attention_model* model = NULL;
  OK(weft_attention_model_load(model_path, &model));
  if (!model) return;
  weft_token_vm_workflow* workflow = NULL;
  OK(weft_token_vm_compile_for_model(prompts, &options, model, &workflow));
  weft_attention_model_release(model); /* the workflow keeps it */
  if (!workflow) return;
  weft_steered_options steered;
  weft_steered_options_default(&steered);
  CHECK(steered.steps_per_submit == 8 && steered.temperature == 0.0f);
  steered.steps_per_submit = 32;
  weft_attention_model* again = NULL;
  OK(weft_attention_model_load(model_path, &again));
  weft_token_vm_machine* m = NULL;
  OK(weft_steered_machine_create(device, again, workflow, &steered, &m));
  weft_attention_model_release(again);
  if (!m) return;
  calc_state calc = {0};
  OK(weft_token_vm_set_tool(m, "calculator", calculator, &calc));
  uint32_t position = 0, context = 0;
  OK(weft_steered_position(m, &position, &context));
  CHECK(position == 0 && context == 1024);
  int done = 0;
  uint64_t steps = 0;
  while (!done && steps < 640) {
    OK(weft_token_vm_run_source(m, 32));
    OK(weft_token_vm_resolve_callbacks(m, NULL));
    OK(weft_token_vm_done(m, &done));
    OK(weft_token_vm_steps_taken(m, &steps));
  }
  CHECK(steps == 640 || (done && steps % 32 == 0));
  static weft_token_vm_record records[1024];
  uint64_t count = 0, length = 0;
  OK(weft_token_vm_records(m, 0, records, 1024, &count));
  CHECK(count == steps);
  uint32_t consumed = 0, forced = 0, sampled = 0;
  for (uint64_t i = 0; i < count && i < 1024; ++i) {
    consumed += records[i].source < WEFT_TOKEN_VM_SRC_WAIT;
    forced += records[i].source == WEFT_TOKEN_VM_SRC_FORCED;
    sampled += records[i].source == WEFT_TOKEN_VM_SRC_SAMPLED;
  }
  OK(weft_steered_position(m, &position, NULL));
  CHECK(position == consumed && forced > 50 && sampled > 50);
  static char seen[65536];
  OK(weft_token_vm_generative_sequence(m, 0, seen, sizeof seen, &length));
  CHECK(strstr(seen, "[Prompt]") == seen && strstr(seen, "problem:") != NULL); /* (spaces are U+2581 in this vocabulary) */
  int ok = 0;
  char difference[512];
  OK(weft_steered_check(m, &ok, difference, sizeof difference, &length));
  CHECK(ok == 1 && length == 0);
  if (!ok) fprintf(stderr, "steered check: %s\n", difference);
  printf("steered: %llu steps, %u consumed by the model, %d calculator calls, check %s\n", (unsigned long long)steps, consumed,
         calc.calls, ok ? "ok" : "DIFFERENT");

  /* Errors: a machine without a token source, a partial submission, a workflow for bytes. */
  weft_token_vm_machine* plain = NULL;
  OK(weft_token_vm_machine_create(NULL, workflow, 1, 1, &plain));
  FAILS(weft_token_vm_run_source(plain, 1), WEFT_ERROR_BAD_INPUT, "no token source of its own");
  FAILS(weft_steered_check(plain, &ok, NULL, 0, &length), WEFT_ERROR_BAD_INPUT, "not a steered model");
  FAILS(weft_token_vm_run_source(m, 3), WEFT_ERROR_BAD_INPUT, "whole submits of 32 steps");
  weft_token_vm_workflow* bytes = NULL;
  OK(weft_token_vm_compile(prompts, &options, &bytes));
  weft_attention_model* third = NULL;
  OK(weft_attention_model_load(model_path, &third));
  weft_token_vm_machine* wrong = NULL;
  FAILS(weft_steered_machine_create(device, third, bytes, &steered, &wrong), WEFT_ERROR_BAD_INPUT, "weft_steered_machine_create");
  CHECK(wrong == NULL);
  weft_token_vm_compile_options with_tokenizer = options;
  with_tokenizer.tokenizer = "tokenizer.json";
  weft_token_vm_workflow* refused = NULL;
  FAILS(weft_token_vm_compile_for_model(prompts, &with_tokenizer, third, &refused), WEFT_ERROR_BAD_INPUT, "model's own tokenizer");
  FAILS(weft_token_vm_compile_for_model(prompts, &options, NULL, &refused), WEFT_ERROR_INVALID_ARGUMENT, "model");
  FAILS(weft_attention_model_load(prompts, &third), WEFT_ERROR_BAD_INPUT, "prompts.toml");
  weft_attention_model_release(third);
  weft_token_vm_workflow_release(bytes);
  weft_token_vm_machine_release(plain);
  weft_token_vm_machine_release(m);
  weft_token_vm_workflow_release(workflow);
  weft_attention_model_release(NULL);
}

/* A volumetric network from JSON text: the device mesh against the CPU reference, CPU and device
 * training step for step from the same weights, a checkpoint round trip, DNA, refusals. */
static void test_volumetric(weft_device* device, const char* temp) {
  static const char* json =
      "{\"grid\": {\"depth\": 1, \"rows\": 1, \"cols\": 3, \"layers_per_cell\": 1, \"input\": 8, \"seed\": 3, \"dtype\": \"f32\"},"
      " \"layers\": [{\"at\": [0, 0, 0, 0], \"type\": \"dense\", \"in\": 8, \"out\": 8, \"activation\": \"tanh\"},"
      " {\"at\": [0, 0, 1, 0], \"type\": \"rmsnorm\", \"in\": 8},"
      " {\"at\": [0, 0, 2, 0], \"type\": \"dense\", \"in\": 8, \"out\": 2, \"activation\": \"linear\"}]}";
  weft_volumetric_model *cpu_model = NULL, *gpu_model = NULL;
  OK(weft_volumetric_model_from_json(json, &cpu_model));
  OK(weft_volumetric_model_from_json(json, &gpu_model));
  if (!cpu_model || !gpu_model) return;
  uint32_t in = 0, out = 0, cells = 0;
  OK(weft_volumetric_model_sizes(cpu_model, &in, &out, &cells));
  CHECK(in == 8 && out == 2 && cells == 3);
  float x[8], target[2] = {0.5f, -0.25f}, y_ref[2], y_dev[2];
  for (int i = 0; i < 8; ++i) x[i] = 0.1f * (float)(i - 3);
  OK(weft_volumetric_forward(cpu_model, x, 1, 0, y_ref));
  weft_volumetric_mesh* mesh = NULL;
  OK(weft_volumetric_mesh_create(device, gpu_model, 0, 1, &mesh));
  OK(weft_volumetric_mesh_forward(mesh, x, y_dev));
  for (int k = 0; k < 2; ++k) CHECK(fabsf(y_ref[k] - y_dev[k]) <= 1e-5f * (1.0f + fabsf(y_ref[k])));
  /* Training: the same sample, 10 steps each; losses agree step for step and fall. */
  weft_volumetric_trainer *cpu = NULL, *gpu = NULL;
  weft_volumetric_train_options options;
  weft_volumetric_train_options_default(&options);
  CHECK(options.sgd == 0 && options.lr > 0);
  OK(weft_volumetric_trainer_create(NULL, cpu_model, &options, &cpu));
  OK(weft_volumetric_trainer_create(device, gpu_model, &options, &gpu));
  if (!cpu || !gpu) return;
  float first = 0, last = 0;
  for (int step = 0; step < 10; ++step) {
    float lc = -1, lg = -2;
    OK(weft_volumetric_trainer_step(cpu, x, target, &lc));
    OK(weft_volumetric_trainer_step(gpu, x, target, &lg));
    CHECK(fabsf(lc - lg) <= 1e-4f * (1.0f + lc));
    if (step == 0) first = lc;
    last = lc;
  }
  CHECK(last < 0.5f * first);
  /* Cross-entropy on a one-hot target: CPU and device agree on the first step's loss. */
  weft_volumetric_train_options ce = options;
  ce.cross_entropy = 1;
  weft_volumetric_trainer *ce_cpu = NULL, *ce_gpu = NULL;
  weft_volumetric_model* ce_model = NULL;
  OK(weft_volumetric_model_from_json(json, &ce_model));
  OK(weft_volumetric_trainer_create(NULL, ce_model, &ce, &ce_cpu));
  OK(weft_volumetric_trainer_create(device, ce_model, &ce, &ce_gpu));
  const float one_hot[2] = {0.0f, 1.0f};
  float ce_c = -1, ce_g = -2;
  OK(weft_volumetric_trainer_step(ce_gpu, x, one_hot, &ce_g));
  OK(weft_volumetric_trainer_step(ce_cpu, x, one_hot, &ce_c));
  CHECK(ce_c > 0.0f && fabsf(ce_c - ce_g) <= 1e-4f * (1.0f + ce_c));
  FAILS(weft_volumetric_trainer_step(ce_cpu, x, target, NULL), WEFT_ERROR_BAD_INPUT, "target");  /* not a distribution */
  weft_volumetric_trainer_release(ce_cpu);
  weft_volumetric_trainer_release(ce_gpu);
  weft_volumetric_model_release(ce_model);
  OK(weft_volumetric_trainer_download(gpu));
  OK(weft_volumetric_forward(cpu_model, x, 1, 0, y_ref));
  OK(weft_volumetric_forward(gpu_model, x, 1, 0, y_dev));
  for (int k = 0; k < 2; ++k) CHECK(fabsf(y_ref[k] - y_dev[k]) <= 1e-4f);
  printf("volumetric: mesh == reference, 10 training steps CPU == device (loss %.4f -> %.4f)\n", first, last);
  /* A checkpoint reloads the trained weights exactly; DNA of a model with itself is 1. */
  char path[1024];
  snprintf(path, sizeof path, "%s/volumetric.ckpt", temp);
  OK(weft_volumetric_model_save_checkpoint(cpu_model, path));
  weft_volumetric_model* loaded = NULL;
  OK(weft_volumetric_model_load_checkpoint(path, &loaded));
  float y_loaded[2];
  OK(weft_volumetric_forward(loaded, x, 1, 0, y_loaded));
  CHECK(y_loaded[0] == y_ref[0] && y_loaded[1] == y_ref[1]);
  double same = 0, other = 0;
  OK(weft_volumetric_dna_compare(cpu_model, loaded, &same));
  OK(weft_volumetric_model_set_dtype(loaded, "int4"));
  OK(weft_volumetric_dna_compare(cpu_model, loaded, &other));
  CHECK(fabs(same - 1.0) < 1e-6 && other < same); /* cosines summed in float */
  if (!(fabs(same - 1.0) < 1e-6 && other < same)) fprintf(stderr, "dna: same %.12f other %.12f\n", same, other);
  /* Refusals. */
  const float nan_x[8] = {0, 0, 0, NAN, 0, 0, 0, 0};
  FAILS(weft_volumetric_trainer_step(cpu, nan_x, target, NULL), WEFT_ERROR_BAD_INPUT, "training takes finite values");
  FAILS(weft_volumetric_forward(cpu_model, x, 0, 0, y_ref), WEFT_ERROR_BAD_INPUT, "steps is 0");
  FAILS(weft_volumetric_model_set_dtype(loaded, "int3"), WEFT_ERROR_BAD_INPUT, "int3");
  FAILS(weft_volumetric_model_from_json("{\"grid\": 1}", &loaded), WEFT_ERROR_BAD_INPUT, "grid");
  options.lr = -1;
  weft_volumetric_trainer* refused = NULL;
  FAILS(weft_volumetric_trainer_create(NULL, cpu_model, &options, &refused), WEFT_ERROR_BAD_INPUT, "lr must be a positive finite number");
  CHECK(refused == NULL);
  weft_volumetric_trainer_release(cpu);
  weft_volumetric_trainer_release(gpu);
  weft_volumetric_mesh_release(mesh);
  weft_volumetric_model_release(cpu_model);
  weft_volumetric_model_release(gpu_model);
  weft_volumetric_model_release(NULL);
}

int main(int argc, char** argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s EXAMPLES_DIR TEMP_DIR MODEL.gguf\n", argv[0]);
    return 2;
  }
  test_library();
  test_devices();
  weft_device_options options = {sizeof options, NULL, 1};
  weft_device* device = NULL;
  OK(weft_device_open(&options, &device));
  if (!device) return 1;
  weft_device_info info;
  info.struct_size = sizeof info;
  OK(weft_device_info_get(device, &info));
  printf("device: %s (%s, %s), subgroup %u\n", info.name, info.type, info.driver, info.subgroup_size);

  test_buffers(device);
  test_program(device, argv[1], argv[2]);
  test_hypothesis(device);
  test_hypothesis_votes(device);
  test_token_vm(device, argv[1], argv[2]);
  test_allowed(argv[2]);
  test_steered(device, argv[1], argv[3]);
  test_volumetric(device, argv[2]);

  uint32_t messages = 0;
  OK(weft_device_validation_count(device, &messages));
  CHECK(messages == 0);
  weft_device_release(device);
  if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
  else printf("all C ABI checks passed\n");
  return failures ? 1 : 0;
}
