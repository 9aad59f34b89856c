// Floating bodies: their mass from the cells they cover, their motion over a step, their state
// in a checkpoint (the coupling with the liquid is in free_surface_projection.cpp).
#include "floating_bodies.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "error_codes.hpp"
#include "vec_array.hpp"

namespace sf {

namespace {

using Matrix3 = std::array<double, 9>;
using Vector3 = std::array<double, 3>;

Matrix3 multiply(const Matrix3& a, const Matrix3& b) {
  Matrix3 c{};
  for (int r = 0; r < 3; ++r)
    for (int k = 0; k < 3; ++k)
      for (int q = 0; q < 3; ++q) c[3 * r + q] += a[3 * r + k] * b[3 * k + q];
  return c;
}

Matrix3 transpose(const Matrix3& a) {
  Matrix3 t{};
  for (int r = 0; r < 3; ++r)
    for (int q = 0; q < 3; ++q) t[3 * r + q] = a[3 * q + r];
  return t;
}

Vector3 matrix_times(const Matrix3& a, const Vector3& x) {
  Vector3 y{};
  for (int r = 0; r < 3; ++r) y[r] = a[3 * r] * x[0] + a[3 * r + 1] * x[1] + a[3 * r + 2] * x[2];
  return y;
}

Vector3 cross_product(const Vector3& a, const Vector3& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}

/// The rotation by the angle |w| about w / |w| (Rodrigues' formula); the identity for w = 0.
Matrix3 rotation_by(const Vector3& w) {
  const double angle = std::sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
  Matrix3 r{1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0};
  if (angle == 0.0) return r;
  const Vector3 n{w[0] / angle, w[1] / angle, w[2] / angle};
  const double c = std::cos(angle), s = std::sin(angle);
  const Matrix3 k{0.0, -n[2], n[1], n[2], 0.0, -n[0], -n[1], n[0], 0.0};
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b)
      r[3 * a + b] = c * (a == b ? 1.0 : 0.0) + s * k[3 * a + b] + (1.0 - c) * n[a] * n[b];
  return r;
}

}  // namespace

bool invert_free_part(const bool free[FloatingBodies::kDofs], const double* m, double* inverse) {
  constexpr int kDofs = FloatingBodies::kDofs;
  int index[kDofs];
  int n = 0;
  for (int d = 0; d < kDofs; ++d)
    if (free[d]) index[n++] = d;
  for (int d = 0; d < kDofs * kDofs; ++d) inverse[d] = 0.0;
  // Cholesky of the free part, L L^T, then its inverse column by column.
  double l[kDofs][kDofs] = {};
  for (int r = 0; r < n; ++r)
    for (int c = 0; c <= r; ++c) {
      double sum = m[index[r] * kDofs + index[c]];
      for (int k = 0; k < c; ++k) sum -= l[r][k] * l[c][k];
      if (r == c) {
        if (!(sum > 0.0)) return false;
        l[r][r] = std::sqrt(sum);
      } else {
        l[r][c] = sum / l[c][c];
      }
    }
  for (int column = 0; column < n; ++column) {
    double y[kDofs] = {};
    for (int r = 0; r < n; ++r) {
      double sum = r == column ? 1.0 : 0.0;
      for (int k = 0; k < r; ++k) sum -= l[r][k] * y[k];
      y[r] = sum / l[r][r];
    }
    for (int r = n - 1; r >= 0; --r) {
      double sum = y[r];
      for (int k = r + 1; k < n; ++k) sum -= l[k][r] * y[k];
      y[r] = sum / l[r][r];
    }
    for (int r = 0; r < n; ++r) inverse[index[r] * kDofs + index[column]] = y[r];
  }
  return true;
}

PetscErrorCode FloatingBodies::setup(const Grid& grid, SolidMask& solids,
                                     const std::array<double, 3>& gravity) {
  PetscFunctionBeginUser;
  grid_ = &grid;
  solids_ = &solids;
  gravity_ = gravity;
  bodies_.clear();
  const std::vector<ObstacleConfig>& obstacles = solids.obstacles();
  body_of_.assign(obstacles.size(), -1);
  for (size_t n = 0; n < obstacles.size(); ++n) {
    if (!obstacles[n].floating.enabled) continue;
    body_of_[n] = static_cast<int>(bodies_.size());
    Body body;
    body.obstacle = n;
    body.density = obstacles[n].floating.density;
    body.turns = obstacles[n].floating.turns;
    bodies_.push_back(body);
  }
  if (bodies_.empty()) PetscFunctionReturn(0);
  for (int a = 0; a < grid.dim(); ++a)
    PetscCheck(!grid.periodic(a), grid.comm(), PETSC_ERR_SUP,
               "floating bodies in a domain with periodic axes are not supported yet");

  // Per body: the cells it covers, the sums of their centres and of the products of their
  // centres' coordinates (the second moments), over all ranks.
  const size_t count = bodies_.size();
  constexpr int kSums = 1 + 3 + 9;
  std::vector<double> local(count * kSums, 0.0), sums(count * kSums, 0.0);
  const int dim = grid.dim();
  for_each_index(grid.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
    if (!solids.solid(i, j, k)) return;
    const int b = body_of_obstacle(solids.obstacle_of_cell(i, j, k));
    if (b < 0) return;
    const PetscInt at[3] = {i, j, k};
    double x[3] = {0.0, 0.0, 0.0};
    for (int a = 0; a < dim; ++a) x[a] = grid.cell_center(a, at[a]);
    double* s = &local[static_cast<size_t>(b) * kSums];
    s[0] += 1.0;
    for (int a = 0; a < 3; ++a) {
      s[1 + a] += x[a];
      for (int c = 0; c < 3; ++c) s[4 + 3 * a + c] += x[a] * x[c];
    }
  });
  PetscCallMPI(MPI_Allreduce(local.data(), sums.data(), static_cast<int>(local.size()),
                             MPI_DOUBLE, MPI_SUM, grid.comm()));
  // A 2-D cell is a column of unit depth.
  double cell_volume = 1.0, own[3] = {0.0, 0.0, 0.0};
  for (int a = 0; a < dim; ++a) {
    cell_volume *= grid.spacing(a);
    own[a] = grid.spacing(a) * grid.spacing(a) / 12.0;  // a cell's own second moment per axis
  }
  for (size_t b = 0; b < count; ++b) {
    Body& body = bodies_[b];
    const double* s = &sums[b * kSums];
    PetscCheck(s[0] > 0.0, grid.comm(), kErrorBadJob,
               "floating obstacle %zu covers no cell centre: it is too small for the grid",
               body.obstacle);
    const double cells = s[0];
    body.mass = body.density * cells * cell_volume;
    Vector3 centre{};
    for (int a = 0; a < 3; ++a) centre[a] = s[1 + a] / cells;
    // The second moments about the centre, then I = rho V (tr(S) 1 - S).
    double moment[9];
    for (int a = 0; a < 3; ++a)
      for (int c = 0; c < 3; ++c)
        moment[3 * a + c] = (s[4 + 3 * a + c] - cells * centre[a] * centre[c] +
                             (a == c ? cells * own[a] : 0.0)) *
                            body.density * cell_volume;
    const double trace = moment[0] + moment[4] + moment[8];
    for (int a = 0; a < 3; ++a)
      for (int c = 0; c < 3; ++c)
        body.inertia[3 * a + c] = (a == c ? trace : 0.0) - moment[3 * a + c];
    const ObstacleConfig::Floating& f = solids.obstacles()[body.obstacle].floating;
    body.pose.position = body.pose.start = centre;
    body.pose.velocity = f.velocity;
    body.pose.omega = f.angular_velocity;
    solids.set_pose(body.obstacle, body.pose);
  }
  PetscFunctionReturn(0);
}

bool FloatingBodies::free(size_t b, int d) const {
  if (d >= 3 && !bodies_[b].turns) return false;
  if (grid_->dim() == 3) return true;
  return d == 0 || d == 1 || d == 5;
}

void FloatingBodies::advance(double dt) {
  for (Body& body : bodies_) {
    SolidMask::Pose& pose = body.pose;
    for (int a = 0; a < 3; ++a) pose.position[a] += dt * pose.velocity[a];
    if (body.turns)
      pose.rotation = multiply(
          rotation_by({dt * pose.omega[0], dt * pose.omega[1], dt * pose.omega[2]}),
          pose.rotation);
    solids_->set_pose(body.obstacle, pose);
  }
}

void FloatingBodies::mass_matrix(size_t b, double m[kDofs * kDofs]) const {
  const Body& body = bodies_[b];
  for (int d = 0; d < kDofs * kDofs; ++d) m[d] = 0.0;
  for (int a = 0; a < 3; ++a) m[a * kDofs + a] = body.mass;
  // R I R^T: the inertia turned with the body.
  const Matrix3 inertia =
      multiply(multiply(body.pose.rotation, body.inertia), transpose(body.pose.rotation));
  for (int a = 0; a < 3; ++a)
    for (int c = 0; c < 3; ++c) m[(3 + a) * kDofs + 3 + c] = inertia[3 * a + c];
}

void FloatingBodies::accelerate(double dt) {
  for (size_t b = 0; b < bodies_.size(); ++b) {
    Body& body = bodies_[b];
    SolidMask::Pose& pose = body.pose;
    for (int a = 0; a < 3; ++a) pose.velocity[a] += dt * gravity_[a];
    if (body.turns && grid_->dim() == 3) {
      // I omega' = -omega x I omega (the body's own inertia: the liquid's part is the
      // projection's).
      const Matrix3 inertia =
          multiply(multiply(pose.rotation, body.inertia), transpose(pose.rotation));
      double m[kDofs * kDofs], inverse[kDofs * kDofs];
      mass_matrix(b, m);
      bool all[kDofs] = {false, false, false, true, true, true};
      if (invert_free_part(all, m, inverse)) {
        const Vector3 torque = cross_product(matrix_times(inertia, pose.omega), pose.omega);
        for (int a = 0; a < 3; ++a)
          for (int c = 0; c < 3; ++c)
            pose.omega[a] += dt * inverse[(3 + a) * kDofs + 3 + c] * torque[c];
      }
    }
    solids_->set_body_velocity(body.obstacle, pose.velocity, pose.omega);
  }
}

PetscErrorCode FloatingBodies::drag(Field& velocity, const Field& phi, double viscosity,
                                    double dt) {
  PetscFunctionBeginUser;
  if (bodies_.empty() || viscosity == 0.0) PetscFunctionReturn(0);
  const Grid& grid = *grid_;
  const int dim = grid.dim();
  double cell_volume = 1.0;
  for (int a = 0; a < dim; ++a) cell_volume *= grid.spacing(a);
  PetscCall(velocity.fill_ghosts());
  ReadArray u, level;
  PetscCall(u.get_local(velocity));
  PetscCall(level.get_local(phi));
  // The body a prescribed face of component c at g belongs to (a no-slip floating one), or -1.
  const auto body_of_face = [&](int c, const PetscInt g[3], int* obstacle) {
    if (g[c] <= 0 || g[c] >= grid.cells(c)) return -1;  // a wall's face, or beyond
    for (int a = 0; a < dim; ++a)
      if (a != c && (g[a] < 0 || g[a] >= grid.cells(a))) return -1;
    if (!solids_->solid_face(c, g[0], g[1], g[2])) return -1;
    const PetscInt below[3] = {g[0] - (c == 0), g[1] - (c == 1), g[2] - (c == 2)};
    *obstacle = solids_->solid(g[0], g[1], g[2]) ? solids_->obstacle_of_cell(g[0], g[1], g[2])
                                                  : solids_->obstacle_of_cell(below[0], below[1],
                                                                              below[2]);
    const int b = body_of_obstacle(*obstacle);
    if (b < 0 || solids_->obstacles()[static_cast<size_t>(*obstacle)].boundary !=
                     BoundaryKind::NoSlip)
      return -1;
    return b;
  };
  // Per body, the implicit update (M + K) Q' = M Q + f: per coupled pair, with w = dt mu A / h
  // and j the free sample's generalised direction (e_c, r x e_c), K += w j j^T and f += w j u.
  constexpr int kSize = kDofs * kDofs + kDofs;
  std::vector<double> sums(bodies_.size() * kSize, 0.0);
  for (int c = 0; c < dim; ++c)
    for_each_index(grid.owned_faces(c), [&](PetscInt i, PetscInt j, PetscInt k) {
      if (solids_->fixed_face(c, i, j, k)) return;
      // Only the liquid's samples: the air's velocity is the liquid's carried out (it is set
      // again after the projection), not liquid that drags.
      const PetscInt lo[3] = {i - (c == 0), j - (c == 1), k - (c == 2)};
      if (!solids_->liquid(level, i, j, k) && !solids_->liquid(level, lo[0], lo[1], lo[2]))
        return;
      const PetscInt f[3] = {i, j, k};
      for (int a = 0; a < dim; ++a)
        for (const int step : {-1, 1}) {
          PetscInt g[3] = {i, j, k};
          g[a] += step;
          int obstacle = -1;
          const int b = body_of_face(c, g, &obstacle);
          if (b < 0) continue;
          const double weight = dt * viscosity * cell_volume / (grid.spacing(a) * grid.spacing(a));
          double x[3];
          solids_->face_center(c, f[0], f[1], f[2], x);
          const Vector3 r = solids_->arm(static_cast<size_t>(obstacle), x);
          double jf[kDofs] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
          jf[c] = 1.0;
          const int c1 = (c + 1) % 3, c2 = (c + 2) % 3;
          jf[3 + c1] = r[c2];  // r x e_c
          jf[3 + c2] = -r[c1];
          double* sum = &sums[static_cast<size_t>(b) * kSize];
          for (int d = 0; d < kDofs; ++d) {
            for (int e = 0; e < kDofs; ++e) sum[d * kDofs + e] += weight * jf[d] * jf[e];
            sum[kDofs * kDofs + d] += weight * jf[d] * u(i, j, k, c);
          }
        }
    });
  PetscCall(level.restore());
  PetscCall(u.restore());
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, sums.data(), static_cast<int>(sums.size()), MPI_DOUBLE,
                             MPI_SUM, grid.comm()));
  for (size_t b = 0; b < bodies_.size(); ++b) {
    const double* sum = &sums[b * kSize];
    double m[kDofs * kDofs], inverse[kDofs * kDofs], q[kDofs], rhs[kDofs];
    bool free_dofs[kDofs];
    for (int d = 0; d < kDofs; ++d) free_dofs[d] = free(b, d);
    mass_matrix(b, m);
    this->velocity(b, q);
    for (int d = 0; d < kDofs; ++d) {
      rhs[d] = sum[kDofs * kDofs + d];
      for (int e = 0; e < kDofs; ++e) rhs[d] += m[d * kDofs + e] * q[e];
    }
    for (int d = 0; d < kDofs * kDofs; ++d) m[d] += sum[d];
    PetscCheck(invert_free_part(free_dofs, m, inverse), grid.comm(), PETSC_ERR_PLIB,
               "the mass matrix of floating obstacle %zu is not positive definite",
               bodies_[b].obstacle);
    double updated[kDofs];
    for (int d = 0; d < kDofs; ++d) {
      updated[d] = free_dofs[d] ? 0.0 : q[d];
      if (!free_dofs[d]) continue;
      for (int e = 0; e < kDofs; ++e) updated[d] += inverse[d * kDofs + e] * rhs[e];
    }
    set_velocity(b, updated);
  }
  PetscFunctionReturn(0);
}

void FloatingBodies::set_velocity(size_t b, const double q[kDofs]) {
  Body& body = bodies_[b];
  for (int a = 0; a < 3; ++a) {
    body.pose.velocity[a] = q[a];
    body.pose.omega[a] = q[3 + a];
  }
  solids_->set_body_velocity(body.obstacle, body.pose.velocity, body.pose.omega);
}

void FloatingBodies::velocity(size_t b, double q[kDofs]) const {
  for (int a = 0; a < 3; ++a) {
    q[a] = bodies_[b].pose.velocity[a];
    q[3 + a] = bodies_[b].pose.omega[a];
  }
}

PetscErrorCode FloatingBodies::check_clear(bool at_start) const {
  PetscFunctionBeginUser;
  if (bodies_.empty()) PetscFunctionReturn(0);
  const Grid& grid = *grid_;
  // The least (body's obstacle, what it touches) over every cell of every rank, so that the
  // message is the same on any decomposition: what = 2 axis + side for a wall of the domain,
  // 6 + n for obstacle n.
  constexpr int kNothing = std::numeric_limits<int>::max();
  const int others = static_cast<int>(solids_->obstacles().size());
  int local = kNothing;
  for_each_index(grid.owned_cells(), [&](PetscInt i, PetscInt j, PetscInt k) {
    if (!solids_->solid(i, j, k)) return;
    const int n = solids_->obstacle_of_cell(i, j, k);
    if (body_of_obstacle(n) < 0) return;
    const PetscInt at[3] = {i, j, k};
    for (int a = 0; a < grid.dim(); ++a)
      for (int side = 0; side < 2; ++side) {
        PetscInt next[3] = {i, j, k};
        next[a] += side == 0 ? -1 : 1;
        int what = -1;
        if (at[a] == (side == 0 ? 0 : grid.cells(a) - 1)) {
          what = 2 * a + side;
        } else if (solids_->solid(next[0], next[1], next[2])) {
          const int other = solids_->obstacle_of_cell(next[0], next[1], next[2]);
          if (other != n) what = 6 + other;
        }
        if (what >= 0) local = std::min(local, n * (6 + others) + what);
      }
  });
  int first = kNothing;
  PetscCallMPI(MPI_Allreduce(&local, &first, 1, MPI_INT, MPI_MIN, grid.comm()));
  if (first == kNothing) PetscFunctionReturn(0);
  static const char* const kSides[3][2] = {{"x lower", "x upper"}, {"y lower", "y upper"},
                                           {"z lower", "z upper"}};
  const int body = first / (6 + others), what = first % (6 + others);
  // Exit status 2 says the job cannot run as given, found before the first step; a contact the
  // bodies' motion led to is a failure of the run (status 1), as a NaN would be.
  const PetscErrorCode code = at_start ? kErrorBadJob : PETSC_ERR_SUP;
  const char* verb = at_start ? "starts next to" : "reached";
  if (what < 6)
    SETERRQ(grid.comm(), code,
            "floating obstacle %d %s the %s side of the domain: contact is not modelled "
            "(give the body more room%s)",
            body, verb, kSides[what / 2][what % 2], at_start ? "" : ", or a shorter end time");
  SETERRQ(grid.comm(), code,
          "floating obstacle %d %s obstacle %d: contact is not modelled (give the body more "
          "room%s)",
          body, verb, what - 6, at_start ? "" : ", or a shorter end time");
}

std::vector<double> FloatingBodies::state() const {
  std::vector<double> values;
  for (const Body& body : bodies_) {
    const SolidMask::Pose& p = body.pose;
    values.insert(values.end(), p.position.begin(), p.position.end());
    values.insert(values.end(), p.rotation.begin(), p.rotation.end());
    values.insert(values.end(), p.velocity.begin(), p.velocity.end());
    values.insert(values.end(), p.omega.begin(), p.omega.end());
  }
  return values;
}

PetscErrorCode FloatingBodies::restore(const std::vector<double>& values) {
  PetscFunctionBeginUser;
  PetscCheck(values.size() == bodies_.size() * kStateSize, PETSC_COMM_SELF, kErrorBadJob,
             "the checkpoint holds %zu numbers of floating bodies, the job's %zu bodies need %zu",
             values.size(), bodies_.size(), bodies_.size() * kStateSize);
  const double* v = values.data();
  for (Body& body : bodies_) {
    SolidMask::Pose& p = body.pose;
    for (int a = 0; a < 3; ++a) p.position[a] = *v++;
    for (int a = 0; a < 9; ++a) p.rotation[a] = *v++;
    for (int a = 0; a < 3; ++a) p.velocity[a] = *v++;
    for (int a = 0; a < 3; ++a) p.omega[a] = *v++;
    solids_->set_pose(body.obstacle, p);
  }
  PetscFunctionReturn(0);
}

}  // namespace sf
