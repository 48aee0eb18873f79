#pragma once
// A set of a scoped enum's flags (each enumerator one bit): Flags<RayFlag> takes
// RayFlag::ForwardWalk or a combination `RayFlag::ForwardWalk | RayFlag::ExcludeOrigin`, never
// an integer or another enum's flags, so a flag cannot be passed where another kind is meant.
// bits() hands the raw mask to where it must go as one (push constants, file fields).
#include <type_traits>

namespace voxen {

template <class E>
class Flags {
  static_assert(std::is_enum_v<E>, "Flags holds the enumerators of one enum");

 public:
  using Bits = std::underlying_type_t<E>;
  constexpr Flags() = default;
  constexpr Flags(E flag) : bits_(Bits(flag)) {}  // one flag is a set of one
  constexpr bool has(E flag) const { return (bits_ & Bits(flag)) == Bits(flag) && Bits(flag) != 0; }
  constexpr bool empty() const { return bits_ == 0; }
  constexpr Flags operator|(Flags other) const { return fromBits(Bits(bits_ | other.bits_)); }
  constexpr Flags operator&(Flags other) const { return fromBits(Bits(bits_ & other.bits_)); }
  constexpr Flags& operator|=(Flags other) {
    bits_ = Bits(bits_ | other.bits_);
    return *this;
  }
  constexpr bool operator==(const Flags&) const = default;
  constexpr Bits bits() const { return bits_; }
  static constexpr Flags fromBits(Bits bits) {
    Flags flags;
    flags.bits_ = bits;
    return flags;
  }

 private:
  Bits bits_ = 0;
};

}  // namespace voxen
