#version 450
#extension GL_GOOGLE_include_directive : require
// Reduces the inbox into Globals: [out] = sum, [out+1] = sum of squares, [out+2] = max |v|,
// [out+3] = mean. The outbox carries the sum in word 0 (zeros after it), so the message norm
// and max_abs are |sum|. One workgroup.
#define WEFT_ARGS(X) X(WEFT_OUT(Globals), result)
#include "weft.glsl"

layout(local_size_x = 64) in;
shared float part_sum[64];
shared float part_sq[64];
shared float part_max[64];

void main() {
  const uvec2 start = weft_clock();
  const uint t = gl_LocalInvocationID.x;
  float s = 0.0, sq = 0.0, mx = 0.0;
  for (uint j = t; j < pc.header.width; j += 64u) {
    const float v = weft_inbox_f(j);
    s += v;
    sq += v * v;
    mx = max(mx, abs(v));
  }
  part_sum[t] = s;
  part_sq[t] = sq;
  part_max[t] = mx;
  barrier();
  for (uint k = 32u; k > 0u; k >>= 1) {
    if (t < k) {
      part_sum[t] += part_sum[t + k];
      part_sq[t] += part_sq[t + k];
      part_max[t] = max(part_max[t], part_max[t + k]);
    }
    barrier();
  }
  for (uint j = 1u + t; j < pc.header.width; j += 64u) weft_outbox_f(j, 0.0);
  if (t == 0u) {
    const float total = part_sum[0];
    const uint out_word = pc.args.result;
    globals_f[out_word] = total;
    globals_f[out_word + 1u] = part_sq[0];
    globals_f[out_word + 2u] = part_max[0];
    globals_f[out_word + 3u] = total / float(pc.header.width);
    weft_outbox_f(0u, total);
    weft_message_write(abs(total), abs(total), WEFT_STATUS_OK, weft_ticks_since(start));
  }
}
