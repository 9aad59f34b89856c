# Finds a *parallel* HDF5 and exposes it as stablefluids::hdf5. Output is written collectively
# through HDF5's MPI-IO driver, which a serial build does not have, so a serial HDF5 is a hard
# configuration error rather than a silent fallback. On Debian both flavours can be installed
# side by side (libnetcdf-dev, needed later by ParaView, pulls in the serial one): preferring the
# parallel one here and checking the result keeps the build honest.
set(HDF5_PREFER_PARALLEL TRUE)
find_package(HDF5 REQUIRED COMPONENTS C)
if(NOT HDF5_IS_PARALLEL)
  message(FATAL_ERROR
    "stablefluids needs a parallel (MPI) HDF5, but the HDF5 found is serial "
    "(${HDF5_C_INCLUDE_DIRS}). On Debian install libhdf5-openmpi-dev; on a cluster load the "
    "parallel HDF5 module or pass -DHDF5_C_COMPILER_EXECUTABLE=/path/to/h5pcc.")
endif()
add_library(stablefluids::hdf5 INTERFACE IMPORTED)
target_include_directories(stablefluids::hdf5 INTERFACE ${HDF5_C_INCLUDE_DIRS})
target_compile_definitions(stablefluids::hdf5 INTERFACE ${HDF5_C_DEFINITIONS})
target_link_libraries(stablefluids::hdf5 INTERFACE ${HDF5_C_LIBRARIES})
message(STATUS "Parallel HDF5 ${HDF5_VERSION}: ${HDF5_C_INCLUDE_DIRS}")
