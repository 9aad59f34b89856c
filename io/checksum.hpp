// Checksums of checkpoint data: CRC-32 exactly as zlib computes it (the same as Python's
// zlib.crc32, gzip and PNG), of a dataset's bytes in file order. A stored value can therefore be
// checked without stablefluids:
//   zlib.crc32(h5py.File(path)["pressure"][...].tobytes()) == h5py.File(path)["pressure"].attrs["crc32"][0]
//
// A distributed array's CRC-32 without gathering it. zlib's CRC of two concatenated byte strings
// satisfies crc(A‖B) = shift(crc(A), |B|) ⊕ crc(B), where shift(c, n) (zlib's
// crc32_combine(c, 0, n)) multiplies c by x^(8n) modulo the CRC polynomial and is linear over
// GF(2). Unrolled over the runs R_1, ..., R_k of contiguous bytes that make up the whole array,
//   crc(R_1‖…‖R_k) = ⊕_i shift(crc(R_i), bytes after R_i).
// Each term needs only one run and where it lies, so every rank XORs the terms of its own runs
// and one MPI_BXOR reduction gives the CRC of the whole array. The result depends only on the
// bytes and their places in the file, never on how the ranks divided them: a checkpoint written
// on N ranks verifies on M.
#pragma once

#include <petscsys.h>

#include <cstddef>
#include <cstdint>

#include "hdf5_util.hpp"

namespace sf {

/// zlib's CRC-32 of `bytes` bytes at `data`, continuing from `crc` (0 to start).
std::uint32_t crc32_of(const void* data, std::size_t bytes, std::uint32_t crc = 0);

/// The CRC-32 of a global array of doubles stored row-major (slowest axis first, as HDF5 and
/// make_slab order them), of which this rank holds the hyperslab `slab`, packed in `data` with
/// the last axis fastest. The same value on every rank, for any slabs that tile the array
/// (a rank may hold an empty one). Collective.
PetscErrorCode distributed_crc32(MPI_Comm comm, const Slab& slab, const double* data,
                                 std::uint32_t* crc);

/// The checksum of the attributes a checkpoint's restart continues from: time, step, last_dt,
/// next_frame and frames, in this order, each as 8 little-endian bytes, so that the value does
/// not depend on the machine that computes it (the attribute `state_crc32`).
std::uint32_t state_checksum(double time, long long step, double last_dt, long long next_frame,
                             long long frames);

}  // namespace sf
