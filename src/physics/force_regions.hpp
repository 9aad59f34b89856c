// Force regions: a user acceleration a inside a region, f_c += a_c on every free face whose
// centre lies inside it (jobs/README.md "forces.regions"); overlapping regions add, in job order.
// Each acts while its time profile says so, scaled and moved by it (job.hpp TimeProfile).
#pragma once

#include <vector>

#include "force.hpp"
#include "job.hpp"

namespace sf {

class ForceRegions : public Force {
public:
  ForceRegions(const Grid& grid, std::vector<ForceRegion> regions)
      : grid_(grid), regions_(std::move(regions)) {}
  PetscErrorCode add_to(const ForceState& state, const ArrayView& u) override;
  const char* event_name() const override { return "ForceRegions"; }

private:
  const Grid& grid_;
  std::vector<ForceRegion> regions_;
  struct Placed {
    Region region;
    std::array<double, 3> acceleration;
  };
  std::vector<Placed> now_;  // regions_ as they act in the current step
};

}  // namespace sf
