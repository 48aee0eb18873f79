// The CPU marching cubes reference. Every float expression here has a twin in
// shaders/painter/mesh.glsl, written in the same order (the GLSL marks them `precise`, and
// this file must not be built with FMA contraction), so the two agree bit for bit.
#include "voxen/painter/cpu_mesher.hpp"

#include "strict_float.hpp"  // first: no FMA contraction below

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <map>
#include <string>
#include <utility>

#include "voxen/painter/marching_cubes_table.hpp"
#include "voxen/painter/normal_encoding.hpp"
#include "voxen/host/error.hpp"

namespace voxen {

using gpu::kBlockCells;
using gpu::kIsoLevel;
using gpu::Triangle;

DensityGrid::DensityGrid(uint32_t nx_, uint32_t ny_, uint32_t nz_, float voxelSize_)
    : nx(nx_), ny(ny_), nz(nz_), voxelSize(voxelSize_), density(size_t(nx_) * ny_ * nz_, 0.0f),
      color(size_t(nx_) * ny_ * nz_, 0u) {
  if (nx < 2 || ny < 2 || nz < 2)
    throw Error("density grid " + std::to_string(nx) + "x" + std::to_string(ny) + "x" + std::to_string(nz) +
                ": needs at least 2 samples per axis");
}

namespace {

struct Sample {
  uint32_t x, y, z;
};

Sample corner(Sample cell, uint32_t c) { return {cell.x + (c & 1u), cell.y + ((c >> 1) & 1u), cell.z + (c >> 2)}; }

// Central differences with indices clamped to the grid (one-sided at the border).
std::array<float, 3> gradient(const DensityGrid& g, Sample s) {
  const uint32_t xl = s.x > 0 ? s.x - 1 : 0, xh = std::min(s.x + 1, g.nx - 1);
  const uint32_t yl = s.y > 0 ? s.y - 1 : 0, yh = std::min(s.y + 1, g.ny - 1);
  const uint32_t zl = s.z > 0 ? s.z - 1 : 0, zh = std::min(s.z + 1, g.nz - 1);
  return {g.at(xh, s.y, s.z) - g.at(xl, s.y, s.z), g.at(s.x, yh, s.z) - g.at(s.x, yl, s.z),
          g.at(s.x, s.y, zh) - g.at(s.x, s.y, zl)};
}

// Position and encoded normal of the vertex on edge e of `cell` (mesh.glsl: mcEdgeVertex).
void edgeVertex(const DensityGrid& g, Sample cell, uint32_t e, float* p, uint32_t& n) {
  const Sample a = corner(cell, edgeLowCorner(e)), b = corner(cell, edgeHighCorner(e));
  const float da = g.at(a.x, a.y, a.z), db = g.at(b.x, b.y, b.z);
  const float t = (kIsoLevel - da) / (db - da);
  const uint32_t ai[3] = {a.x, a.y, a.z}, bi[3] = {b.x, b.y, b.z};
  const auto ga = gradient(g, a), gb = gradient(g, b);
  float normal[3];
  for (int i = 0; i < 3; ++i) {
    const float pa = g.origin[i] + float(ai[i]) * g.voxelSize;
    const float pb = g.origin[i] + float(bi[i]) * g.voxelSize;
    p[i] = pa + t * (pb - pa);
    normal[i] = -(ga[i] + t * (gb[i] - ga[i]));
  }
  n = encodeNormal(normal[0], normal[1], normal[2]);
}

void meshCell(const DensityGrid& g, Sample cell, std::vector<Triangle>& out) {
  const uint32_t c = cellCase(g, cell.x, cell.y, cell.z);
  const McCase& mc = marchingCubesCases()[c];
  if (mc.triangleCount == 0) return;
  uint32_t densest = 0;
  float best = g.at(cell.x, cell.y, cell.z);
  for (uint32_t k = 1; k < 8; ++k) {
    const Sample s = corner(cell, k);
    const float d = g.at(s.x, s.y, s.z);
    if (d > best) best = d, densest = k;
  }
  const Sample ds = corner(cell, densest);
  const uint32_t color = g.color[g.index(ds.x, ds.y, ds.z)];
  const uint32_t cellIndex = cell.x + (g.nx - 1) * (cell.y + (g.ny - 1) * cell.z);
  for (uint32_t t = 0; t < mc.triangleCount; ++t) {
    Triangle tri{};
    edgeVertex(g, cell, mc.triangles[t][0], tri.p0, tri.n0);
    edgeVertex(g, cell, mc.triangles[t][1], tri.p1, tri.n1);
    edgeVertex(g, cell, mc.triangles[t][2], tri.p2, tri.n2);
    tri.color = color;
    tri.cell = cellIndex;
    out.push_back(tri);
  }
}

void checkGrid(const DensityGrid& g) {
  const size_t n = size_t(g.nx) * g.ny * g.nz;
  if (g.nx < 2 || g.ny < 2 || g.nz < 2 || g.density.size() != n || g.color.size() != n)
    throw Error("density grid " + std::to_string(g.nx) + "x" + std::to_string(g.ny) + "x" + std::to_string(g.nz) + " has " +
                std::to_string(g.density.size()) + " densities and " + std::to_string(g.color.size()) + " colours");
}

}  // namespace

uint32_t cellCase(const DensityGrid& g, uint32_t x, uint32_t y, uint32_t z) {
  uint32_t c = 0;
  for (uint32_t k = 0; k < 8; ++k) {
    const Sample s = corner({x, y, z}, k);
    if (g.at(s.x, s.y, s.z) >= kIsoLevel) c |= 1u << k;
  }
  return c;
}

std::vector<Triangle> meshBlock(const DensityGrid& g, uint32_t block) {
  checkGrid(g);
  if (block >= g.blockCount())
    throw Error("meshBlock: block " + std::to_string(block) + " of " + std::to_string(g.blockCount()));
  const uint32_t bx = block % g.blocksX(), by = block / g.blocksX() % g.blocksY(), bz = block / (g.blocksX() * g.blocksY());
  std::vector<Triangle> out;
  for (uint32_t z = bz * kBlockCells; z < std::min((bz + 1) * kBlockCells, g.nz - 1); ++z)
    for (uint32_t y = by * kBlockCells; y < std::min((by + 1) * kBlockCells, g.ny - 1); ++y)
      for (uint32_t x = bx * kBlockCells; x < std::min((bx + 1) * kBlockCells, g.nx - 1); ++x) meshCell(g, {x, y, z}, out);
  return out;
}

std::vector<std::vector<Triangle>> meshBlocks(const DensityGrid& g) {
  std::vector<std::vector<Triangle>> blocks(g.blockCount());
  for (uint32_t b = 0; b < blocks.size(); ++b) blocks[b] = meshBlock(g, b);
  return blocks;
}

std::vector<Triangle> meshGrid(const DensityGrid& g) {
  std::vector<Triangle> all;
  for (const auto& block : meshBlocks(g)) all.insert(all.end(), block.begin(), block.end());
  return all;
}

namespace {

using Key = std::array<uint32_t, 3>;
Key positionKey(const float* p) {
  Key k;
  std::memcpy(k.data(), p, sizeof(k));
  return k;
}

std::array<double, 3> toDouble(const float* p) { return {p[0], p[1], p[2]}; }
std::array<double, 3> sub(const std::array<double, 3>& a, const std::array<double, 3>& b) {
  return {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
}
std::array<double, 3> cross(const std::array<double, 3>& a, const std::array<double, 3>& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}

}  // namespace

ClosednessReport checkClosed(std::span<const Triangle> triangles) {
  ClosednessReport r;
  r.triangles = triangles.size();
  std::map<Key, uint32_t> ids;
  auto id = [&](const float* p) { return ids.emplace(positionKey(p), uint32_t(ids.size())).first->second; };
  struct Use {
    uint32_t count = 0, forward = 0;  // uses, and uses running from the lower id to the higher
  };
  std::map<std::pair<uint32_t, uint32_t>, Use> edges;
  for (const Triangle& t : triangles) {
    const uint32_t v[3] = {id(t.p0), id(t.p1), id(t.p2)};
    if (v[0] == v[1] || v[1] == v[2] || v[2] == v[0]) {
      ++r.degenerate;
      continue;
    }
    for (int i = 0; i < 3; ++i) {
      const uint32_t a = v[i], b = v[(i + 1) % 3];
      Use& use = edges[{std::min(a, b), std::max(a, b)}];
      ++use.count;
      use.forward += a < b;
    }
  }
  r.edges = edges.size();
  for (const auto& [edge, use] : edges) {
    if (use.count != 2) ++r.unpairedEdges;
    else if (use.forward != 1) ++r.misorientedEdges;
  }
  return r;
}

double surfaceArea(std::span<const Triangle> triangles) {
  double area = 0.0;
  for (const Triangle& t : triangles) {
    const auto p0 = toDouble(t.p0);
    const auto c = cross(sub(toDouble(t.p1), p0), sub(toDouble(t.p2), p0));
    area += 0.5 * std::sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
  }
  return area;
}

double enclosedVolume(std::span<const Triangle> triangles) {
  double volume = 0.0;
  for (const Triangle& t : triangles) {
    const auto p0 = toDouble(t.p0);
    const auto c = cross(toDouble(t.p1), toDouble(t.p2));
    volume += (p0[0] * c[0] + p0[1] * c[1] + p0[2] * c[2]) / 6.0;
  }
  return volume;
}

}  // namespace voxen
