#version 450
#extension GL_GOOGLE_include_directive : require
// The row sampler, for large vocabularies (sample.comp gives each stream one invocation, which
// walks the whole row three times): one workgroup per stream turns its row of logits [B][V] into
// the sampled token of one step, exactly as vm/sampler.cpp does on the CPU. The 64 invocations
// split the row and combine in shared memory, with results identical to the sequential loops:
//  - argmax: the lowest index of the largest non-NaN logit; a NaN at index 0 wins (the CPU loop
//    starts from index 0 and nothing compares greater than NaN);
//  - quantized sampling: weights are integers (after the float subtract/multiply/floor, which
//    every invocation computes the same way), so their sum is exact in any order (V <= 65536
//    keeps it below 2^32), and the sample is the first index whose running sum exceeds r,
//    found through a prefix scan of per-invocation chunk sums.
// Arguments: TOKEN_VM_SAMPLE_ARGS (token_vm_args.h): the VM's Heap segment (its header gives the
// logits, the sampled rows and the sampler parameters) and the step slot. Mode, seed, scale and
// the first step index come from the sampler parameters in Globals (token_vm_layout.h, TVM_P_*).
// Streams are numbered x-fastest over a 2D grid of workgroups (a batch can exceed the x limit).
#include "token_vm_args.h"
#define WEFT_ARGS TOKEN_VM_SAMPLE_ARGS
#include "weft.glsl"
#include "token_vm_layout.h"

#define WG 64u
layout(local_size_x = 64) in;

const uint kNoIndex = 0xFFFFFFFFu;
const uint kQuantTable[16] = uint[16](32768u, 31379u, 30048u, 28774u, 27554u, 26386u, 25268u, 24196u,
                                      23170u, 22188u, 21247u, 20347u, 19484u, 18658u, 17867u, 17109u);

shared float sh_value[WG];
shared uint sh_index[WG];
shared uint sh_sum[WG];
shared uint sh_found;

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

void main() {
  const uint H = pc.args.vm;
  const uint B = heap_u[H + TVM_H_BATCH];
  const uint b = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  if (b >= B) return;  // uniform over the workgroup
  const uint t = gl_LocalInvocationID.x;
  const uint V = heap_u[H + TVM_H_VOCAB_LOGITS];
  const uint row = heap_u[H + TVM_H_LOGITS] + b * V;

  // argmax: each invocation's first largest non-NaN logit, then a tree (ties: lower index).
  float best_value = 0.0;
  uint best_index = kNoIndex;
  for (uint i = t; i < V; i += WG) {
    const float v = globals_f[row + i];
    if (!isnan(v) && (best_index == kNoIndex || v > best_value)) {
      best_value = v;
      best_index = i;
    }
  }
  sh_value[t] = best_value;
  sh_index[t] = best_index;
  barrier();
  for (uint s = WG / 2u; s > 0u; s >>= 1u) {
    if (t < s) {
      const float ov = sh_value[t + s];
      const uint oi = sh_index[t + s];
      const uint mi = sh_index[t];
      if (oi != kNoIndex && (mi == kNoIndex || ov > sh_value[t] || (ov == sh_value[t] && oi < mi))) {
        sh_value[t] = ov;
        sh_index[t] = oi;
      }
    }
    barrier();
  }
  const uint best = (isnan(globals_f[row]) || sh_index[0] == kNoIndex) ? 0u : sh_index[0];
  uint token = best;

  const uint P = heap_u[H + TVM_H_SAMPLER];
  if (globals_u[P + TVM_P_MODE] == TVM_SAMPLE_QUANTIZED) {
    const float m = globals_f[row + best];
    const float scale = uintBitsToFloat(globals_u[P + TVM_P_SCALE]);
    // Each invocation owns a contiguous chunk of the row: an inclusive scan of the chunk sums
    // gives the total, and the one chunk whose exclusive sum <= r < inclusive sum; its
    // invocation walks the chunk to the first index whose running sum exceeds r. The number of
    // barriers does not grow with V.
    const uint chunk = (V + WG - 1u) / WG;
    const uint lo = min(t * chunk, V), hi = min(lo + chunk, V);
    uint own = 0u;
    for (uint i = lo; i < hi; ++i) own += quant_weight(globals_f[row + i], m, scale);
    sh_sum[t] = own;
    barrier();
    for (uint off = 1u; off < WG; off <<= 1u) {
      const uint add = t >= off ? sh_sum[t - off] : 0u;
      barrier();
      sh_sum[t] += add;
      barrier();
    }
    const uint total = sh_sum[WG - 1u];
    if (total != 0u) {  // uniform
      const uint step = globals_u[P + TVM_P_FIRST_STEP] + pc.args.step;
      const uint r = mix32(mix32(mix32(globals_u[P + TVM_P_SEED]) ^ (step * 0x9E3779B9u)) ^ (b * 0x85EBCA6Bu)) % total;
      const uint inclusive = sh_sum[t], exclusive = inclusive - own;
      if (exclusive <= r && r < inclusive) {
        uint sum = exclusive;
        for (uint i = lo; i < hi; ++i) {
          sum += quant_weight(globals_f[row + i], m, scale);
          if (sum > r) {
            sh_found = i;
            break;
          }
        }
      }
      barrier();
      token = sh_found;
    }
  }
  if (t == 0u) globals_u[heap_u[H + TVM_H_SAMPLED] + pc.args.step * B + b] = token;
}
