// CloudRayMaker (voxen/input/cloud_rays.hpp): one cloud through the same posing and ray rules
// as a recording's: the cloud is a one-chunk point source, made into rays by makeRayChunk.
#include "voxen/input/cloud_rays.hpp"

#include <algorithm>
#include <exception>

#include "point_source.hpp"
#include "ray_chunk.hpp"
#include "recording/cloud_posing.hpp"

namespace voxen::detail {

namespace {

// One decoded cloud as chunk 0 of a point source: finish() poses it (as a recording's
// source does on its workers).
class OneCloudSource final : public PointSource {
 public:
  OneCloudSource(const CloudPosing& posing, const ros::PointCloud2& cloud, const std::string& where)
      : posing_(posing), cloud_(cloud), where_(where) {}
  uint64_t chunks() const override { return 1; }
  bool concurrent() const override { return true; }
  size_t read(uint64_t, std::vector<double>& out) override {
    out.clear();
    return 0;
  }
  size_t finish(uint64_t, std::vector<double>& rows, size_t, SourceSkips& skips) override {
    return posing_.pose(cloud_, where_, rows, skips);
  }

 private:
  const CloudPosing& posing_;
  const ros::PointCloud2& cloud_;
  const std::string& where_;
};

}  // namespace

CloudRayMaker::CloudRayMaker(ros::CloudLayout layout, std::string sensorFrame, bool deskew, const SensorExclusion& exclusion)
    : layout_(std::move(layout)), sensorFrame_(std::move(sensorFrame)), deskew_(deskew), exclusion_(exclusion) {}

double CloudRayMaker::latestPointTime(const ros::PointCloud2& cloud) const {
  const double stamp = ros::stampSeconds(cloud.stampNs);
  if (!deskew_ || !layout_.hasTime) return stamp;
  return stamp + std::max(0.0, layout_.firstOffsetMax);
}

void CloudRayMaker::make(const ros::PointCloud2& cloud, const TfBuffer::Chain& chain, const std::string& where,
                         CloudRays& out) const {
  const CloudPosing posing(layout_, Poser(chain), sensorFrame_, true, deskew_, exclusion_);
  OneCloudSource source(posing, cloud, where);
  const RayRowLayout rowLayout{.columns = posing.columns(), .hasTime = true, .hasOrigin = true,
                               .hasIntensity = layout_.hasIntensity};
  thread_local std::vector<double> rows;
  RayChunk chunk;
  chunk.rays = std::move(out.rays);
  makeRayChunk(source, 0, rowLayout, ChunkRules{}, rows, chunk, nullptr);
  if (chunk.error) std::rethrow_exception(chunk.error);
  out.rays = std::move(chunk.rays);
  out.stats = chunk.stats;
}

}  // namespace voxen::detail
