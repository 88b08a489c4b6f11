// The per-stream sampler, fused into the step (vm_step_sampled.comp) or a stage of its own
// (sample.comp): the sampled token of
// stream b for step slot `step`, from its row of logits, as vm/sampler.cpp draws it on the CPU
// (argmax, or quantized sampling whose arithmetic after the float subtract/multiply/floor is
// integer, so it is the same bits).
// Needs weft.glsl and token_vm_layout.h included first.
#ifndef TOKEN_VM_SAMPLE_GLSL
#define TOKEN_VM_SAMPLE_GLSL

const uint kQuantTable[16] = uint[16](32768u, 31379u, 30048u, 28774u, 27554u, 26386u, 25268u, 24196u,
                                      23170u, 22188u, 21247u, 20347u, 19484u, 18658u, 17867u, 17109u);

uint mix32(uint x) {
  x ^= x >> 16;
  x *= 0x7FEB352Du;
  x ^= x >> 15;
  x *= 0x846CA68Bu;
  x ^= x >> 16;
  return x;
}

uint quant_weight(float x, float m, float scale) {
  precise float d = (x - m) * scale;
  if (!(d > -256.0)) return 0u;
  const uint k = uint(-floor(d));
  return kQuantTable[k & 15u] >> (k >> 4);
}

uint tvm_sample_token(uint H, uint B, uint b, uint step) {
  const uint V = heap_u[H + TVM_H_VOCAB_LOGITS];
  const uint row = heap_u[H + TVM_H_LOGITS] + b * V;
  uint best = 0u;
  for (uint i = 1u; i < V; ++i)
    if (globals_f[row + i] > globals_f[row + best]) best = i;
  uint token = best;
  const uint P = heap_u[H + TVM_H_SAMPLER];
  if (globals_u[P + TVM_P_MODE] == TVM_SAMPLE_QUANTIZED) {
    const float m = globals_f[row + best];
    const float scale = uintBitsToFloat(globals_u[P + TVM_P_SCALE]);
    uint total = 0u;
    for (uint i = 0u; i < V; ++i) total += quant_weight(globals_f[row + i], m, scale);
    if (total != 0u) {
      const uint s = globals_u[P + TVM_P_FIRST_STEP] + step;
      const uint r = mix32(mix32(mix32(globals_u[P + TVM_P_SEED]) ^ (s * 0x9E3779B9u)) ^ (b * 0x85EBCA6Bu)) % total;
      uint sum = 0u;
      for (uint i = 0u; i < V; ++i) {
        sum += quant_weight(globals_f[row + i], m, scale);
        if (sum > r) {
          token = i;
          break;
        }
      }
    }
  }
  return token;
}

#endif
