// The input index a convolution tap reads (ConvShape::input_index in model.h): tap i of
// C x K^dims, output position p of (Do, Ho, Wo); ~0u where a transposed conv runs off the input.
#ifndef VOLUMETRIC_CONV_GATHER_GLSL
#define VOLUMETRIC_CONV_GATHER_GLSL

uint conv_gather(uint i, uint p, uint Di, uint Hi, uint Wi, uint Ho, uint Wo, uint K, bool transposed, uint dims) {
  const uint kv = dims == 1u ? K : dims == 2u ? K * K : K * K * K;
  const uint c = i / kv, r = i - c * kv;
  const uint kw = r % K, kh = dims >= 2u ? (r / K) % K : 0u, kd = dims == 3u ? r / (K * K) : 0u;
  const uint pw = p % Wo, ph = (p / Wo) % Ho, pd = p / (Wo * Ho);
  int d = int(pd), h = int(ph), w = int(pw);
  if (transposed) {
    d -= int(kd), h -= int(kh), w -= int(kw);
    if (d < 0 || h < 0 || w < 0 || d >= int(Di) || h >= int(Hi) || w >= int(Wi)) return ~0u;
  } else {
    d += int(kd), h += int(kh), w += int(kw);
  }
  return ((c * Di + uint(d)) * Hi + uint(h)) * Wi + uint(w);
}

#endif
