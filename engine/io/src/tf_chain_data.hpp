#pragma once
// What a resolved tf chain holds: built by tf_buffer.cpp, evaluated per point by tf_chain.cpp.
#include <glm/gtc/quaternion.hpp>

#include <cstdint>
#include <memory>
#include <vector>

#include "voxen/io/tf_buffer.hpp"

namespace voxen {

namespace detail {

// One link's samples, sorted by time, one per distinct time (a static link: one sample).
// Shared, never changed once built, so chains resolved earlier keep theirs after add().
struct TfSamples {
  std::vector<double> times;
  std::vector<RigidPose> poses;
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
