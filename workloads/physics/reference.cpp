// CPU reference: the device chain in f32 with the device's summation order, energies in double,
// the same rules. Every arithmetic expression below is written in the order its kernel writes
// it (shaders/*.comp), so the only differences left are the device's fused multiply-adds.
#include <algorithm>
#include <cmath>

#include "physics.h"

namespace weft::physics {

namespace {

struct Vec {
  float x, y, z;
  float& operator[](int a) { return a == 0 ? x : a == 1 ? y : z; }
  float operator[](int a) const { return a == 0 ? x : a == 1 ? y : z; }
};

Vec get(const std::vector<float>& v, uint32_t i) { return {v[3 * i], v[3 * i + 1], v[3 * i + 2]}; }
void put(std::vector<float>& v, uint32_t i, Vec x) {
  v[3 * i] = x.x;
  v[3 * i + 1] = x.y;
  v[3 * i + 2] = x.z;
}
Vec acc3(const std::vector<float>& acc, uint32_t i) { return {acc[4 * i], acc[4 * i + 1], acc[4 * i + 2]}; }

// GLSL clamp(x, lo, hi) = min(max(x, lo), hi).
float gclamp(float x, float lo, float hi) { return std::min(std::max(x, lo), hi); }

// Speed maximum that lets a NaN win, as reduce.comp does.
double nan_max(double a, double b) { return (std::isnan(b) || b > a) ? b : a; }

}  // namespace

Reference::Reference(const Config& config, const State& state) : cfg_(config), state_(state) {
  validate(config, state);
  const uint32_t n = state.count();
  acc_.assign(size_t(n) * 4, 0.0f);
  flags_.assign(n, 0);
  density_.assign(size_t(n) * 2, 0.0f);
  grid_ = grid_shape(cfg_.params);
  dt_ = cfg_.params.dt;
  build_grid();
  compute_forces();
  initial_ = measure(false);
}

void Reference::build_grid() {
  const Derived d = derive(cfg_.params);
  const uint32_t n = state_.count();
  const uint64_t cells = d.cells();
  count_.assign(cells, 0);
  start_.assign(cells, 0);
  std::vector<uint32_t> cell(n);
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t c[3];
    for (int a = 0; a < 3; ++a) {
      const float f = std::floor(state_.pos[3 * i + a] * d.inv_cell[a]);
      const float cf = gclamp(f, 0.0f, float(d.grid[a] - 1));
      c[a] = std::isnan(cf) ? 0u : uint32_t(cf);
    }
    cell[i] = (c[2] * d.grid[1] + c[1]) * d.grid[0] + c[0];
    ++count_[cell[i]];
  }
  uint32_t run = 0;
  for (uint64_t c = 0; c < cells; ++c) {
    start_[c] = run;
    run += count_[c];
  }
  // Filling in ascending particle order leaves every cell sorted by index, as cell_sort does.
  std::vector<uint32_t> cursor(start_);
  sorted_.assign(n, 0);
  for (uint32_t i = 0; i < n; ++i) sorted_[cursor[cell[i]]++] = i;
}

void Reference::compute_forces() {
  const Params& p = cfg_.params;
  const Derived d = derive(p);
  const uint32_t n = state_.count();
  const int gx = int(d.grid[0]), gy = int(d.grid[1]), gz = int(d.grid[2]);
  auto cell_of = [&](const Vec& x, int* c) {
    for (int a = 0; a < 3; ++a) {
      const float f = std::floor(x[a] * d.inv_cell[a]);
      const float cf = gclamp(f, 0.0f, float(d.grid[a] - 1));
      c[a] = std::isnan(cf) ? 0 : int(cf);
    }
  };
  // Calls visit(j) for the neighbour candidates of a particle at x, in the kernels' order.
  auto for_each_neighbour = [&](const Vec& x, auto&& visit) {
    int c[3];
    cell_of(x, c);
    for (int dz = -1; dz <= 1; ++dz)
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          const int nx = c[0] + dx, ny = c[1] + dy, nz = c[2] + dz;
          if (nx < 0 || ny < 0 || nz < 0 || nx >= gx || ny >= gy || nz >= gz) continue;
          const uint32_t cell = (uint32_t(nz) * d.grid[1] + uint32_t(ny)) * d.grid[0] + uint32_t(nx);
          for (uint32_t k = 0; k < count_[cell]; ++k) visit(sorted_[start_[cell] + k]);
        }
  };

  if (p.model == Model::LennardJones) {
    const float rc2 = d.cutoff2, eps = p.epsilon, sigma2 = d.sigma2, shift = d.shift, rc = p.cutoff, fc = d.force_cut;
    for (uint32_t i = 0; i < n; ++i) {
      const Vec pi = get(state_.pos, i);
      Vec f{0, 0, 0};
      float pe = 0.0f;
      for_each_neighbour(pi, [&](uint32_t j) {
        if (j == i) return;
        const Vec pj = get(state_.pos, j);
        const Vec dv{pi.x - pj.x, pi.y - pj.y, pi.z - pj.z};
        const float r2 = dv.x * dv.x + dv.y * dv.y + dv.z * dv.z;
        if (r2 >= rc2) return;
        const float inv2 = sigma2 / r2;
        const float s6 = inv2 * inv2 * inv2;
        const float r = std::sqrt(r2);
        const float fr = 24.0f * eps * s6 * (2.0f * s6 - 1.0f) / r2 - fc / r;
        for (int a = 0; a < 3; ++a) f[a] += fr * dv[a];
        pe += 0.5f * (4.0f * eps * s6 * (s6 - 1.0f) - shift + (r - rc) * fc);
      });
      const float m = state_.mass[i];
      for (int a = 0; a < 3; ++a) acc_[4 * i + a] = f[a] / m;
      acc_[4 * i + 3] = pe;
    }
    return;
  }

  // SPH: density and pressure, then forces (density_sph.comp, forces_sph.comp).
  const float h2 = d.cutoff2, h = p.cutoff, poly6 = d.poly6, spiky = d.spiky, mu = p.viscosity;
  for (uint32_t i = 0; i < n; ++i) {
    const Vec pi = get(state_.pos, i);
    float rho = 0.0f;
    for_each_neighbour(pi, [&](uint32_t j) {
      const Vec pj = get(state_.pos, j);
      const Vec dv{pi.x - pj.x, pi.y - pj.y, pi.z - pj.z};
      const float r2 = dv.x * dv.x + dv.y * dv.y + dv.z * dv.z;
      if (r2 >= h2) return;
      const float w = h2 - r2;
      rho += state_.mass[j] * poly6 * (w * w * w);
    });
    density_[2 * i] = rho;
    density_[2 * i + 1] = p.stiffness * std::max(rho - p.rest_density, 0.0f);
  }
  for (uint32_t i = 0; i < n; ++i) {
    const Vec pi = get(state_.pos, i), vi = get(state_.vel, i);
    const float rho_i = density_[2 * i], p_i = density_[2 * i + 1];
    Vec f{0, 0, 0};
    for_each_neighbour(pi, [&](uint32_t j) {
      if (j == i) return;
      const Vec pj = get(state_.pos, j);
      const Vec dv{pi.x - pj.x, pi.y - pj.y, pi.z - pj.z};
      const float r2 = dv.x * dv.x + dv.y * dv.y + dv.z * dv.z;
      if (r2 >= h2 || r2 == 0.0f) return;
      const float r = std::sqrt(r2), w = h - r;
      const float rho_j = density_[2 * j], p_j = density_[2 * j + 1], m_j = state_.mass[j];
      const float sp = m_j * (p_i + p_j) / (2.0f * rho_j) * spiky * w * w / r;
      for (int a = 0; a < 3; ++a) f[a] += sp * dv[a];
      const float sv = mu * m_j / rho_j * spiky * w;
      const Vec vj = get(state_.vel, j);
      for (int a = 0; a < 3; ++a) f[a] += sv * (vj[a] - vi[a]);
    });
    for (int a = 0; a < 3; ++a) acc_[4 * i + a] = f[a] / rho_i + p.gravity[a];
    const float gx_ = p.gravity[0] * pi.x + p.gravity[1] * pi.y + p.gravity[2] * pi.z;
    acc_[4 * i + 3] = -state_.mass[i] * gx_;
  }
}

StepRecord Reference::measure(bool count_step) {
  const uint32_t n = state_.count();
  StepRecord r;
  double k = 0, u = 0, vmax = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const Vec v = get(state_.vel, i);
    const double m = state_.mass[i], v2 = double(v.x) * v.x + double(v.y) * v.y + double(v.z) * v.z;
    k += 0.5 * m * v2;
    u += acc_[4 * i + 3];
    for (int a = 0; a < 3; ++a) r.momentum[a] += m * v[a];
    vmax = nan_max(vmax, std::sqrt(v2));
    if (flags_[i] & (PHYS_FLAG_OUTSIDE | PHYS_FLAG_NONFINITE)) ++r.violations;
    if (flags_[i] & PHYS_FLAG_WALL) ++r.wall_hits;
  }
  const double e = k + u;
  if (!have_e0_) {
    have_e0_ = true;
    e0_ = eref_ = e;
    scale0_ = scale_ = k + std::fabs(u);
    dt_seen_ = dt_;
  } else if (dt_seen_ != dt_) {
    eref_ = e;
    scale_ = k + std::fabs(u);
    dt_seen_ = dt_;
  }
  if (count_step) ++steps_;
  r.step = steps_;
  r.energy = e;
  r.kinetic = k;
  r.potential = u;
  r.drift = std::fabs(e - eref_) / std::max(std::fabs(eref_), 1e-3 * scale_);
  r.drift0 = std::fabs(e - e0_) / std::max(std::fabs(e0_), 1e-3 * scale0_);
  r.max_speed = vmax;
  r.dt = dt_;
  r.status = r.violations ? WEFT_STATUS_ATTENTION : WEFT_STATUS_OK;
  return r;
}

StepRecord Reference::step() {
  const Params& p = cfg_.params;
  const uint32_t n = state_.count();
  const float dt = dt_, half = 0.5f * dt;
  for (uint32_t i = 0; i < n; ++i) {  // kick_drift
    const Vec a = acc3(acc_, i);
    Vec v = get(state_.vel, i), x = get(state_.pos, i);
    for (int c = 0; c < 3; ++c) v[c] = v[c] + half * a[c];
    for (int c = 0; c < 3; ++c) x[c] = x[c] + dt * v[c];
    put(state_.vel, i, v);
    put(state_.pos, i, x);
  }
  for (uint32_t i = 0; i < n; ++i) {  // collide, then constrain
    Vec x = get(state_.pos, i), v = get(state_.vel, i);
    uint32_t fl = 0;
    for (int a = 0; a < 3; ++a) {
      if (x[a] < 0.0f) {
        x[a] = -x[a];
        v[a] = -p.restitution * v[a];
        fl |= PHYS_FLAG_WALL;
      } else if (x[a] > p.box[a]) {
        x[a] = 2.0f * p.box[a] - x[a];
        v[a] = -p.restitution * v[a];
        fl |= PHYS_FLAG_WALL;
      }
    }
    bool finite = true, outside = false;
    for (int a = 0; a < 3; ++a) {
      finite = finite && std::isfinite(x[a]) && std::isfinite(v[a]);
      outside = outside || x[a] < 0.0f || x[a] > p.box[a];
    }
    if (!finite) {
      fl |= PHYS_FLAG_NONFINITE;
    } else if (outside) {
      for (int a = 0; a < 3; ++a) {
        x[a] = gclamp(x[a], 0.0f, p.box[a]);
        v[a] = 0.0f;
      }
      fl |= PHYS_FLAG_OUTSIDE;
    }
    put(state_.pos, i, x);
    put(state_.vel, i, v);
    flags_[i] = fl;
  }
  build_grid();
  compute_forces();
  for (uint32_t i = 0; i < n; ++i) {  // kick
    const Vec a = acc3(acc_, i);
    Vec v = get(state_.vel, i);
    for (int c = 0; c < 3; ++c) v[c] = v[c] + half * a[c];
    put(state_.vel, i, v);
  }
  StepRecord r = measure(true);
  // The rules, as the regulator applies them after the energy stage.
  const Rules& rules = cfg_.rules;
  if (rules.drift_bound && !(r.drift >= 0 && r.drift <= *rules.drift_bound)) {
    dt_ = gclamp(dt_ * rules.dt_factor, rules.dt_min, p.dt);
    r.dt_rule_fired = true;
  }
  if (rules.runaway_speed && !(r.max_speed >= 0 && r.max_speed <= *rules.runaway_speed)) {
    r.status = WEFT_STATUS_ANOMALY;
    r.runaway_rule_fired = true;
  }
  return r;
}

}  // namespace weft::physics
