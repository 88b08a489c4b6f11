// Spec §3.3: node feature evidence fe[c][n] of every node of every space of every LM with
// input, per input channel, already times feature_evidence_increment (0 when the LM uses no
// features). Dispatch (nodes / 64, spaces): one invocation per node of one space.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "hypothesis_update_args.h"
#define WEFT_ARGS HYPOTHESIS_UPDATE_STEP_ARGS
#include "weft.glsl"
#include "hypothesis_update.glsl"
layout(local_size_x = 64) in;

void main() {
  const uint s = gl_WorkGroupID.y;
  const uint m = sp(s, SP_LM);
  const uint n = gl_GlobalInvocationID.x, nodes = sp(s, SP_NODES);
  if (!lm_active(m) || n >= nodes) return;
  const uint fw = param_u(m, P_FW);
  const uint feat = lay(L_FEAT) + sp(s, SP_FEAT_OFF) + n * fw;
  for (uint c = 0u; c < input_channels(m); ++c) {
    float fe = 0.0;
    if (param_u(m, P_USES_FEATURES) != 0u) {
      float weighted = 0.0;
      for (uint i = 0u; i < fw; ++i) {
        const float x = heap_f[feat + i];
        const float q = globals_f[channel_word(m, c, C_FEAT + i)];
        float diff = abs(x - q);
        // Hue wraps around at 1.
        if (param_u(m, P_CIRCULAR + i) != 0u) diff = min(min(abs(1.0 + x - q), diff), abs(x - (q + 1.0)));
        const float tol = param_f(m, P_TOL + i);
        weighted += param_f(m, P_WEIGHT + i) * (max(tol - diff, 0.0) / tol);
      }
      fe = weighted / param_f(m, P_WEIGHT_SUM) * param_f(m, P_FE_INC);
    }
    globals_f[sp(s, SP_FE_OFF) + c * nodes + n] = fe;
  }
}
