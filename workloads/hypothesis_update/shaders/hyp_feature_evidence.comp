// Spec §3.3: node feature evidence fe[c][n] of every node of every graph of the LM (stacked),
// for every input channel, already times feature_evidence_increment. One invocation per node.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "weft.glsl"
#include "hyp_common.glsl"
layout(local_size_x = 64) in;

void main() {
  const uint n = gl_GlobalInvocationID.x;
  if (n >= total_nodes()) return;
  const uint channels = input_channels();
  const uint fw = param_u(P_FW);
  for (uint c = 0u; c < channels; ++c) {
    float fe = 0.0;
    if (param_u(P_USES_FEATURES) != 0u) {
      float weighted = 0.0;
      for (uint i = 0u; i < fw; ++i) {
        const float x = heap_f[off_feat() + n * fw + i];
        const float q = globals_f[channel_word(c, C_FEAT + i)];
        float diff = abs(x - q);
        // Hue wraps around at 1.
        if (param_u(P_CIRCULAR + i) != 0u) diff = min(min(abs(1.0 + x - q), diff), abs(x - (q + 1.0)));
        const float tol = param_f(P_TOL + i);
        weighted += param_f(P_WEIGHT + i) * (max(tol - diff, 0.0) / tol);
      }
      fe = weighted / param_f(P_WEIGHT_SUM) * param_f(P_FE_INC);
    }
    globals_f[off_fe() + c * total_nodes() + n] = fe;
  }
}
