// RAII ownership of PETSc objects. A PETSc handle is a pointer that must be released with its
// type's Destroy function exactly once; `Owned` does that in its destructor, so a function that
// returns early through PetscCall never leaks a DM, Vec, Mat or KSP.
//
// Every Owned object must be destroyed before PetscFinalize(): keep them inside the scope that
// runs between initialisation and finalisation (see main.cpp).
#pragma once

#include <petscsys.h>

namespace sf {

template <typename T, PetscErrorCode (*Destroy)(T*)>
class Owned {
public:
  Owned() = default;
  ~Owned() { reset(); }

  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
  Owned(Owned&& other) noexcept : handle_(other.handle_) { other.handle_ = nullptr; }
  Owned& operator=(Owned&& other) noexcept {
    if (this != &other) {
      reset();
      handle_ = other.handle_;
      other.handle_ = nullptr;
    }
    return *this;
  }

  /// Releases the object now. A destructor cannot report an error, and PETSc's Destroy
  /// functions only fail on corrupted objects, so the code is deliberately dropped.
  void reset() {
    if (handle_) (void)Destroy(&handle_);
    handle_ = nullptr;
  }

  /// The address to hand to a PETSc Create function; releases any object held before.
  T* replace() {
    reset();
    return &handle_;
  }

  T get() const { return handle_; }
  operator T() const { return handle_; }
  explicit operator bool() const { return handle_ != nullptr; }

private:
  T handle_ = nullptr;
};

}  // namespace sf
