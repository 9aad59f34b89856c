// Which rank owns the cell that holds a point: what a particle swarm (DMSwarm, basic type) is
// told before it migrates, for the marker particles of the level set and for spray and foam.
#pragma once

#include <petscdmda.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

#include "grid.hpp"

namespace sf {

class CellOwners {
public:
  /// The cell DMDA's process grid and ownership ranges. Local.
  PetscErrorCode setup(const Grid& grid) {
    PetscFunctionBeginUser;
    grid_ = &grid;
    const PetscInt* ranges[3] = {nullptr, nullptr, nullptr};
    PetscCall(DMDAGetInfo(grid.cell_dm(), nullptr, nullptr, nullptr, nullptr, &processes_[0],
                          &processes_[1], &processes_[2], nullptr, nullptr, nullptr, nullptr,
                          nullptr, nullptr));
    PetscCall(DMDAGetOwnershipRanges(grid.cell_dm(), &ranges[0], &ranges[1], &ranges[2]));
    for (int a = 0; a < 3; ++a) {
      starts_[a].assign(1, 0);
      for (PetscInt p = 0; p < processes_[a]; ++p)
        starts_[a].push_back(starts_[a].back() + (a < grid.dim() ? ranges[a][p] : 1));
    }
    PetscFunctionReturn(0);
  }

  /// The rank owning the cell that holds point x (clamped into the domain).
  PetscMPIInt owner(const double x[3]) const {
    const Grid& grid = *grid_;
    PetscInt process[3] = {0, 0, 0};
    for (int a = 0; a < grid.dim(); ++a) {
      const PetscInt cell = std::clamp<PetscInt>(
          static_cast<PetscInt>(std::floor((x[a] - grid.origin(a)) / grid.spacing(a))), 0,
          grid.cells(a) - 1);
      process[a] = static_cast<PetscInt>(
          std::upper_bound(starts_[a].begin(), starts_[a].end(), cell) - starts_[a].begin() - 1);
    }
    return static_cast<PetscMPIInt>(process[0] +
                                    processes_[0] * (process[1] + processes_[1] * process[2]));
  }

private:
  const Grid* grid_ = nullptr;
  std::array<std::vector<PetscInt>, 3> starts_;  // first cell of each process, per axis
  std::array<PetscInt, 3> processes_{1, 1, 1};
};

/// SplitMix64's finaliser: a well-mixed 64-bit hash of a 64-bit key. Particles draw their
/// random numbers from hashes of what they are (a cell, a step, an id), so that the same
/// particles come out on any rank count.
inline std::uint64_t mix_bits(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/// A uniform number in [0, 1) drawn from `key`.
inline double uniform_from(std::uint64_t key) {
  return static_cast<double>(mix_bits(key) >> 11) * 0x1.0p-53;
}

}  // namespace sf
