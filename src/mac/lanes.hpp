// Four doubles computed together: the semi-Lagrangian trace handles a row of sample points four
// at a time (semi_lagrangian.cpp, LocalSampler's *_lanes functions).
//
// Lanes are GCC/Clang vector types, so +, -, *, comparisons and `mask ? a : b` are written as on
// doubles and compile to one AVX instruction each in the default build (STABLEFLUIDS_ARCH =
// x86-64-v3), or to pairs of SSE2 instructions without it. Every operation is the IEEE operation
// on each lane and -ffp-contract=off forbids fusing a * b + c, so an expression evaluated in
// lanes gives, lane by lane, the bits the same expression gives on doubles. That is what lets the
// row path and the point-by-point path (remote answers, points near the array's edge) agree bit
// for bit, and so keeps results identical across rank counts.
#pragma once

#include <cmath>
#include <cstdint>

#if defined(__AVX__)
#include <immintrin.h>
#endif

namespace sf {

constexpr int kLanes = 4;
using Lanes = double __attribute__((vector_size(kLanes * sizeof(double))));
/// A comparison of Lanes: every bit of a lane set (true) or clear (false).
using LaneMask = std::int64_t __attribute__((vector_size(kLanes * sizeof(std::int64_t))));
/// Offsets into an array, one per lane.
using LaneIndex = std::int32_t __attribute__((vector_size(kLanes * sizeof(std::int32_t))));

inline Lanes broadcast(double value) { return Lanes{value, value, value, value}; }

inline Lanes lane_floor(Lanes x) {
#if defined(__AVX__)
  return _mm256_floor_pd(x);
#else
  return Lanes{std::floor(x[0]), std::floor(x[1]), std::floor(x[2]), std::floor(x[3])};
#endif
}

inline Lanes lane_sqrt(Lanes x) {
#if defined(__AVX__)
  return _mm256_sqrt_pd(x);
#else
  return Lanes{std::sqrt(x[0]), std::sqrt(x[1]), std::sqrt(x[2]), std::sqrt(x[3])};
#endif
}

/// p[0 .. 3] as lanes, and back.
inline Lanes load_lanes(const double* p) { return Lanes{p[0], p[1], p[2], p[3]}; }
inline void store_lanes(Lanes x, double* p) {
  for (int l = 0; l < kLanes; ++l) p[l] = x[l];
}

/// Bit l set if lane l of the mask is true.
inline int lane_bits(LaneMask mask) {
#if defined(__AVX__)
  return _mm256_movemask_pd(reinterpret_cast<__m256d>(mask));
#else
  return (mask[0] ? 1 : 0) | (mask[1] ? 2 : 0) | (mask[2] ? 4 : 0) | (mask[3] ? 8 : 0);
#endif
}

/// Whole numbers held in doubles (exact below 2^31) as 32-bit offsets.
inline LaneIndex to_index(Lanes whole) { return __builtin_convertvector(whole, LaneIndex); }

/// base[index[l]] in lane l. Four loads rather than AVX2's gather instruction, which is slower
/// on AMD Zen (bench_advection, 128^3 periodic at CFL 1 on the 2-core Zen 5 VM: 57.8 ns per
/// sample with vgatherdpd, 36.6 with four loads; Intel cores since Skylake gather faster, but
/// not by enough to justify a second code path).
inline Lanes gather(const double* base, LaneIndex index) {
  return Lanes{base[index[0]], base[index[1]], base[index[2]], base[index[3]]};
}

}  // namespace sf
