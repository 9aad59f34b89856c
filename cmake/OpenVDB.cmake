# OpenVDB for stablefluids_export (io/export/): a run's frames as .vdb volumes and surface meshes
# for Blender, Houdini and the like. STABLEFLUIDS_OPENVDB:
#   AUTO (default)  build the exporter if OpenVDB is found, say so either way
#   ON              OpenVDB is required
#   OFF             never
# Sets STABLEFLUIDS_HAVE_OPENVDB and the imported target OpenVDB::openvdb.
#
# OpenVDB installs no CMake package configuration, only its find module, FindOpenVDB.cmake
# (Debian 12: /usr/lib/x86_64-linux-gnu/cmake/OpenVDB, with its FindTBB, FindBlosc, ...); the
# directory is put on CMAKE_MODULE_PATH here only, and taken off again afterwards, so that its
# find modules do not stand in for CMake's own anywhere else in the build.
set(STABLEFLUIDS_OPENVDB AUTO CACHE STRING "Build stablefluids_export with OpenVDB (AUTO, ON, OFF)")
set_property(CACHE STABLEFLUIDS_OPENVDB PROPERTY STRINGS AUTO ON OFF)
set(STABLEFLUIDS_HAVE_OPENVDB FALSE)

if(NOT STABLEFLUIDS_OPENVDB STREQUAL "OFF")
  find_path(STABLEFLUIDS_OPENVDB_MODULE_DIR FindOpenVDB.cmake
            PATHS /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/cmake/OpenVDB /usr/local/lib/cmake/OpenVDB
                  /usr/lib/cmake/OpenVDB /usr/lib64/cmake/OpenVDB
            DOC "The directory of OpenVDB's FindOpenVDB.cmake")
  set(_sf_why "")
  if(NOT STABLEFLUIDS_OPENVDB_MODULE_DIR)
    string(CONCAT _sf_why "FindOpenVDB.cmake not found (install libopenvdb-dev, or set "
                          "STABLEFLUIDS_OPENVDB_MODULE_DIR to its directory)")
  else()
    set(_sf_module_path ${CMAKE_MODULE_PATH})
    list(PREPEND CMAKE_MODULE_PATH ${STABLEFLUIDS_OPENVDB_MODULE_DIR})
    # FindOpenVDB asks for TBB and Boost.Iostreams with REQUIRED once it has found the library,
    # which would stop the configuration even under AUTO; Debian's libopenvdb-dev does not pull
    # in libboost-iostreams-dev. Look for both first, quietly.
    find_package(TBB QUIET COMPONENTS tbb)
    find_package(Boost QUIET COMPONENTS iostreams)
    if(NOT TBB_FOUND)
      set(_sf_why "TBB not found (install libtbb-dev)")
    elseif(NOT TARGET Boost::iostreams)
      string(CONCAT _sf_why "Boost.Iostreams, which FindOpenVDB.cmake requires, not found "
                            "(install libboost-iostreams-dev)")
    else()
      find_package(OpenVDB QUIET COMPONENTS openvdb)
      if(NOT OpenVDB_FOUND)
        set(_sf_why "OpenVDB not found (install libopenvdb-dev)")
      endif()
    endif()
    set(CMAKE_MODULE_PATH ${_sf_module_path})
  endif()
  if(NOT _sf_why)
    set(STABLEFLUIDS_HAVE_OPENVDB TRUE)
    message(STATUS "OpenVDB ${OpenVDB_VERSION}: building stablefluids_export")
  elseif(STABLEFLUIDS_OPENVDB STREQUAL "ON")
    message(FATAL_ERROR "STABLEFLUIDS_OPENVDB=ON: ${_sf_why}")
  else()
    message(STATUS "Building without stablefluids_export (-DSTABLEFLUIDS_OPENVDB=ON requires "
                   "it): ${_sf_why}")
  endif()
endif()
