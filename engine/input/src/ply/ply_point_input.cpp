// PLY clouds as a point input: the vertex element's x, y, z and, by name, its time, origin
// and intensity properties (see ray_source.hpp for the names and what each case needs).
#include <array>

#include "ply/ply_row_source.hpp"
#include "point_source.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/setting_error.hpp"
#include "voxen/input/ray_source.hpp"

namespace voxen::detail {

namespace {

// Owns the reader that a streamed row source reads through.
class PlyPointSource final : public PointSource {
 public:
  PlyPointSource(std::unique_ptr<PlyReader> ply, const PointInputOptions& options)
      : ply_(std::move(ply)), rows_(makePlyRowSource(*ply_, std::max<size_t>(options.chunkPoints, 1), options.mapFile)) {}
  uint64_t chunks() const override { return rows_->chunks(); }
  bool concurrent() const override { return rows_->concurrent(); }
  size_t read(uint64_t chunk, std::vector<double>& out) override { return rows_->read(chunk, out); }

 private:
  std::unique_ptr<PlyReader> ply_;
  std::unique_ptr<PlyRowSource> rows_;
};

std::string timeFieldNames() {
  std::string names;
  for (const auto n : kRayTimeFieldNames) names += (names.empty() ? "" : ", ") + std::string(n);
  return names;
}

}  // namespace

PointInput openPlyInput(const std::filesystem::path& path, const std::optional<std::filesystem::path>& trajectory,
                        const PointInputOptions& options) {
  PointInput input;
  input.format = "PLY";
  const std::string name = path.string();
  auto plyOwner = std::make_unique<PlyReader>(path);
  PlyReader& ply = *plyOwner;

  auto propertyList = [&]() {
    std::string have;
    for (const auto& p : ply.element().properties) have += (have.empty() ? "" : ", ") + p.name + (p.isList ? " (list)" : "");
    return have.empty() ? std::string("none") : have;
  };

  std::vector<size_t> columns;
  std::string missing;
  for (const char* n : {"x", "y", "z"}) {
    if (const auto i = ply.findProperty(n)) columns.push_back(*i);
    else missing += (missing.empty() ? "" : ", ") + std::string(n);
  }
  if (!missing.empty()) {
    throw Error(name + ": the vertex element lacks the sample position field" +
                (missing.size() > 1 ? std::string("s ") : std::string(" ")) + missing +
                " (expected x, y, z; the vertex has: " + propertyList() + ")");
  }

  bool hasTime = false;
  for (const auto n : kRayTimeFieldNames) {
    if (const auto i = ply.findProperty(n)) {
      input.timeField = std::string(n);
      hasTime = true;
      columns.push_back(*i);
      break;
    }
  }

  // The return intensity (NDT-TM keeps its per-voxel statistics), under the names lidar
  // tools write it; read after the origin fields.
  std::optional<size_t> intensityColumn;
  for (const char* n : {"intensity", "scalar_intensity", "reflectance"}) {
    if (const auto i = ply.findProperty(n)) {
      intensityColumn = *i;
      input.intensityField = n;
      break;
    }
  }

  const std::array<std::array<const char*, 3>, 2> originSets = {{{"ox", "oy", "oz"}, {"origin_x", "origin_y", "origin_z"}}};
  std::vector<size_t> originColumns;
  std::string originNames;
  for (const auto& set : originSets) {
    std::vector<size_t> found;
    std::string absent;
    for (const char* n : set) {
      if (const auto i = ply.findProperty(n)) found.push_back(*i);
      else absent += (absent.empty() ? "" : ", ") + std::string(n);
    }
    if (found.size() == 3) {
      originColumns = found;
      originNames = std::string(set[0]) + ", " + set[1] + ", " + set[2];
      break;
    }
    if (!found.empty() && !trajectory) {
      throw Error(name + ": the vertex element has some origin fields of (" + std::string(set[0]) + ", " + set[1] +
                  ", " + set[2] + ") but lacks " + absent + " (the vertex has: " + propertyList() + ")");
    }
  }
  const bool cloudHasOrigins = originColumns.size() == 3;

  bool hasOrigin = false;
  if (trajectory) {
    if (!hasTime) {
      throw Error(name + ": the vertex element has no per-point time field, which the trajectory " +
                  trajectory->string() + " needs (expected one of: " + timeFieldNames() +
                  "; the vertex has: " + propertyList() + ")");
    }
  } else if (cloudHasOrigins) {
    hasOrigin = true;
    input.originFields = originNames;
    columns.insert(columns.end(), originColumns.begin(), originColumns.end());
  } else if (options.origin) {
    // A single scan: every ray from the position given.
    input.fixedOrigin = options.origin;
    input.originFields = "the sensor origin given, (" + formatNumber(options.origin->x) + ", " +
                         formatNumber(options.origin->y) + ", " + formatNumber(options.origin->z) + ")";
  } else {
    throw SettingError(SettingError::Kind::Change, "RayReaderOptions::origin", "an origin",
                       name + ": cannot tell where the sensor was: the vertex element has no origin fields (expected ox, "
                       "oy, oz or origin_x, origin_y, origin_z) and no trajectory was given (a trajectory needs a time "
                       "field: " + timeFieldNames() + "; the vertex has: " + propertyList() +
                       "); for a single scan, give the sensor's position as {}");
  }
  if (intensityColumn) columns.push_back(*intensityColumn);
  input.layout = {.columns = columns.size(), .hasTime = hasTime, .hasOrigin = hasOrigin, .hasIntensity = bool(intensityColumn)};
  ply.selectColumns(std::move(columns));
  input.points = ply.count();
  input.source = std::make_unique<PlyPointSource>(std::move(plyOwner), options);
  return input;
}

}  // namespace voxen::detail
