// Filling the Catalyst channels from the solver's fields (see catalyst_channel.hpp).
#include "catalyst_channel.hpp"

#include <vtkCellData.h>
#include <vtkDataSetAttributes.h>
#include <vtkUnsignedCharArray.h>

#include "frame_writer.hpp"

namespace sf {

PetscErrorCode Channel::lay_out(const Grid& g, const SolidMask& solids,
                                const std::vector<std::string>& scalar_names,
                                bool with_ghosts) {
  PetscFunctionBeginUser;
  const IndexBox& owned = g.owned_cells();
  box = owned;
  for (int a = 0; a < g.dim() && with_ghosts; ++a) {
    // One ghost layer towards each neighbour; none across the domain's faces, periodic ones
    // included (a structured extent cannot wrap around).
    if (owned.lo[a] > 0) --box.lo[a];
    if (owned.hi[a] < g.cells(a)) ++box.hi[a];
  }
  shares_vectors = box.lo == owned.lo && box.hi == owned.hi;

  image = vtkSmartPointer<vtkImageData>::New();
  // Point extents: a block of cells [lo, hi) has points lo..hi. In 2D the image is one layer of
  // points thick, so its cells are the grid's cells.
  const int hi_z = g.dim() == 3 ? static_cast<int>(box.hi[2]) : 0;
  image->SetExtent(static_cast<int>(box.lo[0]), static_cast<int>(box.hi[0]),
                   static_cast<int>(box.lo[1]), static_cast<int>(box.hi[1]),
                   static_cast<int>(box.lo[2]), hi_z);
  image->SetOrigin(g.origin(0), g.origin(1), g.origin(2));
  image->SetSpacing(g.spacing(0), g.spacing(1), g.dim() == 3 ? g.spacing(2) : 1.0);
  const vtkIdType cells = static_cast<vtkIdType>(box.count());

  velocity = vtkSmartPointer<vtkDoubleArray>::New();
  velocity->SetName("velocity");
  velocity->SetNumberOfComponents(3);
  velocity->SetNumberOfTuples(cells);
  image->GetCellData()->AddArray(velocity);
  image->GetCellData()->SetActiveVectors("velocity");
  for (const std::string& name : scalar_names) {
    auto array = vtkSmartPointer<vtkDoubleArray>::New();
    array->SetName(name.c_str());
    if (!shares_vectors) array->SetNumberOfTuples(cells);
    image->GetCellData()->AddArray(array);
    scalars.push_back(array);
  }
  pressure = vtkSmartPointer<vtkDoubleArray>::New();
  pressure->SetName("pressure");
  if (!shares_vectors) {
    pressure->SetNumberOfTuples(cells);
    PetscCall(DMCreateLocalVector(g.cell_dm(), pressure_local.replace()));
  }
  image->GetCellData()->AddArray(pressure);

  // The ghost marks never change: filled once here. The solid mask is filled here and again
  // whenever moving obstacles change it (fill()).
  this->solids = &solids;
  solid = vtkSmartPointer<vtkUnsignedCharArray>::New();
  solid->SetName("solid");
  solid->SetNumberOfTuples(cells);
  fill_solid();
  image->GetCellData()->AddArray(solid);
  if (!shares_vectors) {
    auto ghost = vtkSmartPointer<vtkUnsignedCharArray>::New();
    ghost->SetName(vtkDataSetAttributes::GhostArrayName());
    ghost->SetNumberOfTuples(cells);
    vtkIdType n = 0;
    for_each_index(box, [&](PetscInt i, PetscInt j, PetscInt k) {
      ghost->SetValue(n++, owned.contains(i, j, k) ? 0 : vtkDataSetAttributes::DUPLICATECELL);
    });
    image->GetCellData()->AddArray(ghost);
  }
  PetscFunctionReturn(0);
}

void Channel::fill_solid() {
  vtkIdType n = 0;
  for_each_index(box, [&](PetscInt i, PetscInt j, PetscInt k) {
    solid->SetValue(n++, solids->cell(i, j, k));
  });
  solid->Modified();
  solids_version = solids->version();
}

PetscErrorCode Channel::fill(const Grid& g, const InSituState& state) {
  PetscFunctionBeginUser;
  if (solids->version() != solids_version) fill_solid();
  // Velocity at cell centres (the upper face of the upper ghost cell is the second halo layer,
  // hence halo >= 2).
  PetscCall(centre_velocity(*state.velocity, box, velocity->GetPointer(0)));
  velocity->Modified();

  // Cell fields: with no ghost layer the block is exactly the owned cells, stored in the global
  // vectors in VTK's order, so VTK reads them in place until release(); otherwise the
  // block (owned cells plus one layer) is copied out of the wider ghosted local vectors.
  const auto hand_over = [&](Vec global, Vec local, vtkDoubleArray* array) -> PetscErrorCode {
    PetscFunctionBeginUser;
    if (shares_vectors) {
      // Read-only, as before the arrays were shared: the scripts read the fields. The last
      // argument tells VTK not to free the memory.
      shared.emplace_back();
      PetscCall(shared.back().get(global));
      array->SetArray(const_cast<PetscScalar*>(shared.back().data),
                      static_cast<vtkIdType>(box.count()), 1);
    } else {
      ReadArray view;
      PetscCall(view.get_local(g.cell_dm(), local));
      double* out = array->GetPointer(0);
      for_each_index(box, [&](PetscInt i, PetscInt j, PetscInt k) { *out++ = view(i, j, k); });
    }
    array->Modified();
    PetscFunctionReturn(0);
  };
  for (size_t s = 0; s < scalars.size(); ++s) {
    const Field& field = (*state.scalars)[s];
    PetscCall(hand_over(field.global(), field.local(), scalars[s]));
  }
  if (!shares_vectors) {
    PetscCall(g.global_to_local(g.cell_dm(), state.pressure, pressure_local));
  }
  PetscCall(hand_over(state.pressure, pressure_local, pressure));
  image->Modified();
  PetscFunctionReturn(0);
}

PetscErrorCode Channel::release() {
  PetscFunctionBeginUser;
  for (ReadArray& array : shared) PetscCall(array.restore());
  shared.clear();
  PetscFunctionReturn(0);
}

}  // namespace sf
