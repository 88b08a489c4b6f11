/* Weft's fixed machine layout: the one header that C++ and GLSL both include.
 *
 * Everything a kernel and the host must agree on lives here: binding numbers, the Metrics
 * record, the Control header / per-instance record / indirect slot / regulator rule, status
 * codes and the 128-byte push-constant block. Every field is a 32-bit scalar so that std430
 * (GLSL) and the C++ layout coincide; the C++ half static_asserts every size and offset and
 * tests/test_bindings.cpp checks the GLSL half on a device.
 *
 * Integers stay integers: no index, count or id is ever stored in a float field.
 *
 * Far segments: data beyond one binding window and one allocation
 * -----------------------------------------------------------------
 * A descriptor covers at most maxStorageBufferRange bytes (128 MiB on lavapipe) of one
 * allocation (at most maxMemoryAllocationSize). So each of the five buffers must fit its window,
 * and a Heap or Globals segment that may be larger is declared far (SegmentLayout::add_far): it
 * gets its own allocations, split in chunks of a power-of-two number of whole records, and
 * kernels reach it through the far helpers of shaders/weft.glsl with buffer device addresses
 * (uvec2, so no 64-bit integer support is needed). The engine writes one WeftFarSegment record
 * per far segment into Control, after the program's own words; the header's heap_far_table /
 * globals_far_table give the Control word of an array holding, per far segment of that binding,
 * the word of its record. A far argument (WEFT_FAR_IN/OUT/INOUT) pushes the segment's index in
 * its binding. Far access needs bufferDeviceAddress (core in Vulkan 1.2, required in 1.3); a
 * program with far arguments on a device without it fails with MissingFeature when it is built.
 */
#ifndef WEFT_LAYOUT_H
#define WEFT_LAYOUT_H

/* ---- descriptor set 0 ------------------------------------------------------------------ */
#define WEFT_BINDING_REGISTERS 0
#define WEFT_BINDING_METRICS   1
#define WEFT_BINDING_GLOBALS   2
#define WEFT_BINDING_CONTROL   3
#define WEFT_BINDING_HEAP      4
#define WEFT_BINDING_COUNT     5

/* ---- registers ------------------------------------------------------------------------- */
#define WEFT_REGISTERS_PER_INSTANCE 32
#define WEFT_R_OUTBOX 30
#define WEFT_R_INBOX  31
#define WEFT_NONE 0xFFFFFFFFu
#define WEFT_REF_FAR 0x80000000u  /* a segment reference (WEFT_REF_* argument) naming a far segment */

/* ---- message status (Metrics.status) ---------------------------------------------------- */
#define WEFT_STATUS_OK             0u
#define WEFT_STATUS_ANOMALY        1u
#define WEFT_STATUS_ATTENTION      2u
#define WEFT_STATUS_HALTED         3u
#define WEFT_STATUS_WORKLOAD_FIRST 16u

/* ---- Metrics record: one per instance, 16 words ---------------------------------------- */
#define WEFT_METRICS_COUNTERS 10
/* Word index of each field inside a record: the regulator names its source with these. */
#define WEFT_METRIC_NORM     0u
#define WEFT_METRIC_MAX_ABS  1u
#define WEFT_METRIC_TICKS_LO 2u
#define WEFT_METRIC_TICKS_HI 3u
#define WEFT_METRIC_STATUS   4u
#define WEFT_METRIC_SEQUENCE 5u
#define WEFT_METRIC_COUNTER0 6u
#define WEFT_METRICS_WORDS   16u

/* ---- Control buffer ------------------------------------------------------------------- *
 * [header 16 words] then, in the order a program creates them, instance records (8 words),
 * indirect slots (4 words, 16-byte aligned), blocks of regulator rules (16 words each) and free
 * control words. Allocation is append-only, so a word index never moves once handed out; a
 * stage finds its instance record through WeftPushHeader.control. */
#define WEFT_CONTROL_HEADER_WORDS   16u
#define WEFT_CONTROL_LOOP_CUT_WORD  9u  /* WeftControlHeader.loop_cut */
#define WEFT_INSTANCE_CONTROL_WORDS 8u
#define WEFT_INDIRECT_SLOT_WORDS    4u
#define WEFT_RULE_WORDS             16u
#define WEFT_FAR_SEGMENT_WORDS      8u

/* Per-instance control flags (WeftInstanceControl.flags). */
#define WEFT_INSTANCE_ENABLED 1u

/* ---- push constants -------------------------------------------------------------------- */
#define WEFT_PUSH_BYTES        128
#define WEFT_PUSH_HEADER_WORDS 12
#define WEFT_PUSH_ARG_WORDS    20  /* typed stage arguments (weft_args.h), one word each */
/* WeftPushHeader.flags */
#define WEFT_PUSH_HONOUR_HALT 1u

/* ---- regulator rule encoding (see engine/regulator.h) --------------------------------- */
#define WEFT_SOURCE_F32 0u
#define WEFT_SOURCE_U32 1u

#define WEFT_CMP_LESS     0u
#define WEFT_CMP_GREATER  1u
#define WEFT_CMP_OUTSIDE  2u
#define WEFT_CMP_EQ_ZERO  3u
#define WEFT_CMP_NE_ZERO  4u
#define WEFT_CMP_ALWAYS   5u

#define WEFT_ACTION_SET_WORD   0u
#define WEFT_ACTION_SCALE_WORD 1u
#define WEFT_ACTION_CLAMP_WORD 2u
#define WEFT_ACTION_SET_SLOT   3u
#define WEFT_ACTION_ZERO_SLOTS 4u
#define WEFT_ACTION_HALT       5u
#define WEFT_ACTION_SET_STATUS 6u

#ifdef __cplusplus
#include <cstddef>
#include <cstdint>
#define WEFT_LAYOUT_BEGIN namespace weft::abi { using uint = std::uint32_t;
#define WEFT_LAYOUT_END }
#else
#define WEFT_LAYOUT_BEGIN
#define WEFT_LAYOUT_END
#endif

WEFT_LAYOUT_BEGIN

/* The message metadata of one instance plus free counters. ticks = device ticks of the stage
 * that wrote it (shader clock where the device has one, else 0). sequence counts writes, so a
 * loop's iteration count can be read without the host stepping it. */
struct WeftMetrics {
  float norm;
  float max_abs;
  uint ticks_lo;
  uint ticks_hi;
  uint status;
  uint sequence;
  uint counters[WEFT_METRICS_COUNTERS];
};

struct WeftControlHeader {
  uint halt;              /* nonzero: stages flagged WEFT_PUSH_HONOUR_HALT return at once */
  uint halt_rule;         /* word index of the rule that raised halt + 1; 0: none, or the host */
  uint step;              /* free for programs: a run or step counter */
  uint instance_count;
  uint slot_count;
  uint rule_count;
  uint control_words;     /* size of the whole Control buffer in words */
  uint heap_far_table;    /* Control word of the Heap far-segment table (see the top) */
  uint globals_far_table; /* Control word of the Globals far-segment table */
  uint loop_cut;          /* stage + 1 of a kernel whose loop the driver stopped early (weft_require_loop_end); 0: none.
                             Written only through WeftEngineStatus, never reset by a run: the program's results are void */
  uint reserved[6];
};

struct WeftInstanceControl {
  float scale;            /* a multiplier kernels may honour (gain, step size, residual scale) */
  uint flags;             /* WEFT_INSTANCE_* */
  uint limit;             /* an integer bound kernels may honour (iterations, rows, depth) */
  uint reserved;
  float params[4];
};

/* A far segment's record in Control, followed by chunk_count (address_lo, address_hi) pairs:
 * record r lies in chunk r >> chunk_records_log2, at record r & (2^chunk_records_log2 - 1). */
struct WeftFarSegment {
  uint record_words;        /* 32-bit words per record */
  uint chunk_records_log2;  /* records per chunk (allocation) = 2^this */
  uint chunk_count;
  uint records_lo;          /* records in the segment */
  uint records_hi;
  uint reserved[3];
};

/* Laid out exactly like VkDispatchIndirectCommand, padded to 16 bytes. */
struct WeftIndirectSlot {
  uint x;
  uint y;
  uint z;
  uint pad;
};

/* A regulator rule: when `compare` holds for the source value, apply `action` to target.
 * Thresholds and values are raw 32-bit patterns interpreted by source_type / target_type,
 * so integer rules compare integers. */
struct WeftRule {
  uint source_instance;
  uint source_field;      /* WEFT_METRIC_* word index */
  uint source_type;       /* WEFT_SOURCE_F32 / _U32 */
  uint compare;           /* WEFT_CMP_* */
  uint lo;
  uint hi;
  uint action;            /* WEFT_ACTION_* */
  uint target;            /* control word index, or first indirect slot */
  uint target_type;       /* WEFT_SOURCE_F32 / _U32 for word actions */
  uint value;
  uint value2;            /* clamp upper bound, or slot count for ZERO_SLOTS */
  uint fired;             /* how many passes the rule fired in (written by the regulator) */
  uint reserved0;
  uint reserved1;
  uint reserved2;
  uint reserved3;
};

struct WeftPushHeader {
  uint instance;          /* this stage's instance: its Metrics record and control record */
  uint inbox_instance;    /* whose outbox is this inbox (WEFT_NONE if none) */
  uint window;            /* word offset of R0 of this instance in Registers */
  uint width;             /* 32-bit words per register */
  uint inbox;             /* word offset of R31 (the previous instance's R30) */
  uint outbox;            /* word offset of R30 */
  uint stage;             /* stage index in the recorded program */
  uint iteration;         /* unrolled loop iteration (0 outside loops) */
  uint flags;             /* WEFT_PUSH_* */
  uint control;           /* word index of this instance's WeftInstanceControl in Control */
  uint reserved1;
  uint reserved2;
};

WEFT_LAYOUT_END

#ifdef __cplusplus
namespace weft::abi {
struct WeftPush {
  WeftPushHeader header;
  uint args[WEFT_PUSH_ARG_WORDS];
};
static_assert(sizeof(WeftMetrics) == WEFT_METRICS_WORDS * 4);
static_assert(offsetof(WeftMetrics, norm) == WEFT_METRIC_NORM * 4);
static_assert(offsetof(WeftMetrics, max_abs) == WEFT_METRIC_MAX_ABS * 4);
static_assert(offsetof(WeftMetrics, ticks_lo) == WEFT_METRIC_TICKS_LO * 4);
static_assert(offsetof(WeftMetrics, ticks_hi) == WEFT_METRIC_TICKS_HI * 4);
static_assert(offsetof(WeftMetrics, status) == WEFT_METRIC_STATUS * 4);
static_assert(offsetof(WeftMetrics, sequence) == WEFT_METRIC_SEQUENCE * 4);
static_assert(offsetof(WeftMetrics, counters) == WEFT_METRIC_COUNTER0 * 4);
static_assert(sizeof(WeftControlHeader) == WEFT_CONTROL_HEADER_WORDS * 4);
static_assert(offsetof(WeftControlHeader, halt) == 0);
static_assert(offsetof(WeftControlHeader, instance_count) == 12);
static_assert(offsetof(WeftControlHeader, heap_far_table) == 28);
static_assert(offsetof(WeftControlHeader, globals_far_table) == 32);
static_assert(sizeof(WeftFarSegment) == WEFT_FAR_SEGMENT_WORDS * 4);
static_assert(sizeof(WeftInstanceControl) == WEFT_INSTANCE_CONTROL_WORDS * 4);
static_assert(offsetof(WeftInstanceControl, params) == 16);
static_assert(sizeof(WeftIndirectSlot) == WEFT_INDIRECT_SLOT_WORDS * 4);
static_assert(sizeof(WeftRule) == WEFT_RULE_WORDS * 4);
static_assert(offsetof(WeftRule, action) == 24);
static_assert(offsetof(WeftRule, fired) == 44);
static_assert(sizeof(WeftPushHeader) == WEFT_PUSH_HEADER_WORDS * 4);
static_assert(offsetof(WeftPushHeader, inbox) == 16);
static_assert(offsetof(WeftPushHeader, flags) == 32);
static_assert(offsetof(WeftPushHeader, control) == 36);
static_assert(sizeof(WeftPush) == WEFT_PUSH_BYTES);
}  // namespace weft::abi
#endif

#endif /* WEFT_LAYOUT_H */
