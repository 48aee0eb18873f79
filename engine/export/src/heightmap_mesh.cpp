#include "voxen/export/heightmap_mesh.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

#include <glm/geometric.hpp>
#include <glm/vec2.hpp>

#include "export_helpers.hpp"
#include "voxen/atomic_file/atomic_file.hpp"
#include "voxen/export/colour_bar.hpp"
#include "voxen/export/cost_colour.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/setting_error.hpp"

namespace voxen {

namespace {

using Rgb3 = std::array<uint8_t, 3>;

// The four sides: the neighbour's column offset and the cell's step toward it.
struct Side {
  int32_t dx, dy;
  int32_t gpu::HeightmapCell::*step;
};
constexpr Side kEast{1, 0, &gpu::HeightmapCell::stepEast}, kNorth{0, 1, &gpu::HeightmapCell::stepNorth};
constexpr Side kWest{-1, 0, &gpu::HeightmapCell::stepWest}, kSouth{0, -1, &gpu::HeightmapCell::stepSouth};

struct CellRef {
  uint32_t level, x, y;
};

class MeshBuilder {
 public:
  MeshBuilder(const Heightmap& hm, const HeightmapMeshOptions& options)
      : hm_(hm), options_(options), maxStep_(heightmapLimits(hm.options(), hm.resolution()).maxStepUnits) {}

  HeightmapMesh build() {
    heightRange();
    forEachDrawnCell([&](const CellRef& c) { square(c); });
    forEachDrawnCell([&](const CellRef& c) {
      // A pair is found from the cell that steps east or north to it, and from the west or
      // south only when the neighbour's own match points elsewhere, so each is joined once.
      for (const Side& side : {kEast, kNorth}) {
        if (const std::optional<CellRef> other = matched(c, side)) join(c, *other, side);
      }
      for (const auto& [side, back] : {std::pair{kWest, kEast}, std::pair{kSouth, kNorth}}) {
        const std::optional<CellRef> other = matched(c, side);
        if (!other) continue;
        const std::optional<CellRef> reverse = matched(*other, back);
        if (!reverse || reverse->level != c.level) join(c, *other, side);
      }
    });
    return std::move(mesh_);
  }

 private:
  bool drawnLevel(uint32_t level) const { return !options_.level || *options_.level == level; }

  template <class Visit>
  void forEachDrawnCell(Visit&& visit) const {
    for (uint32_t level = 0; level < hm_.levels(); ++level) {
      if (!drawnLevel(level)) continue;
      for (uint32_t y = 0; y < hm_.height(); ++y)
        for (uint32_t x = 0; x < hm_.width(); ++x)
          if (hm_.present(level, x, y)) visit(CellRef{level, x, y});
    }
  }

  void heightRange() {
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    forEachDrawnCell([&](const CellRef& c) {
      const double z = hm_.heightMetres(c.level, c.x, c.y);
      lo = std::min(lo, z), hi = std::max(hi, z);
    });
    if (lo <= hi) mesh_.heightMin = lo, mesh_.heightMax = hi;
    range_ = detail::ColourRange::of(mesh_.heightMin, mesh_.heightMax);
  }

  Rgb3 colourOf(const CellRef& c) const {
    const detail::Rgb rgb = options_.colouring == HeightmapColouring::Cost
                                ? detail::costColour(hm_.cell(c.level, c.x, c.y).cost)
                                : detail::heatColour(range_.fraction(hm_.heightMetres(c.level, c.x, c.y)));
    return {rgb.r, rgb.g, rgb.b};
  }

  // The neighbour's cell this one's step toward `side` was measured to, when it is joined:
  // the step is at most maxStep and that cell is drawn.
  std::optional<CellRef> matched(const CellRef& c, const Side& side) const {
    const gpu::HeightmapCell& cell = hm_.cell(c.level, c.x, c.y);
    const int32_t step = cell.*side.step;
    if (step == gpu::kNoNeighbour || std::abs(int64_t(step)) > int64_t(maxStep_)) return std::nullopt;
    const uint32_t x = uint32_t(int64_t(c.x) + side.dx), y = uint32_t(int64_t(c.y) + side.dy);
    const int64_t height = int64_t(cell.height) + step;
    for (uint32_t level = 0; level < hm_.levels() && hm_.present(level, x, y); ++level)
      if (hm_.cell(level, x, y).height == height) return drawnLevel(level) ? std::optional(CellRef{level, x, y}) : std::nullopt;
    return std::nullopt;
  }

  uint32_t vertex(const glm::dvec3& p, const Rgb3& colour) {
    mesh_.positions.push_back(p);
    mesh_.colours.push_back(colour);
    return uint32_t(mesh_.positions.size() - 1);
  }

  void square(const CellRef& c) {
    const double x0 = hm_.columnMinX(c.x), x1 = hm_.columnMinX(c.x + 1);
    const double y0 = hm_.rowMinY(c.y), y1 = hm_.rowMinY(c.y + 1);
    const double z = hm_.heightMetres(c.level, c.x, c.y);
    const Rgb3 colour = colourOf(c);
    const uint32_t a = vertex({x0, y0, z}, colour), b = vertex({x1, y0, z}, colour);
    const uint32_t d = vertex({x1, y1, z}, colour), e = vertex({x0, y1, z}, colour);
    mesh_.triangles.push_back({a, b, d});
    mesh_.triangles.push_back({a, d, e});
    ++mesh_.cells;
    const uint32_t cost = hm_.cell(c.level, c.x, c.y).cost;
    mesh_.lethal += cost == gpu::kCostLethal;
    mesh_.unknown += cost == gpu::kCostUnknown;
  }

  // The riser between c and its neighbour `other` toward `side`: a vertical quad on their
  // shared edge from the lower height to the upper one, facing the lower cell.
  void join(const CellRef& c, const CellRef& other, const Side& side) {
    ++mesh_.joins;
    const double zc = hm_.heightMetres(c.level, c.x, c.y), zo = hm_.heightMetres(other.level, other.x, other.y);
    if (zc == zo) return;
    ++mesh_.risers;
    const bool cUpper = zc > zo;
    const CellRef& upper = cUpper ? c : other;
    const CellRef& lower = cUpper ? other : c;
    // d: from the upper column toward the lower one; the edge runs along (-d.y, d.x), so that
    // (Q - P) x up = d and the quad P Q winds counter-clockwise seen from the lower side.
    const int32_t dx = cUpper ? side.dx : -side.dx, dy = cUpper ? side.dy : -side.dy;
    const uint32_t ux = upper.x, uy = upper.y;
    // The shared edge's ends, from the upper cell's corners (the same numbers its square uses).
    const double xs[2] = {hm_.columnMinX(ux), hm_.columnMinX(ux + 1)}, ys[2] = {hm_.rowMinY(uy), hm_.rowMinY(uy + 1)};
    glm::dvec2 p, q;
    if (dx != 0) {  // an edge along y at the upper cell's east (dx 1) or west side
      const double x = xs[dx > 0 ? 1 : 0];
      p = {x, ys[dx > 0 ? 0 : 1]}, q = {x, ys[dx > 0 ? 1 : 0]};
    } else {  // along x at its north (dy 1) or south side
      const double y = ys[dy > 0 ? 1 : 0];
      p = {xs[dy > 0 ? 1 : 0], y}, q = {xs[dy > 0 ? 0 : 1], y};
    }
    const double zUp = std::max(zc, zo), zLow = std::min(zc, zo);
    const Rgb3 upColour = colourOf(upper), lowColour = colourOf(lower);
    const uint32_t pLow = vertex({p, zLow}, lowColour), qLow = vertex({q, zLow}, lowColour);
    const uint32_t qUp = vertex({q, zUp}, upColour), pUp = vertex({p, zUp}, upColour);
    mesh_.triangles.push_back({qUp, pLow, qLow});
    mesh_.triangles.push_back({pUp, pLow, qUp});
  }

  const Heightmap& hm_;
  const HeightmapMeshOptions& options_;
  const int32_t maxStep_;
  detail::ColourRange range_;
  HeightmapMesh mesh_;
};

}  // namespace

HeightmapMesh heightmapMesh(const Heightmap& heightmap, const HeightmapMeshOptions& options) {
  if (options.level && *options.level >= heightmap.levels())
    throw SettingError(SettingError::Kind::Invalid, "level", "the level",
                       "{} must be below the heightmap's level count " + std::to_string(heightmap.levels()) + ", got " +
                           std::to_string(*options.level));
  return MeshBuilder(heightmap, options).build();
}

void writeHeightmapMeshPly(const HeightmapMesh& mesh, const std::filesystem::path& path) {
  if (mesh.positions.size() > size_t(std::numeric_limits<int32_t>::max()))
    throw Error("cannot save PLY to '" + path.string() + "': " + std::to_string(mesh.positions.size()) +
                " vertices are more than a PLY int index holds");
  std::string header = "ply\nformat binary_little_endian 1.0\n";
  header += "comment written by voxen: a heightmap's surface, a square per cell at its height, risers where neighbours join\n";
  header += "element vertex " + std::to_string(mesh.positions.size()) + "\n";
  header += "property float x\nproperty float y\nproperty float z\n";
  header += "property uchar red\nproperty uchar green\nproperty uchar blue\n";
  header += "element face " + std::to_string(mesh.triangles.size()) + "\nproperty list uchar int vertex_indices\nend_header\n";

  detail::AtomicFileWriter out(path, "PLY");
  out.write(header.data(), header.size());
  std::vector<uint8_t> buffer;
  buffer.reserve(1 << 20);
  auto flushIfFull = [&] {
    if (buffer.size() >= (1 << 20) - 64) {
      out.write(buffer.data(), buffer.size());
      buffer.clear();
    }
  };
  for (size_t i = 0; i < mesh.positions.size(); ++i) {
    const glm::dvec3& p = mesh.positions[i];
    detail::appendLE(buffer, float(p.x)), detail::appendLE(buffer, float(p.y)), detail::appendLE(buffer, float(p.z));
    buffer.insert(buffer.end(), mesh.colours[i].begin(), mesh.colours[i].end());
    flushIfFull();
  }
  for (const auto& t : mesh.triangles) {
    buffer.push_back(3);
    for (const uint32_t corner : t) detail::appendLE(buffer, int32_t(corner));
    flushIfFull();
  }
  out.write(buffer.data(), buffer.size());
  out.commit();
}

}  // namespace voxen
