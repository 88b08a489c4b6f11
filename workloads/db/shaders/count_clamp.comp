#version 450
#extension GL_GOOGLE_include_directive : require
// The rows a later stage may read of a join step's output: its count, which the join kernels
// carry on past the lists' capacity so that the host can size a rebuild, clamped to that
// capacity. Every reader of the rows reads this word, never one past its lists.
#include "db_args.h"
#define WEFT_ARGS DB_COUNT_CLAMP_ARGS
#include "weft.glsl"
#include "db.glsl"

layout(local_size_x = 1) in;

void main() { globals_u[pc.args.kept] = min(globals_u[pc.args.count], pc.args.capacity); }
