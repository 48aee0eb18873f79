// Mapper.integrate_depth: a depth camera's frame (a NumPy image, its pinhole intrinsics and
// its pose) into the map's TSDF layer (voxen/tsdf/tsdf.hpp, Mapper::integrateDepth);
// Mapper.integrate_cloud_tsdf: a lidar scan's rays into the same layer (voxen/tsdf/tsdf_rays.hpp,
// Mapper::integrateCloudTsdf); and Mapper.mesh: the TSDF's mesh as NumPy arrays (Mapper::mesh).
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cmath>
#include <optional>
#include <cstring>
#include <vector>

#include <glm/gtc/quaternion.hpp>
#include <glm/mat3x3.hpp>

#include "arrays.hpp"
#include "py_mapper.hpp"

namespace py = pybind11;

namespace voxen::python {
namespace {

// The image as a DepthImage: uint16 (units of depth_scale metres) or floats (metres).
DepthImage depthImageOf(const py::array& depth, double depthScale) {
  if (depth.ndim() != 2) throw py::value_error("depth must be a 2D image (rows, columns); got " + describeArray(depth));
  DepthImage image;
  image.height = uint32_t(depth.shape(0));
  image.width = uint32_t(depth.shape(1));
  if (py::isinstance<py::array_t<uint16_t>>(depth) && depth.dtype().kind() == 'u') {
    const auto pixels = py::array_t<uint16_t, py::array::c_style | py::array::forcecast>::ensure(depth);
    image.encoding = DepthEncoding::Unsigned16;
    image.depthScale = depthScale;
    image.depth16.assign(pixels.data(), pixels.data() + pixels.size());
  } else if (depth.dtype().kind() == 'f') {
    const auto pixels = py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(depth);
    image.encoding = DepthEncoding::Float32;
    image.depth32.assign(pixels.data(), pixels.data() + pixels.size());
  } else {
    throw py::value_error("depth must be uint16 (units of depth_scale metres) or float (metres); got " + describeArray(depth));
  }
  return image;
}

// The colour image registered to the depth image: uint8 (rows, columns, 3), red green blue.
ColourImage colourImageOf(const py::array& color, const DepthImage& depth) {
  if (color.ndim() != 3 || color.shape(0) != ssize_t(depth.height) || color.shape(1) != ssize_t(depth.width) || color.shape(2) != 3 ||
      !py::isinstance<py::array_t<uint8_t>>(color) || color.dtype().kind() != 'u')
    throw py::value_error("color must be a uint8 image (rows, columns, 3) of red, green, blue the size of depth (" +
                          std::to_string(depth.height) + ", " + std::to_string(depth.width) + ", 3); got " + describeArray(color));
  const auto pixels = py::array_t<uint8_t, py::array::c_style | py::array::forcecast>::ensure(color);
  return ColourImage{depth.width, depth.height, std::vector<uint8_t>(pixels.data(), pixels.data() + pixels.size())};
}

// The TSDF's settings from the keyword arguments both integrate calls take.
TsdfOptions tsdfOptionsOf(double truncation, double maxWeight, const std::string& weighting, double maxRange) {
  TsdfOptions options;
  options.truncationVoxels = truncation;
  options.maxWeight = maxWeight;
  options.maxRange = maxRange;
  if (weighting == "constant")
    options.weighting = TsdfWeighting::Constant;
  else if (weighting == "linear_drop_off")
    options.weighting = TsdfWeighting::LinearDropOff;
  else
    throw py::value_error("weighting must be \"constant\" or \"linear_drop_off\"; got \"" + weighting + "\"");
  return options;
}

py::dict integrateDepth(PyMapper& self, const py::array& depth, const std::vector<double>& intrinsics, const py::array& pose,
                        double depthScale, double truncation, double maxWeight, const std::string& weighting, double maxRange,
                        const std::optional<py::array>& color) {
  DepthFrame frame;
  frame.depth = depthImageOf(depth, depthScale);
  if (color) frame.colour = colourImageOf(*color, frame.depth);
  if (intrinsics.size() != 4) throw py::value_error("intrinsics must be (fx, fy, cx, cy) in pixels");
  frame.intrinsics = {frame.depth.width, frame.depth.height, intrinsics[0], intrinsics[1], intrinsics[2], intrinsics[3]};
  const auto m = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(pose);
  if (!m || m.ndim() != 2 || m.shape(0) != 4 || m.shape(1) != 4)
    throw py::value_error("pose must be a 4 x 4 matrix (the camera's optical frame to the map's frame); got " + describeArray(pose));
  const auto p = m.unchecked<2>();
  glm::dmat3 rotation;  // glm: [column][row]
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) rotation[c][r] = p(r, c);
  const glm::dmat3 shouldBeIdentity = glm::transpose(rotation) * rotation;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c)
      if (!(std::abs(shouldBeIdentity[c][r] - (r == c ? 1.0 : 0.0)) < 1e-6))
        throw py::value_error("pose: the upper-left 3 x 3 block is not a rotation (R^T R differs from I by more than 1e-6)");
  if (!(glm::determinant(rotation) > 0)) throw py::value_error("pose: the upper-left 3 x 3 block is a reflection, not a rotation");
  frame.orientation = glm::quat_cast(rotation);
  frame.position = {p(0, 3), p(1, 3), p(2, 3)};
  const TsdfOptions options = tsdfOptionsOf(truncation, maxWeight, weighting, maxRange);
  TsdfFrameStats stats;
  {
    py::gil_scoped_release release;
    stats = self.mapper->integrateDepth(frame, options);
  }
  py::dict result;
  result["blocks"] = stats.blocks;
  return result;
}

py::dict integrateCloudTsdf(PyMapper& self, const py::object& origins, const py::object& ends, double truncation,
                            double maxWeight, const std::string& weighting, double maxRange) {
  const TsdfOptions options = tsdfOptionsOf(truncation, maxWeight, weighting, maxRange);
  Points3 from(origins, "origins");
  Points3 to(ends, "ends");
  requireSameLength("origins", from.size(), "ends", to.size());
  TsdfScanStats stats;
  {
    py::gil_scoped_release release;
    std::vector<Ray> scan(from.size());
    for (size_t i = 0; i < scan.size(); ++i) {
      scan[i].origin = from.span()[i];
      scan[i].sample = to.span()[i];
    }
    stats = self.mapper->integrateCloudTsdf(scan, options);
  }
  py::dict result;
  result["rays"] = stats.rays;
  result["rays_skipped"] = stats.raysSkipped;
  result["blocks"] = stats.blocks;
  return result;
}

py::dict mesh(PyMapper& self, double minWeight, std::optional<std::vector<double>> bbox) {
  TsdfMeshOptions options;
  options.minWeight = minWeight;
  if (bbox) {
    if (bbox->size() != 6) throw py::value_error("bbox must be six numbers (xmin, ymin, zmin, xmax, ymax, zmax)");
    const std::vector<double>& b = *bbox;
    options.box = TsdfMeshBox{{b[0], b[1], b[2]}, {b[3], b[4], b[5]}};
  }
  TsdfMesh m;
  {
    py::gil_scoped_release release;
    m = self.mapper->mesh(options);
  }
  py::array_t<float> vertices({m.positions.size(), size_t(3)}), normals({m.normals.size(), size_t(3)});
  py::array_t<uint32_t> faces({m.faces.size(), size_t(3)});
  if (!m.positions.empty()) std::memcpy(vertices.mutable_data(), m.positions.data(), m.positions.size() * sizeof(glm::vec3));
  if (!m.normals.empty()) std::memcpy(normals.mutable_data(), m.normals.data(), m.normals.size() * sizeof(glm::vec3));
  if (!m.faces.empty()) std::memcpy(faces.mutable_data(), m.faces.data(), m.faces.size() * sizeof(glm::uvec3));
  py::dict result;
  result["vertices"] = vertices;
  result["normals"] = normals;
  result["faces"] = faces;
  result["colors"] = py::none();
  if (!m.colours.empty()) {
    py::array_t<uint8_t> colors({m.colours.size(), size_t(3)});
    std::memcpy(colors.mutable_data(), m.colours.data(), m.colours.size() * sizeof(glm::u8vec3));
    result["colors"] = colors;
  }
  return result;
}

}  // namespace

void bindMapperDepth(MapperClass& mapperClass) {
  mapperClass.def("mesh", onContext("Mapper.mesh", &mesh), py::kw_only(), py::arg("min_weight") = 0.0,
                  py::arg("bbox") = py::none(), R"doc(
The mesh of the map's TSDF (marching cubes at distance 0 over voxels with at least min_weight
measurements; one vertex per crossed voxel edge, normals from the TSDF's gradient), as
`voxen mesh` writes it: on the GPU, or with backend="cpu" the CPU reference (the same mesh).
Incremental: a call with the same settings as the last meshes again only the changed blocks.
bbox: (xmin, ymin, zmin, xmax, ymax, zmax) metres, only the cells whose corners lie inside.

Returns {"vertices": float32 (N, 3) metres, "normals": float32 (N, 3) unit, "faces": uint32
(M, 3) vertex indices, counter-clockwise seen from in front of the surface, "colors": uint8
(N, 3) red, green, blue per vertex when the map has the "tsdf_colour" layer (its edge's voxels'
colours interpolated at the crossing; black where no coloured frame reached them); None when
the mesh has no colours (no such layer, or no vertices)}.
)doc");
  mapperClass.def("integrate_depth", onContext("Mapper.integrate_depth", &integrateDepth), py::arg("depth"), py::arg("intrinsics"),
                  py::arg("pose"), py::kw_only(), py::arg("depth_scale") = 0.001, py::arg("truncation") = 4.0,
                  py::arg("max_weight") = 64.0, py::arg("weighting") = "constant", py::arg("max_range") = 10.0,
                  py::arg("color") = py::none(), R"doc(
A depth camera's frame into the map's TSDF layer (truncated signed distances and weights, made
at the first frame): projective integration on the GPU, or with backend="cpu" the CPU
reference (the same voxels, bit for bit).

depth: a (rows, columns) image, uint16 in units of depth_scale metres (ROS 16UC1: 0.001;
TUM: 1 / 5000) or float metres (32FC1); 0, NaN and beyond max_range are no measurement.
intrinsics: (fx, fy, cx, cy) in pixels, pinhole (undistorted). pose: the 4 x 4 matrix of the
camera's optical frame (x right, y down, z forward) in the map's frame.
truncation: the band around the surface in voxels (1..64); max_weight: measurements a voxel's
weight stops at; weighting: "constant" or "linear_drop_off" (behind the surface). These must
match the settings the map's TSDF was made with (voxen.SettingError otherwise).
color: optional uint8 (rows, columns, 3) red, green, blue registered to depth (same pixels):
folded into the "tsdf_colour" layer beside the distances (a weighted mean with the distance's
weight); the Mapper needs that layer (Mapper(..., layers=["tsdf", "tsdf_colour"])), else
voxen.Error. Frames without color leave the colours as they are.

Returns {"blocks": the 8^3-voxel blocks the frame reached}.
)doc");
  mapperClass.def("integrate_cloud_tsdf", onContext("Mapper.integrate_cloud_tsdf", &integrateCloudTsdf), py::arg("origins"),
                  py::arg("ends"), py::kw_only(), py::arg("truncation") = 4.0, py::arg("max_weight") = 64.0,
                  py::arg("weighting") = "constant", py::arg("max_range") = 10.0, R"doc(
One lidar scan's rays, from origins[i] (the sensor) to ends[i] (the hit), into the map's TSDF
layer by ray integration (made at the first scan): every voxel the ray passes whose centre lies
within the truncation band around the hit, measured along the ray, gets the signed distance
range - t (positive in front of the hit). A call is one scan: the rays' measurements of a voxel
fold once, as their weighted mean, so the map depends on how rays are split into calls, never
on their order within one. On the GPU, or with backend="cpu" the CPU reference (the same
voxels, bit for bit). Rays longer than max_range metres or of length 0 are no measurement.

origins, ends: (N, 3) arrays of real numbers. truncation (voxels, 1..64), max_weight and
weighting as integrate_depth's, and they must match the settings the map's TSDF was made with
(voxen.SettingError otherwise).

Returns {"rays": the rays that measured, "rays_skipped": those that did not, "blocks": the 8^3-voxel
blocks holding a voxel the scan measured}.
)doc");
}

}  // namespace voxen::python
