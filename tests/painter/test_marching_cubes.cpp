// Marching cubes for the painter: the generated case table, the CPU reference's meshes
// (closed, outward, the right area and volume), and the GPU phases (MeshList, MeshCount,
// MeshScan, MeshCopy, MeshEmit of shaders/painter/mesh.glsl) against the CPU reference bit
// for bit, for full and incremental meshing, for any number of list-walking workgroups up to
// the iteration budget, and when the triangle list overflows.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <sstream>

#include "support/gpu_fixture.hpp"
#include "support/plain_flavour_gpu.hpp"
#include "voxen/painter/cpu_mesher.hpp"
#include "voxen/painter/frame_kernel.hpp"
#include "voxen/painter/marching_cubes_table.hpp"
#include "voxen/painter/normal_encoding.hpp"

namespace {

using namespace voxen;
using detail::dispatchPhase;
using detail::FrameKernels;
using detail::kMeshBlocksPerGroup;
using detail::meshListGroups;
using detail::Phase;
using gpu::BlockInfo;
using gpu::FrameConstants;
using gpu::kBlockCells;
using gpu::kCaseTableStride;
using gpu::kCounterCopyBlocks;
using gpu::kCounterCount;
using gpu::kCounterDirtyBlocks;
using gpu::kCounterOverflow;
using gpu::kNoOffset;
using gpu::Triangle;

constexpr double kPi = 3.14159265358979323846;

// ---- the case table, checked against an independent reading of the face rule ------------

using Vec3d = std::array<double, 3>;
Vec3d sub(Vec3d a, Vec3d b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
Vec3d cross(Vec3d a, Vec3d b) { return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]}; }
double dot(Vec3d a, Vec3d b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
Vec3d cornerPosition(uint32_t c) { return {double(c & 1), double((c >> 1) & 1), double(c >> 2)}; }
Vec3d edgeMidpoint(uint32_t e) {
  const Vec3d a = cornerPosition(edgeLowCorner(e)), b = cornerPosition(edgeHighCorner(e));
  return {(a[0] + b[0]) / 2, (a[1] + b[1]) / 2, (a[2] + b[2]) / 2};
}
bool inside(uint32_t bits, uint32_t corner) { return (bits >> corner) & 1u; }
bool crossed(uint32_t bits, uint32_t e) { return inside(bits, edgeLowCorner(e)) != inside(bits, edgeHighCorner(e)); }

// A face of the cube: the corners whose coordinate `axis` equals `side`, in cyclic order.
struct Face {
  uint32_t axis, side;
  std::array<uint32_t, 4> corners;
};
std::vector<Face> cubeFaces() {
  std::vector<Face> faces;
  for (uint32_t axis = 0; axis < 3; ++axis)
    for (uint32_t side = 0; side < 2; ++side) {
      // Walk the face's square by Gray code: neighbours differ in one bit.
      std::vector<uint32_t> ring;
      for (uint32_t g : {0u, 1u, 3u, 2u}) {
        uint32_t c = side << axis, bit = 0;
        for (uint32_t other = 0; other < 3; ++other)
          if (other != axis) c |= ((g >> bit++) & 1u) << other;
        ring.push_back(c);
      }
      faces.push_back({axis, side, {ring[0], ring[1], ring[2], ring[3]}});
    }
  return faces;
}
uint32_t edgeOf(uint32_t c0, uint32_t c1) {
  for (uint32_t e = 0; e < 12; ++e)
    if ((edgeLowCorner(e) == c0 && edgeHighCorner(e) == c1) || (edgeLowCorner(e) == c1 && edgeHighCorner(e) == c0)) return e;
  FAIL("corners " << c0 << " and " << c1 << " share no edge");
  return 0;
}
bool ambiguous(uint32_t bits, const Face& f) {
  const auto& k = f.corners;
  return inside(bits, k[0]) == inside(bits, k[2]) && inside(bits, k[1]) == inside(bits, k[3]) &&
         inside(bits, k[0]) != inside(bits, k[1]);
}

// The undirected segments the face rule asks for on face f: {edge, edge}, sorted.
std::set<std::pair<uint32_t, uint32_t>> expectedSegments(uint32_t bits, const Face& f) {
  std::set<std::pair<uint32_t, uint32_t>> out;
  const auto& k = f.corners;
  std::vector<uint32_t> crossedEdges;
  for (int i = 0; i < 4; ++i)
    if (inside(bits, k[i]) != inside(bits, k[(i + 1) % 4])) crossedEdges.push_back(edgeOf(k[i], k[(i + 1) % 4]));
  if (crossedEdges.size() == 2) out.insert(std::minmax(crossedEdges[0], crossedEdges[1]));
  if (crossedEdges.size() == 4)  // inside corners are cut off one by one
    for (int i = 0; i < 4; ++i)
      if (inside(bits, k[i])) out.insert(std::minmax(edgeOf(k[(i + 3) % 4], k[i]), edgeOf(k[i], k[(i + 1) % 4])));
  return out;
}

bool onFace(uint32_t e, const Face& f) {
  return ((edgeLowCorner(e) >> f.axis) & 1u) == f.side && ((edgeHighCorner(e) >> f.axis) & 1u) == f.side;
}

// Directed triangle edges of a case that no other triangle of the case runs back along:
// the boundary of the case's surface patch, which must lie on the cube's faces.
std::multiset<std::pair<uint32_t, uint32_t>> boundaryOf(const McCase& mc) {
  std::multiset<std::pair<uint32_t, uint32_t>> directed;
  for (uint32_t t = 0; t < mc.triangleCount; ++t)
    for (int i = 0; i < 3; ++i) directed.insert({mc.triangles[t][i], mc.triangles[t][(i + 1) % 3]});
  std::multiset<std::pair<uint32_t, uint32_t>> boundary;
  for (const auto& d : directed)
    if (!directed.count({d.second, d.first})) boundary.insert(d);
  return boundary;
}

// ---- grids ------------------------------------------------------------------------------

// A clamped distance with a ramp `ramp` long: the painter's brush uses one voxel.
float sphereDensity(double distance, double radius, double ramp) {
  return float(std::clamp(0.5 + (radius - distance) / ramp, 0.0, 1.0));
}

// Colours that differ from sample to sample, so the densest-corner rule is visible.
uint32_t sampleColor(uint32_t x, uint32_t y, uint32_t z) { return 0xff000000u | (x * 37u + y * 101u + z * 13u) % 0xffffffu; }

void addSphere(DensityGrid& g, const Vec3d& centre, double radius, double rampVoxels = 1.0) {
  for (uint32_t z = 1; z + 1 < g.nz; ++z)
    for (uint32_t y = 1; y + 1 < g.ny; ++y)
      for (uint32_t x = 1; x + 1 < g.nx; ++x) {
        const Vec3d p{g.origin[0] + x * double(g.voxelSize), g.origin[1] + y * double(g.voxelSize),
                      g.origin[2] + z * double(g.voxelSize)};
        const Vec3d d = sub(p, centre);
        float& v = g.density[g.index(x, y, z)];
        v = std::max(v, sphereDensity(std::sqrt(dot(d, d)), radius, rampVoxels * g.voxelSize));
        g.color[g.index(x, y, z)] = sampleColor(x, y, z);
      }
}

DensityGrid randomGrid(vt::Rng& rng, uint32_t n) {
  DensityGrid g(n, n, n, 0.75f);
  g.origin[0] = -2.0f, g.origin[1] = 0.5f, g.origin[2] = 3.25f;
  for (uint32_t z = 1; z + 1 < n; ++z)
    for (uint32_t y = 1; y + 1 < n; ++y)
      for (uint32_t x = 1; x + 1 < n; ++x) {
        g.density[g.index(x, y, z)] = float(rng.u32() >> 8) / 16777216.0f;
        g.color[g.index(x, y, z)] = rng.u32();
      }
  return g;
}

// ---- the GPU phases ---------------------------------------------------------------------

struct GpuFrame {
  std::vector<Triangle> triangles;  // the list's first blockTotal entries
  uint32_t listed = 0;              // blockTotal.v[0]
  uint32_t dirtyBlocks = 0;         // counters[kCounterDirtyBlocks]: blocks MeshList listed
  uint32_t copiedBlocks = 0;        // counters[kCounterCopyBlocks]: clean blocks MeshScan listed to copy
  uint32_t overflow = 0;            // counters[kCounterOverflow]
  std::vector<BlockInfo> blocks;    // after the frame
};

// The meshing part of a painter frame on its own buffers: two triangle lists used in turn
// (`capacity` triangles plus `guard` more that must never be written), a persistent block
// table, and the phase sequence of painter.cpp: MeshList (a block per invocation),
// MeshCount (list groups), MeshScan (1), MeshCopy (list groups), MeshEmit (list groups).
// The list groups are meshListGroups(blocks) unless a frame asks for another number.
class GpuMesher {
 public:
  static constexpr uint32_t kSentinel = 0xdeadbeefu;

  GpuMesher(const DensityGrid& grid, uint32_t capacity, uint32_t guard = 64)
      : GpuMesher(vt::gpu().scheduler, vt::gpu().library, grid, capacity, guard) {}

  // On a given device (the plain shader flavour's, for one).
  GpuMesher(Scheduler& scheduler, ShaderLibrary& library, const DensityGrid& grid, uint32_t capacity, uint32_t guard = 64)
      : scheduler_(scheduler), kernels_(library), grid_(grid), capacity_(capacity), guard_(guard),
        density_(scheduler_.device(), "mc test density", grid.density.size() * 4),
        color_(scheduler_.device(), "mc test colour", grid.color.size() * 4),
        blocks_(scheduler_.device(), "mc test blocks", uint64_t(grid.blockCount()) * sizeof(BlockInfo)),
        counters_(scheduler_.device(), "mc test counters", kCounterCount * 4),
        blockLists_(scheduler_.device(), "mc test block lists", uint64_t(grid.blockCount()) * 4),
        total_(scheduler_.device(), "mc test block total", 16),
        constants_(scheduler_.device(), "mc test constants", sizeof(FrameConstants)),
        caseTable_(uploadCaseTable(scheduler_)) {
    for (int i = 0; i < 2; ++i) {
      lists_[i] = Buffer(scheduler_.device(), "mc test triangles", uint64_t(capacity + guard) * sizeof(Triangle));
      scheduler_.fill(lists_[i], kSentinel);
    }
    upload(grid);
    markAllDirty();
  }

  void upload(const DensityGrid& grid) {
    grid_ = grid;
    scheduler_.upload(density_, grid.density.data(), grid.density.size() * 4);
    scheduler_.upload(color_, grid.color.data(), grid.color.size() * 4);
  }

  void markAllDirty() {
    std::vector<BlockInfo> table(grid_.blockCount(), BlockInfo{0, 0, 0, 1, kNoOffset});
    scheduler_.upload(blocks_, table.data(), table.size() * sizeof(BlockInfo));
  }

  // Sets the dirty flag of the blocks marked in `dirty` (others keep theirs).
  void markDirty(const std::vector<uint8_t>& dirty) {
    auto table = vt::readBack<BlockInfo>(scheduler_, blocks_);
    for (size_t b = 0; b < table.size(); ++b)
      if (dirty[b]) table[b].dirty = 1;
    scheduler_.upload(blocks_, table.data(), table.size() * sizeof(BlockInfo));
  }

  GpuFrame frame(uint32_t maxTriangles, uint64_t listGroups = 0) {
    REQUIRE(maxTriangles <= capacity_);
    const int current = frames_++ % 2;
    FrameConstants f{};
    f.gridOrigin = {grid_.origin[0], grid_.origin[1], grid_.origin[2], grid_.voxelSize};
    f.gridX = grid_.nx, f.gridY = grid_.ny, f.gridZ = grid_.nz;
    f.blocksX = grid_.blocksX(), f.blocksY = grid_.blocksY(), f.blocksZ = grid_.blocksZ();
    f.maxTriangles = maxTriangles;
    f.density = density_.address();
    f.color = color_.address();
    f.blocks = blocks_.address();
    f.triangles = lists_[current].address();
    f.previousTriangles = lists_[1 - current].address();
    f.counters = counters_.address();
    f.blockTotal = total_.address();
    f.caseTable = caseTable_.address();
    f.blockLists = blockLists_.address();
    scheduler_.upload(constants_, &f, sizeof(f));
    scheduler_.fill(counters_, 0u);
    const std::vector<BufferUse> uses{reads(density_),       reads(color_),           readsWrites(blocks_),
                                      readsWrites(lists_[0]), readsWrites(lists_[1]),  readsWrites(counters_),
                                      readsWrites(total_),    readsWrites(blockLists_), reads(caseTable_)};
    const uint32_t blocks = grid_.blockCount();
    const uint64_t groups = listGroups ? listGroups : meshListGroups(blocks);
    dispatchPhase(scheduler_, kernels_, Phase::MeshList, constants_, 0, (blocks + 63) / 64, uses);
    dispatchPhase(scheduler_, kernels_, Phase::MeshCount, constants_, 0, groups, uses);
    dispatchPhase(scheduler_, kernels_, Phase::MeshScan, constants_, 0, 1, uses);
    dispatchPhase(scheduler_, kernels_, Phase::MeshCopy, constants_, 0, groups, uses);
    dispatchPhase(scheduler_, kernels_, Phase::MeshEmit, constants_, 0, groups, uses);

    GpuFrame out;
    out.listed = vt::readBack<uint32_t>(scheduler_, total_.range(0, 4))[0];
    const auto counters = vt::readBack<uint32_t>(scheduler_, counters_);
    out.overflow = counters[kCounterOverflow];
    out.dirtyBlocks = counters[kCounterDirtyBlocks];
    out.copiedBlocks = counters[kCounterCopyBlocks];
    out.blocks = vt::readBack<BlockInfo>(scheduler_, blocks_);
    REQUIRE(out.listed <= maxTriangles);
    if (out.listed > 0)
      out.triangles = vt::readBack<Triangle>(scheduler_, lists_[current].range(0, uint64_t(out.listed) * sizeof(Triangle)));
    last_ = current;
    return out;
  }

  // The words of the latest list from triangle `first` to the end of its guard.
  std::vector<uint32_t> tail(uint32_t first) {
    const uint64_t begin = uint64_t(first) * sizeof(Triangle), end = uint64_t(capacity_ + guard_) * sizeof(Triangle);
    return vt::readBack<uint32_t>(scheduler_, lists_[last_].range(begin, end - begin));
  }

 private:
  Scheduler& scheduler_;
  FrameKernels kernels_;
  DensityGrid grid_;
  uint32_t capacity_, guard_;
  Buffer density_, color_, blocks_, counters_, blockLists_, total_, constants_, caseTable_;
  Buffer lists_[2];
  int frames_ = 0, last_ = 0;
};

std::string describe(const Triangle& t) {
  std::ostringstream s;
  s.precision(9);
  s << "cell " << t.cell << " colour " << std::hex << t.color << std::dec;
  for (auto [p, n] : {std::pair{t.p0, t.n0}, std::pair{t.p1, t.n1}, std::pair{t.p2, t.n2}})
    s << " (" << p[0] << ", " << p[1] << ", " << p[2] << " n " << std::hex << n << std::dec << ")";
  s << " unused " << t.unused[0] << " " << t.unused[1];
  return s.str();
}

// Bit-for-bit comparison of two triangle lists; on a mismatch, says where.
void requireSameTriangles(const std::vector<Triangle>& got, const std::vector<Triangle>& want, const char* what) {
  INFO(what << ": " << got.size() << " triangles, expected " << want.size());
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i)
    if (std::memcmp(&got[i], &want[i], sizeof(Triangle)) != 0) {
      INFO("first difference at triangle " << i << ": got " << describe(got[i]) << ", expected " << describe(want[i]));
      REQUIRE(false);
    }
}

// The brush of shaders/painter/brush.glsl on the host: a sphere with a one-voxel ramp added
// (max) or erased (min with 1 - ramp), border samples untouched; marks the blocks whose
// cells read a changed sample. Sample s is a corner of cells s - 1 and s per axis, and the
// central-difference normals at corners s - 1 and s + 1 read it too, so cells s - 2 .. s + 1
// read it: marking only s - 1 .. s leaves stale normals in clean blocks beside the stroke.
void stroke(DensityGrid& g, const Vec3d& centre, double radius, bool add, uint32_t color, std::vector<uint8_t>& dirty) {
  const double voxel = g.voxelSize;
  for (uint32_t z = 1; z + 1 < g.nz; ++z)
    for (uint32_t y = 1; y + 1 < g.ny; ++y)
      for (uint32_t x = 1; x + 1 < g.nx; ++x) {
        const Vec3d p{g.origin[0] + x * voxel, g.origin[1] + y * voxel, g.origin[2] + z * voxel};
        const Vec3d d = sub(p, centre);
        const float b = sphereDensity(std::sqrt(dot(d, d)), radius, voxel);
        const size_t i = g.index(x, y, z);
        const float old = g.density[i];
        const uint32_t oldColor = g.color[i];
        const float value = add ? std::max(old, b) : std::min(old, 1.0f - b);
        if (add && b > 0.0f) g.color[i] = color;
        g.density[i] = value;
        if (value == old && g.color[i] == oldColor) continue;
        const uint32_t s[3] = {x, y, z}, n[3] = {g.nx, g.ny, g.nz};
        uint32_t lo[3], hi[3];
        for (int a = 0; a < 3; ++a)
          lo[a] = (s[a] < 2 ? 0 : s[a] - 2) / kBlockCells, hi[a] = std::min(s[a] + 1, n[a] - 2) / kBlockCells;
        for (uint32_t bz = lo[2]; bz <= hi[2]; ++bz)
          for (uint32_t by = lo[1]; by <= hi[1]; ++by)
            for (uint32_t bx = lo[0]; bx <= hi[0]; ++bx) dirty[bx + g.blocksX() * (by + g.blocksY() * bz)] = 1;
      }
}

}  // namespace

TEST_CASE("Marching cubes table: every case follows the face rule, closes its loops and faces outward", "[painter][mesh]") {
  const auto& cases = marchingCubesCases();
  const auto faces = cubeFaces();
  CHECK(cases[0].triangleCount == 0);
  CHECK(cases[255].triangleCount == 0);
  for (uint32_t bits = 0; bits < 256; ++bits) {
    INFO("case " << bits);
    const McCase& mc = cases[bits];
    // Vertices only on crossed edges, every crossed edge used, no repeated edge in a triangle.
    std::set<uint32_t> used;
    for (uint32_t t = 0; t < mc.triangleCount; ++t) {
      const auto& tri = mc.triangles[t];
      CHECK((tri[0] != tri[1] && tri[1] != tri[2] && tri[2] != tri[0]));
      for (uint8_t e : tri) {
        REQUIRE(e < 12);
        CHECK(crossed(bits, e));
        used.insert(e);
      }
    }
    for (uint32_t e = 0; e < 12; ++e)
      if (crossed(bits, e)) CHECK(used.count(e) == 1);

    // The patch's boundary is exactly the face rule's segments, each once.
    const auto boundary = boundaryOf(mc);
    std::set<std::pair<uint32_t, uint32_t>> expected, got;
    for (const Face& f : faces)
      for (const auto& s : expectedSegments(bits, f)) expected.insert(s);
    for (const auto& [a, b] : boundary) {
      CHECK(got.insert(std::minmax(a, b)).second);  // once, in one direction only
      bool sharesFace = false;
      for (const Face& f : faces) sharesFace |= onFace(a, f) && onFace(b, f);
      CHECK(sharesFace);
    }
    CHECK(got == expected);
    // Fan diagonals (edges two triangles of the case share) must not lie in a face: the
    // neighbouring cell could draw the same one, and four triangles would meet there.
    for (uint32_t t = 0; t < mc.triangleCount; ++t)
      for (int i = 0; i < 3; ++i) {
        const uint32_t a = mc.triangles[t][i], b = mc.triangles[t][(i + 1) % 3];
        if (boundary.count({a, b})) continue;
        for (const Face& f : faces) CHECK_FALSE((onFace(a, f) && onFace(b, f)));
      }

    // Outward: with vertices at edge midpoints, each triangle's normal points along its
    // edges' inside -> outside directions.
    for (uint32_t t = 0; t < mc.triangleCount; ++t) {
      const auto& tri = mc.triangles[t];
      const Vec3d n = cross(sub(edgeMidpoint(tri[1]), edgeMidpoint(tri[0])), sub(edgeMidpoint(tri[2]), edgeMidpoint(tri[0])));
      double along = 0.0;
      for (uint8_t e : tri) {
        const uint32_t lo = edgeLowCorner(e), hi = edgeHighCorner(e);
        const Vec3d out = inside(bits, lo) ? sub(cornerPosition(hi), cornerPosition(lo)) : sub(cornerPosition(lo), cornerPosition(hi));
        along += dot(n, out);
      }
      CHECK(along > 0.0);
    }

    // The complement's patch is this one turned inside out on every face the rule treats
    // alike (faces without two diagonal inside corners).
    const auto complement = boundaryOf(cases[255 - bits]);
    for (const Face& f : faces) {
      if (ambiguous(bits, f)) continue;
      std::multiset<std::pair<uint32_t, uint32_t>> mine, theirs;
      for (const auto& [a, b] : boundary)
        if (onFace(a, f) && onFace(b, f)) mine.insert({b, a});
      for (const auto& [a, b] : complement)
        if (onFace(a, f) && onFace(b, f)) theirs.insert({a, b});
      CHECK(mine == theirs);
    }
  }

  // The flat GPU layout holds the same table.
  const auto flat = flatCaseTable();
  for (uint32_t bits = 0; bits < 256; ++bits) {
    REQUIRE(flat[bits * kCaseTableStride] == cases[bits].triangleCount);
    for (uint32_t t = 0; t < cases[bits].triangleCount; ++t) {
      const uint32_t w = flat[bits * kCaseTableStride + 1 + t];
      CHECK(((w & 15u) == cases[bits].triangles[t][0] && ((w >> 4) & 15u) == cases[bits].triangles[t][1] &&
             ((w >> 8) & 15u) == cases[bits].triangles[t][2]));
    }
  }
}

TEST_CASE("Octahedral normals decode to the direction they encode", "[painter][mesh]") {
  vt::Rng rng(11);
  for (int i = 0; i < 20000; ++i) {
    const float x = float(int32_t(rng.u32())) / 2147483648.0f, y = float(int32_t(rng.u32())) / 2147483648.0f,
                z = float(int32_t(rng.u32())) / 2147483648.0f;
    const float length = std::sqrt(x * x + y * y + z * z);
    if (length < 1e-3f) continue;
    const DecodedNormal n = decodeNormal(encodeNormal(x * 7.0f, y * 7.0f, z * 7.0f));  // scale does not matter
    INFO(x << " " << y << " " << z);
    REQUIRE((n.x * x + n.y * y + n.z * z) / length > 0.99995f);
  }
  CHECK(encodeNormal(0.0f, 0.0f, 1.0f) == (0u | 0u << 16));
  CHECK(encodeNormal(1.0f, 0.0f, 0.0f) == 32767u);
}

namespace {

// The iteration budget: kMeshBlocksPerGroup dirty blocks of random field (the most
// triangles per cell, so the longest loops) in one workgroup. Truncated loops would lose
// triangles.
void checkIterationBudget(Scheduler& scheduler, ShaderLibrary& library, vt::Rng& rng) {
  const uint32_t side = 4 * kBlockCells;  // 31 cells: 4 x 4 x 4 blocks
  static_assert(4 * 4 * 4 == kMeshBlocksPerGroup);
  const DensityGrid g = randomGrid(rng, side);
  const auto cpu = meshGrid(g);
  INFO("float64 flavour: " << library.float64());
  GpuMesher gpu(scheduler, library, g, uint32_t(cpu.size() + 100));
  const GpuFrame frame = gpu.frame(uint32_t(cpu.size() + 100), 1);
  CHECK(frame.overflow == 0);
  CHECK(frame.dirtyBlocks == kMeshBlocksPerGroup);
  requireSameTriangles(frame.triangles, cpu, "kMeshBlocksPerGroup random blocks in one workgroup, GPU vs CPU");
}

}  // namespace

TEST_CASE("Marching cubes meshes of random fields are closed and consistently oriented", "[painter][mesh]") {
  vt::Rng rng(7);
  size_t triangles = 0, degenerate = 0;
  for (int i = 0; i < 150; ++i) {
    INFO("grid " << i);
    const DensityGrid g = randomGrid(rng, 12);
    const auto mesh = meshGrid(g);
    const ClosednessReport r = checkClosed(mesh);
    INFO(r.triangles << " triangles, " << r.edges << " edges, " << r.unpairedEdges << " unpaired, " << r.misorientedEdges
                     << " misoriented, " << r.degenerate << " degenerate");
    REQUIRE(r.closed());
    REQUIRE(enclosedVolume(mesh) > 0.0);
    triangles += r.triangles;
    degenerate += r.degenerate;
  }
  CHECK(triangles > 150 * 1000);
  CHECK(degenerate < triangles / 1000);

  // The GPU meshes the same random fields (every case, ambiguous faces, partial blocks)
  // to the same bits, whatever the number of workgroups that walk the dirty list.
  for (int i = 0; i < 6; ++i) {
    const DensityGrid g = randomGrid(rng, i % 2 ? 12 : 16);
    const auto cpu = meshGrid(g);
    GpuMesher gpu(g, uint32_t(cpu.size() + 100));
    const uint64_t listGroups = i < 2 ? 0 : uint64_t(i - 1);  // the default, then 1 to 4
    INFO("random grid " << i << ", " << listGroups << " list groups (0: meshListGroups)");
    const GpuFrame frame = gpu.frame(uint32_t(cpu.size() + 100), listGroups);
    CHECK(frame.overflow == 0);
    CHECK(frame.dirtyBlocks == g.blockCount());
    requireSameTriangles(frame.triangles, cpu, "random field, GPU vs CPU");
  }

  checkIterationBudget(vt::gpu().scheduler, vt::gpu().library, rng);
}

TEST_CASE("Marching cubes stays within lavapipe's iteration budget in the plain shader flavour (no float64)",
          "[painter][mesh][exact-math]") {
  // The plain flavour's exactDiv (three per triangle) once corrected its estimate in loops:
  // on lavapipe, whose loops stop silently after 65,535 iterations per invocation, a
  // workgroup meshing kMeshBlocksPerGroup random blocks lost its last blocks' triangles
  // (they stayed 0xdeadbeef), and only a run with VOXEN_NO_FLOAT64=1 showed it.
  vt::PlainFlavourGpu plain;
  ShaderLibrary& plainLibrary = plain.library;
  REQUIRE_FALSE(plainLibrary.float64());
  Scheduler& plainScheduler = plain.scheduler;
  vt::Rng rng(37);
  checkIterationBudget(plainScheduler, plainLibrary, rng);
  plainScheduler.finish();
}

TEST_CASE("A meshed sphere is closed, has the sphere's area and volume, and the GPU's mesh equals the CPU's", "[painter][mesh]") {
  DensityGrid g(128, 128, 128, 0.25f);
  g.origin[0] = -16.0f, g.origin[1] = -12.5f, g.origin[2] = 3.0f;
  const double radius = 40.0 * g.voxelSize;
  const Vec3d centre{g.origin[0] + 64.37 * g.voxelSize, g.origin[1] + 63.81 * g.voxelSize, g.origin[2] + 64.23 * g.voxelSize};
  addSphere(g, centre, radius);

  const auto cpu = meshGrid(g);
  const ClosednessReport r = checkClosed(cpu);
  INFO(r.triangles << " triangles, " << r.unpairedEdges << " unpaired, " << r.misorientedEdges << " misoriented, "
                   << r.degenerate << " degenerate");
  REQUIRE(r.closed());
  CHECK(r.degenerate == 0);
  const double area = surfaceArea(cpu), volume = enclosedVolume(cpu);
  const double wantArea = 4.0 * kPi * radius * radius, wantVolume = 4.0 / 3.0 * kPi * radius * radius * radius;
  INFO("area " << area << " (sphere " << wantArea << "), volume " << volume << " (sphere " << wantVolume << ")");
  CHECK(std::abs(area - wantArea) < 0.01 * wantArea);
  CHECK(std::abs(volume - wantVolume) < 0.01 * wantVolume);
  // Normals point away from the centre. The brush's field is clamped one voxel from the
  // surface, where central differences are truncated and tilt by a few degrees; a field
  // with a long ramp has true gradients, and there the normals must be radial.
  const auto radialCosines = [](const std::vector<Triangle>& mesh, const Vec3d& c) {
    double worst = 1.0, sum = 0.0;
    for (const Triangle& t : mesh)
      for (auto [p, bits] : {std::pair{t.p0, t.n0}, std::pair{t.p1, t.n1}, std::pair{t.p2, t.n2}}) {
        const Vec3d out = sub({p[0], p[1], p[2]}, c);
        const DecodedNormal n = decodeNormal(bits);
        const double cosine = dot({n.x, n.y, n.z}, out) / std::sqrt(dot(out, out));
        worst = std::min(worst, cosine);
        sum += cosine;
      }
    return std::pair{worst, sum / (3.0 * double(mesh.size()))};
  };
  const auto [worst, mean] = radialCosines(cpu, centre);
  INFO("normal vs radial direction: worst cosine " << worst << ", mean " << mean);
  CHECK(worst > 0.95);
  CHECK(mean > 0.98);
  DensityGrid smooth(48, 48, 48, 0.5f);
  const Vec3d smoothCentre{12.1, 11.8, 12.3};
  addSphere(smooth, smoothCentre, 8.0, 6.0);
  const auto [smoothWorst, smoothMean] = radialCosines(meshGrid(smooth), smoothCentre);
  INFO("long ramp: worst cosine " << smoothWorst << ", mean " << smoothMean);
  CHECK(smoothWorst > 0.999);

  const auto start = std::chrono::steady_clock::now();
  GpuMesher gpu(g, uint32_t(cpu.size()) + 1000);
  // The painter's launch: every block dirty, several per list-walking workgroup.
  REQUIRE(g.blockCount() > meshListGroups(g.blockCount()));
  const GpuFrame frame = gpu.frame(uint32_t(cpu.size()) + 1000);
  WARN("GPU meshing of the 128^3 sphere (" << cpu.size() << " triangles): " << vt::msSince(start) << " ms");
  CHECK(frame.overflow == 0);
  CHECK(frame.dirtyBlocks == g.blockCount());
  requireSameTriangles(frame.triangles, cpu, "sphere, GPU vs CPU");
  for (const BlockInfo& b : frame.blocks) REQUIRE(b.dirty == 0);
}

TEST_CASE("Incremental meshing of the blocks strokes touch equals a full re-mesh on the GPU and the CPU", "[painter][mesh]") {
  DensityGrid g(48, 40, 32, 0.5f);
  g.origin[0] = 1.0f, g.origin[1] = -2.0f, g.origin[2] = 0.5f;
  addSphere(g, {12.0, 8.0, 8.0}, 5.0);
  addSphere(g, {6.0, 4.0, 9.0}, 3.0);
  const uint32_t capacity = 40000;
  GpuMesher incremental(g, capacity);
  requireSameTriangles(incremental.frame(capacity).triangles, meshGrid(g), "first frame, GPU vs CPU");

  vt::Rng rng(21);
  uint32_t inPlace = 0;  // clean blocks with triangles that MeshScan found in place (not copied)
  for (int s = 0; s < 10; ++s) {
    INFO("stroke " << s);
    const Vec3d centre{g.origin[0] + double(rng.range(2, g.nx - 3)) * g.voxelSize + 0.13,
                       g.origin[1] + double(rng.range(2, g.ny - 3)) * g.voxelSize - 0.21,
                       g.origin[2] + double(rng.range(2, g.nz - 3)) * g.voxelSize + 0.07};
    const double radius = double(rng.range(2, 6)) * g.voxelSize + 0.1;
    const bool add = s < 3 || rng.chance(60);
    std::vector<uint8_t> dirty(g.blockCount(), 0);
    stroke(g, centre, radius, add, rng.u32() | 0xff000000u, dirty);
    const size_t dirtyBlocks = size_t(std::count(dirty.begin(), dirty.end(), 1));
    INFO((add ? "add" : "erase") << " at (" << centre[0] << ", " << centre[1] << ", " << centre[2] << ") radius " << radius
                                 << ": " << dirtyBlocks << " of " << g.blockCount() << " blocks dirty");
    REQUIRE(dirtyBlocks < g.blockCount());  // clean blocks must be copied, not re-meshed

    incremental.upload(g);
    incremental.markDirty(dirty);
    // The dirty list walked by the default launch, then by fewer workgroups than entries.
    const GpuFrame inc = incremental.frame(capacity, s % 2 ? 2 : 0);
    CHECK(inc.dirtyBlocks == dirtyBlocks);
    GpuMesher full(g, capacity);
    const GpuFrame all = full.frame(capacity);
    const auto cpu = meshGrid(g);
    CHECK(inc.overflow == 0);
    requireSameTriangles(all.triangles, cpu, "full GPU re-mesh vs CPU");
    requireSameTriangles(inc.triangles, all.triangles, "incremental vs full GPU re-mesh");
    for (const BlockInfo& b : inc.blocks) REQUIRE(b.dirty == 0);
    REQUIRE(checkClosed(inc.triangles).closed());
    uint32_t cleanWithTriangles = 0;
    for (uint32_t b = 0; b < g.blockCount(); ++b) cleanWithTriangles += !dirty[b] && all.blocks[b].triangleCount > 0;
    REQUIRE(inc.copiedBlocks <= cleanWithTriangles);
    inPlace += cleanWithTriangles - inc.copiedBlocks;
  }
  CHECK(inPlace > 0);  // the in-place path ran, and the meshes above stayed equal
}

TEST_CASE("A triangle list too small for the mesh counts the overflow, stays in bounds and recovers", "[painter][mesh]") {
  DensityGrid g(32, 32, 32, 1.0f);
  addSphere(g, {15.3, 16.2, 15.7}, 10.0);
  addSphere(g, {22.0, 21.0, 20.0}, 5.0);
  const auto cpu = meshGrid(g);
  const auto perBlock = meshBlocks(g);
  const uint32_t total = uint32_t(cpu.size());
  const uint32_t maxTriangles = total * 3 / 5 + 7;  // cuts a block in two
  const uint32_t guard = 512;
  GpuMesher gpu(g, total, guard);

  const GpuFrame cut = gpu.frame(maxTriangles);
  CHECK(cut.listed == maxTriangles);
  CHECK(cut.overflow == total - maxTriangles);
  requireSameTriangles(cut.triangles, std::vector<Triangle>(cpu.begin(), cpu.begin() + maxTriangles), "the part that fits");
  // Nothing written past maxTriangles: the rest of the list and its guard keep the fill.
  const auto tail = gpu.tail(maxTriangles);
  CHECK(size_t(std::count(tail.begin(), tail.end(), GpuMesher::kSentinel)) == tail.size());
  // The blocks that did not fit completely stay dirty.
  uint32_t offset = 0, stillDirty = 0;
  for (uint32_t b = 0; b < perBlock.size(); ++b) {
    const uint32_t count = uint32_t(perBlock[b].size());
    CHECK(cut.blocks[b].dirty == (count > 0 && offset + count > maxTriangles ? 1u : 0u));
    stillDirty += cut.blocks[b].dirty;
    offset += count;
  }
  CHECK(stillDirty > 0);

  // With room again and no stroke, the next frame re-meshes the cut blocks, copies the rest
  // from the cut list, and equals the full mesh.
  const GpuFrame recovered = gpu.frame(total);
  CHECK(recovered.overflow == 0);
  requireSameTriangles(recovered.triangles, cpu, "frame after the overflow");
  for (const BlockInfo& b : recovered.blocks) REQUIRE(b.dirty == 0);

  // Clean blocks that no longer fit (no block is dirty, the list shrinks): MeshCopy copies
  // what fits, never past maxTriangles, and marks the blocks it cut dirty. This frame uses
  // the list the cut frame wrote, whose entries past maxTriangles still hold the fill.
  const uint32_t smaller = total * 4 / 5 + 3;
  REQUIRE(smaller > maxTriangles);
  const GpuFrame copied = gpu.frame(smaller);
  CHECK(copied.dirtyBlocks == 0);
  // This frame writes the cut frame's list: the blocks that fitted there are in place, the
  // others are copied as far as they fit.
  uint32_t wantCopied = 0;
  offset = 0;
  for (const auto& block : perBlock) {
    const uint32_t count = uint32_t(block.size());
    wantCopied += count > 0 && offset + count > maxTriangles && offset < smaller;
    offset += count;
  }
  CHECK(copied.copiedBlocks == wantCopied);
  CHECK(copied.listed == smaller);
  CHECK(copied.overflow == total - smaller);
  requireSameTriangles(copied.triangles, std::vector<Triangle>(cpu.begin(), cpu.begin() + smaller), "clean blocks cut");
  const auto copiedTail = gpu.tail(smaller);
  CHECK(size_t(std::count(copiedTail.begin(), copiedTail.end(), GpuMesher::kSentinel)) == copiedTail.size());
  offset = 0, stillDirty = 0;
  for (uint32_t b = 0; b < perBlock.size(); ++b) {
    const uint32_t count = uint32_t(perBlock[b].size());
    CHECK(copied.blocks[b].dirty == (count > 0 && offset + count > smaller ? 1u : 0u));
    stillDirty += copied.blocks[b].dirty;
    offset += count;
  }
  CHECK(stillDirty > 0);
  const GpuFrame again = gpu.frame(total);
  CHECK(again.overflow == 0);
  requireSameTriangles(again.triangles, cpu, "frame after the clean blocks were cut");
}

TEST_CASE("MeshScan gives exact block offsets for 65,536 blocks, counts the overflow and lists the copies", "[painter][mesh]") {
  Scheduler& scheduler = vt::gpu().scheduler;
  FrameKernels kernels(vt::gpu().library);
  const uint32_t blocksX = 64, blocksY = 64, blocksZ = 16, n = blocksX * blocksY * blocksZ;
  const uint32_t maxTriangles = 1u << 20;
  vt::Rng rng(31);
  // Random counts, a quarter of the blocks dirty; clean blocks' triangles in place in the
  // list of two frames ago (olderOffset == the new offset), elsewhere, or not there.
  std::vector<BlockInfo> table(n);
  std::vector<uint32_t> offsets(n);
  uint32_t offset = 0;
  for (uint32_t b = 0; b < n; ++b) {
    offsets[b] = offset;
    BlockInfo& info = table[b];
    info.triangleCount = uint32_t(rng.range(0, 40));
    info.offset = 0xffffffffu;
    info.previousOffset = rng.u32();
    info.dirty = rng.chance(25) ? 1u : 0u;
    const int where = int(rng.range(0, 2));
    info.olderOffset = where == 0 ? offset : (where == 1 ? offset + 1 : kNoOffset);
    offset += info.triangleCount;
  }
  REQUIRE(offset > maxTriangles);
  Buffer blocks(scheduler.device(), "mc scan blocks", n * sizeof(BlockInfo));
  Buffer counters(scheduler.device(), "mc scan counters", kCounterCount * 4);
  Buffer total(scheduler.device(), "mc scan total", 16);
  Buffer lists(scheduler.device(), "mc scan block lists", n * 4);
  Buffer constants(scheduler.device(), "mc scan constants", sizeof(FrameConstants));
  FrameConstants f{};
  f.blocksX = blocksX, f.blocksY = blocksY, f.blocksZ = blocksZ;
  f.maxTriangles = maxTriangles;
  f.blocks = blocks.address();
  f.counters = counters.address();
  f.blockTotal = total.address();
  f.blockLists = lists.address();
  scheduler.upload(blocks, table.data(), n * sizeof(BlockInfo));
  scheduler.upload(constants, &f, sizeof(f));
  scheduler.fill(counters, 0u);
  dispatchPhase(scheduler, kernels, Phase::MeshScan, constants, 0, 1,
                {readsWrites(blocks), readsWrites(counters), readsWrites(total), readsWrites(lists)});
  const auto scanned = vt::readBack<BlockInfo>(scheduler, blocks);
  const auto counterValues = vt::readBack<uint32_t>(scheduler, counters);
  const auto listed = vt::readBack<uint32_t>(scheduler, lists);
  std::vector<uint32_t> wantCopies;
  for (uint32_t b = 0; b < n; ++b) {
    INFO("block " << b);
    const BlockInfo& before = table[b];
    const BlockInfo& after = scanned[b];
    REQUIRE(after.offset == offsets[b]);
    REQUIRE(after.triangleCount == before.triangleCount);
    REQUIRE(after.previousOffset == before.previousOffset);
    if (before.dirty) {
      REQUIRE(after.dirty == 1u);
      REQUIRE(after.olderOffset == kNoOffset);
      continue;
    }
    const uint32_t fits =
        offsets[b] >= maxTriangles ? 0u : std::min(before.triangleCount, maxTriangles - offsets[b]);
    REQUIRE(after.dirty == (fits == before.triangleCount ? 0u : 1u));
    REQUIRE(after.olderOffset == before.previousOffset);
    if (fits > 0 && before.olderOffset != offsets[b]) wantCopies.push_back(b);
  }
  CHECK(vt::readBack<uint32_t>(scheduler, total.range(0, 4))[0] == maxTriangles);
  CHECK(counterValues[kCounterOverflow] == offset - maxTriangles);
  CHECK(counterValues[kCounterDirtyBlocks] == 0);
  REQUIRE(counterValues[kCounterCopyBlocks] == wantCopies.size());
  std::vector<uint32_t> gotCopies(listed.end() - wantCopies.size(), listed.end());
  std::sort(gotCopies.begin(), gotCopies.end());
  CHECK(gotCopies == wantCopies);
}
