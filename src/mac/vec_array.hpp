// The one way to reach a PETSc vector's values: a VecArray gets the array when it is opened and
// restores it when it goes out of scope, so that no function writes a get/restore bracket of its
// own and none can leave an array checked out on an early return.
//
//   ReadArray u;                            // VecGetArrayRead / VecRestoreArrayRead
//   PetscCall(u.get_local(velocity));       // the local vector, indexed over its ghosted box
//   WriteArray s;                           // VecGetArray / VecRestoreArray
//   PetscCall(s.get_global(scalar));        // the global vector, indexed over the owned box
//   for_each_index(box, [&](PetscInt i, PetscInt j, PetscInt k) { s(i, j, k) = u(i, j, k, 1); });
//
// get(vec) holds any vector's array for flat access (operator[], data) where no DMDA indexing
// applies. BorrowedVec, at the end, does the same for the work vectors a DM lends from its pool.
//
// Read and write access are two types (VecArray<Access::Read>, VecArray<Access::Write>): a
// ReadArray hands out const values only, so a loop cannot write through a vector it was given
// to read, and PETSc's read lock on the vector stays honest.
//
// Errors. A constructor cannot return a PetscErrorCode, and PETSc reports errors by return
// value, so opening is a second step that returns one: `PetscCall(view.get_global(...))` on a
// default-constructed view. (A static factory would do the same with an out-argument; the two-step
// form also lets a view be a member, an element of a vector, or opened only on one branch.)
// Restoring a vector that was got does little more than check its arguments, and a destructor
// cannot return an error, so the destructor restores with PetscCallVoid: an error there is still
// printed with its trace, then dropped. Code that needs the array back before the scope ends (to
// hand the vector to a collective operation, or to refill it) calls restore(), which returns the
// error code for PetscCall.
//
// Cost. A VecArray is an ArrayView (grid.hpp) plus the vector it came from: operator() is the
// view's own inlined offset arithmetic, with no virtual call and no branch, so an access costs
// what it cost through the bare view.
#pragma once

#include <petscdm.h>
#include <petscvec.h>

#include <cstddef>
#include <type_traits>

#include "field.hpp"
#include "grid.hpp"

namespace sf {

enum class Access { Read, Write };

template <Access A>
using AccessScalar = std::conditional_t<A == Access::Read, const PetscScalar, PetscScalar>;

/// A vector's array, held from get*() to restore() or the end of the scope, and the indexing of
/// its values: a VecArray is the BasicArrayView of what it holds (data, start, width, dof,
/// operator()), so code that indexed an ArrayView reads the same.
template <Access A>
class VecArray : public BasicArrayView<AccessScalar<A>> {
public:
  using Scalar = AccessScalar<A>;
  using View = BasicArrayView<Scalar>;

  VecArray() = default;
  ~VecArray() { restore_quietly(); }

  VecArray(const VecArray&) = delete;
  VecArray& operator=(const VecArray&) = delete;
  VecArray(VecArray&& other) noexcept : View(other), vec_(other.vec_) { other.forget(); }
  VecArray& operator=(VecArray&& other) noexcept {
    if (this != &other) {
      restore_quietly();
      View::operator=(other);
      vec_ = other.vec_;
      other.forget();
    }
    return *this;
  }

  /// The array of any vector, for flat access (operator[]). Restores any array held before.
  PetscErrorCode get(Vec vec) {
    PetscFunctionBeginUser;
    PetscCall(restore());
    PetscCall(acquire(vec));
    PetscFunctionReturn(0);
  }
  /// A global vector of the DMDA `dm`, indexed (i, j, k, c) over the cells (or faces) this rank
  /// owns.
  PetscErrorCode get_global(DM dm, Vec global) { return get_box(dm, global, false); }
  /// A local vector of the DMDA `dm`, indexed over the owned entries and the ghost layers.
  PetscErrorCode get_local(DM dm, Vec local) { return get_box(dm, local, true); }
  /// A field's global (owned) or local (ghosted) vector.
  PetscErrorCode get_global(const Field& field) { return get_global(field.dm(), field.global()); }
  PetscErrorCode get_local(const Field& field) { return get_local(field.dm(), field.local()); }

  /// Gives the array back to PETSc now (nothing if none is held).
  PetscErrorCode restore() {
    PetscFunctionBeginUser;
    if (vec_) {
      Scalar* data = this->data;
      if constexpr (A == Access::Read) {
        PetscCall(VecRestoreArrayRead(vec_, &data));
      } else {
        PetscCall(VecRestoreArray(vec_, &data));
      }
    }
    forget();
    PetscFunctionReturn(0);
  }

  /// Whether an array is held.
  explicit operator bool() const { return vec_ != nullptr; }

  /// Flat access. The index is as wide as a pointer: a size_t or PetscInt index costs what it
  /// cost on the bare pointer (a 32-bit PetscInt parameter made 64-bit indices a truncation and
  /// a sign extension in every access of the multigrid kernels).
  Scalar& operator[](std::ptrdiff_t n) const { return this->data[n]; }
  /// The indexing alone (a copy of it stays valid as an index box after restore()).
  const View& view() const { return *this; }

private:
  void restore_quietly() { PetscCallVoid(restore()); }
  void forget() {
    vec_ = nullptr;
    View::operator=(View());
  }
  PetscErrorCode acquire(Vec vec) {
    PetscFunctionBeginUser;
    Scalar* data = nullptr;
    if constexpr (A == Access::Read) {
      PetscCall(VecGetArrayRead(vec, &data));
    } else {
      PetscCall(VecGetArray(vec, &data));
    }
    vec_ = vec;
    this->data = data;
    PetscFunctionReturn(0);
  }
  PetscErrorCode get_box(DM dm, Vec vec, bool ghosted) {
    PetscFunctionBeginUser;
    PetscCall(restore());
    View box;
    PetscCall(dmda_array_box(dm, ghosted, &box.start, &box.width, &box.dof));
    PetscCall(acquire(vec));
    box.data = this->data;
    View::operator=(box);
    PetscFunctionReturn(0);
  }

  Vec vec_ = nullptr;
};

using ReadArray = VecArray<Access::Read>;
using WriteArray = VecArray<Access::Write>;

/// A work vector borrowed from a DM's pool (DMGetGlobalVector / DMGetLocalVector) and given back
/// (DMRestoreGlobalVector / DMRestoreLocalVector) by give_back() or at the end of the scope.
/// Its values are whatever the pool's vector last held: the borrower sets them.
class BorrowedVec {
public:
  BorrowedVec() = default;
  ~BorrowedVec() { give_back_quietly(); }

  BorrowedVec(const BorrowedVec&) = delete;
  BorrowedVec& operator=(const BorrowedVec&) = delete;
  BorrowedVec(BorrowedVec&& other) noexcept
      : dm_(other.dm_), vec_(other.vec_), local_(other.local_) {
    other.vec_ = nullptr;
  }
  BorrowedVec& operator=(BorrowedVec&& other) noexcept {
    if (this != &other) {
      give_back_quietly();
      dm_ = other.dm_;
      vec_ = other.vec_;
      local_ = other.local_;
      other.vec_ = nullptr;
    }
    return *this;
  }

  /// A global (owned) or local (ghosted) vector of `dm`. Gives back any vector held before.
  PetscErrorCode get_global(DM dm) { return borrow(dm, false); }
  PetscErrorCode get_local(DM dm) { return borrow(dm, true); }

  /// Returns the vector to its DM's pool now (nothing if none is held).
  PetscErrorCode give_back() {
    PetscFunctionBeginUser;
    if (vec_) {
      if (local_) {
        PetscCall(DMRestoreLocalVector(dm_, &vec_));
      } else {
        PetscCall(DMRestoreGlobalVector(dm_, &vec_));
      }
    }
    vec_ = nullptr;
    PetscFunctionReturn(0);
  }

  operator Vec() const { return vec_; }

private:
  void give_back_quietly() { PetscCallVoid(give_back()); }
  PetscErrorCode borrow(DM dm, bool local) {
    PetscFunctionBeginUser;
    PetscCall(give_back());
    if (local) {
      PetscCall(DMGetLocalVector(dm, &vec_));
    } else {
      PetscCall(DMGetGlobalVector(dm, &vec_));
    }
    dm_ = dm;
    local_ = local;
    PetscFunctionReturn(0);
  }

  DM dm_ = nullptr;
  Vec vec_ = nullptr;
  bool local_ = false;
};

}  // namespace sf
