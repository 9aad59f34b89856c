// CRC-32 of distributed arrays (the algebra is in checksum.hpp) and of a checkpoint's run state.
#include "checksum.hpp"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <vector>

namespace sf {

namespace {

/// shift(acc, n) ⊕ crc, in zlib's terms. zlib before 1.2.12 returns crc1 alone for a zero
/// length, dropping crc2, so that case is done here.
uLong shift_xor(uLong acc, uLong crc, std::uint64_t n) {
  if (n == 0) return acc ^ crc;
  return crc32_combine(acc, crc, static_cast<z_off_t>(n));
}

}  // namespace

std::uint32_t crc32_of(const void* data, std::size_t bytes, std::uint32_t crc) {
  static_assert(sizeof(z_off_t) >= 8, "zlib needs 64-bit offsets for arrays over 2 GB");
  return static_cast<std::uint32_t>(
      crc32_z(crc, static_cast<const Bytef*>(data), static_cast<z_size_t>(bytes)));
}

PetscErrorCode distributed_crc32(MPI_Comm comm, const Slab& slab, const double* data,
                                 std::uint32_t* crc) {
  PetscFunctionBeginUser;
  const size_t rank = slab.global.size();
  // Element strides of the global array in the file, slowest axis first.
  std::vector<std::uint64_t> stride(rank, 1);
  for (size_t a = rank - 1; a-- > 0;) stride[a] = stride[a + 1] * slab.global[a + 1];
  const std::uint64_t total = stride[0] * slab.global[0] * sizeof(double);
  std::uint64_t rows = 1;
  for (size_t a = 0; a + 1 < rank; ++a) rows *= slab.count[a];
  const hsize_t row_length = slab.count[rank - 1];
  if (row_length == 0) rows = 0;
  const std::uint64_t row_bytes = row_length * sizeof(double);

  // Rows of the slab, in file order; a row that starts where the previous one ended extends the
  // same run (a slab spanning whole rows is one run per plane or less). Horner's rule over the
  // runs: acc holds ⊕ shift(crc(R_j), end - end_j) for the runs so far, `end` being where the
  // last finished run ends.
  uLong acc = 0, run = 0;
  std::uint64_t end = 0, run_end = 0;
  bool open = false;
  std::vector<hsize_t> index(rank > 1 ? rank - 1 : 0, 0);
  for (std::uint64_t n = 0; n < rows; ++n) {
    std::uint64_t start = slab.offset[rank - 1];
    for (size_t a = 0; a + 1 < rank; ++a) start += (slab.offset[a] + index[a]) * stride[a];
    start *= sizeof(double);
    const double* row = data + n * row_length;
    if (open && start == run_end) {
      run = crc32_of(row, row_bytes, static_cast<std::uint32_t>(run));
    } else {
      if (open) {
        acc = shift_xor(acc, run, run_end - end);
        end = run_end;
      }
      run = crc32_of(row, row_bytes);
      open = true;
    }
    run_end = start + row_bytes;
    for (size_t a = index.size(); a-- > 0;) {  // the next row: an odometer, last axis fastest
      if (++index[a] < slab.count[a]) break;
      index[a] = 0;
    }
  }
  if (open) {
    acc = shift_xor(acc, run, run_end - end);
    end = run_end;
  }
  std::uint32_t local = static_cast<std::uint32_t>(shift_xor(acc, 0, total - end));
  PetscCallMPI(MPI_Allreduce(&local, crc, 1, MPI_UINT32_T, MPI_BXOR, comm));
  PetscFunctionReturn(0);
}

std::uint32_t state_checksum(double time, long long step, double last_dt, long long next_frame,
                             long long frames) {
  unsigned char bytes[40];
  const auto put = [&](int slot, std::uint64_t bits) {
    for (int b = 0; b < 8; ++b) bytes[8 * slot + b] = static_cast<unsigned char>(bits >> (8 * b));
  };
  std::uint64_t bits;
  std::memcpy(&bits, &time, 8);
  put(0, bits);
  put(1, static_cast<std::uint64_t>(step));
  std::memcpy(&bits, &last_dt, 8);
  put(2, bits);
  put(3, static_cast<std::uint64_t>(next_frame));
  put(4, static_cast<std::uint64_t>(frames));
  return crc32_of(bytes, sizeof bytes);
}

}  // namespace sf
