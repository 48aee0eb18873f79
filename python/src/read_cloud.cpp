// voxen.read_cloud: a point cloud (with its trajectory) or a ray cloud as NumPy arrays, read
// by the engine's RayReader, the reader `voxen map` uses, so Python gets the very rays the
// CLI would map (the same fields, skips and errors).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <glm/vec3.hpp>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "arrays.hpp"
#include "bindings.hpp"
#include "py_mapper.hpp"
#include "voxen/host/setting_error.hpp"
#include "voxen/input/ray_source.hpp"

namespace py = pybind11;

namespace voxen::python {
namespace {

// The rays in columns, as the arrays will hold them: filled while the GIL is released, then
// handed to NumPy without a copy.
struct CloudColumns {
  std::vector<glm::dvec3> points, origins;
  std::vector<double> times;
  std::vector<float> intensity;
  bool hasIntensity = false;
  bool skipped = false;
  std::string summary;
  std::vector<std::string> warnings;  // the reader's setting warnings, worded with the keywords
};

// The Python keyword of a setting the reader names by its field.
std::string keywordOf(const std::string& field) {
  if (field == "RayReaderOptions::pcdViewpoint") return "pcd_viewpoint";
  return field;
}

CloudColumns readColumns(const std::filesystem::path& cloud, const std::optional<std::filesystem::path>& trajectory,
                         bool withOrigins, const RecordingOptions& recording, std::optional<PcdViewpoint> pcdViewpoint) {
  RayReader reader = [&] {
    RayReaderOptions options{.recording = recording, .pcdViewpoint = pcdViewpoint};
    try {
      try {
        return RayReader(cloud, trajectory, options);
      } catch (const SettingError& e) {
        // A plain cloud, with neither origins nor a trajectory: only mapping needs to know where
        // the sensor was, so without origins=True its points are read as they are (the origin
        // the rays get is never returned).
        if (e.field() != "RayReaderOptions::origin" || withOrigins || trajectory) throw;
        options.origin = glm::dvec3(0.0);
        return RayReader(cloud, trajectory, options);
      }
    } catch (const SettingError& e) {
      if (e.field() != "RayReaderOptions::pcdViewpoint") throw;
      throw SettingError(e.kind(), e.field(), "pcd_viewpoint", "read_cloud: " + e.naming("pcd_viewpoint"));
    }
  }();
  CloudColumns out;
  for (const SettingWarning& w : reader.settingWarnings()) out.warnings.push_back(w.naming(keywordOf(w.field)));
  // Only the columns the caller gets: no origins unless asked, no intensity the cloud lacks.
  out.hasIntensity = !reader.intensityField().empty();
  // The header's count bounds the rays, but a corrupt header may claim billions: reserve at
  // most 16 M up front and let the vectors grow past that.
  const size_t expected = size_t(std::min<uint64_t>(reader.totalPoints(), uint64_t(1) << 24));
  out.points.reserve(expected);
  if (withOrigins) out.origins.reserve(expected);
  out.times.reserve(expected);
  if (out.hasIntensity) out.intensity.reserve(expected);
  for (std::span<const Ray> rays = reader.next(); !rays.empty(); rays = reader.next()) {
    for (const Ray& ray : rays) {
      out.points.push_back(ray.sample);
      if (withOrigins) out.origins.push_back(ray.origin);
      out.times.push_back(ray.time);
      if (out.hasIntensity) out.intensity.push_back(ray.intensity);
    }
  }
  const RayLoadStats& stats = reader.stats();
  out.skipped = stats.skippedNonFinite > 0 || stats.skippedOutsideTrajectory > 0 || stats.skippedBackwards > 0;
  out.summary = reader.summary();
  return out;
}

// A vector's memory as a NumPy array that owns it (through a capsule), without a copy.
template <typename Scalar, typename Element>
py::array_t<Scalar> handOver(std::vector<Element>&& values, size_t columns) {
  const auto rows = static_cast<py::ssize_t>(values.size());
  std::vector<py::ssize_t> shape = {rows};
  if (columns > 1) shape.push_back(static_cast<py::ssize_t>(columns));
  if (values.empty()) return py::array_t<Scalar>(shape);
  auto* owned = new std::vector<Element>(std::move(values));
  py::capsule owner(owned, [](void* p) { delete static_cast<std::vector<Element>*>(p); });
  return py::array_t<Scalar>(shape, reinterpret_cast<const Scalar*>(owned->data()), owner);
}

py::tuple readCloud(const py::object& path, const py::object& trajectory, bool origins, const py::object& cloudTopic,
                    const py::object& fixedFrame, const py::object& sensorFrame, double start, const py::object& duration,
                    bool deskew, const py::object& pcdViewpoint) {
  const std::filesystem::path cloud = pathOf(path);
  // The recording options as `voxen map` takes them (its flags refuse NaN and negatives too).
  RecordingOptions recording;
  if (!cloudTopic.is_none()) recording.cloudTopic = cloudTopic.cast<std::string>();
  if (!fixedFrame.is_none()) recording.fixedFrame = fixedFrame.cast<std::string>();
  if (!sensorFrame.is_none()) recording.sensorFrame = sensorFrame.cast<std::string>();
  if (!(start >= 0.0 && start <= 1e9)) 
    throw SettingError(SettingError::Kind::Invalid, "RecordingOptions::start", "start",
                       "read_cloud: {} must be 0 to 1e9 seconds, got " + std::to_string(start));
  recording.start = start;
  if (!duration.is_none()) {
    const double d = duration.cast<double>();
    if (!(d > 0.0 && d <= 1e9)) 
      throw SettingError(SettingError::Kind::Invalid, "RecordingOptions::duration", "duration",
                         "read_cloud: {} must be above 0 and at most 1e9 seconds, got " + std::to_string(d));
    recording.duration = d;
  }
  recording.deskew = deskew;
  std::optional<PcdViewpoint> viewpoint;
  if (!pcdViewpoint.is_none()) {
    const std::string name = pcdViewpoint.cast<std::string>();
    viewpoint = parsePcdViewpoint(name);
    if (!viewpoint)
      throw SettingError(SettingError::Kind::Invalid, "RayReaderOptions::pcdViewpoint", "pcd_viewpoint",
                         "read_cloud: {} must be 'origin' or 'pose' (or None), got '" + name + "'");
  }
  std::optional<std::filesystem::path> poses;
  if (!trajectory.is_none()) poses = pathOf(trajectory);
  CloudColumns columns;
  {
    py::gil_scoped_release release;
    columns = readColumns(cloud, poses, origins, recording, viewpoint);
  }
  for (const std::string& warning : columns.warnings)
    if (PyErr_WarnEx(PyExc_UserWarning, ("voxen.read_cloud: " + warning).c_str(), 1) != 0) throw py::error_already_set();
  // Skipped points are the engine's rule (NaN/inf values, times outside the trajectory), but
  // the arrays alone would not say that rows are missing.
  if (columns.skipped && PyErr_WarnEx(PyExc_RuntimeWarning, ("voxen.read_cloud: " + columns.summary).c_str(), 1) != 0)
    throw py::error_already_set();
  py::object intensity = py::none();
  if (columns.hasIntensity) intensity = handOver<float>(std::move(columns.intensity), 1);
  py::array_t<double> points = handOver<double>(std::move(columns.points), 3);
  py::array_t<double> times = handOver<double>(std::move(columns.times), 1);
  if (!origins) return py::make_tuple(points, times, intensity);
  return py::make_tuple(points, times, intensity, handOver<double>(std::move(columns.origins), 3));
}

}  // namespace

void bindReadCloud(py::module_& m) {
  m.def("read_cloud", &readCloud, py::arg("path"), py::arg("trajectory") = py::none(), py::arg("origins") = false,
        py::kw_only(), py::arg("cloud_topic") = py::none(), py::arg("fixed_frame") = py::none(),
        py::arg("sensor_frame") = py::none(), py::arg("start") = 0.0, py::arg("duration") = py::none(),
        py::arg("deskew") = true, py::arg("pcd_viewpoint") = py::none(),
        R"doc(
Reads a recording as `voxen map --input PATH [--trajectory TRAJECTORY]` does, with the
engine's reader, the format told by the content (`voxen inspect PATH` says what is there):
a PLY point cloud whose points carry a time, with the trajectory file giving the sensor's
position at that time; a ray cloud, a PLY whose vertices carry their sensor origin (ox, oy,
oz or origin_x, origin_y, origin_z); a ROS 1 bag or an MCAP file (ROS 2), whose
PointCloud2 clouds are posed by tf at each point's time (see below); a PCD file (ascii, binary or binary_compressed; its
VIEWPOINT is the origin without a trajectory) or a folder of them, read in name order; a
KITTI odometry sequence folder (or one velodyne .bin scan). Any scalar type.

pcd_viewpoint (--pcd-viewpoint) says how a PCD file's VIEWPOINT (tx ty tz qw qx qy qz) is
read: "origin" (the points are already in the cloud's frame, recorded from VIEWPOINT's
position, as PCL's reader takes it) or "pose" (the points are in the sensor's frame and
VIEWPOINT is the sensor's pose, applied to them, as PCLVisualizer and CloudCompare take it).
None reads it as "origin", with a UserWarning naming both readings when a file's VIEWPOINT
is not the identity. Other formats raise voxen.SettingError for a reading given.

Returns (points, times, intensity): points (N, 3) float64 (x, y, z), times (N,) float64 (the
first of the fields time, timestamp, gps_time, offset_time, internal_time; zeros when the
cloud has none) and intensity (N,) float32 (the field intensity, scalar_intensity or
reflectance), or None when the cloud has no intensity field.

origins=True adds a 4th element: the sensor origin of each point, (N, 3) float64 (the
cloud's origin fields, or the trajectory's position interpolated at the point's time).
`voxen map` integrates the rays from origins[i] to points[i]. Only origins need to know where
the sensor was: without origins=True a plain cloud (a PLY of x, y, z with or without time and
intensity, no origin fields) is read without a trajectory too.

Bags and MCAP files take the keywords of `voxen map`'s flags: cloud_topic (--cloud-topic;
default the only PointCloud2 topic), fixed_frame and sensor_frame (--fixed-frame,
--sensor-frame; defaults: the root of the tf tree, the clouds' frame_id), start and duration
in seconds from the recording's first message (--start, --duration), deskew=False
(--no-deskew: every point posed at its cloud's header.stamp). Points come out in the fixed
frame; origins are the sensor's position there.

Points with a NaN/inf coordinate, origin or time, points whose time lies outside the
trajectory (or the tf data), and the clouds of a recording stamped before the cloud recorded
ahead of them, are left out as the CLI leaves them out; a RuntimeWarning then says how many.
Raises voxen.Error naming the file (and the line, vertex or field) for a missing or
malformed file, a missing field, origins=True for a cloud without origins and no trajectory,
or clocks that do not match the trajectory's. The file is read with the GIL released.
)doc");
}

}  // namespace voxen::python
