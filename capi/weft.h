/* Weft's C ABI: the stable door for every host language.
 *
 * Rules that hold for every function here:
 * - Every call returns a weft_status. WEFT_OK is 0; on failure weft_last_error() returns the
 *   message (naming what failed and where) for the calling thread until its next failing call.
 * - Handles are opaque and reference-counted. *_release drops the caller's reference; a handle
 *   keeps what it depends on alive (a program keeps its device), so release order is free.
 *   Releasing NULL is a no-op.
 * - Threads: different handles may be used from different threads at once. One handle is used
 *   by one thread at a time (the caller synchronises), except weft_program_metrics and
 *   weft_program_cancel, which may poll or cancel a program while another thread waits on it.
 * - Structs passed in carry their own size in their first field (`struct_size`), so later
 *   versions can grow them without breaking callers built against this one.
 * - No C++ type, exception or allocation crosses this boundary. */
#ifndef WEFT_C_H_
#define WEFT_C_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define WEFT_API __attribute__((visibility("default")))
#else
#define WEFT_API
#endif

#define WEFT_ABI_VERSION 2

typedef enum weft_status {
  WEFT_OK = 0,
  WEFT_ERROR_NO_DEVICE = 1,
  WEFT_ERROR_MISSING_FEATURE = 2,
  WEFT_ERROR_OUT_OF_MEMORY = 3,
  WEFT_ERROR_INVALID_PROGRAM = 4,
  WEFT_ERROR_REGISTER_WINDOW_OVERFLOW = 5,
  WEFT_ERROR_SEGMENT_OUT_OF_RANGE = 6,
  WEFT_ERROR_UNDECLARED_BINDING = 7,
  WEFT_ERROR_SHADER_COMPILE = 8,
  WEFT_ERROR_BAD_INPUT = 9,
  WEFT_ERROR_DEVICE_LOST = 10,
  WEFT_ERROR_TIMEOUT = 11,
  WEFT_ERROR_VULKAN = 12,
  WEFT_ERROR_INVALID_ARGUMENT = 13, /* a NULL handle or pointer, a struct_size this library does not know */
  WEFT_ERROR_INTERNAL = 14,         /* anything else; a bug: please report the message */
  WEFT_ERROR_CANCELLED = 15         /* the run was cancelled (weft_program_cancel) before it ended: results void */
} weft_status;

/* ---- library ---- */
WEFT_API uint32_t weft_abi_version(void);     /* WEFT_ABI_VERSION of the library loaded */
WEFT_API const char* weft_version(void);      /* "0.1.0" */
WEFT_API const char* weft_status_name(weft_status status); /* "WEFT_ERROR_BAD_INPUT" */
WEFT_API const char* weft_last_error(void);   /* this thread's last failure message, "" if none */

/* ---- devices ---- */
typedef struct weft_device weft_device;

typedef struct weft_device_info {
  uint32_t struct_size;
  uint32_t index;
  char name[256];
  char type[16];      /* "discrete", "integrated", "virtual", "cpu", "other" */
  char driver[128];
  char api_version[32];
  uint32_t vendor_id, device_id;
  uint32_t subgroup_size;
  uint64_t max_storage_buffer_range;
  uint64_t device_local_bytes;
  double timestamp_period_ns;
  int usable;         /* 0: the device cannot run Weft; see unusable_reason */
  char unusable_reason[256];
} weft_device_info;

typedef struct weft_device_options {
  uint32_t struct_size;
  const char* select; /* NULL or "": WEFT_DEVICE, else the best device; an index or a name part */
  int validation;     /* nonzero: Khronos validation layer on, messages recorded */
} weft_device_options;

WEFT_API weft_status weft_device_count(uint32_t* count);
WEFT_API weft_status weft_device_describe(uint32_t index, weft_device_info* info);
WEFT_API weft_status weft_device_open(const weft_device_options* options, weft_device** device);
WEFT_API weft_status weft_device_info_get(const weft_device* device, weft_device_info* info);
/* Validation messages recorded so far (0 without validation). */
WEFT_API weft_status weft_device_validation_count(const weft_device* device, uint32_t* count);
WEFT_API void weft_device_retain(weft_device* device);
WEFT_API void weft_device_release(weft_device* device);

/* ---- buffers: device memory the host uploads to and downloads from ---- */
typedef struct weft_buffer weft_buffer;
WEFT_API weft_status weft_buffer_create(weft_device* device, uint64_t bytes, weft_buffer** buffer);
WEFT_API weft_status weft_buffer_size(const weft_buffer* buffer, uint64_t* bytes);
WEFT_API weft_status weft_buffer_upload(weft_buffer* buffer, uint64_t offset, const void* data, uint64_t bytes);
WEFT_API weft_status weft_buffer_download(weft_buffer* buffer, uint64_t offset, void* data, uint64_t bytes);
WEFT_API void weft_buffer_release(weft_buffer* buffer);

/* ---- programs: a manifest (docs/manifest.md) recorded once into one command buffer ---- */
typedef struct weft_program weft_program;

typedef enum weft_binding {
  WEFT_BIND_REGISTERS = 0,
  WEFT_BIND_METRICS = 1,
  WEFT_BIND_GLOBALS = 2,
  WEFT_BIND_CONTROL = 3,
  WEFT_BIND_HEAP = 4
} weft_binding;

typedef struct weft_metrics { /* one instance's Metrics record (bindings_layout/weft_layout.h) */
  float norm, max_abs;
  uint32_t ticks_lo, ticks_hi, status, sequence;
  uint32_t counters[10];
} weft_metrics;

/* Loads, compiles and records; the segments start from the manifest's inputs. */
WEFT_API weft_status weft_program_from_manifest(weft_device* device, const char* path, weft_program** program);
/* Same, from manifest text; relative paths resolve against base_dir. */
WEFT_API weft_status weft_program_from_manifest_text(weft_device* device, const char* text, const char* base_dir,
                                                     weft_program** program);
WEFT_API weft_status weft_program_submit(weft_program* program, uint64_t* ticket); /* non-blocking */
/* WEFT_ERROR_TIMEOUT when timeout_ns passes first (the run goes on); UINT64_MAX waits forever. */
WEFT_API weft_status weft_program_wait(weft_program* program, uint64_t ticket, uint64_t timeout_ns);
WEFT_API weft_status weft_program_run(weft_program* program); /* submit + wait */
/* Cancels the runs in flight (their workgroups return as they start; a wait on them is then
 * WEFT_ERROR_CANCELLED); the next submit runs normally. Callable from any thread, also while
 * another thread waits on the program. */
WEFT_API weft_status weft_program_cancel(weft_program* program);
/* Named segments of Heap or Globals; bytes + offset must lie inside the segment. */
WEFT_API weft_status weft_program_segment_size(weft_program* program, weft_binding binding, const char* segment,
                                               uint64_t* bytes);
WEFT_API weft_status weft_program_write_segment(weft_program* program, weft_binding binding, const char* segment,
                                                uint64_t offset, const void* data, uint64_t bytes);
WEFT_API weft_status weft_program_read_segment(weft_program* program, weft_binding binding, const char* segment,
                                               uint64_t offset, void* data, uint64_t bytes);
WEFT_API weft_status weft_program_instance_count(const weft_program* program, uint32_t* count);
/* The instance's index by its manifest name. */
WEFT_API weft_status weft_program_instance(const weft_program* program, const char* name, uint32_t* instance);
/* Polls without waiting: values may be mid-run. */
WEFT_API weft_status weft_program_metrics(weft_program* program, uint32_t instance, weft_metrics* metrics);
/* A control word by manifest name and element ("gain", 0); sets the value every run starts from. */
WEFT_API weft_status weft_program_control_get(weft_program* program, const char* name, uint32_t element, uint32_t* value);
WEFT_API weft_status weft_program_control_set(weft_program* program, const char* name, uint32_t element, uint32_t value);
/* GPU time of the last completed run, in nanoseconds (0 when the device has no timestamps). */
WEFT_API weft_status weft_program_gpu_time_ns(weft_program* program, double* total_ns);
/* Writes the manifest's declared outputs as .npy files into dir, from the last run. */
WEFT_API weft_status weft_program_write_outputs(weft_program* program, const char* dir);
WEFT_API void weft_program_release(weft_program* program);

/* ---- hypothesis update (Monty's evidence updates; workloads/hypothesis_update) ---- */
typedef struct weft_hypothesis_update_backend weft_hypothesis_update_backend;

typedef enum weft_hypothesis_update_updater { WEFT_HYPOTHESIS_UPDATE_DEFAULT = 0, WEFT_HYPOTHESIS_UPDATE_BURST_SAMPLING = 1 } weft_hypothesis_update_updater;

typedef struct weft_hypothesis_update_feature {
  const char* name;
  uint32_t width;            /* columns */
  const double* tolerances;  /* width values, > 0 */
  const double* weights;     /* width values, >= 0 */
  int first_column_circular; /* hue wraps at 1 */
} weft_hypothesis_update_feature;

typedef struct weft_hypothesis_update_config { /* fill with weft_hypothesis_update_config_default, then change fields */
  uint32_t struct_size;
  weft_hypothesis_update_updater updater;
  const char* threshold;     /* Monty's evidence_threshold_config: "80%", "mean", "median", "all", ... */
  double x_percent_threshold, max_match_distance;
  int max_nneighbors;        /* K, 1..16 */
  double past_weight, present_weight, feature_evidence_increment, sn_weight, cd_weight;
  int umbilical_num_poses;
  const weft_hypothesis_update_feature* features;
  uint32_t feature_count;
  int curvature_feature;     /* index into features, -1: none */
  double burst_sampling_multiplier, burst_deletion_trigger_slope, burst_trigger_slope;
  int burst_duration, burst_slope_window, burst_slope_min_age;
  int max_channels;
} weft_hypothesis_update_config;

typedef struct weft_hypothesis_update_channel {
  double pose_vectors[9];    /* sn, cd1, cd2 as rows */
  int pose_fully_defined;
  const double* features;    /* the config's feature widths, concatenated */
  uint32_t feature_count;
} weft_hypothesis_update_channel;

typedef struct weft_hypothesis_update_input {
  int lm;
  int has_displacement;      /* 0 on an LM's first step */
  double displacement[3];
  const weft_hypothesis_update_channel* channels;
  uint32_t channel_count;
} weft_hypothesis_update_input;

typedef struct weft_hypothesis_update_step_info {
  double threshold, prediction_error; /* prediction_error is NaN when nothing was tested */
  uint64_t tested;
  int updated;
} weft_hypothesis_update_step_info;

WEFT_API void weft_hypothesis_update_config_default(weft_hypothesis_update_config* config);
/* threads = 0: one per hardware thread. */
WEFT_API weft_status weft_hypothesis_update_backend_cpu(uint32_t threads, weft_hypothesis_update_backend** backend);
WEFT_API weft_status weft_hypothesis_update_backend_vulkan(weft_device* device, weft_hypothesis_update_backend** backend);
/* pos: nodes x 3; x: nodes x columns (spec §2 layout), feature_width of them non-pose features. */
WEFT_API weft_status weft_hypothesis_update_add_graph(weft_hypothesis_update_backend* backend, const char* name, const double* pos, uint64_t nodes,
                                        const double* x, uint64_t columns, uint64_t feature_width, int* graph);
WEFT_API weft_status weft_hypothesis_update_add_learning_module(weft_hypothesis_update_backend* backend, const weft_hypothesis_update_config* config,
                                                  const int* graphs, uint32_t graph_count, int* lm);
WEFT_API weft_status weft_hypothesis_update_reset_episode(weft_hypothesis_update_backend* backend);
/* LM groups: group g holds lms[first .. first + sizes[g]) (first = the sizes before it). On the
   Vulkan backend each group is a program and a submission of its own; wait joins them. Results
   never depend on the grouping. Set-up like add_learning_module (before an episode's first step,
   or after reset_episode). */
WEFT_API weft_status weft_hypothesis_update_set_groups(weft_hypothesis_update_backend* backend, const int* lms,
                                                        const uint32_t* sizes, uint32_t group_count);
/* Monty's votes between LMs after each step: LM i hears senders[first .. first + sender_counts[i])
   (Monty's lm_to_lm_vote_matrix), for each of the lm_count LMs (lm_count 0 turns voting off).
   vote_evidence_threshold: Monty's 0.8 by default; vote_weight: 1. On the Vulkan backend the vote
   runs in the same submission as the update; a receiver and its senders must share a group. */
WEFT_API weft_status weft_hypothesis_update_set_votes(weft_hypothesis_update_backend* backend, const int* senders,
                                                       const uint32_t* sender_counts, uint32_t lm_count,
                                                       double vote_evidence_threshold, double vote_weight);
WEFT_API weft_status weft_hypothesis_update_dispatch(weft_hypothesis_update_backend* backend, const weft_hypothesis_update_input* inputs, uint32_t count);
/* dispatch with each input's sensed location (count x 3, not NULL: the sensor's location in the body frame),
   which an LM that votes or is voted for (set_votes) needs. */
WEFT_API weft_status weft_hypothesis_update_dispatch_located(weft_hypothesis_update_backend* backend,
                                                              const weft_hypothesis_update_input* inputs,
                                                              const double* sensed_locations, uint32_t count);
WEFT_API weft_status weft_hypothesis_update_wait(weft_hypothesis_update_backend* backend);
WEFT_API weft_status weft_hypothesis_update_count(const weft_hypothesis_update_backend* backend, int lm, int graph, uint64_t* hypotheses);
/* Copies up to `capacity` hypotheses; any output pointer may be NULL. evidence: H, locations: H x 3,
 * rotations: H x 9, possible: H. WEFT_ERROR_BAD_INPUT when capacity < the count. */
WEFT_API weft_status weft_hypothesis_update_read(const weft_hypothesis_update_backend* backend, int lm, int graph, uint64_t capacity,
                                   double* evidence, double* locations, double* rotations, uint8_t* possible);
WEFT_API weft_status weft_hypothesis_update_step_info_get(const weft_hypothesis_update_backend* backend, int lm, int graph, weft_hypothesis_update_step_info* info);
WEFT_API weft_status weft_hypothesis_update_most_likely(const weft_hypothesis_update_backend* backend, int lm, int* graph, int64_t* hypothesis,
                                          double* evidence);
WEFT_API void weft_hypothesis_update_backend_release(weft_hypothesis_update_backend* backend);

/* ---- the token VM (workloads/token_vm): UDPL prompts -> a compiled workflow -> a batch of
 * streams stepped once per generated token, on the device or on the CPU reference ---- */
typedef struct weft_token_vm_workflow weft_token_vm_workflow; /* a compiled workflow and its tokenizer */
typedef struct weft_token_vm_machine weft_token_vm_machine;   /* B streams running one workflow */
typedef struct weft_token_vm_answer weft_token_vm_answer;     /* where a tool callback puts its answer */

typedef enum weft_token_vm_stream_state { WEFT_TOKEN_VM_RUNNING = 0, WEFT_TOKEN_VM_WAIT_TOOL = 1, WEFT_TOKEN_VM_DONE = 2 } weft_token_vm_stream_state;

typedef struct weft_token_vm_compile_options { /* fill with weft_token_vm_compile_options_default */
  uint32_t struct_size;
  const char* flow;                    /* flow TOML; NULL: the sequences in the file's order */
  const char* tokenizer;               /* Hugging Face tokenizer.json (byte-level BPE); NULL: bytes */
  const char* const* resource_names;   /* placeholder resources NAME -> VALUE */
  const char* const* resource_values;
  uint32_t resource_count;
  int byte_matching;                   /* match zone patterns on bytes instead of token ids */
} weft_token_vm_compile_options;

WEFT_API void weft_token_vm_compile_options_default(weft_token_vm_compile_options* options);
/* prompts: a UDPL .toml file or a folder of them. Lint failures: WEFT_ERROR_BAD_INPUT naming
 * file, sequence, block and field. options may be NULL. */
WEFT_API weft_status weft_token_vm_compile(const char* prompts, const weft_token_vm_compile_options* options,
                                      weft_token_vm_workflow** workflow);
/* A workflow saved by weft_token_vm_save (or `weft token-vm compile --out`); tokenizer NULL: bytes. */
WEFT_API weft_status weft_token_vm_load(const char* workflow_json, const char* tokenizer, weft_token_vm_workflow** workflow);
WEFT_API weft_status weft_token_vm_save(const weft_token_vm_workflow* workflow, const char* path);
WEFT_API weft_status weft_token_vm_vocab_size(const weft_token_vm_workflow* workflow, uint32_t* size);
/* Strings and arrays come back snprintf-style: up to capacity is copied (strings NUL-terminated
 * when capacity > 0) and *length / *count is always the full size, so capacity 0 asks for it. */
WEFT_API weft_status weft_token_vm_encode(const weft_token_vm_workflow* workflow, const char* text, uint32_t* tokens,
                                     uint64_t capacity, uint64_t* count);
WEFT_API weft_status weft_token_vm_decode(const weft_token_vm_workflow* workflow, const uint32_t* tokens, uint64_t count,
                                     char* text, uint64_t capacity, uint64_t* length);
WEFT_API void weft_token_vm_workflow_retain(weft_token_vm_workflow* workflow);
WEFT_API void weft_token_vm_workflow_release(weft_token_vm_workflow* workflow);

/* device NULL: the CPU reference (bit-identical results). The machine keeps the workflow and
 * the device alive. steps_per_submit: how many steps weft_token_vm_run records per submission. */
WEFT_API weft_status weft_token_vm_machine_create(weft_device* device, weft_token_vm_workflow* workflow, uint32_t batch,
                                             uint32_t steps_per_submit, weft_token_vm_machine** machine);
WEFT_API weft_status weft_token_vm_batch(const weft_token_vm_machine* machine, uint32_t* batch);
/* A tool: gets the text the model generated in the capture zone, answers through
 * weft_token_vm_answer_set (copied; the callback keeps ownership of its strings). Runs on the thread
 * that calls weft_token_vm_resolve_callbacks. A status other than WEFT_OK fails that call. */
typedef weft_status (*weft_token_vm_tool)(void* user, const char* captured, uint64_t length, weft_token_vm_answer* answer);
WEFT_API weft_status weft_token_vm_answer_set(weft_token_vm_answer* answer, const char* text, uint64_t length);
/* name: one of the workflow's tools (WEFT_ERROR_BAD_INPUT otherwise). */
WEFT_API weft_status weft_token_vm_set_tool(weft_token_vm_machine* machine, const char* name, weft_token_vm_tool tool, void* user);
/* One step: sampled[batch] (the model's tokens) -> tokens[batch] the model must consume, and
 * their tag bits; tokens and tags may be NULL. */
WEFT_API weft_status weft_token_vm_step(weft_token_vm_machine* machine, const uint32_t* sampled, uint32_t* tokens, uint32_t* tags);
/* steps steps of scripted tokens sampled[steps][batch], steps_per_submit per submission. */
WEFT_API weft_status weft_token_vm_run(weft_token_vm_machine* machine, const uint32_t* sampled, uint32_t steps);
WEFT_API weft_status weft_token_vm_done(const weft_token_vm_machine* machine, int* done);
WEFT_API weft_status weft_token_vm_callbacks_ready(const weft_token_vm_machine* machine, int* ready);
WEFT_API weft_status weft_token_vm_pending_count(const weft_token_vm_machine* machine, uint32_t* count);
/* Call index of the pending list; tool/text point into the machine, valid until it changes. */
WEFT_API weft_status weft_token_vm_pending_call(weft_token_vm_machine* machine, uint32_t index, uint32_t* stream,
                                           const char** tool, const char** text);
/* Every pending call through its registered tool; the answers feed the streams' next zones.
 * resolved (how many were answered) may be NULL. */
WEFT_API weft_status weft_token_vm_resolve_callbacks(weft_token_vm_machine* machine, uint64_t* resolved);
/* The stream's oldest pending call answered by the host directly. */
WEFT_API weft_status weft_token_vm_resolve(weft_token_vm_machine* machine, uint32_t stream, const char* answer);
WEFT_API weft_status weft_token_vm_feed(weft_token_vm_machine* machine, uint32_t stream, const char* text);
/* name: one of the workflow's extractions; "" until the stream has produced it. */
WEFT_API weft_status weft_token_vm_extract(const weft_token_vm_machine* machine, uint32_t stream, const char* name, char* text,
                                      uint64_t capacity, uint64_t* length);
/* What the model saw (decoded, pads left out). */
WEFT_API weft_status weft_token_vm_generative_sequence(const weft_token_vm_machine* machine, uint32_t stream, char* text,
                                                  uint64_t capacity, uint64_t* length);
WEFT_API weft_status weft_token_vm_decisions(const weft_token_vm_machine* machine, uint32_t stream, uint32_t* zones,
                                        uint64_t capacity, uint64_t* count);
WEFT_API weft_status weft_token_vm_raw_stream(const weft_token_vm_machine* machine, uint32_t stream, uint32_t* tokens,
                                         uint64_t capacity, uint64_t* count);
/* Where a step's token came from. */
typedef enum weft_token_vm_source {
  WEFT_TOKEN_VM_SRC_FORCED = 0, WEFT_TOKEN_VM_SRC_FEED = 1, WEFT_TOKEN_VM_SRC_SAMPLED = 2, WEFT_TOKEN_VM_SRC_TIMEOUT = 3,
  WEFT_TOKEN_VM_SRC_WAIT = 4, /* pad: waiting for a feed or a tool answer */
  WEFT_TOKEN_VM_SRC_DONE = 5  /* pad: the stream is done */
} weft_token_vm_source;
typedef struct weft_token_vm_record { /* one step of one stream */
  uint32_t token, tags, zone, token_in_zone, source; /* source: weft_token_vm_source */
} weft_token_vm_record;
/* The per-step records of a stream, aligned with weft_token_vm_raw_stream (snprintf-style count). */
WEFT_API weft_status weft_token_vm_records(const weft_token_vm_machine* machine, uint32_t stream, weft_token_vm_record* records,
                                      uint64_t capacity, uint64_t* count);
/* The tokens a host sampler may draw for the stream's next step: its zone's logit mask (UDPL
 * `allow`), ascending, snprintf-style; *any 1 (and *count 0) when the zone has none. */
WEFT_API weft_status weft_token_vm_allowed(const weft_token_vm_machine* machine, uint32_t stream, int* any, uint32_t* tokens,
                                      uint64_t capacity, uint64_t* count);
/* status[batch]: weft_token_vm_stream_state per stream after the last step. */
WEFT_API weft_status weft_token_vm_stream_status(const weft_token_vm_machine* machine, uint32_t* status);
WEFT_API weft_status weft_token_vm_steps_taken(const weft_token_vm_machine* machine, uint64_t* steps);
WEFT_API void weft_token_vm_machine_release(weft_token_vm_machine* machine);

/* ---- steered generation: a GGUF model driven by a token VM workflow on the device ----------
 * The model (one stream, from its BOS token) and the token VM run in one recorded program,
 * steps_per_submit steps per submission with no host round trip per token; the machine is a
 * weft_token_vm_machine (tools, extractions, records as above), stepped with
 * weft_token_vm_run_source. */
typedef struct weft_attention_model weft_attention_model; /* a GGUF model, weights mapped, its own tokenizer */
/* Anything Weft does not run (architecture, weight type, malformed file): WEFT_ERROR_BAD_INPUT naming it. */
WEFT_API weft_status weft_attention_model_load(const char* path, weft_attention_model** model);
WEFT_API void weft_attention_model_release(weft_attention_model* model);
/* weft_token_vm_compile with the model's own tokenizer (options->tokenizer must be NULL); the
 * workflow keeps the model alive. */
WEFT_API weft_status weft_token_vm_compile_for_model(const char* prompts, const weft_token_vm_compile_options* options,
                                                weft_attention_model* model, weft_token_vm_workflow** workflow);
typedef struct weft_steered_options { /* fill with weft_steered_options_default, then change fields */
  uint32_t struct_size;
  uint32_t steps_per_submit; /* steps per submission (default 8) */
  float temperature;         /* the model's sampler: 0 greedy */
  uint32_t top_k;            /* 0: the whole vocabulary; at most 64 */
  uint32_t seed;
  uint32_t context;          /* KV-cache positions; 0: min(the model's, 2048) */
} weft_steered_options;
WEFT_API void weft_steered_options_default(weft_steered_options* options);
/* workflow: compiled for this model (weft_token_vm_compile_for_model, or loaded and checked
 * against its tokenizer); WEFT_ERROR_BAD_INPUT otherwise. The machine keeps the device, model and
 * workflow alive. */
WEFT_API weft_status weft_steered_machine_create(weft_device* device, weft_attention_model* model, weft_token_vm_workflow* workflow,
                                            const weft_steered_options* options, weft_token_vm_machine** machine);
/* steps whose tokens the machine's own source draws: for a steered machine whole submissions
 * (a multiple of steps_per_submit), WEFT_ERROR_BAD_INPUT when the next would pass the context;
 * a machine without a source of its own: WEFT_ERROR_BAD_INPUT. */
WEFT_API weft_status weft_token_vm_run_source(weft_token_vm_machine* machine, uint32_t steps);
/* The position the model's next step consumes (one per emitted token that was not a pad) and
 * the context; either may be NULL. */
WEFT_API weft_status weft_steered_position(weft_token_vm_machine* machine, uint32_t* position, uint32_t* context);
/* The run so far replayed on the CPU references (the tools are called again): *ok 1 when every
 * token VM record and every model pick away from a greedy tie agree, else the first difference
 * (snprintf-style). */
WEFT_API weft_status weft_steered_check(weft_token_vm_machine* machine, int* ok, char* difference, uint64_t capacity,
                                   uint64_t* length);

/* ---- volumetric networks (docs/volumetric.md) -------------------------------------------------
 * A grid of layers in 21 numeric types: its CPU reference, the device step mesh, CPU and device
 * training, DNA comparison. x, y and target point to the model's input_size / output_size floats
 * (weft_volumetric_model_sizes). Meshes and trainers share their model: the CPU trainer steps its
 * weights in place, weft_volumetric_trainer_download puts a device trainer's into it; calls on
 * one model (and what was made from it) must not run concurrently. */
typedef struct weft_volumetric_model weft_volumetric_model;
typedef struct weft_volumetric_mesh weft_volumetric_mesh;
typedef struct weft_volumetric_trainer weft_volumetric_trainer;
/* A model file (JSON), model text, or a checkpoint (weights included); WEFT_ERROR_BAD_INPUT naming
 * the field for anything malformed or unsupported. */
WEFT_API weft_status weft_volumetric_model_load(const char* path, weft_volumetric_model** model);
WEFT_API weft_status weft_volumetric_model_from_json(const char* text, weft_volumetric_model** model);
WEFT_API weft_status weft_volumetric_model_load_checkpoint(const char* path, weft_volumetric_model** model);
WEFT_API weft_status weft_volumetric_model_save_checkpoint(weft_volumetric_model* model, const char* path);
/* Any of the outputs may be NULL. */
WEFT_API weft_status weft_volumetric_model_sizes(const weft_volumetric_model* model, uint32_t* input_size, uint32_t* output_size,
                                            uint32_t* cells);
/* Every layer in one numeric type ("f32", "int8", "fp4", ...: docs/volumetric.md). */
WEFT_API weft_status weft_volumetric_model_set_dtype(weft_volumetric_model* model, const char* dtype);
/* The CPU reference: steps (1..1024) forward passes (tick_schedule 0) or step-mesh ticks (1)
 * from the zero state; y: the last cell's output. */
WEFT_API weft_status weft_volumetric_forward(weft_volumetric_model* model, const float* x, uint32_t steps, int tick_schedule, float* y);
WEFT_API void weft_volumetric_model_release(weft_volumetric_model* model);
/* The grid on a device, its weights packed as they are now; steps (1..1024) passes or ticks per
 * forward. The mesh keeps the device and model alive. */
WEFT_API weft_status weft_volumetric_mesh_create(weft_device* device, weft_volumetric_model* model, int tick_schedule, uint32_t steps,
                                            weft_volumetric_mesh** mesh);
/* One submission from the mesh's current state; y: the last cell's output. */
WEFT_API weft_status weft_volumetric_mesh_forward(weft_volumetric_mesh* mesh, const float* x, float* y);
WEFT_API void weft_volumetric_mesh_release(weft_volumetric_mesh* mesh);
typedef struct weft_volumetric_train_options { /* fill with weft_volumetric_train_options_default */
  uint32_t struct_size;
  int sgd;                  /* 0: Adam (default), 1: SGD */
  float lr, beta1, beta2, eps;
  int cross_entropy;        /* 0: mean squared error (default), 1: softmax cross-entropy (a target is a
                               one-hot vector or a distribution over the outputs) */
} weft_volumetric_train_options;
WEFT_API void weft_volumetric_train_options_default(weft_volumetric_train_options* options);
/* device NULL: the CPU trainer; else device training. MSE or cross-entropy on the last cell, one
 * sample per step, straight-through in each layer's type. options may be NULL (the defaults). */
WEFT_API weft_status weft_volumetric_trainer_create(weft_device* device, weft_volumetric_model* model,
                                               const weft_volumetric_train_options* options, weft_volumetric_trainer** trainer);
/* One step; loss (before the step) may be NULL. A value that is not finite: WEFT_ERROR_BAD_INPUT,
 * nothing trained. */
WEFT_API weft_status weft_volumetric_trainer_step(weft_volumetric_trainer* trainer, const float* x, const float* target, float* loss);
/* A device trainer's parameters into the model (a CPU trainer's are there already). */
WEFT_API weft_status weft_volumetric_trainer_download(weft_volumetric_trainer* trainer);
WEFT_API void weft_volumetric_trainer_release(weft_volumetric_trainer* trainer);
/* DNA similarity of two models (docs/volumetric.md), 0..1. */
WEFT_API weft_status weft_volumetric_dna_compare(const weft_volumetric_model* a, const weft_volumetric_model* b, double* overall);

#ifdef __cplusplus
}
#endif
#endif /* WEFT_C_H_ */
