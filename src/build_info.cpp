#include "build_info.hpp"

#include <hdf5.h>
#include <mpi.h>
#include <petscsys.h>

namespace sf {

std::string program_version() {
  return std::string("stablefluids ") + STABLEFLUIDS_VERSION + " (commit " + git_commit() + ")";
}

std::string library_versions() {
  std::string text;
  int major = 0, minor = 0, subminor = 0, release = 0;
  if (PetscGetVersionNumber(&major, &minor, &subminor, &release) == 0) {
    text += "PETSc " + std::to_string(major) + "." + std::to_string(minor) + "." +
            std::to_string(subminor) + (release ? "" : " (development)") + "\n";
  }
  unsigned h5_major = 0, h5_minor = 0, h5_release = 0;
  if (H5get_libversion(&h5_major, &h5_minor, &h5_release) >= 0) {
    text += "HDF5 " + std::to_string(h5_major) + "." + std::to_string(h5_minor) + "." +
            std::to_string(h5_release);
#ifdef H5_HAVE_PARALLEL
    text += " (parallel, MPI-IO)";
#endif
    text += "\n";
  }
  char mpi[MPI_MAX_LIBRARY_VERSION_STRING] = "";
  int length = 0;
  if (MPI_Get_library_version(mpi, &length) == MPI_SUCCESS) {
    // Open MPI's string runs on with package and build details after the first comma.
    std::string first(mpi, static_cast<std::size_t>(length));
    first = first.substr(0, first.find_first_of(",\n"));
    text += "MPI: " + first + "\n";
  }
  text += std::string("yaml-cpp ") + STABLEFLUIDS_YAML_CPP_VERSION + "\n";
#ifdef STABLEFLUIDS_HAVE_CATALYST
  text += std::string("ParaView Catalyst ") + STABLEFLUIDS_PARAVIEW_VERSION + "\n";
#else
  text += "ParaView Catalyst: not built in (STABLEFLUIDS_CATALYST=OFF or ParaView not found)\n";
#endif
  return text;
}

}  // namespace sf
