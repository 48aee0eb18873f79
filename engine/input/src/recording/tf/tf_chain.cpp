// Evaluating a resolved tf chain: runs per point, so no allocation, no lookup by name, and
// the hinted search finds a rising time's segment in one or two comparisons.
#include <glm/gtc/quaternion.hpp>

#include <algorithm>
#include <cmath>

#include "recording/tf/tf_chain_data.hpp"
#include "voxen/input/tf_buffer.hpp"

namespace voxen {

namespace {

// (R1, t1) * (R2, t2) = (R1 R2, R1 t2 + t1): b's coordinates into a's parent.
RigidPose compose(const RigidPose& a, const RigidPose& b) {
  return {a.rotation * b.translation + a.translation, a.rotation * b.rotation};
}

RigidPose interpolate(const detail::TfSamples& s, uint32_t i, double t) {
  const double t0 = s.times[i];
  // Exactly at a stamp: that sample, untouched by arithmetic (also the last sample, which
  // has no neighbour after it).
  if (t == t0) return s.poses[i];
  const double w = (t - t0) / (s.times[i + 1] - t0);
  const RigidPose& a = s.poses[i];
  const RigidPose& b = s.poses[i + 1];
  return {a.translation + (b.translation - a.translation) * w, detail::slerp(s.slerps[i], a.rotation, b.rotation, w)};
}

// The row k with times[k] <= t < times[k + 1] (or the last row); t lies inside
// [times.front(), times.back()]. Tries the hint and the row after it before searching.
size_t findRow(const std::vector<double>& times, double t, size_t hint) {
  const size_t n = times.size();
  if (hint < n && times[hint] <= t) {
    if (hint + 1 == n || t < times[hint + 1]) return hint;
    if (hint + 2 == n || t < times[hint + 2]) return hint + 1;
    return size_t(std::upper_bound(times.begin() + std::ptrdiff_t(hint + 2), times.end(), t) - times.begin()) - 1;
  }
  return size_t(std::upper_bound(times.begin(), times.end(), t) - times.begin()) - 1;
}

}  // namespace

std::optional<RigidPose> TfBuffer::Chain::at(double seconds, size_t& hint) const {
  // Written so that NaN fails too.
  if (!data_ || !(seconds >= start_ && seconds <= end_)) return std::nullopt;
  const Data& d = *data_;
  const uint32_t* row = nullptr;
  if (d.moving != 0) {
    hint = findRow(d.times, seconds, hint);
    row = d.segments.data() + hint * d.moving;
  }
  RigidPose pose;
  bool first = true;
  for (const Data::Link& link : d.links) {
    RigidPose p = link.pose;
    if (link.samples) {
      p = interpolate(*link.samples, row[link.column], seconds);
      if (link.inverted) p = detail::inversePose(p);
    }
    pose = first ? p : compose(pose, p);
    first = false;
  }
  return pose;
}

std::optional<RigidPose> TfBuffer::Chain::at(double seconds) const {
  size_t hint = 0;
  return at(seconds, hint);
}

double TfBuffer::Chain::start() const { return start_; }
double TfBuffer::Chain::end() const { return end_; }
// A default-constructed Chain has no path: its frames are empty names rather than a crash.
const std::string& TfBuffer::Chain::fixedFrame() const {
  static const std::string none;
  return path_.empty() ? none : path_.front();
}
const std::string& TfBuffer::Chain::sensorFrame() const {
  static const std::string none;
  return path_.empty() ? none : path_.back();
}
const std::vector<std::string>& TfBuffer::Chain::path() const { return path_; }

}  // namespace voxen
