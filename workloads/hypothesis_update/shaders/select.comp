// Which nodes the step's new hypotheses are built from (spec §3.4 and §3.7), per space:
// - default updater, first step: every node, in node order;
// - burst sampling while a burst runs: the n/J nodes with the highest channel-0 feature
//   evidence, as Monty's argsort(fe)[-n/J:] (ascending), or the first n/J nodes when the LM
//   uses no features.
// argsort is numpy's own introsort (median-of-3 quicksort, insertion sort below 16, heapsort past
// the depth limit), step for step like numpy_argsort.cpp: graphs have hundreds of nodes with
// exactly equal feature evidence, and only the same algorithm picks the same tied nodes as
// Monty. It is inherently sequential, so one invocation per space sorts (a few thousand keys at
// most); without a sort the whole workgroup writes the identity order. One workgroup per space.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "hypothesis_update_args.h"
#define WEFT_ARGS HYPOTHESIS_UPDATE_STEP_ARGS
#include "weft.glsl"
#include "hypothesis_update.glsl"
layout(local_size_x = 64) in;

uint g_order;  // Globals word of the space's order scratch
uint g_fe;     // Globals word of the space's channel-0 feature evidence

float key(int i) { return globals_f[g_fe + globals_u[g_order + uint(i)]]; }
void swap_at(int a, int b) {
  const uint t = globals_u[g_order + uint(a)];
  globals_u[g_order + uint(a)] = globals_u[g_order + uint(b)];
  globals_u[g_order + uint(b)] = t;
}
uint ord(int i) { return globals_u[g_order + uint(i)]; }
void set_ord(int i, uint v) { globals_u[g_order + uint(i)] = v; }

// numpy's heapsort on order[first, first + n), 1-based heap positions.
void sift_down(int first, int i, int n, uint tmp) {
  for (int j = i << 1; j <= n;) {
    if (j < n && globals_f[g_fe + ord(first + j - 1)] < globals_f[g_fe + ord(first + j)]) j += 1;
    if (!(globals_f[g_fe + tmp] < globals_f[g_fe + ord(first + j - 1)])) break;
    set_ord(first + i - 1, ord(first + j - 1));
    i = j;
    j += j;
  }
  set_ord(first + i - 1, tmp);
}
void heapsort(int first, int n) {
  for (int l = n >> 1; l > 0; --l) sift_down(first, l, n, ord(first + l - 1));
  while (n > 1) {
    const uint tmp = ord(first + n - 1);
    set_ord(first + n - 1, ord(first));
    n -= 1;
    sift_down(first, 1, n, tmp);
  }
}

int msb(int n) {
  int depth = 0;
  while ((n >>= 1) != 0) ++depth;
  return depth;
}

void introsort(int num) {
  int stack[128];
  int depth[64];
  int sp_ = 0, dp = 0;
  int pl = 0, pr = num - 1;
  int cdepth = msb(num) * 2;
  for (;;) {
    if (cdepth < 0) {
      heapsort(pl, pr - pl + 1);
    } else {
      while ((pr - pl) > 15) {
        const int pm = pl + ((pr - pl) >> 1);
        if (key(pm) < key(pl)) swap_at(pm, pl);
        if (key(pr) < key(pm)) swap_at(pr, pm);
        if (key(pm) < key(pl)) swap_at(pm, pl);
        const float vp = key(pm);
        int pi = pl, pj = pr - 1;
        swap_at(pm, pj);
        for (;;) {
          do ++pi; while (key(pi) < vp);
          do --pj; while (vp < key(pj));
          if (pi >= pj) break;
          swap_at(pi, pj);
        }
        swap_at(pi, pr - 1);
        // Push the larger partition, continue with the smaller one.
        if (pi - pl < pr - pi) {
          stack[sp_++] = pi + 1;
          stack[sp_++] = pr;
          pr = pi - 1;
        } else {
          stack[sp_++] = pl;
          stack[sp_++] = pi - 1;
          pl = pi + 1;
        }
        depth[dp++] = --cdepth;
      }
      for (int pi = pl + 1; pi <= pr; ++pi) {
        const uint vi = ord(pi);
        const float vp = globals_f[g_fe + vi];
        int pj = pi, pk = pi - 1;
        while (pj > pl && vp < key(pk)) set_ord(pj--, ord(pk--));
        set_ord(pj, vi);
      }
    }
    if (sp_ == 0) break;
    pr = stack[--sp_];
    pl = stack[--sp_];
    cdepth = depth[--dp];
  }
}

void main() {
  const uint t = gl_LocalInvocationID.x;
  const uint s = gl_WorkGroupID.x;
  const uint m = sp(s, SP_LM);
  if (!lm_active(m)) return;
  const bool burst = param_u(m, P_KIND) == 1u;
  const bool build = burst ? globals_u[lm_state(m, M_BURST_IN_STEP)] > 0u : lm_first(m);
  if (!build) return;  // threshold already set nothing to add
  const uint nodes = sp(s, SP_NODES);
  const uint j = globals_u[in_word(m, IN_J)];
  uint nsel = nodes;
  if (burst) nsel = min(j == 2u ? sp(s, SP_NSEL_PFD) : sp(s, SP_NSEL_UMB), nodes);
  const uint retained = globals_u[stat_word(s, S_RETAINED)];
  if (retained + nsel * j > sp(s, SP_CAP)) {
    // Out of capacity: add nothing and flag it; the host turns the flag into an error.
    if (t == 0u) globals_u[lm_state(m, M_OVERFLOW)] = 1u;
    return;
  }
  g_order = sp(s, SP_ORDER_OFF);
  g_fe = sp(s, SP_FE_OFF);
  const bool by_evidence = burst && param_u(m, P_USES_FEATURES) != 0u;
  if (by_evidence) {
    // The sorting invocation writes the identity itself, so it never reads another
    // invocation's writes within this dispatch.
    if (t != 0u) return;
    for (uint n = 0u; n < nodes; ++n) globals_u[g_order + n] = n;
    introsort(int(nodes));
  } else {
    for (uint n = t; n < nodes; n += HYP_WG) globals_u[g_order + n] = n;
    weft_require_loops_whole();
    if (t != 0u) return;
  }
  globals_u[stat_word(s, S_NSEL)] = nsel;
  globals_u[stat_word(s, S_SEL_FIRST)] = by_evidence ? nodes - nsel : 0u;
  globals_u[stat_word(s, S_ADDED)] = nsel * j;
  // Every adding space writes the same width: new_block runs over the whole row grid.
  if (nsel * j > 0u) weft_set_control_word(lay(L_NEW_BLOCK_SLOT), lay(L_ROW_GROUPS_X));
  weft_require_loops_whole();
}
