# shellcheck shell=bash
# Sourced by jobs/run and tests/run: makes a fresh Debian 12 machine ready to build and run
# stablefluids, then configures and builds it. Idempotent, and quick when nothing is missing:
# packages are checked with dpkg-query, CMake only reconfigures when needed, make only rebuilds
# what changed.
#
# Environment:
#   STABLEFLUIDS_BUILD_DIR   build directory (default: <source>/build)
#   STABLEFLUIDS_NO_INSTALL  set to 1 to never call apt-get (report what is missing instead)
#   STABLEFLUIDS_JOBS        parallel build jobs (default: number of cores)

sf_source_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
sf_build_dir=${STABLEFLUIDS_BUILD_DIR:-$sf_source_dir/build}

# Debian packages the build, the tests and the run scripts need.
sf_packages=(
  build-essential cmake pkg-config
  libopenmpi-dev openmpi-bin
  petsc-dev
  libhdf5-openmpi-dev hdf5-tools
  libyaml-cpp-dev
  # Obstacles from triangle meshes (STL, OBJ, PLY and the other formats Open Asset Import reads).
  libassimp-dev
  # FFTW's MPI transforms: the FFT projection and diffusion of periodic boxes.
  libfftw3-mpi-dev
  libgtest-dev libgmock-dev
  python3-yaml python3-matplotlib python3-numpy python3-h5py
  # ParaView Catalyst (in-situ images, extracts, Live). python3-paraview is only "recommended"
  # by paraview but the Catalyst scripts need it; the -dev packages are what ParaView's CMake
  # configuration asks for; Xvfb gives rendering scripts a display on headless nodes.
  paraview paraview-dev python3-paraview
  libnetcdf-dev libglew-dev libutfcpp-dev liblz4-dev libdouble-conversion-dev libxml2-dev
  libx11-dev libfreetype-dev
  xvfb xauth
  # The test suite checks the shell scripts with it (tests/cli/shellcheck_test.sh).
  shellcheck
  # stablefluids_export (OpenVDB, and the Boost.Iostreams its FindOpenVDB wants); its test's tools.
  libopenvdb-dev libboost-iostreams-dev libopenvdb-tools python3-openvdb assimp-utils
)

sf_log() { printf 'stablefluids: %s\n' "$*" >&2; }

sf_install_packages() {
  local missing=() pkg
  for pkg in "${sf_packages[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' ||
      missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "${STABLEFLUIDS_NO_INSTALL:-0}" = 1 ] || ! command -v apt-get > /dev/null; then
    sf_log "missing packages: ${missing[*]} (install them, or load your cluster's modules)"
    return 1
  fi
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo > /dev/null || { sf_log "need root to install: ${missing[*]}"; return 1; }
    sudo=sudo
  fi
  sf_log "installing ${missing[*]}"
  # One update per install; the lists of a fresh machine are empty or stale.
  $sudo apt-get update -q > /dev/null || { sf_log "apt-get update failed"; return 1; }
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends \
    "${missing[@]}" > "$sf_build_dir.apt.log" 2>&1 ||
    { sf_log "apt-get install failed, see $sf_build_dir.apt.log"; return 1; }
}

sf_build() {
  mkdir -p "$sf_build_dir" || return 1
  # Catalyst and OpenVDB are required here (the packages above provide them), so that the
  # suite never quietly leaves out their tests; a build directory configured before, or without
  # them, is reconfigured.
  if ! grep -q '^STABLEFLUIDS_CATALYST:STRING=ON$' "$sf_build_dir/CMakeCache.txt" 2>/dev/null ||
     ! grep -q '^STABLEFLUIDS_OPENVDB:STRING=ON$' "$sf_build_dir/CMakeCache.txt" 2>/dev/null; then
    sf_log "configuring in $sf_build_dir"
    cmake -S "$sf_source_dir" -B "$sf_build_dir" -DCMAKE_BUILD_TYPE=Release \
      -DSTABLEFLUIDS_CATALYST=ON -DSTABLEFLUIDS_OPENVDB=ON > "$sf_build_dir.cmake.log" 2>&1 ||
      { sf_log "cmake configuration failed, see $sf_build_dir.cmake.log"; return 1; }
  fi
  # The progress lines are filtered out and everything else, the compiler's errors included, is
  # shown. The build's own status decides: pipefail (set in a subshell, whatever the caller's
  # options) makes the pipeline fail when the build does, and the filter cannot make it fail
  # otherwise, since a build that prints only progress leaves grep nothing to print.
  if ! (set -o pipefail
        cmake --build "$sf_build_dir" -j "${STABLEFLUIDS_JOBS:-$(nproc)}" 2>&1 |
          { grep -v -E '^\[ *[0-9]+%\]|^Consolidate compiler|^Scanning dependencies' || true; }); then
    sf_log "build failed; the compiler's messages are above"
    return 1
  fi
}

# Open MPI refuses to start as root unless both variables are set, and refuses more ranks than
# cores without oversubscription; both are normal on a developer's container.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
# ParaView's embedded Python is Debian's python3: a PYTHONHOME or PYTHONPATH meant for another
# Python (pyenv, conda, a module) breaks its start-up. Mesa's llvmpipe starts one thread per core
# in every rank; one each keeps the ranks from fighting over the cores.
unset PYTHONHOME PYTHONPATH
export LP_NUM_THREADS=${LP_NUM_THREADS:-1}

sf_prepare() {
  mkdir -p "$(dirname "$sf_build_dir")"
  sf_install_packages && sf_build
}
