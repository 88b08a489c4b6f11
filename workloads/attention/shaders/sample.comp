#version 450
#extension GL_GOOGLE_include_directive : require
// Token sampling on the device (one workgroup of 64), from the logits of the batch's last token:
//   greedy when temperature <= 0 or top_k == 1: the largest logit (ties: the lowest id);
//   top-k (k <= 64): the k largest in order (found as k successive arg-max passes, each over
//     the tokens ranked below the previous pick), p ∝ exp((l - max) / T);
//   top_k == 0: every token in id order, summed per contiguous chunk then scanned.
// The pick is the first candidate whose running sum exceeds u * total, u = hash(seed, position
// of the new token) in [0, 1), the same 32-bit hash as the CPU reference.
// Output: Globals `sampled` and R30[0] = the token id; Metrics norm = the picked logit,
// counters[0] = token, counters[1] = position.
// Arguments: ATTENTION_SAMPLE_ARGS (attention_args.h).
#include "attention_args.h"
#define WEFT_ARGS ATTENTION_SAMPLE_ARGS
#include "weft.glsl"

layout(local_size_x = 64) in;
shared float s_val[64];
shared uint s_idx[64];
shared float s_sum[64];
shared uint s_pick[64];
shared float s_pick_val[64];

const float NEG = -3.402823466e38;

// (value a, id ia) ranks above (b, ib)?
bool above(float a, uint ia, float b, uint ib) { return a > b || (a == b && ia < ib); }

// Arg-max over the logits ranked strictly below (lim, lim_i) (none: lim_i = WEFT_NONE).
void argmax_below(uint logits, uint vocab, float lim, uint lim_i, uint tid) {
  float bv = NEG;
  uint bi = WEFT_NONE;
  for (uint i = tid; i < vocab; i += 64u) {
    const float v = globals_f[logits + i];
    if (lim_i != WEFT_NONE && !above(lim, lim_i, v, i)) continue;
    if (bi == WEFT_NONE || above(v, i, bv, bi)) {
      bv = v;
      bi = i;
    }
  }
  s_val[tid] = bv;
  s_idx[tid] = bi;
  barrier();
  for (uint k = 32u; k > 0u; k >>= 1) {
    if (tid < k && s_idx[tid + k] != WEFT_NONE && (s_idx[tid] == WEFT_NONE || above(s_val[tid + k], s_idx[tid + k], s_val[tid], s_idx[tid]))) {
      s_val[tid] = s_val[tid + k];
      s_idx[tid] = s_idx[tid + k];
    }
    barrier();
  }
}

float uniform01(uint seed, uint position) {
  uint h = seed * 747796405u + position * 2891336453u + 1u;
  h = ((h >> ((h >> 28u) + 4u)) ^ h) * 277803737u;
  h = (h >> 22u) ^ h;
  return float(h >> 8) * (1.0 / 16777216.0);
}

void main() {
  const uvec2 start = weft_clock();
  const uint logits = pc.args.logits, vocab = pc.args.vocab, params = pc.args.params, state = pc.args.state;
  const uint out_w = pc.args.sampled;
  const uint tid = gl_LocalInvocationIndex;
  const float temperature = weft_control_f(params);
  const uint top_k = min(weft_control_word(params + 1u), 64u), seed = weft_control_word(params + 2u);
  const uint position = globals_u[state] + globals_u[state + 1u];
  const float u = uniform01(seed, position);

  argmax_below(logits, vocab, 0.0, WEFT_NONE, tid);
  const float mx = s_val[0];
  uint token = s_idx[0];
  if (!(temperature <= 0.0) && top_k != 1u) {
    if (top_k > 0u) {
      const uint k = min(top_k, vocab);
      if (tid == 0u) {
        s_pick[0] = s_idx[0];
        s_pick_val[0] = s_val[0];
      }
      for (uint r = 1u; r < k; ++r) {
        barrier();
        const float lv = s_pick_val[r - 1u];
        const uint li = s_pick[r - 1u];
        barrier();
        argmax_below(logits, vocab, lv, li, tid);
        if (tid == 0u) {
          s_pick[r] = s_idx[0];
          s_pick_val[r] = s_val[0];
        }
      }
      barrier();
      if (tid == 0u) {
        float total = 0.0;
        for (uint r = 0u; r < k; ++r) total += exp((s_pick_val[r] - mx) / temperature);
        const float target = u * total;
        float run = 0.0;
        token = s_pick[k - 1u];
        for (uint r = 0u; r < k; ++r) {
          run += exp((s_pick_val[r] - mx) / temperature);
          if (run > target) {
            token = s_pick[r];
            break;
          }
        }
      }
    } else {
      // Whole vocabulary: each invocation sums one contiguous chunk, then invocation 0 finds the
      // chunk where the running sum passes the target and scans inside it.
      const uint chunk = (vocab + 63u) / 64u, lo = min(tid * chunk, vocab), hi = min(lo + chunk, vocab);
      float sum = 0.0;
      for (uint i = lo; i < hi; ++i) sum += exp((globals_f[logits + i] - mx) / temperature);
      barrier();
      s_sum[tid] = sum;
      barrier();
      if (tid == 0u) {
        float total = 0.0;
        for (uint c = 0u; c < 64u; ++c) total += s_sum[c];
        const float target = u * total;
        float run = 0.0;
        token = vocab - 1u;
        bool found = false;
        for (uint c = 0u; c < 64u && !found; ++c) {
          if (run + s_sum[c] <= target) {
            run += s_sum[c];
            continue;
          }
          const uint clo = min(c * chunk, vocab), chi = min(clo + chunk, vocab);
          for (uint i = clo; i < chi; ++i) {
            run += exp((globals_f[logits + i] - mx) / temperature);
            if (run > target) {
              token = i;
              found = true;
              break;
            }
          }
        }
      }
    }
  }
  if (tid == 0u) {
    globals_u[out_w] = token;
    weft_outbox_u(0u, token);
    const uint me = pc.header.instance;
    metrics[me].counters[0] = token;
    metrics[me].counters[1] = position;
    weft_message_write(globals_f[logits + min(token, vocab - 1u)], mx, WEFT_STATUS_OK, weft_ticks_since(start));
  }
}
