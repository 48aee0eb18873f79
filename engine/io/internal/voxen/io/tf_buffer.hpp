#pragma once
// Poses from tf: the frames of a recording's /tf and /tf_static messages, and the pose of a
// sensor frame in a fixed frame at any time inside the data, through a chain of frames
// (map -> odom -> base_link -> lidar). Between two stamps of a moving frame the translation
// is interpolated linearly (a + (b - a) * w, as Trajectory does) and the rotation by slerp
// (glm::slerp, as Trajectory::orientationAt); a static transform applies at every time. A
// time outside the stamps of any moving link of the chain has no pose: never extrapolated.
#include <glm/gtc/quaternion.hpp>
#include <glm/mat3x3.hpp>
#include <glm/vec3.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "voxen/io/ros_messages.hpp"

namespace voxen {

// p_parent = rotation * p_child + translation.
struct RigidPose {
  glm::dvec3 translation{0.0};
  glm::dquat rotation{1.0, 0.0, 0.0, 0.0};
};

class TfBuffer {
 public:
  // In any order; a moving link's stamps are sorted when it is first looked up (equal stamps:
  // the later added wins). A static transform replaces an earlier one of the same child.
  // Throws Error naming both parents when a child frame is given a second, different parent,
  // and naming the frame when a transform would close a cycle or has a non-finite value or
  // a zero quaternion (quaternions are normalised).
  void add(const ros::TransformStamped& transform, bool isStatic);

  std::vector<std::string> frames() const;  // every frame named, sorted
  // Frames without a parent, sorted (a tree has one; a recording may hold several).
  std::vector<std::string> roots() const;
  std::optional<std::string> parentOf(const std::string& frame) const;
  bool isStatic(const std::string& child) const;  // the link from child to its parent
  size_t stamps(const std::string& child) const;  // samples of that link
  // The root above `frame` (the frame itself when it has no parent).
  std::string rootOf(const std::string& frame) const;

  // A sensor frame's pose in a fixed frame, resolved once; cheap to evaluate per point.
  class Chain {
   public:
    // nullopt outside the time span (or for NaN). `hint`: the search position of the last
    // call (start at 0): constant time for times that rise slowly; the result is the same.
    std::optional<RigidPose> at(double seconds, size_t& hint) const;
    std::optional<RigidPose> at(double seconds) const;
    // The times with a pose: [start, end]; -inf, +inf when every link is static.
    double start() const;
    double end() const;
    const std::string& fixedFrame() const;
    const std::string& sensorFrame() const;
    // The frames from fixed to sensor, e.g. {"map", "odom", "base_link", "lidar"}.
    const std::vector<std::string>& path() const;

   private:
    friend class TfBuffer;
    struct Link;  // defined in tf_buffer.cpp
    std::vector<std::shared_ptr<const Link>> links_;
    std::vector<std::string> path_;
    double start_ = 0, end_ = 0;
  };

  // Throws Error naming both frames when either is unknown or they are not connected (saying
  // the root each one hangs from). The fixed frame may be below the sensor's, beside it, or
  // above it: links walked upwards are inverted.
  Chain chain(const std::string& fixedFrame, const std::string& sensorFrame) const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

// p_fixed for a point p in the sensor frame.
inline glm::dvec3 applyPose(const RigidPose& pose, const glm::dvec3& p) { return pose.rotation * p + pose.translation; }

}  // namespace voxen
