// The boundary between the solver and its Catalyst module. ParaView Catalyst brings ParaView,
// VTK and Python with it: about 460 shared libraries and 250 MB of resident memory per rank. The
// adaptor is therefore built as a module of its own, libstablefluids_catalyst.so, which the solver
// opens (dlopen) only when a job names Catalyst scripts; a run without them maps no ParaView
// library at all. The module exports the two C functions below and nothing else.
#pragma once

#include <petscsys.h>

#include <cstddef>

#include "in_situ.hpp"

namespace sf {

/// What the module and the solver that loads it must agree on: the commit they were built from
/// and the sizes of the types that cross the boundary. A module from another build is refused
/// with both fingerprints named, instead of crashing on a different layout.
struct CatalystModuleFingerprint {
  const char* commit;
  std::size_t grid, solids, field, job;
};

inline CatalystModuleFingerprint this_build_fingerprint(const char* commit) {
  return {commit, sizeof(Grid), sizeof(SolidMask), sizeof(Field), sizeof(JobConfig)};
}

/// The module's file name, and the names of its two entry points.
constexpr const char* kCatalystModuleFile = "libstablefluids_catalyst.so";
constexpr const char* kCatalystFingerprintSymbol = "stablefluids_catalyst_fingerprint";
constexpr const char* kCatalystCreateSymbol = "stablefluids_catalyst_create";

/// The module's entry points (catalyst_module.cpp).
using CatalystFingerprintFunction = CatalystModuleFingerprint (*)();
/// Makes the CatalystAdaptor for the job (CatalystAdaptor::setup, then start_at) into *in_situ,
/// which the caller owns and deletes through InSitu's virtual destructor. Collective.
using CatalystCreateFunction = PetscErrorCode (*)(const Grid* grid, const SolidMask* solids,
                                                  const JobConfig* job, double start_time,
                                                  int restarted, InSitu** in_situ);

}  // namespace sf
