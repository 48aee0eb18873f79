// Generates the marching cubes case table from the face rule described in
// marching_cubes_table.hpp: segments on faces, oriented, chained into loops, fanned.
#include "voxen/painter/marching_cubes_table.hpp"

#include <algorithm>
#include <span>
#include <string>
#include <vector>

#include "voxen/host/error.hpp"
#include "voxen/host/scheduler.hpp"

namespace voxen {

using gpu::kCaseTableStride;
using gpu::kMaxCaseTriangles;

namespace {

struct Int3 {
  int x, y, z;
};
Int3 operator-(Int3 a, Int3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
Int3 cross(Int3 a, Int3 b) { return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }
int dot(Int3 a, Int3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

// Positions in doubled units, so that edge midpoints are integers.
Int3 cornerPos(uint32_t c) { return {int(c & 1) * 2, int((c >> 1) & 1) * 2, int((c >> 2) & 1) * 2}; }
Int3 edgeMid(uint32_t e) {
  const Int3 lo = cornerPos(edgeLowCorner(e));
  const uint32_t a = e / 4;
  return {lo.x + (a == 0), lo.y + (a == 1), lo.z + (a == 2)};
}

// The edge joining two corners that differ in exactly one bit.
uint32_t edgeBetween(uint32_t c0, uint32_t c1) {
  const uint32_t diff = c0 ^ c1;
  const uint32_t a = diff == 1 ? 0 : diff == 2 ? 1 : 2;
  const uint32_t lo = c0 & c1;
  const uint32_t j = ((lo >> ((a + 1) % 3)) & 1u) | (((lo >> ((a + 2) % 3)) & 1u) << 1);
  return a * 4 + j;
}

struct Segment {
  uint32_t from, to;  // edges
};

// The oriented segments of case `bits` on face (axis, side).
void faceSegments(uint32_t bits, uint32_t axis, uint32_t side, std::vector<Segment>& out) {
  const uint32_t u = (axis + 1) % 3, v = (axis + 2) % 3, base = side << axis;
  const uint32_t k[4] = {base, base | (1u << u), base | (1u << u) | (1u << v), base | (1u << v)};
  auto inside = [&](uint32_t c) { return ((bits >> c) & 1u) != 0; };
  // Face edge i joins k[i] and k[i + 1].
  std::vector<uint32_t> crossed;
  for (uint32_t i = 0; i < 4; ++i)
    if (inside(k[i]) != inside(k[(i + 1) % 4])) crossed.push_back(i);
  std::vector<std::pair<uint32_t, uint32_t>> pairs;  // face edge indices
  if (crossed.size() == 2) {
    pairs.push_back({crossed[0], crossed[1]});
  } else if (crossed.size() == 4) {
    // Ambiguous: cut off each inside corner k[i] by joining its two face edges i - 1 and i.
    for (uint32_t i = 0; i < 4; ++i)
      if (inside(k[i])) pairs.push_back({(i + 3) % 4, i});
  }
  const Int3 normal{axis == 0 ? (side ? 1 : -1) : 0, axis == 1 ? (side ? 1 : -1) : 0, axis == 2 ? (side ? 1 : -1) : 0};
  for (auto [i, j] : pairs) {
    uint32_t p = edgeBetween(k[i], k[(i + 1) % 4]);
    uint32_t q = edgeBetween(k[j], k[(j + 1) % 4]);
    const uint32_t insideOfP = inside(edgeLowCorner(p)) ? edgeLowCorner(p) : edgeHighCorner(p);
    // Seen from outside, the inside corner must lie to the right of p -> q.
    if (dot(normal, cross(edgeMid(q) - edgeMid(p), cornerPos(insideOfP) - edgeMid(p))) > 0) std::swap(p, q);
    out.push_back({p, q});
  }
}

// Whether two edges lie on a common cube face.
bool shareFace(uint32_t e0, uint32_t e1) {
  const uint32_t all0 = edgeLowCorner(e0) & edgeHighCorner(e0), any0 = edgeLowCorner(e0) | edgeHighCorner(e0);
  const uint32_t all1 = edgeLowCorner(e1) & edgeHighCorner(e1), any1 = edgeLowCorner(e1) | edgeHighCorner(e1);
  // A face fixes one coordinate: both edges have it set at both ends, or clear at both ends.
  return ((all0 & all1) | (~any0 & ~any1 & 7u)) != 0;
}

// The loop vertex to fan from. A fan diagonal between two vertices on one face would lie
// in that face, where the neighbouring cell may draw the same diagonal: the surface would
// touch itself there (an edge of four triangles). So the apex must have no such diagonal;
// among those, the fan whose smallest triangle (vertices at edge midpoints) is largest,
// then the first in loop order.
size_t fanApex(uint32_t bits, const std::vector<uint32_t>& loop) {
  const size_t n = loop.size();
  size_t best = n;
  int bestArea = -1;
  for (size_t apex = 0; apex < n; ++apex) {
    bool valid = true;
    int smallest = 1 << 30;
    for (size_t i = 1; i + 1 < n; ++i) {
      const uint32_t a = loop[apex], b = loop[(apex + i) % n], c = loop[(apex + i + 1) % n];
      if (i > 1 && shareFace(a, b)) valid = false;  // (a, b) is a diagonal unless i == 1
      const Int3 cr = cross(edgeMid(b) - edgeMid(a), edgeMid(c) - edgeMid(a));
      smallest = std::min(smallest, dot(cr, cr));
    }
    if (valid && smallest > bestArea) best = apex, bestArea = smallest;
  }
  if (best == n)
    throw Error("marching cubes table: case " + std::to_string(bits) + ": a loop of " + std::to_string(n) +
                " edges has no fan without a diagonal in a face");
  return best;
}

McCase buildCase(uint32_t bits) {
  std::vector<Segment> segments;
  for (uint32_t axis = 0; axis < 3; ++axis)
    for (uint32_t side = 0; side < 2; ++side) faceSegments(bits, axis, side, segments);
  // Every crossed edge lies on two faces: it must start one segment and end another.
  int startOf[12], endCount[12] = {};
  for (int& s : startOf) s = -1;
  for (size_t s = 0; s < segments.size(); ++s) {
    if (startOf[segments[s].from] >= 0)
      throw Error("marching cubes table: case " + std::to_string(bits) + ": edge " + std::to_string(segments[s].from) +
                  " starts two segments (inconsistent orientation)");
    startOf[segments[s].from] = int(s);
    ++endCount[segments[s].to];
  }
  for (uint32_t e = 0; e < 12; ++e)
    if ((startOf[e] >= 0) != (endCount[e] == 1))
      throw Error("marching cubes table: case " + std::to_string(bits) + ": edge " + std::to_string(e) + " is not on a closed loop");

  McCase result;
  bool used[12] = {};
  for (uint32_t first = 0; first < 12; ++first) {
    if (startOf[first] < 0 || used[first]) continue;
    std::vector<uint32_t> loop;
    for (uint32_t e = first; !used[e]; e = segments[size_t(startOf[e])].to) {
      used[e] = true;
      loop.push_back(e);
    }
    const size_t apex = fanApex(bits, loop);
    for (size_t i = 1; i + 1 < loop.size(); ++i) {
      if (result.triangleCount == kMaxCaseTriangles)
        throw Error("marching cubes table: case " + std::to_string(bits) + " needs more than " +
                    std::to_string(kMaxCaseTriangles) + " triangles");
      result.triangles[result.triangleCount++] = {uint8_t(loop[apex]), uint8_t(loop[(apex + i) % loop.size()]),
                                                  uint8_t(loop[(apex + i + 1) % loop.size()])};
    }
  }
  return result;
}

std::array<McCase, 256> buildTable() {
  std::array<McCase, 256> table;
  for (uint32_t bits = 0; bits < 256; ++bits) table[bits] = buildCase(bits);
  return table;
}

}  // namespace

const std::array<McCase, 256>& marchingCubesCases() {
  static const std::array<McCase, 256> table = buildTable();
  return table;
}

std::array<uint32_t, 256 * kCaseTableStride> flatCaseTable() {
  std::array<uint32_t, 256 * kCaseTableStride> flat{};
  const auto& cases = marchingCubesCases();
  for (uint32_t c = 0; c < 256; ++c) {
    flat[c * kCaseTableStride] = cases[c].triangleCount;
    for (uint32_t t = 0; t < cases[c].triangleCount; ++t) {
      const auto& tri = cases[c].triangles[t];
      flat[c * kCaseTableStride + 1 + t] = uint32_t(tri[0]) | uint32_t(tri[1]) << 4 | uint32_t(tri[2]) << 8;
    }
  }
  return flat;
}

Buffer uploadCaseTable(Scheduler& scheduler) {
  const auto flat = flatCaseTable();
  Buffer buffer(scheduler.device(), "painter case table", sizeof(flat));
  scheduler.upload(buffer.range(), flat.data(), sizeof(flat));
  return buffer;
}

}  // namespace voxen
