// One channel of the solver's data for the Catalyst scripts (catalyst_adaptor.hpp says what each
// channel holds and why there are two): a vtkImageData over this rank's cells whose arrays are
// allocated once and refilled, or shared with the solver's own vectors, on each output step.
#pragma once

#include <vtkDoubleArray.h>
#include <vtkImageData.h>
#include <vtkUnsignedCharArray.h>
#include <vtkSmartPointer.h>

#include <vector>

#include "in_situ.hpp"
#include "vec_array.hpp"

namespace sf {

/// One channel of data for the scripts: this rank's cells (plus, for "input", the ghost
/// layer) as a vtkImageData whose arrays are allocated once and refilled on each output step.
struct Channel {
  const char* name = nullptr;
  IndexBox box;                 // the cells of this rank's piece
  bool shares_vectors = false;  // box == owned cells: VTK reads the global vectors in place
  vtkSmartPointer<vtkImageData> image;
  vtkSmartPointer<vtkDoubleArray> velocity, pressure;
  std::vector<vtkSmartPointer<vtkDoubleArray>> scalars;
  vtkSmartPointer<vtkUnsignedCharArray> solid;
  const SolidMask* solids = nullptr;
  int solids_version = -1;  // the mask `solid` holds (moving obstacles change it)
  OwnedVec pressure_local;  // the pressure with its ghosts, when they are needed
  std::vector<ReadArray> shared;  // the arrays VTK reads in place, from fill() to release()

  /// `scalar_names`: the cell fields after the velocity, in the order of InSituState::scalars
  /// (the job's scalars, then a liquid's level set).
  PetscErrorCode lay_out(const Grid& grid, const SolidMask& solids,
                         const std::vector<std::string>& scalar_names, bool with_ghosts);
  PetscErrorCode fill(const Grid& grid, const InSituState& state);
  /// Copies the mask into `solid`.
  void fill_solid();
  /// Gives back the arrays fill() handed to VTK in place.
  PetscErrorCode release();
};

}  // namespace sf
