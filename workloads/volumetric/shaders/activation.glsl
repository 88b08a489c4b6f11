// Activations by their weft::volumetric::Activation value: 0 linear, 1 ReLU, 2 tanh,
// 3 sigmoid, 4 SiLU.
float activation(uint a, float z) {
  if (a == 1u) return max(z, 0.0);
  if (a == 2u) return tanh(z);
  if (a == 3u) return 1.0 / (1.0 + exp(-z));
  if (a == 4u) return z / (1.0 + exp(-z));
  return z;
}

// d activation / dz at z (the CPU reference's activate_grad).
float activation_grad(uint a, float z) {
  if (a == 1u) return z > 0.0 ? 1.0 : 0.0;
  if (a == 2u) {
    const float t = tanh(z);
    return 1.0 - t * t;
  }
  if (a == 3u) {
    const float s = 1.0 / (1.0 + exp(-z));
    return s * (1.0 - s);
  }
  if (a == 4u) {
    const float s = 1.0 / (1.0 + exp(-z));
    return s * (1.0 + z * (1.0 - s));
  }
  return 1.0;
}
