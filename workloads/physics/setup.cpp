// Validation of configurations and states, the grid shape, and the seeded scenarios.
#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

#include "physics.h"

namespace weft::physics {

namespace {

[[noreturn]] void bad(const std::string& what) { fail(ErrorCode::BadInput, "physics: " + what); }

bool finite(float v) { return std::isfinite(v); }

const char* axis(uint32_t a) { return a == 0 ? "x" : a == 1 ? "y" : "z"; }

// Deterministic generator (splitmix64) and Box-Muller normals, so a seed gives the same
// scenario with any standard library.
struct Rng {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double uniform() { return double(next() >> 11) * (1.0 / 9007199254740992.0); }
  double normal() {
    const double u1 = std::max(uniform(), 1e-300), u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
  }
};

// Thermal velocities (unit masses) at `temperature` with zero total momentum, plus `drift`.
void thermal_velocities(State& s, float temperature, std::array<float, 3> drift, Rng& rng) {
  const uint32_t n = s.count();
  std::vector<double> v(size_t(n) * 3);
  std::array<double, 3> mean{0, 0, 0};
  for (uint32_t i = 0; i < n; ++i)
    for (int a = 0; a < 3; ++a) {
      v[3 * i + a] = rng.normal();
      mean[a] += v[3 * i + a] / n;
    }
  double k = 0;
  for (uint32_t i = 0; i < n; ++i)
    for (int a = 0; a < 3; ++a) {
      v[3 * i + a] -= mean[a];
      k += v[3 * i + a] * v[3 * i + a];
    }
  // Equipartition: sum v^2 = 3 (n - 1) T for unit masses once the momentum is removed.
  const double scale = n > 1 && k > 0 ? std::sqrt(3.0 * (n - 1) * temperature / k) : 0.0;
  s.vel.resize(size_t(n) * 3);
  for (uint32_t i = 0; i < n; ++i)
    for (int a = 0; a < 3; ++a) s.vel[3 * i + a] = float(v[3 * i + a] * scale) + drift[a];
}

}  // namespace

const char* model_name(Model m) { return m == Model::Sph ? "sph" : "lj"; }

std::array<uint32_t, 3> grid_shape(const Params& p) {
  std::array<uint32_t, 3> g{};
  for (int a = 0; a < 3; ++a) {
    const double cells = std::floor(double(p.box[a]) / (double(p.cutoff) * (1.0 + 1e-5)));
    g[a] = uint32_t(std::clamp(cells, 1.0, double(kMaxCells) + 1.0));
  }
  return g;
}

void validate(const Config& c, const State& s) {
  const Params& p = c.params;
  for (uint32_t a = 0; a < 3; ++a) {
    if (!finite(p.box[a]) || !(p.box[a] > 0)) bad(std::string("box ") + axis(a) + " must be a positive number");
    if (!finite(p.gravity[a])) bad(std::string("gravity ") + axis(a) + " is not finite");
  }
  if (!finite(p.cutoff) || !(p.cutoff > 0)) bad("cutoff must be a positive number");
  if (!finite(p.dt) || !(p.dt > 0)) bad("dt must be a positive number");
  if (!finite(p.restitution) || p.restitution < 0 || p.restitution > 1) bad("restitution must be in [0, 1]");
  if (p.model == Model::LennardJones) {
    if (!finite(p.epsilon) || !(p.epsilon > 0)) bad("epsilon must be a positive number");
    if (!finite(p.sigma) || !(p.sigma > 0)) bad("sigma must be a positive number");
  } else if (p.model == Model::Sph) {
    if (!finite(p.rest_density) || !(p.rest_density > 0)) bad("rest density must be a positive number");
    if (!finite(p.stiffness) || p.stiffness < 0) bad("stiffness must be a non-negative number");
    if (!finite(p.viscosity) || p.viscosity < 0) bad("viscosity must be a non-negative number");
  } else {
    bad("unknown model " + std::to_string(uint32_t(p.model)));
  }
  const Rules& r = c.rules;
  if (r.drift_bound && (!finite(*r.drift_bound) || !(*r.drift_bound > 0))) bad("drift bound must be a positive number");
  if (!finite(r.dt_factor) || !(r.dt_factor > 0) || r.dt_factor > 1) bad("dt factor must be in (0, 1]");
  if (!finite(r.dt_min) || r.dt_min < 0 || r.dt_min > p.dt) bad("dt_min must be in [0, dt]");
  if (r.runaway_speed && (!finite(*r.runaway_speed) || !(*r.runaway_speed > 0))) bad("runaway speed must be a positive number");
  if (c.steps_per_submit == 0 || c.steps_per_submit > 4096) bad("steps per submit must be in [1, 4096]");
  const auto g = grid_shape(p);
  if (uint64_t(g[0]) * g[1] * g[2] > kMaxCells)
    bad("the grid would have " + std::to_string(uint64_t(g[0]) * g[1] * g[2]) + " cells (box / cutoff per axis), over " +
        std::to_string(kMaxCells));

  const uint32_t n = s.count();
  if (n == 0) bad("no particles");
  if (n > (1u << 26)) bad(std::to_string(n) + " particles, over 2^26");
  if (s.pos.size() != size_t(n) * 3 || s.vel.size() != size_t(n) * 3)
    bad("state sizes disagree: " + std::to_string(n) + " masses, " + std::to_string(s.pos.size()) + " position and " +
        std::to_string(s.vel.size()) + " velocity components (want 3 per particle)");
  for (uint32_t i = 0; i < n; ++i) {
    const std::string who = "particle " + std::to_string(i);
    if (!finite(s.mass[i]) || !(s.mass[i] > 0)) bad(who + ": mass must be a positive number");
    for (uint32_t a = 0; a < 3; ++a) {
      const float x = s.pos[3 * i + a], v = s.vel[3 * i + a];
      if (!finite(x)) bad(who + ": position " + axis(a) + " is not finite");
      if (x < 0 || x > p.box[a])
        bad(who + ": position " + axis(a) + " = " + std::to_string(x) + " is outside the box [0, " + std::to_string(p.box[a]) + "]");
      if (!finite(v)) bad(who + ": velocity " + axis(a) + " is not finite");
    }
  }
}

Scenario lj_gas(uint32_t n, float density, float temperature, float dt, uint32_t seed) {
  if (n == 0 || !(density > 0) || !(temperature >= 0)) bad("lj_gas needs n > 0, density > 0, temperature >= 0");
  Scenario sc;
  const float L = float(std::cbrt(double(n) / density));
  sc.config.params.model = Model::LennardJones;
  sc.config.params.box = {L, L, L};
  sc.config.params.cutoff = 2.5f;
  sc.config.params.dt = dt;
  const uint32_t m = uint32_t(std::ceil(std::cbrt(double(n)) - 1e-9));
  const double a = double(L) / m;
  State& s = sc.state;
  s.mass.assign(n, 1.0f);
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t ix = i % m, iy = (i / m) % m, iz = i / (m * m);
    s.pos.insert(s.pos.end(), {float((ix + 0.5) * a), float((iy + 0.5) * a), float((iz + 0.5) * a)});
  }
  Rng rng{seed};
  thermal_velocities(s, temperature, {0, 0, 0}, rng);
  return sc;
}

Scenario lj_cluster(uint32_t n, float temperature, std::array<float, 3> drift, float margin, float dt, uint32_t seed) {
  if (n == 0 || !(margin >= 0)) bad("lj_cluster needs n > 0 and margin >= 0");
  Scenario sc;
  const uint32_t m = uint32_t(std::ceil(std::cbrt(double(n)) - 1e-9));
  const double a = 1.12;  // about the pair potential's minimum, 2^(1/6) sigma
  const float L = float(m * a + 2 * margin);
  sc.config.params.box = {L, L, L};
  sc.config.params.dt = dt;
  State& s = sc.state;
  s.mass.assign(n, 1.0f);
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t ix = i % m, iy = (i / m) % m, iz = i / (m * m);
    s.pos.insert(s.pos.end(), {float(margin + (ix + 0.5) * a), float(margin + (iy + 0.5) * a), float(margin + (iz + 0.5) * a)});
  }
  Rng rng{seed};
  thermal_velocities(s, temperature, drift, rng);
  return sc;
}

Scenario dam_break(uint32_t n, float dt, uint32_t seed) {
  if (n == 0) bad("dam_break needs n > 0");
  Scenario sc;
  Params& p = sc.config.params;
  p.model = Model::Sph;
  p.cutoff = 1.0f;  // h
  const double s = 0.5;  // lattice spacing h / 2
  // A column twice as tall as it is wide and deep: nx * (2 nx) * nx >= n.
  const uint32_t nx = uint32_t(std::ceil(std::cbrt(n / 2.0) - 1e-9)), ny = 2 * nx, nz = nx;
  const double wx = nx * s, wy = ny * s, wz = nz * s;
  p.box = {float(4 * wx), float(1.25 * wy), float(wz)};
  p.gravity = {0.0f, -1.0f, 0.0f};
  // Sound speed c = sqrt(stiffness) about 10x the fastest flow sqrt(2 g H): weakly compressible.
  p.stiffness = float(100.0 * 2.0 * wy);
  p.viscosity = 0.05f;
  p.restitution = 0.5f;
  p.dt = dt;
  // Rest density: the poly6 sum of an interior particle of the lattice (unit masses), so the
  // column starts at rest pressure.
  double rho = 0;
  for (int i = -2; i <= 2; ++i)
    for (int j = -2; j <= 2; ++j)
      for (int k = -2; k <= 2; ++k) {
        const double r2 = (i * i + j * j + k * k) * s * s;
        if (r2 < 1.0) rho += 315.0 / (64.0 * std::numbers::pi) * std::pow(1.0 - r2, 3);
      }
  p.rest_density = float(rho);
  State& st = sc.state;
  st.mass.assign(n, 1.0f);
  st.vel.assign(size_t(n) * 3, 0.0f);
  Rng rng{seed};
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t ix = i % nx, iz = (i / nx) % nz, iy = i / (nx * nz);
    const double j = 0.02 * s;  // jitter breaks the lattice's symmetry
    st.pos.insert(st.pos.end(), {float((ix + 0.5) * s + j * (rng.uniform() - 0.5)), float((iy + 0.5) * s + j * (rng.uniform() - 0.5)),
                                 float((iz + 0.5) * s + j * (rng.uniform() - 0.5))});
  }
  (void)wz;
  return sc;
}

}  // namespace weft::physics

namespace weft::physics {

Derived derive(const Params& p) {
  Derived d;
  d.grid = grid_shape(p);
  for (int a = 0; a < 3; ++a) d.inv_cell[a] = float(d.grid[a]) / p.box[a];
  d.cutoff2 = p.cutoff * p.cutoff;
  d.sigma2 = p.sigma * p.sigma;
  const float ic = d.sigma2 / d.cutoff2, s6 = ic * ic * ic;
  d.shift = 4.0f * p.epsilon * s6 * (s6 - 1.0f);
  d.force_cut = 24.0f * p.epsilon * s6 * (2.0f * s6 - 1.0f) / p.cutoff;
  const double h = p.cutoff;
  d.poly6 = float(315.0 / (64.0 * std::numbers::pi * std::pow(h, 9)));
  d.spiky = float(45.0 / (std::numbers::pi * std::pow(h, 6)));
  return d;
}

}  // namespace weft::physics
