#pragma once
// What a resolved tf chain holds: built by tf_buffer.cpp, evaluated per point by tf_chain.cpp.
#include <glm/gtc/quaternion.hpp>

#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "voxen/input/tf_buffer.hpp"

namespace voxen {

namespace detail {

// glm::slerp(x, y, a) split in two: what depends only on the segment's end rotations (the
// sign, acos and one sin: most of its cost) computed once per segment, the rest per call.
// The same operations in the same order as glm's, so the result is the same bit for bit.
struct SlerpSegment {
  double angle = 0.0;
  double sinAngle = 0.0;
  bool negate = false;  // y taken as -y: the short way round
  bool linear = false;  // y so close to x that glm mixes linearly
};

inline SlerpSegment slerpSegment(const glm::dquat& x, const glm::dquat& y) {
  SlerpSegment s;
  double cosTheta = glm::dot(x, y);
  if (cosTheta < 0.0) {
    s.negate = true;
    cosTheta = -cosTheta;
  }
  if (cosTheta > 1.0 - glm::epsilon<double>()) {
    s.linear = true;
    return s;
  }
  s.angle = std::acos(cosTheta);
  s.sinAngle = std::sin(s.angle);
  return s;
}

inline glm::dquat slerp(const SlerpSegment& s, const glm::dquat& x, const glm::dquat& y, double a) {
  const glm::dquat z = s.negate ? -y : y;
  if (s.linear) return glm::dquat(glm::mix(x.w, z.w, a), glm::mix(x.x, z.x, a), glm::mix(x.y, z.y, a), glm::mix(x.z, z.z, a));
  return (std::sin((1.0 - a) * s.angle) * x + std::sin(a * s.angle) * z) / s.sinAngle;
}

// One link's samples, sorted by time, one per distinct time (a static link: one sample).
// Shared, never changed once built, so chains resolved earlier keep theirs after add().
struct TfSamples {
  std::vector<double> times;
  std::vector<RigidPose> poses;
  std::vector<SlerpSegment> slerps;  // from each sample to the next
};

// (R, t)^-1 = (conj(R), -(conj(R) t)): rotations are unit quaternions (add() normalises).
inline RigidPose inversePose(const RigidPose& p) {
  const glm::dquat r = glm::conjugate(p.rotation);
  return {-(r * p.translation), r};
}

}  // namespace detail

struct TfBuffer::Chain::Data {
  struct Link {
    std::shared_ptr<const detail::TfSamples> samples;  // null for a static link
    RigidPose pose;         // a static link's pose, already inverted when walked upwards
    bool inverted = false;  // a moving link walked upwards: inverted after interpolation
    uint32_t column = 0;    // a moving link's column in `segments`
  };
  std::vector<Link> links;  // from the fixed frame to the sensor frame
  // Every stamp of every moving link inside [start, end], ascending and distinct, and for
  // each of them one row of `moving` columns: each moving link's index of its last sample at
  // or before that time. Between two neighbouring times every link stays in one segment, so
  // one search position (the caller's hint, an index into `times`) serves all the links.
  std::vector<double> times;
  std::vector<uint32_t> segments;
  uint32_t moving = 0;
};

}  // namespace voxen
