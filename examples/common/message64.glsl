// Message metadata from one workgroup of 64 invocations: each passes the sum of squares and the
// largest magnitude of the values it wrote; invocation 0 writes norm and max_abs. A plain
// shared-memory tree, so it does not depend on the subgroup size.
shared float message64_sq[64];
shared float message64_max[64];

void message64(float sq, float mx, uvec2 start) {
  const uint t = gl_LocalInvocationID.x;
  message64_sq[t] = sq;
  message64_max[t] = mx;
  barrier();
  for (uint k = 32u; k > 0u; k >>= 1) {
    if (t < k) {
      message64_sq[t] += message64_sq[t + k];
      message64_max[t] = max(message64_max[t], message64_max[t + k]);
    }
    barrier();
  }
  if (t == 0u) weft_message_write(sqrt(message64_sq[0]), message64_max[0], WEFT_STATUS_OK, weft_ticks_since(start));
}
