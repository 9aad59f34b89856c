# ParaView Catalyst (legacy vtkCPProcessor API of ParaView 5.11, as Debian ships it) for in-situ
# images, extracts and Catalyst Live. STABLEFLUIDS_CATALYST:
#   AUTO (default)  build the adaptor if ParaView 5.11 with Python is found, say so either way
#   ON              ParaView is required (jobs/run and tests/run configure this way)
#   OFF             never; jobs that name Catalyst scripts are then refused with a clear error
# Sets STABLEFLUIDS_HAVE_CATALYST and the imported targets that catalyst_adaptor.cpp needs.
set(STABLEFLUIDS_CATALYST AUTO CACHE STRING "Build the ParaView Catalyst adaptor (AUTO, ON, OFF)")
set_property(CACHE STABLEFLUIDS_CATALYST PROPERTY STRINGS AUTO ON OFF)
set(STABLEFLUIDS_HAVE_CATALYST FALSE)

if(NOT STABLEFLUIDS_CATALYST STREQUAL "OFF")
  set(_sf_required "")
  if(STABLEFLUIDS_CATALYST STREQUAL "ON")
    set(_sf_required REQUIRED)
  endif()
  find_package(ParaView 5.11 ${_sf_required} COMPONENTS Catalyst PythonCatalyst)
  if(ParaView_FOUND)
    # ParaView's config imports every VTK target, and some of them name third-party targets
    # (Freetype::Freetype, X11::X11, GLEW::GLEW, ...) that only a find_package(VTK) asking for
    # those modules defines; without them CMake stops at generation.
    find_package(VTK ${_sf_required} COMPONENTS
      CommonCore CommonDataModel ParallelMPI Python PythonInterpreter
      freetype RenderingUI glew RenderingOpenGL2 libxml2 netcdf hdf5 xdmf3)
  endif()
  if(ParaView_FOUND AND VTK_FOUND)
    set(STABLEFLUIDS_HAVE_CATALYST TRUE)
    message(STATUS "ParaView ${ParaView_VERSION} Catalyst: building the in-situ adaptor")
  elseif(STABLEFLUIDS_CATALYST STREQUAL "AUTO")
    message(STATUS "ParaView 5.11 Catalyst not found: building without in-situ visualisation "
                   "(install paraview-dev python3-paraview, or set -DSTABLEFLUIDS_CATALYST=ON)")
  endif()
endif()

# ParaView's libraries need the serial HDF5 of Debian's libnetcdf and link the MPI one
# themselves; both coexist (their symbols are versioned apart). What matters is that *our*
# output still goes through the parallel HDF5 found in ParallelHDF5.cmake, which is included
# first and checked there.
