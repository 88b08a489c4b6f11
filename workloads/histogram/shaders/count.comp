#version 450
#extension GL_GOOGLE_include_directive : require
// Histogram of u32 values: bin = value >> shift, clamped to the last bin. Each workgroup counts
// its share in shared memory (grid stride), then adds its nonzero counts to the Globals bins
// with one atomic per bin, so contention on the global bins stays per workgroup, not per value.
#include "histogram_args.h"
#define WEFT_ARGS HISTOGRAM_COUNT_ARGS
#include "weft.glsl"

#define MAX_BINS 4096u  // the host refuses more (histogram.h: kMaxBins)

// A streaming kernel: the engine picks its workgroup size and values per invocation per device.
WEFT_STREAMING_KERNEL;

shared uint counts[MAX_BINS];

void main() {
  const uint bins = pc.args.bins_count, t = gl_LocalInvocationID.x;
  for (uint b = t; b < bins; b += gl_WorkGroupSize.x) counts[b] = 0u;
  barrier();
  WEFT_FOR_EACH_UNIT(i, pc.args.n) atomicAdd(counts[min(heap_u[pc.args.values + i] >> pc.args.shift, bins - 1u)], 1u);
  barrier();
  for (uint b = t; b < bins; b += gl_WorkGroupSize.x)
    if (counts[b] != 0u) atomicAdd(globals_u[pc.args.bins + b], counts[b]);
}
