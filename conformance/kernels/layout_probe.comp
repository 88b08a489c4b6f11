#version 450
#extension GL_GOOGLE_include_directive : require
// Writes markers through the GLSL view of every shared record so the host can check that each
// field lands at the offset the C++ header says (tests/test_bindings.cpp).
#include "test_args.h"
#define WEFT_ARGS TEST_LAYOUT_PROBE_ARGS
#include "weft.glsl"

layout(local_size_x = 1) in;

void main() {
  const uint i = pc.header.instance;
  metrics[i].norm = 1.5;
  metrics[i].max_abs = 2.5;
  metrics[i].ticks_lo = 0xA0000000u + i;
  metrics[i].ticks_hi = 0xB0000000u + i;
  metrics[i].status = 0xC0000000u + i;
  metrics[i].sequence = 0xD0000000u + i;
  for (uint c = 0u; c < WEFT_METRICS_COUNTERS; ++c) metrics[i].counters[c] = 0xE0000000u + i * 16u + c;
  // Echo the push block and the Control header into this instance's registers.
  const uint base = pc.header.window;
  regs_u[base + 0u] = pc.header.instance;
  regs_u[base + 1u] = pc.header.inbox_instance;
  regs_u[base + 2u] = pc.header.window;
  regs_u[base + 3u] = pc.header.width;
  regs_u[base + 4u] = pc.header.inbox;
  regs_u[base + 5u] = pc.header.outbox;
  regs_u[base + 6u] = pc.header.stage;
  regs_u[base + 7u] = pc.header.iteration;
  regs_u[base + 8u] = pc.header.flags;
  regs_u[base + 12u] = pc.args.a0;
  regs_u[base + 13u] = pc.args.a1;
  regs_u[base + 14u] = pc.args.a2;
  regs_u[base + 15u] = pc.args.a3;
  regs_u[base + 16u] = pc.args.a4;
  regs_u[base + 17u] = pc.args.a5;
  regs_u[base + 18u] = pc.args.a6;
  regs_u[base + 19u] = pc.args.a7;
  regs_u[base + 20u] = pc.args.a8;
  regs_u[base + 21u] = pc.args.a9;
  regs_u[base + 22u] = pc.args.a10;
  regs_u[base + 23u] = pc.args.a11;
  regs_u[base + 24u] = pc.args.a12;
  regs_u[base + 25u] = pc.args.a13;
  regs_u[base + 26u] = pc.args.a14;
  regs_u[base + 27u] = pc.args.a15;
  regs_u[base + 28u] = pc.args.a16;
  regs_u[base + 29u] = pc.args.a17;
  regs_u[base + 30u] = pc.args.a18;
  regs_u[base + 31u] = pc.args.a19;
  regs_u[base + 9u] = pc.header.control;
  regs_u[base + 32u] = control.header.instance_count;
  regs_u[base + 33u] = control.header.slot_count;
  regs_u[base + 34u] = control.header.rule_count;
  regs_u[base + 35u] = control.header.control_words;
  regs_u[base + 36u] = control.header.step;
  regs_u[base + 40u] = floatBitsToUint(weft_scale());
  regs_u[base + 41u] = weft_instance_flags();
}
