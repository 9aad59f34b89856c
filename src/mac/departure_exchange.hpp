// On-demand evaluation of departure points that lie outside a rank's halo (docs/design.md,
// "Distribution"; the pattern of ECMWF's IFS semi-Lagrangian scheme). A rank that cannot
// interpolate at a point sends the point to the rank owning the cell that contains it; the owner
// interpolates there, from its own halo-filled arrays, and sends the values back. Because the
// owner runs the same interpolation on the same canonical point, the answer is bit-identical to
// what the asking rank would have computed had it held the stencil, so results do not depend on
// the rank count, and no time step is too large.
//
// Communication is sparse: the ranks that will send to each rank are discovered with PETSc's
// PetscCommBuildTwoSided (a non-blocking consensus, no all-to-all of counts), then points and
// replies travel in one point-to-point message per pair of ranks.
#pragma once

#include <functional>
#include <vector>

#include "grid.hpp"

namespace sf {

/// A point to evaluate on another rank. `kind` tells the answering rank what to interpolate
/// there; its meaning is private to the caller (see src/physics/semi_lagrangian.cpp).
struct RemoteQuery {
  double x[3];
  int kind;
  PetscMPIInt owner;
};

class DepartureExchange {
public:
  DepartureExchange() = default;
  ~DepartureExchange();
  DepartureExchange(const DepartureExchange&) = delete;
  DepartureExchange& operator=(const DepartureExchange&) = delete;

  /// Every reply carries `reply_width` values. Collective.
  PetscErrorCode setup(const Grid& grid, int reply_width);

  /// The rank owning the cell that contains the canonical point x.
  PetscMPIInt owner(const double x[3]) const;

  /// Signature of the owner's evaluation: point, kind, and reply_width values to fill.
  /// Returns false if the point could not be evaluated (a bug: the owner always holds it).
  using Answer = std::function<bool(const double x[3], int kind, double* values)>;

  /// Sends every query to its owner, answers the queries other ranks send here with `answer`,
  /// and stores reply_width values per query, in query order, in `replies`. `failures` counts
  /// the queries this rank could not answer. Collective: every rank calls it, with or without
  /// queries of its own.
  PetscErrorCode resolve(const std::vector<RemoteQuery>& queries, const Answer& answer,
                         std::vector<double>* replies, PetscInt* failures);

  int reply_width() const { return width_; }

private:
  const Grid* grid_ = nullptr;
  MPI_Comm comm_ = MPI_COMM_NULL;  // PETSc's inner duplicate: our tags cannot collide
  PetscMPIInt query_tag_ = 0, reply_tag_ = 0;
  int width_ = 1;
  std::array<std::vector<PetscInt>, 3> starts_;  // first cell of each process slab, per axis
};

}  // namespace sf
