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

#include "voxen/input/ros_messages.hpp"

namespace voxen {

// A ROS stamp (nanoseconds since the epoch) in seconds: the whole seconds and the remainder
// converted apart, so the double keeps every nanosecond it can hold (1.7e18 ns as one double
// would lose up to 128 ns). Both parts truncate toward zero, so a negative stamp comes out
// right too (-1500000000 -> -1 + -0.5). Every reader of stamps uses this one formula, so a
// cloud's time and a tf sample's time that were equal in nanoseconds are equal in seconds.
using ros::stampSeconds;  // the one conversion (ros_messages.hpp)

// p_parent = rotation * p_child + translation.
struct RigidPose {
  glm::dvec3 translation{0.0};
  glm::dquat rotation{1.0, 0.0, 0.0, 0.0};
};

// Two different transforms of one moving link at the same stamp (equal in seconds): tf2
// warns (TF_REPEATED_DATA) and keeps one; which one a reader gets is an accident of order.
struct TfConflict {
  std::string child, parent;
  int64_t stampNs = 0;     // the first such stamp of the link
  RigidPose first, other;  // at that stamp: the first added, and one that differs from it
  size_t stamps = 0;       // the link's stamps with differing transforms
};

class TfBuffer {
 public:
  // In any order; a moving link's stamps are sorted when it is first looked up (equal stamps:
  // the later added wins; conflicts() lists the stamps where they differ, which a reader must
  // not leave to order). A static transform replaces an earlier one of the same child.
  // Throws Error naming both parents when a child frame is given a second, different parent,
  // and naming the frame when a transform would close a cycle or has a non-finite value or
  // a zero quaternion or one whose squared length is more than 0.01 from 1 (tf2's tolerance;
  // nearer ones are normalised), an empty frame name, or a child given
  // both static and moving transforms. Stamps that are equal once in seconds
  // (stampSeconds) count as equal.
  void add(const ros::TransformStamped& transform, bool isStatic);

  std::vector<std::string> frames() const;  // every frame named, sorted
  // Frames without a parent, sorted (a tree has one; a recording may hold several).
  std::vector<std::string> roots() const;
  std::optional<std::string> parentOf(const std::string& frame) const;  // nullopt: a root or unknown
  // The link from child to its parent; a root has none: false, 0 stamps. An unknown frame
  // throws Error naming the frames known, as rootOf does.
  bool isStatic(const std::string& child) const;
  size_t stamps(const std::string& child) const;  // samples of that link, distinct stamps
  // The root above `frame` (the frame itself when it has no parent).
  std::string rootOf(const std::string& frame) const;

  // A sensor frame's pose in a fixed frame, resolved once; cheap to evaluate per point (no
  // allocation, no lookup by name). Resolve it once per sensor, not per cloud: chain() copies
  // the stamps of the chain's moving links, and keeps them: a later add() leaves it as it was.
  // A copy of a TfBuffer is independent of the original.
  //
  // Order of operations, so a test can reproduce at() bit for bit: with path() = f0 ... fn,
  // link Li maps coordinates in f(i+1) to f(i). A link walked downwards (f(i+1) is the child)
  // is the transform as added; one walked upwards is inverted AFTER interpolation:
  // (R, t)^-1 = (conj(R), -(conj(R) * t)). A moving link at t: exactly at a stamp, that
  // sample; else with t0 <= t < t1 its neighbouring stamps and w = (t - t0) / (t1 - t0),
  // translation a + (b - a) * w and rotation glm::slerp(qa, qb, w). Then at(t) =
  // ((L0 * L1) * L2) * ... composed left to right, (R1, t1) * (R2, t2) = (R1 * R2,
  // R1 * t2 + t1), nothing normalised; no links (fixed == sensor): the identity.
  // p_fixed = applyPose(at(t), p_sensor).
  class Chain {
   public:
    // nullopt outside the time span (or for NaN). `hint`: the search position of the last
    // call (start at 0): constant time for times that rise slowly; the result is the same.
    // One hint serves every moving link of the chain (it indexes the union of their stamps).
    std::optional<RigidPose> at(double seconds, size_t& hint) const;
    std::optional<RigidPose> at(double seconds) const;
    // The times with a pose: [start, end]; -inf, +inf when every link is static. start is
    // the latest first stamp of the moving links, end the earliest last stamp; start > end
    // when they share no time (then no time has a pose).
    double start() const;
    double end() const;
    const std::string& fixedFrame() const;
    const std::string& sensorFrame() const;
    // The frames from fixed to sensor, e.g. {"map", "odom", "base_link", "lidar"}.
    const std::vector<std::string>& path() const;

   private:
    friend class TfBuffer;
    struct Data;  // the links and their joint stamps: tf_chain_data.hpp
    std::shared_ptr<const Data> data_;
    std::vector<std::string> path_;
    double start_ = 0, end_ = 0;
  };

  // Per moving link with any, its stamps that carry transforms differing by more than 1 mm
  // in translation or 0.001 rad in rotation (repeats of one transform are no conflict), by
  // child frame. Sorts every moving link's stamps: call once, after the last add().
  std::vector<TfConflict> conflicts() const;

  // Throws Error naming both frames when either is unknown or they are not connected (saying
  // the root each one hangs from). The fixed frame may be below the sensor's, beside it, or
  // above it: links walked upwards are inverted.
  Chain chain(const std::string& fixedFrame, const std::string& sensorFrame) const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

namespace detail {
// A frame's name as tf2 takes it: without a leading '/' (recordings and streams alike).
std::string frameName(const std::string& frame);
}  // namespace detail

// p_fixed for a point p in the sensor frame.
inline glm::dvec3 applyPose(const RigidPose& pose, const glm::dvec3& p) { return pose.rotation * p + pose.translation; }

}  // namespace voxen
