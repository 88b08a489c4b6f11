// Shared by the game kernels (include after weft.glsl): bitboards as uvec2 (bits 0-31, 32-63),
// so no shaderInt64 is needed, the node record, and the rules of four in a line.
#ifndef GAME_GLSL
#define GAME_GLSL

// A node: 8 words in its level's Globals segment.
#define NODE_WORDS 8u
#define N_CUR 0u      // 2 words: stones of the side to move
#define N_MASK 2u     // 2 words: all stones
#define N_FIRST 4u    // index of the first child in the next level
#define N_INFO 5u     // bits 0-7 children, 8-15 column of the move that led here, 16 terminal, 17 expanded
#define N_STATIC 6u   // int: terminal score or evaluation (side to move's view)
#define N_VALUE 7u    // int: negamax value after the latest backup

#define INFO_CHILDREN 0xFFu
#define INFO_COLUMN_SHIFT 8u
#define INFO_TERMINAL 0x10000u
#define INFO_EXPANDED 0x20000u

#define GAME_WIN 1000000
#define GROUP 64u

uvec2 shr64(uvec2 a, uint s) {
  if (s == 0u) return a;
  if (s >= 32u) return uvec2(a.y >> (s - 32u), 0u);
  return uvec2((a.x >> s) | (a.y << (32u - s)), a.y >> s);
}
uvec2 bit64(uint n) { return n < 32u ? uvec2(1u << n, 0u) : uvec2(0u, 1u << (n - 32u)); }
bool any64(uvec2 a) { return (a.x | a.y) != 0u; }
uint popcount64(uvec2 a) { return uint(bitCount(a.x) + bitCount(a.y)); }

// Four in a line: along a line one cell is a shift of 1 (vertical), H+1 (horizontal), H and
// H+2 (diagonals) bits; the sentinel bit on top of each column stops wrap-around.
bool has_four(uvec2 s, uint H) {
  const uint shifts[4] = uint[4](1u, H + 1u, H, H + 2u);
  for (uint k = 0u; k < 4u; ++k) {
    const uvec2 m = s & shr64(s, shifts[k]);
    if (any64(m & shr64(m, 2u * shifts[k]))) return true;
  }
  return false;
}

// Stones in column c (H cells starting at bit c * (H + 1)).
uint column_height(uvec2 mask, uint c, uint H) {
  const uvec2 col = shr64(mask, c * (H + 1u));
  return uint(bitCount(col.x & ((1u << H) - 1u)));  // H <= 11 < 32: the column is in col.x
}

uint node_base(uint level_word, uint n) { return level_word + n * NODE_WORDS; }
uvec2 node_cur(uint base) { return uvec2(globals_u[base + N_CUR], globals_u[base + N_CUR + 1u]); }
uvec2 node_mask(uint base) { return uvec2(globals_u[base + N_MASK], globals_u[base + N_MASK + 1u]); }

// Nodes of a level that exist: the atomic count can run past the capacity (then the overflow
// word says so and the host refuses the result).
uint level_nodes(uint count_word, uint capacity_word, uint level) {
  return min(weft_control_word(count_word + level), weft_control_word(capacity_word + level));
}

// Workgroups for n nodes at GROUP per workgroup, within the guaranteed 65535 (kernels loop).
uint groups_for(uint n) { return min((n + GROUP - 1u) / GROUP, 65535u); }

// Compute ticks for the time-budget rule: every workgroup adds its own duration, in units of 1024
// device ticks rounded up, to one Control word. Call from every invocation at the end of a
// kernel (it holds a barrier) with the clock read at its start. Adds 0 without a shader clock.
void account_ticks(uvec2 start, uint ticks_word) {
  barrier();
  if (gl_LocalInvocationIndex == 0u) {
    const uvec2 t = weft_ticks_since(start);
    const uint units = t.y >= 1024u ? 0x3FFFFFFFu : (t.y << 22) + (t.x >> 10) + ((t.x & 1023u) != 0u ? 1u : 0u);
    if (units != 0u) atomicAdd(control.words[ticks_word - WEFT_CONTROL_HEADER_WORDS], units);
  }
}

#endif
