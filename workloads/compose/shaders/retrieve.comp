#version 450
#extension GL_GOOGLE_include_directive : require
// Adapter attention -> DB -> attention: top-k retrieval by dot product. The query vector q is
// the first decoder's last hidden row (f32, dim D); the candidates are the rows a DB query
// returned (its output instance's R30: [perm word, first row, row count, error bits]; column 0
// the document id, columns 1..D the embedding, doubles). score(r) = sum_j double(q[j]) * e_j[r]
// in j order, without contraction (`precise`), so the host computes the same doubles. The k
// best rows (higher score first, ties to the earlier row) become the continuing decoder's input
// rows (f32) and a copy; their ids and scores are written out. R30 = [ids of the picks..] (up to
// the instance's width), after which the continuing decoder's first layer reads it.
#include "compose_args.h"
#define WEFT_ARGS COMPOSE_RETRIEVE_ARGS
#include "weft.glsl"

layout(local_size_x = 64) in;

double value(uint column_word, uint row) {
  const uint w = globals_u[pc.args.columns + column_word];
  return packDouble2x32(uvec2(globals_u[w + 2u * row], globals_u[w + 2u * row + 1u]));
}

shared uint picks[16];

void main() {
  if (weft_halted()) return;
  const uint first = regs_u[pc.args.query_result + 1u], count = min(regs_u[pc.args.query_result + 2u], pc.args.capacity);
  const uint D = pc.args.dim, q = pc.args.query_vector, K = min(pc.args.k, 16u), scores = pc.args.scores;
  for (uint n = gl_LocalInvocationID.x; n < count; n += gl_WorkGroupSize.x) {
    precise double s = 0.0;
    for (uint j = 0u; j < D; ++j) {
      precise double term = double(globals_f[q + j]) * value(1u + j, first + n);
      s = s + term;
    }
    const uvec2 b = unpackDouble2x32(s);
    globals_u[scores + 2u * n] = b.x;
    globals_u[scores + 2u * n + 1u] = b.y;
  }
  memoryBarrierBuffer();
  barrier();
  if (gl_LocalInvocationID.x == 0u) {
    // Serial selection: k passes, each the best row not taken yet (k and the rows are small).
    for (uint i = 0u; i < K; ++i) {
      uint best = 0xFFFFFFFFu;
      double bs = 0.0;
      for (uint n = 0u; n < count; ++n) {
        bool taken = false;
        for (uint t = 0u; t < i; ++t) taken = taken || picks[t] == n;
        if (taken) continue;
        const double s = packDouble2x32(uvec2(globals_u[scores + 2u * n], globals_u[scores + 2u * n + 1u]));
        if (best == 0xFFFFFFFFu || s > bs) {
          best = n;
          bs = s;
        }
      }
      picks[i] = best;
    }
  }
  barrier();
  for (uint i = 0u; i < K; ++i) {
    const uint n = picks[i];
    for (uint j = gl_LocalInvocationID.x; j < D; j += gl_WorkGroupSize.x) {
      const float v = n == 0xFFFFFFFFu ? 0.0 : float(value(1u + j, first + n));
      globals_f[pc.args.rows + i * D + j] = v;
      globals_f[pc.args.rows_copy + i * D + j] = v;
    }
  }
  if (gl_LocalInvocationID.x == 0u) {
    for (uint i = 0u; i < K; ++i) {
      const uint n = picks[i];
      // Column 0 is Int (int64 bits): the id is its low word.
      const uint id = n == 0xFFFFFFFFu ? 0xFFFFFFFFu : globals_u[globals_u[pc.args.columns] + 2u * (first + n)];
      const float s = n == 0xFFFFFFFFu ? 0.0 : float(packDouble2x32(uvec2(globals_u[scores + 2u * n], globals_u[scores + 2u * n + 1u])));
      globals_u[pc.args.picks + i] = id;
      globals_f[pc.args.picks + K + i] = s;
      if (i < pc.header.width) weft_outbox_u(i, id);
    }
    weft_message_write(float(count), 0.0, count >= K ? WEFT_STATUS_OK : WEFT_STATUS_ANOMALY, uvec2(0u));
  }
}
