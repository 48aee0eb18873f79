// Mapper.render: the engine's renderMap (marching cubes of the occupied voxels, drawn by the
// painter's rasterizer) as an (H, W, 4) uint8 NumPy array.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "py_mapper.hpp"

namespace py = pybind11;

namespace voxen::python {
namespace {

uint32_t pixels(int64_t value, const char* argument) {
  if (value < 16 || value > 16384)
    throw py::value_error(std::string(argument) + " must be 16 to 16384 pixels; got " + std::to_string(value));
  return uint32_t(value);
}

glm::dvec3 pointOf(const py::handle& value, const std::string& key) {
  std::vector<double> values;
  try {
    values = value.cast<std::vector<double>>();
  } catch (const py::cast_error&) {
    values.clear();
  }
  if (values.size() != 3)
    throw py::value_error("camera[\"" + key + "\"] must be 3 numbers (x, y, z) in metres; got " +
                          py::repr(value).cast<std::string>());
  for (double v : values)
    if (std::isnan(v)) throw py::value_error("camera[\"" + key + "\"] is NaN");
  return {values[0], values[1], values[2]};
}

void applyCamera(const py::object& camera, RenderOptions& options) {
  if (camera.is_none()) return;
  if (!py::isinstance<py::dict>(camera))
    throw py::value_error("camera must be None or a dict with eye, target and fov_degrees; got " +
                          py::str(py::type::of(camera)).cast<std::string>());
  for (const auto& [keyObject, value] : camera.cast<py::dict>()) {
    const std::string key = py::str(keyObject);
    if (key == "eye") {
      options.eye = pointOf(value, key);
    } else if (key == "target") {
      options.target = pointOf(value, key);
    } else if (key == "fov_degrees") {
      const double fov = value.cast<double>();
      if (std::isnan(fov)) throw py::value_error("camera[\"fov_degrees\"] is NaN");
      options.fovDegrees = float(fov);
    } else {
      throw py::value_error("camera: unknown key \"" + key + "\" (known: eye, target, fov_degrees)");
    }
  }
}

py::array_t<uint8_t> render(PyMapper& self, int64_t width, int64_t height, const py::object& camera) {
  RenderOptions options;
  options.width = pixels(width, "width");
  options.height = pixels(height, "height");
  applyCamera(camera, options);
  auto image = std::make_unique<RenderImage>();
  {
    py::gil_scoped_release release;
    *image = self.mapper->render(options);
  }
  // The array takes the engine's pixels without a copy: the capsule owns them.
  RenderImage* owned = image.release();
  py::capsule owner(owned, [](void* p) { delete static_cast<RenderImage*>(p); });
  return py::array_t<uint8_t>({py::ssize_t(owned->height), py::ssize_t(owned->width), py::ssize_t(4)},
                              owned->pixels.data(), owner);
}

}  // namespace

void bindMapperRender(MapperClass& mapperClass) {
  mapperClass.def("render", onContext("Mapper.render", &render),
                  py::arg("width"), py::arg("height"), py::arg("camera") = py::none(), R"doc(
Draws the map's occupied voxels (a marching-cubes mesh, shaded) as `voxen render` does:
an (height, width, 4) uint8 RGBA array, top row first.

width, height: pixels, 16 to 16384. camera: None for the automatic view (framing where
most occupied voxels are), or a dict of the camera's settings (any of them):
eye and target: 3 numbers each, map metres (both or neither); fov_degrees: the vertical
field of view, in (0, 180), default 50. Raises ValueError (voxen.SettingError from the
engine) for a value out of range, and voxen.Error for a map with no occupied voxel or a
render grid that does not fit the memory budget. A view that looks away gives the
background only.
)doc");
}

}  // namespace voxen::python
