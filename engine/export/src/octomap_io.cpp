// OctoMap binary (.bt) import and export.
//
// The format, as OctoMap's AbstractOccupancyOcTree::writeBinaryConst / readBinary and
// OccupancyOcTreeBase::writeBinaryNode / readBinaryNode define it:
//
//   # Octomap OcTree binary file          first line, compared as a prefix
//   # ... comment lines ...
//   id OcTree                             tree type
//   size N                                number of nodes in the tree, root included
//   res R                                 voxel edge in metres
//   data                                  the binary tree follows this line's newline
//
// The tree is written depth first from the root: each node is two bytes, the first for
// children 0-3 and the second for children 4-7; child i takes the bit pair starting at bit
// 2 * (i % 4) (least significant first) and (byte >> 2 * (i % 4)) & 3 reads as
//   0: unknown (no child)   1: free leaf   2: occupied leaf   3: inner node.
// (OctoMap's comments spell these as "bit 2i, bit 2i+1": 00 unknown, 10 free, 01 occupied,
// 11 inner.) After a node's two bytes come the nodes of its inner children, in child order.
//
// Keys: the tree is 16 levels deep; a voxel's key on each axis is its voxel index + 32768,
// and a child's index at depth d (root d = 0) is made of bit (15 - d) of the x, y and z keys
// as x | y << 1 | z << 2. A leaf at depth d covers 2^(16 - d) voxels per axis.
#include "voxen/export/octomap_io.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "voxen/input/input_file.hpp"
#include "voxen/atomic_file/atomic_file.hpp"
#include "voxen/map/memory_budget.hpp"
#include "voxen/host/error.hpp"

namespace voxen {

namespace {

constexpr int kTreeDepth = 16;
constexpr int32_t kKeyOffset = 32768;  // OctoMap's tree_max_val: key of voxel index 0
constexpr std::string_view kBinaryHeader = "# Octomap OcTree binary file";
constexpr std::string_view kFullHeader = "# Octomap OcTree file";  // .ot: the non-binary format

enum ChildCode : uint8_t { kUnknown = 0, kFree = 1, kOccupied = 2, kInner = 3 };

std::string voxelText(int32_t x, int32_t y, int32_t z) {
  return "(" + std::to_string(x) + ", " + std::to_string(y) + ", " + std::to_string(z) + ")";
}

// ---- export --------------------------------------------------------------------------

// Spreads the 16 bits of v so that bit b lands at bit 3b.
uint64_t spreadBits(uint32_t v) {
  uint64_t x = v & 0xFFFFu;
  x = (x | (x << 16)) & 0x0000FF0000FFull;
  x = (x | (x << 8)) & 0x00F00F00F00Full;
  x = (x | (x << 4)) & 0x0C30C30C30C3ull;
  x = (x | (x << 2)) & 0x249249249249ull;
  return x;
}

// One observed voxel: its Morton code over the OctoMap keys (x in the lowest bit of each
// triple, as OctoMap numbers children) shifted left by one, with the occupied flag in bit 0.
// Sorting these puts voxels in the order the depth-first dump visits them.
uint64_t entryCode(uint32_t kx, uint32_t ky, uint32_t kz, bool occupied) {
  const uint64_t morton = spreadBits(kx) | (spreadBits(ky) << 1) | (spreadBits(kz) << 2);
  return (morton << 1) | (occupied ? 1u : 0u);
}

// Child index at depth `depth` (root = 0) of the voxel an entry stands for.
unsigned childIndex(uint64_t entry, int depth) { return unsigned(entry >> (1 + 3 * (kTreeDepth - 1 - depth))) & 7u; }

class TreeWriter {
 public:
  explicit TreeWriter(const std::vector<uint64_t>& entries) : entries_(entries) {}

  void writeRoot() {
    if (entries_.empty()) return;  // an empty tree has no root: "size 0" and no data
    nodes_ = 1;
    writeNode(0, entries_.size(), 0);
  }
  const std::string& bytes() const { return bytes_; }
  uint64_t nodes() const { return nodes_; }

 private:
  // Writes the node at `depth` whose voxels are entries [begin, end), then its inner children.
  void writeNode(size_t begin, size_t end, int depth) {
    size_t bounds[9];
    bounds[0] = begin;
    size_t at = begin;
    for (unsigned child = 0; child < 8; ++child) {
      while (at < end && childIndex(entries_[at], depth) == child) ++at;
      bounds[child + 1] = at;
    }
    const int childDepth = depth + 1;
    const uint64_t childVolume = uint64_t(1) << (3 * (kTreeDepth - childDepth));
    uint8_t codes[8];
    uint8_t packed[2] = {0, 0};
    for (unsigned child = 0; child < 8; ++child) {
      const size_t b = bounds[child], e = bounds[child + 1];
      uint8_t code = kUnknown;
      if (b != e) {
        // A child is a leaf when it is a single voxel or when every voxel under it is observed
        // and of one class (pruning: OctoMap merges eight equal leaves into their parent,
        // repeatedly, which leaves exactly the full uniform subtrees as leaves).
        const bool occupied = entries_[b] & 1u;
        bool leaf = childDepth == kTreeDepth;
        if (!leaf && e - b == childVolume)
          leaf = std::all_of(entries_.begin() + b, entries_.begin() + e,
                             [&](uint64_t entry) { return bool(entry & 1u) == occupied; });
        code = leaf ? (occupied ? kOccupied : kFree) : kInner;
        ++nodes_;
      }
      codes[child] = code;
      packed[child / 4] |= uint8_t(code << (2 * (child % 4)));
    }
    bytes_.push_back(char(packed[0]));
    bytes_.push_back(char(packed[1]));
    for (unsigned child = 0; child < 8; ++child)
      if (codes[child] == kInner) writeNode(bounds[child], bounds[child + 1], childDepth);
  }

  const std::vector<uint64_t>& entries_;
  std::string bytes_;
  uint64_t nodes_ = 0;
};

// ---- import --------------------------------------------------------------------------

struct Leaf {
  uint32_t key[3];  // lowest key on each axis of the cube the leaf covers
  int depth;
  bool occupied;
};

class TreeReader {
 public:
  TreeReader(std::string_view data, uint64_t expectedNodes, const std::string& where)
      : data_(data), expected_(expectedNodes), where_(where) {}

  std::vector<Leaf> read() {
    if (expected_ == 0) return {};
    nodes_ = 1;
    const uint32_t root[3] = {0, 0, 0};
    readNode(root, 0);
    if (nodes_ != expected_)
      throw Error(where_ + ": header says the tree has " + std::to_string(expected_) + " nodes but its data holds " +
                  std::to_string(nodes_));
    return std::move(leaves_);
  }
  uint64_t coveredVoxels() const { return covered_; }

 private:
  void readNode(const uint32_t origin[3], int depth) {
    if (at_ + 2 > data_.size())
      throw Error(where_ + ": truncated data: the tree data ends after " + std::to_string(data_.size()) +
                  " bytes, in the middle of the tree (the header announces " + std::to_string(expected_) + " nodes)");
    const uint8_t packed[2] = {uint8_t(data_[at_]), uint8_t(data_[at_ + 1])};
    at_ += 2;
    const int childDepth = depth + 1;
    const uint32_t half = uint32_t(1) << (kTreeDepth - childDepth);  // child edge in voxels
    uint8_t codes[8];
    for (unsigned child = 0; child < 8; ++child) {
      codes[child] = (packed[child / 4] >> (2 * (child % 4))) & 3u;
      if (codes[child] == kUnknown) continue;
      if (++nodes_ > expected_)
        throw Error(where_ + ": the tree data holds more nodes than the " + std::to_string(expected_) +
                    " the header announces");
      if (codes[child] == kInner && childDepth == kTreeDepth)
        throw Error(where_ + ": corrupt tree data: an inner node below OctoMap's finest level (depth 16)");
      if (codes[child] == kInner) continue;
      Leaf leaf;
      for (int axis = 0; axis < 3; ++axis) leaf.key[axis] = origin[axis] + ((child >> axis) & 1u ? half : 0u);
      leaf.depth = childDepth;
      leaf.occupied = codes[child] == kOccupied;
      covered_ += uint64_t(half) * half * half;
      leaves_.push_back(leaf);
    }
    for (unsigned child = 0; child < 8; ++child) {
      if (codes[child] != kInner) continue;
      uint32_t childOrigin[3];
      for (int axis = 0; axis < 3; ++axis) childOrigin[axis] = origin[axis] + ((child >> axis) & 1u ? half : 0u);
      readNode(childOrigin, childDepth);
    }
  }

  std::string_view data_;
  uint64_t expected_;
  std::string where_;
  size_t at_ = 0;
  uint64_t nodes_ = 0;
  uint64_t covered_ = 0;
  std::vector<Leaf> leaves_;
};

struct Header {
  std::string id;
  double resolution = 0.0;
  bool hasResolution = false;
  uint64_t size = 0;
  bool hasSize = false;
  size_t dataOffset = 0;
};

// Parses the text header the way OctoMap's AbstractOcTree::readHeader does: whitespace
// separated keywords, '#' starts a comment to the end of the line, unknown keywords are
// skipped with their line, and the binary data starts after the line holding "data".
Header parseHeader(std::string_view file, const std::string& where) {
  const size_t firstLineEnd = std::min(file.find('\n'), file.size());
  const std::string_view firstLine = file.substr(0, firstLineEnd);
  if (firstLine.substr(0, kBinaryHeader.size()) != kBinaryHeader) {
    if (firstLine.substr(0, kFullHeader.size()) == kFullHeader)
      throw Error(where + ": this is an OctoMap full-probability file (.ot, \"" + std::string(kFullHeader) +
                  "\"); only binary OcTree files (.bt) are supported: convert it with OctoMap's convert_octree");
    throw Error(where + ": bad header: not an OctoMap binary file (the first line must start with \"" +
                std::string(kBinaryHeader) + "\"; files from OctoMap before 1.4 need OctoMap's convert_octree)");
  }
  Header header;
  size_t at = firstLineEnd;
  auto isSpace = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; };
  auto nextToken = [&]() -> std::string_view {
    while (at < file.size() && isSpace(file[at])) ++at;
    const size_t begin = at;
    while (at < file.size() && !isSpace(file[at])) ++at;
    return file.substr(begin, at - begin);
  };
  auto skipLine = [&]() {
    while (at < file.size() && file[at] != '\n') ++at;
    if (at < file.size()) ++at;  // past the newline
  };
  bool sawData = false;
  while (!sawData) {
    const std::string_view token = nextToken();
    if (token.empty()) break;
    if (token == "data") {
      skipLine();
      sawData = true;
    } else if (token[0] == '#') {
      skipLine();
    } else if (token == "id") {
      header.id = std::string(nextToken());
    } else if (token == "res") {
      const std::string_view value = nextToken();
      const auto parsed = std::from_chars(value.data(), value.data() + value.size(), header.resolution);
      if (value.empty() || parsed.ec != std::errc() || parsed.ptr != value.data() + value.size())
        throw Error(where + ": bad header: resolution '" + std::string(value) + "' is not a number");
      header.hasResolution = true;
    } else if (token == "size") {
      const std::string_view value = nextToken();
      const auto parsed = std::from_chars(value.data(), value.data() + value.size(), header.size);
      if (value.empty() || parsed.ec != std::errc() || parsed.ptr != value.data() + value.size())
        throw Error(where + ": bad header: size '" + std::string(value) + "' is not a node count");
      header.hasSize = true;
    } else {
      skipLine();  // OctoMap warns about unknown keywords and skips them
    }
  }
  if (!sawData) throw Error(where + ": bad header: no \"data\" line before the end of the file");
  if (header.id.empty()) throw Error(where + ": bad header: no \"id\" line (tree type)");
  if (header.id == "1") header.id = "OcTree";  // OctoMap's deprecated id for OcTree
  if (header.id != "OcTree")
    throw Error(where + ": tree type '" + header.id +
                "' is not supported: only OcTree binary maps can be imported (ColorOcTree, OcTreeStamped and other "
                "trees carry extra data)");
  if (!header.hasResolution) throw Error(where + ": bad header: no \"res\" line (resolution)");
  if (!(header.resolution > 0.0) || !std::isfinite(header.resolution))
    throw Error(where + ": bad header: resolution " + formatNumber(header.resolution) +
                " m is not a positive number of metres");
  if (!header.hasSize) throw Error(where + ": bad header: no \"size\" line (node count)");
  header.dataOffset = at;
  return header;
}

// Sets every voxel of the cube with lowest voxel `low` and edge `edge` voxels to `value`.
void fillCube(OccupancyMap& map, const VoxelCoord& low, int32_t edge, float value) {
  const int32_t n = map.regionSize();
  const VoxelCoord high{low.x + edge - 1, low.y + edge - 1, low.z + edge - 1};
  const RegionKey r0 = map.regionOf(low), r1 = map.regionOf(high);
  for (int32_t rz = r0.z; rz <= r1.z; ++rz)
    for (int32_t ry = r0.y; ry <= r1.y; ++ry)
      for (int32_t rx = r0.x; rx <= r1.x; ++rx) {
        Region& region = map.region({rx, ry, rz});
        const int32_t bx = rx * n, by = ry * n, bz = rz * n;
        const int32_t x0 = std::max(low.x, bx) - bx, x1 = std::min(high.x, bx + n - 1) - bx;
        const int32_t y0 = std::max(low.y, by) - by, y1 = std::min(high.y, by + n - 1) - by;
        const int32_t z0 = std::max(low.z, bz) - bz, z1 = std::min(high.z, bz + n - 1) - bz;
        for (int32_t z = z0; z <= z1; ++z)
          for (int32_t y = y0; y <= y1; ++y) {
            float* row = region.occupancy().data() + size_t(n) * (y + size_t(n) * z);
            std::fill(row + x0, row + x1 + 1, value);
          }
      }
}

// Regions a region-sized grid needs to hold every leaf, counted without allocating them:
// small leaves (at most 8 regions each) are collected in a set, so leaves sharing a region
// count it once; a larger leaf covers its regions with at most its boundary shared, so
// adding their counts is a close upper bound.
uint64_t regionsToHold(const std::vector<Leaf>& leaves, int32_t regionSize) {
  std::unordered_set<RegionKey, RegionKeyHash> small;
  uint64_t large = 0;
  for (const Leaf& leaf : leaves) {
    const int32_t edge = int32_t(1) << (kTreeDepth - leaf.depth);
    uint64_t count = 1;
    RegionKey lo, hi;
    for (int axis = 0; axis < 3; ++axis) {
      const int32_t low = int32_t(leaf.key[axis]) - kKeyOffset;
      (&lo.x)[axis] = floorDiv(low, regionSize);
      (&hi.x)[axis] = floorDiv(low + edge - 1, regionSize);
      count *= uint64_t((&hi.x)[axis] - (&lo.x)[axis] + 1);
    }
    if (count > 8) {
      large += count;
      continue;
    }
    for (int32_t z = lo.z; z <= hi.z; ++z)
      for (int32_t y = lo.y; y <= hi.y; ++y)
        for (int32_t x = lo.x; x <= hi.x; ++x) small.insert({x, y, z});
  }
  return small.size() + large;
}

}  // namespace

ExportCounts exportOctomap(const OccupancyMap& map, const std::filesystem::path& path) {
  const int32_t n = map.regionSize();
  uint64_t nonFinite = 0;
  const float threshold = map.model().thresholdValue();
  std::vector<uint64_t> entries;
  for (const auto& [key, region] : map.regions()) {
    const int32_t bx = key.x * n, by = key.y * n, bz = key.z * n;
    // Only a region reaching past the key range needs each voxel checked.
    auto inRange = [](int64_t v) { return v >= -kKeyOffset && v < kKeyOffset; };
    const bool regionInside = inRange(bx) && inRange(int64_t(bx) + n - 1) && inRange(by) &&
                              inRange(int64_t(by) + n - 1) && inRange(bz) && inRange(int64_t(bz) + n - 1);
    size_t index = 0;
    for (int32_t z = 0; z < n; ++z)
      for (int32_t y = 0; y < n; ++y)
        for (int32_t x = 0; x < n; ++x, ++index) {
          const float value = region.occupancy()[index];
          if (!isObserved(value)) continue;
          if (!std::isfinite(value)) {  // NaN or -inf: no class to give it
            ++nonFinite;
            continue;
          }
          const int32_t vx = bx + x, vy = by + y, vz = bz + z;
          if (!regionInside && !(inRange(vx) && inRange(vy) && inRange(vz))) {
            const glm::dvec3 centre = map.voxelCentre({vx, vy, vz});
            throw Error("OctoMap export to " + path.string() + ": voxel " + voxelText(vx, vy, vz) + " (centre " +
                        formatNumber(centre.x) + ", " + formatNumber(centre.y) + ", " + formatNumber(centre.z) +
                        " m) lies outside OctoMap's key range: OctoMap addresses voxel indices -32768..32767 on "
                        "each axis (+-" + formatNumber(kKeyOffset * map.model().resolution) + " m at this resolution)");
          }
          entries.push_back(entryCode(uint32_t(vx + kKeyOffset), uint32_t(vy + kKeyOffset), uint32_t(vz + kKeyOffset),
                                      value >= threshold));
        }
  }
  std::sort(entries.begin(), entries.end());

  TreeWriter writer(entries);
  writer.writeRoot();

  std::string header;
  header += std::string(kBinaryHeader) + "\n";
  header += "# written by Voxen: occupied and free voxels only, as OctoMap's maximum-likelihood binary tree\n";
  header += "id OcTree\n";
  header += "size " + std::to_string(writer.nodes()) + "\n";
  header += "res " + formatNumber(map.model().resolution) + "\n";
  header += "data\n";

  detail::AtomicFileWriter out(path, "OctoMap");
  out.write(header.data(), header.size());
  out.write(writer.bytes().data(), writer.bytes().size());
  out.commit();
  return {entries.size(), nonFinite};
}

OccupancyMap importOctomap(const std::filesystem::path& path, const OccupancyModel& base, const OctomapImportLimits& limits) {
  const std::string where = "OctoMap import of " + path.string();
  // Missing, a directory, a device or a pipe, unreadable: each said as such, naming the file.
  std::ifstream in = detail::openInputFile(path, "OctoMap file");
  const std::string file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw Error(where + ": reading the file failed");
  if (file.empty()) throw Error(where + ": the file is empty (0 bytes): not an OctoMap binary tree");

  const Header header = parseHeader(file, where);
  // Every node but the root takes at least 2 bits of the data, so the leaves the reader may
  // collect are bounded by the data's size before any is read.
  const uint64_t dataBytes = file.size() - header.dataOffset;
  const uint64_t maxLeaves = std::min<uint64_t>(header.size, dataBytes * 4 + 1);
  checkMemoryBudget(maxLeaves * sizeof(Leaf), limits.memoryBudgetBytes,
                    where + ": reading the tree's " + std::to_string(maxLeaves) + " nodes", limits.hint);
  TreeReader reader(std::string_view(file).substr(header.dataOffset), header.size, where);
  const std::vector<Leaf> leaves = reader.read();
  if (reader.coveredVoxels() > kMaxOctomapImportVoxels)
    throw Error(where + ": the tree covers " + std::to_string(reader.coveredVoxels()) +
                " known voxels, more than the " + std::to_string(kMaxOctomapImportVoxels) +
                " an import may expand to (Voxen stores every voxel of a pruned OctoMap leaf)");

  OccupancyModel model = base;
  model.resolution = header.resolution;
  try {
    model.validate();
  } catch (const Error& e) {
    throw Error(where + ": " + e.what());
  }
  OccupancyMap map(model);
  // The map's size is known from the leaves: refuse it before the first region exists.
  const uint64_t regions = regionsToHold(leaves, model.regionSize);
  checkMemoryBudget(regions * map.bytesPerRegion(), limits.memoryBudgetBytes,
                    where + ": the tree's " + std::to_string(leaves.size()) + " leaves cover " +
                        std::to_string(reader.coveredVoxels()) + " known voxels, which expand to up to " +
                        std::to_string(regions) + " regions of " + std::to_string(model.regionSize) + "^3 voxels; that",
                    limits.hint);
  // A binary tree carries only each voxel's class (OctoMap writes maximum-likelihood values),
  // not its log-odds: occupied voxels take the model's upper clamp and free voxels its lower
  // clamp, as OctoMap's own readBinary does.
  const float occupiedValue = model.clampMax, freeValue = model.clampMin;
  if (map.classify(occupiedValue) != VoxelClass::Occupied || map.classify(freeValue) != VoxelClass::Free)
    throw Error(where + ": the occupancy model's clamps [" + formatNumber(model.clampMin) + ", " +
                formatNumber(model.clampMax) + "] must lie on either side of its occupancy threshold");
  for (const Leaf& leaf : leaves) {
    const VoxelCoord low{int32_t(leaf.key[0]) - kKeyOffset, int32_t(leaf.key[1]) - kKeyOffset,
                         int32_t(leaf.key[2]) - kKeyOffset};
    fillCube(map, low, int32_t(1) << (kTreeDepth - leaf.depth), leaf.occupied ? occupiedValue : freeValue);
  }
  return map;
}

}  // namespace voxen
