// A depth frame's camera as the TSDF's integers (tsdf_shared.h), the depth of a pixel in fine
// units, and the blocks a frame reaches: the host side of what shaders/tsdf/*.comp compute,
// with the same shared functions.
#include <algorithm>
#include <cmath>

#include <glm/gtc/quaternion.hpp>
#include <glm/mat3x3.hpp>

#include "tsdf_internal.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/parallel_for.hpp"
#include "voxen/tsdf/tsdf.hpp"

namespace voxen {

namespace {

int64_t fixed(double v, double scale) { return int64_t(std::llround(v * scale)); }

// The camera's centre, voxel coordinates: at most 2^22 from the origin, so that blocks pack
// into 21 bits each on the GPU and every product stays in 63 bits.
constexpr double kMaxCentreVoxels = 4194304.0;

}  // namespace

gpu::TsdfCamera tsdfCamera(const DepthFrame& frame, const TsdfOptions& options, double resolution) {
  options.validate(resolution);
  const CameraIntrinsics& k = frame.intrinsics;
  const DepthImage& image = frame.depth;
  if (image.width == 0 || image.height == 0) throw Error("depth frame: the image is empty (0 pixels)");
  if (image.width != k.width || image.height != k.height)
    throw Error("depth frame: the image is " + std::to_string(image.width) + " x " + std::to_string(image.height) +
                " pixels, its camera's intrinsics " + std::to_string(k.width) + " x " + std::to_string(k.height));
  if (image.width > 32768 || image.height > 32768) throw Error("depth frame: images wider or taller than 32768 pixels are not taken");
  const size_t stored = image.encoding == DepthEncoding::Unsigned16 ? image.depth16.size() : image.depth32.size();
  if (stored != image.pixels())
    throw Error("depth frame: the image holds " + std::to_string(stored) + " depth values for " + std::to_string(image.pixels()) +
                " pixels");
  if (!(k.fx > 0 && k.fy > 0 && k.fx < 32768 && k.fy < 32768) || !std::isfinite(k.cx) || !std::isfinite(k.cy) ||
      std::abs(k.cx) > 65536 || std::abs(k.cy) > 65536)
    throw Error("depth frame: the intrinsics need 0 < fx, fy < 32768 pixels and finite cx, cy (got fx " + std::to_string(k.fx) +
                ", fy " + std::to_string(k.fy) + ", cx " + std::to_string(k.cx) + ", cy " + std::to_string(k.cy) + ")");
  if (image.encoding == DepthEncoding::Unsigned16 && !(image.depthScale > 0 && image.depthScale < 1.0))
    throw Error("depth frame: a 16-bit image's depth scale must be in (0, 1) metres per unit (got " + std::to_string(image.depthScale) + ")");
  const glm::dvec3 centre = frame.position / resolution;
  for (int a = 0; a < 3; ++a)
    if (!(std::abs(centre[a]) < kMaxCentreVoxels))
      throw Error("depth frame: the camera at (" + std::to_string(frame.position.x) + ", " + std::to_string(frame.position.y) + ", " +
                  std::to_string(frame.position.z) + ") m is too far from the map's origin (at most 2^22 voxels)");
  const double norm = glm::length(frame.orientation);
  if (!(norm > 0.5 && norm < 2.0)) throw Error("depth frame: the orientation is not a rotation (quaternion length " + std::to_string(norm) + ")");

  gpu::TsdfCamera c{};
  const glm::dmat3 m = glm::mat3_cast(glm::normalize(frame.orientation));  // world from camera; m[column][row]
  const double q30 = std::ldexp(1.0, gpu::kTsdfRotationBits);
  for (int r = 0; r < 3; ++r)
    for (int col = 0; col < 3; ++col) c.rotationWc[r * 3 + col] = fixed(m[col][r], q30);
  for (int r = 0; r < 3; ++r)
    for (int col = 0; col < 3; ++col) c.rotationCw[r * 3 + col] = c.rotationWc[col * 3 + r];  // the exact transpose
  for (int a = 0; a < 3; ++a) c.centre[a] = fixed(centre[a], double(gpu::kTsdfFine));
  c.fx = fixed(k.fx, 65536.0), c.fy = fixed(k.fy, 65536.0), c.cx = fixed(k.cx, 65536.0), c.cy = fixed(k.cy, 65536.0);
  c.width = int(image.width), c.height = int(image.height);
  c.encoding = image.encoding == DepthEncoding::Unsigned16 ? gpu::kTsdfDepthUnsigned16 : gpu::kTsdfDepthFloat32;
  c.depthScaleQ32 = image.encoding == DepthEncoding::Unsigned16 ? fixed(image.depthScale / resolution, std::ldexp(1.0, 32)) : 0;
  c.depthFactor = float(double(gpu::kTsdfFine) / resolution);
  c.truncation = fixed(options.truncationVoxels, double(gpu::kTsdfFine));
  c.maxDepth = std::min(fixed(std::min(options.maxRange / resolution, 1.0e9), double(gpu::kTsdfFine)),
                        gpu::kTsdfMaxDepthFine - c.truncation);
  return c;
}

std::vector<TsdfBlock> tsdfFrameBlocks(const gpu::TsdfCamera& c, const DepthImage& image) {
  // Rows on the machine's cores, each listing its pixels' boxes (a box the pixel before gave is
  // not listed again: neighbouring pixels mostly share one), sorted, each block once per row;
  // then all rows' sorted, each block once.
  std::vector<std::vector<TsdfBlock>> rows(size_t(c.height));
  const int64_t* wc = c.rotationWc;
  parallelFor(rows.size(), [&](size_t row) {
    const int v = int(row);
    std::vector<TsdfBlock>& found = rows[row];
    int32_t lastLo[3] = {1, 1, 1}, lastHi[3] = {0, 0, 0};  // an empty box
    for (int u = 0; u < c.width; ++u) {
      const int64_t d = tsdfPixelDepth(c, image, size_t(v) * size_t(c.width) + size_t(u));
      if (d == 0) continue;
      int32_t lo[3], hi[3];
      tsdfBandBlocks(c, wc, u, v, d, lo, hi);
      if (std::equal(lo, lo + 3, lastLo) && std::equal(hi, hi + 3, lastHi)) continue;
      std::copy(lo, lo + 3, lastLo);
      std::copy(hi, hi + 3, lastHi);
      for (int32_t bz = lo[2]; bz <= hi[2]; ++bz)
        for (int32_t by = lo[1]; by <= hi[1]; ++by)
          for (int32_t bx = lo[0]; bx <= hi[0]; ++bx) found.push_back({bx, by, bz});
    }
    // Each row's blocks once, on its core: a row lists each block many times, and one sort of
    // every row's list was a tenth of the CPU reference's frame.
    std::sort(found.begin(), found.end());
    found.erase(std::unique(found.begin(), found.end()), found.end());
  });
  std::vector<TsdfBlock> blocks;
  size_t total = 0;
  for (const std::vector<TsdfBlock>& row : rows) total += row.size();
  blocks.reserve(total);
  for (const std::vector<TsdfBlock>& row : rows) blocks.insert(blocks.end(), row.begin(), row.end());
  std::sort(blocks.begin(), blocks.end());
  blocks.erase(std::unique(blocks.begin(), blocks.end()), blocks.end());
  return blocks;
}

void tsdfBandBlocks(const gpu::TsdfCamera& c, const int64_t* wc, int u, int v, int64_t d, int32_t lo[3], int32_t hi[3]) {
  const int64_t ends[2] = {std::max<int64_t>(d - c.truncation, 1), d + c.truncation};
  for (int e = 0; e < 2; ++e) {
    const int64_t z = ends[e];
    const int64_t x = gpu::tsdfBackProject(u, z, c.fx, c.cx), y = gpu::tsdfBackProject(v, z, c.fy, c.cy);
    for (int a = 0; a < 3; ++a) {
      const int64_t world = gpu::tsdfRotateRow(wc[a * 3], wc[a * 3 + 1], wc[a * 3 + 2], x, y, z) + c.centre[a];
      const int32_t block = int32_t(world >> (gpu::kTsdfFineBits + 3));  // floor(voxel / 8)
      lo[a] = e == 0 ? block : std::min(lo[a], block);
      hi[a] = e == 0 ? block : std::max(hi[a], block);
    }
  }
}

}  // namespace voxen
