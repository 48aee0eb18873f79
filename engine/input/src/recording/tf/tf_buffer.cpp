// The frames of a recording's tf messages, and resolving a chain of links between two of
// them (evaluation per point: tf_chain.cpp).
#include "voxen/input/tf_buffer.hpp"

#include <glm/geometric.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <set>

#include "rigid_pose_checks.hpp"
#include "recording/tf/tf_chain_data.hpp"
#include "voxen/host/error.hpp"

namespace voxen {

namespace {

struct RawSample {
  int64_t ns = 0;
  RigidPose pose;
};

struct LinkEntry {
  std::string parent;
  bool isStatic = false;
  std::vector<RawSample> raw;  // in the order added; a static link: one
  // Sorted on first look-up (Impl::mutex), dropped when a sample is added.
  mutable std::shared_ptr<const detail::TfSamples> sorted;
};

std::string quoted(const std::string& s) { return "'" + s + "'"; }

bool finite(const glm::dvec3& v) { return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z); }
bool finite(const glm::dquat& q) { return std::isfinite(q.w) && std::isfinite(q.x) && std::isfinite(q.y) && std::isfinite(q.z); }

}  // namespace

struct TfBuffer::Impl {
  std::map<std::string, LinkEntry> links;  // by child frame
  std::set<std::string> frames;
  mutable std::mutex mutex;

  Impl() = default;
  Impl(const Impl& other) : links(other.links), frames(other.frames) {}

  const LinkEntry* link(const std::string& child) const {
    const auto it = links.find(child);
    return it == links.end() ? nullptr : &it->second;
  }

  std::string knownFrames() const {
    std::string list;
    size_t n = 0;
    for (const std::string& f : frames) {
      if (n == 10) {
        list += ", ... (" + std::to_string(frames.size()) + " in all)";
        break;
      }
      list += (n++ ? ", " : "") + quoted(f);
    }
    return frames.empty() ? "no frames: the recording has no tf transforms" : "known frames: " + list;
  }

  void requireKnown(const std::string& frame) const {
    if (!frames.count(frame)) throw Error("tf: unknown frame " + quoted(frame) + " (" + knownFrames() + ")");
  }

  // frame, its parent, ..., its root.
  std::vector<std::string> upwards(const std::string& frame) const {
    std::vector<std::string> up{frame};
    while (const LinkEntry* l = link(up.back())) up.push_back(l->parent);
    return up;
  }

  std::shared_ptr<const detail::TfSamples> samples(const LinkEntry& entry) const {
    std::lock_guard lock(mutex);
    if (entry.sorted) return entry.sorted;
    std::vector<RawSample> raw = entry.raw;
    // Stable: of equal stamps the one added later stays later, and wins below.
    std::stable_sort(raw.begin(), raw.end(), [](const RawSample& a, const RawSample& b) { return a.ns < b.ns; });
    auto s = std::make_shared<detail::TfSamples>();
    s->times.reserve(raw.size());
    s->poses.reserve(raw.size());
    for (const RawSample& r : raw) {
      const double t = stampSeconds(r.ns);
      // Equal in seconds (stamps < 1 us apart late in the epoch can be) counts as equal: a
      // zero-length segment would divide by zero.
      if (!s->times.empty() && s->times.back() == t) {
        s->poses.back() = r.pose;
        continue;
      }
      s->times.push_back(t);
      s->poses.push_back(r.pose);
    }
    s->slerps.reserve(s->poses.size());
    for (size_t i = 0; i + 1 < s->poses.size(); ++i)
      s->slerps.push_back(detail::slerpSegment(s->poses[i].rotation, s->poses[i + 1].rotation));
    entry.sorted = s;
    return s;
  }
};

void TfBuffer::add(const ros::TransformStamped& transform, bool isStatic) {
  const std::string& child = transform.childFrame;
  const std::string& parent = transform.parentFrame;
  const std::string what = "tf: the " + std::string(isStatic ? "static " : "") + "transform of frame " + quoted(child) +
                           " in " + quoted(parent) + " at " + formatNumber(stampSeconds(transform.stampNs)) + " s";
  if (child.empty() || parent.empty())
    throw Error(what + " has an empty " + (child.empty() ? "child_frame_id" : "header.frame_id"));
  if (!finite(transform.translation) || !finite(transform.rotation))
    throw Error(what + " has a non-finite " + (finite(transform.translation) ? "rotation" : "translation"));
  // A length that underflows to 0 would leave glm::normalize returning the identity.
  const double length = glm::length(transform.rotation);
  if (!(length > 0.0)) throw Error(what + " has a zero rotation quaternion");
  if (!std::isfinite(length)) throw Error(what + " has a rotation quaternion too long to normalise");
  // As tf2 does (it ignores such a transform), a quaternion far from unit length is no
  // rotation: refused, which sets the transform aside (an error only on the sensor's chain).
  if (const std::string problem = detail::quaternionProblem(transform.rotation); !problem.empty())
    throw Error(what + ": " + problem);
  const RawSample sample{transform.stampNs, {transform.translation, glm::normalize(transform.rotation)}};

  // Copies share the frames until one of them adds.
  if (!impl_)
    impl_ = std::make_shared<Impl>();
  else if (impl_.use_count() > 1)
    impl_ = std::make_shared<Impl>(*impl_);
  Impl& d = *impl_;

  if (const auto it = d.links.find(child); it != d.links.end()) {
    LinkEntry& entry = it->second;
    if (entry.parent != parent)
      throw Error(what + ": frame " + quoted(child) + " already has the parent " + quoted(entry.parent) +
                  "; a frame has one parent (" + quoted(entry.parent) + " or " + quoted(parent) + "?)");
    if (entry.isStatic != isStatic)
      throw Error(what + ": frame " + quoted(child) + " is already given by " +
                  (entry.isStatic ? "a static transform (/tf_static)" : "moving transforms (/tf)") +
                  "; a link is either static or moving");
    if (isStatic) entry.raw.clear();
    entry.raw.push_back(sample);
    entry.sorted.reset();
    return;
  }
  // A new link closes a cycle when the child is already above the parent (or is it).
  const std::vector<std::string> up = d.upwards(parent);
  if (const auto at = std::find(up.begin(), up.end(), child); at != up.end()) {
    std::string loop;
    for (auto f = up.begin(); f != at + 1; ++f) loop += quoted(*f) + " -> ";
    throw Error(what + " would close a cycle of frames (each arrow from a frame to its parent): " + loop + quoted(parent));
  }
  d.links.emplace(child, LinkEntry{parent, isStatic, {sample}, nullptr});
  d.frames.insert(child);
  d.frames.insert(parent);
}

namespace {

// Repeats of one transform (two publishers, a bag recorded twice) agree to rounding; what
// differs by more moves the points.
constexpr double kConflictMetres = 1e-3;
constexpr double kConflictRadians = 1e-3;

bool differ(const RigidPose& a, const RigidPose& b) {
  if (glm::distance(a.translation, b.translation) > kConflictMetres) return true;
  // The angle between two unit quaternions (q and -q are one rotation).
  const double dot = std::min(1.0, std::abs(glm::dot(a.rotation, b.rotation)));
  return 2.0 * std::acos(dot) > kConflictRadians;
}

}  // namespace

std::vector<TfConflict> TfBuffer::conflicts() const {
  std::vector<TfConflict> found;
  if (!impl_) return found;
  for (const auto& [child, entry] : impl_->links) {
    if (entry.isStatic || entry.raw.size() < 2) continue;
    std::vector<RawSample> raw = entry.raw;
    std::stable_sort(raw.begin(), raw.end(), [](const RawSample& a, const RawSample& b) { return a.ns < b.ns; });
    TfConflict c{child, entry.parent, 0, {}, {}, 0};
    for (size_t first = 0; first < raw.size();) {
      // The samples equal in seconds to raw[first], as samples() merges them.
      const double t = stampSeconds(raw[first].ns);
      size_t end = first + 1;
      while (end < raw.size() && stampSeconds(raw[end].ns) == t) ++end;
      for (size_t k = first + 1; k < end; ++k) {
        if (!differ(raw[first].pose, raw[k].pose)) continue;
        if (c.stamps++ == 0) c.stampNs = raw[first].ns, c.first = raw[first].pose, c.other = raw[k].pose;
        break;
      }
      first = end;
    }
    if (c.stamps > 0) found.push_back(std::move(c));
  }
  return found;
}

std::vector<std::string> TfBuffer::frames() const {
  if (!impl_) return {};
  return {impl_->frames.begin(), impl_->frames.end()};
}

std::vector<std::string> TfBuffer::roots() const {
  std::vector<std::string> r;
  if (!impl_) return r;
  for (const std::string& f : impl_->frames)
    if (!impl_->link(f)) r.push_back(f);
  return r;
}

std::optional<std::string> TfBuffer::parentOf(const std::string& frame) const {
  if (!impl_) return std::nullopt;
  if (const LinkEntry* l = impl_->link(frame)) return l->parent;
  return std::nullopt;
}

bool TfBuffer::isStatic(const std::string& child) const {
  const Impl empty;
  const Impl& d = impl_ ? *impl_ : empty;
  d.requireKnown(child);
  const LinkEntry* l = d.link(child);
  return l && l->isStatic;
}

size_t TfBuffer::stamps(const std::string& child) const {
  const Impl empty;
  const Impl& d = impl_ ? *impl_ : empty;
  d.requireKnown(child);
  const LinkEntry* l = d.link(child);
  return l ? d.samples(*l)->times.size() : 0;
}

std::string TfBuffer::rootOf(const std::string& frame) const {
  const Impl empty;
  const Impl& d = impl_ ? *impl_ : empty;
  d.requireKnown(frame);
  return d.upwards(frame).back();
}

TfBuffer::Chain TfBuffer::chain(const std::string& fixedFrame, const std::string& sensorFrame) const {
  const Impl empty;
  const Impl& d = impl_ ? *impl_ : empty;
  const std::string what = "tf: no pose of frame " + quoted(sensorFrame) + " in frame " + quoted(fixedFrame);
  for (const std::string* f : {&fixedFrame, &sensorFrame})
    if (!d.frames.count(*f)) throw Error(what + ": unknown frame " + quoted(*f) + " (" + d.knownFrames() + ")");

  const std::vector<std::string> fixedUp = d.upwards(fixedFrame);
  const std::vector<std::string> sensorUp = d.upwards(sensorFrame);
  size_t i = 0, j = 0;  // the common ancestor: fixedUp[i] == sensorUp[j]
  for (; i < fixedUp.size(); ++i) {
    const auto at = std::find(sensorUp.begin(), sensorUp.end(), fixedUp[i]);
    if (at != sensorUp.end()) {
      j = size_t(at - sensorUp.begin());
      break;
    }
  }
  if (i == fixedUp.size())
    throw Error(what + ": they are not connected (" + quoted(sensorFrame) + " hangs from the root " +
                quoted(sensorUp.back()) + ", " + quoted(fixedFrame) + " from the root " + quoted(fixedUp.back()) + ")");

  Chain c;
  auto data = std::make_shared<Chain::Data>();
  std::vector<const detail::TfSamples*> moving;
  const auto addLink = [&](const std::string& child, bool inverted) {
    const LinkEntry& entry = *d.link(child);
    Chain::Data::Link link;
    link.inverted = inverted;
    if (entry.isStatic) {
      link.pose = inverted ? detail::inversePose(entry.raw[0].pose) : entry.raw[0].pose;
    } else {
      link.samples = d.samples(entry);
      link.column = uint32_t(moving.size());
      moving.push_back(link.samples.get());
    }
    data->links.push_back(std::move(link));
  };
  for (size_t k = 0; k < i; ++k) {  // up from the fixed frame: the link of fixedUp[k], inverted
    c.path_.push_back(fixedUp[k]);
    addLink(fixedUp[k], true);
  }
  c.path_.push_back(fixedUp[i]);
  for (size_t k = j; k-- > 0;) {  // down to the sensor frame
    c.path_.push_back(sensorUp[k]);
    addLink(sensorUp[k], false);
  }

  c.start_ = -std::numeric_limits<double>::infinity();
  c.end_ = std::numeric_limits<double>::infinity();
  for (const detail::TfSamples* s : moving) {
    c.start_ = std::max(c.start_, s->times.front());
    c.end_ = std::min(c.end_, s->times.back());
  }
  data->moving = uint32_t(moving.size());
  if (!moving.empty() && c.start_ <= c.end_) {
    for (const detail::TfSamples* s : moving)
      for (const double t : s->times)
        if (t >= c.start_ && t <= c.end_) data->times.push_back(t);
    std::sort(data->times.begin(), data->times.end());
    data->times.erase(std::unique(data->times.begin(), data->times.end()), data->times.end());
    data->segments.resize(data->times.size() * moving.size());
    for (size_t m = 0; m < moving.size(); ++m) {
      const std::vector<double>& own = moving[m]->times;
      size_t p = 0;
      for (size_t row = 0; row < data->times.size(); ++row) {
        while (p + 1 < own.size() && own[p + 1] <= data->times[row]) ++p;
        data->segments[row * moving.size() + m] = uint32_t(p);
      }
    }
  }
  c.data_ = std::move(data);
  return c;
}

}  // namespace voxen
