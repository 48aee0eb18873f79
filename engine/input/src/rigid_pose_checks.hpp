#pragma once
// Whether a pose read from a file is a rigid motion (a rotation and a translation), before it
// moves any point: a scaled, sheared or mirrored "pose" would put the cloud somewhere else
// without any error. One tolerance for quaternions and matrices, tf2's: tf2 ignores a
// transform whose quaternion's squared length is more than 0.01 from 1
// (QUATERNION_NORMALIZATION_TOLERANCE); files written with 4 to 7 decimals stay far inside it,
// a scale of 1.005 already leaves it.
#include <glm/gtc/quaternion.hpp>
#include <glm/mat4x4.hpp>

#include <cmath>
#include <string>

#include "voxen/host/error.hpp"

namespace voxen::detail {

inline constexpr double kRigidTolerance = 0.01;

// Empty when q's squared length is within kRigidTolerance of 1 (it is then normalised by the
// caller); else why not, for a message after the file and line.
inline std::string quaternionProblem(const glm::dquat& q) {
  const double squared = glm::dot(q, q);
  if (std::abs(squared - 1.0) <= kRigidTolerance) return {};
  return "the orientation quaternion (qx qy qz qw) has length " + formatNumber(std::sqrt(squared)) +
         ", not 1 (its squared length must be within " + formatNumber(kRigidTolerance) +
         " of 1): a pose is a rotation, and a quaternion of another length would scale the points too";
}

// Empty when the upper-left 3x3 of m is a rotation: R^T R within kRigidTolerance of the
// identity in every entry and det(R) > 0 (a mirror has det -1); else why not.
inline std::string rotationMatrixProblem(const glm::dmat4& m) {
  const glm::dmat3 r(m);
  const glm::dmat3 rtr = glm::transpose(r) * r;
  double worst = 0.0;
  for (int c = 0; c < 3; ++c)
    for (int row = 0; row < 3; ++row) worst = std::max(worst, std::abs(rtr[c][row] - (c == row ? 1.0 : 0.0)));
  const double det = glm::determinant(r);
  if (worst <= kRigidTolerance && det > 0.0) return {};
  if (worst <= kRigidTolerance)
    return "the rotation part has determinant " + formatNumber(det) + ": a mirror, not a rotation";
  return "the rotation part is not a rotation (R^T R differs from the identity by up to " + formatNumber(worst) +
         ", more than " + formatNumber(kRigidTolerance) + "; determinant " + formatNumber(det) +
         "): a pose is a rotation and a translation, and this matrix would also scale or shear the points";
}

}  // namespace voxen::detail
