// MappingRunStats' fields for JSON, in the order `voxen map --json` has always written them.
#include <charconv>
#include <cmath>

#include "voxen/mapping_run.hpp"
#include "voxen/occupancy/ndt.hpp"

namespace voxen {

namespace {

// Times to 0.1 ms, rates to 0.1: the precision the summaries have always had.
double rounded(double value, int decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::isfinite(value) ? std::round(value * scale) / scale : value;
}

JsonField::Object storeFields(const MappingStoreStats& store) {
  const StoreMappingStats& st = store.mapping;
  return {{"resumed_from_rays", store.resumedFromRays},
          {"checkpoints", st.checkpoints},
          {"checkpoint_s", rounded(st.checkpointSeconds, 4)},
          {"longest_checkpoint_s", rounded(st.longestCheckpointSeconds, 4)},
          {"write_s", rounded(st.writeSeconds, 4)},
          {"longest_write_s", rounded(st.longestWriteSeconds, 4)},
          {"longest_write_regions", st.longestWriteRegions},
          {"fold_s", rounded(st.foldSeconds, 4)},
          {"regions_written", st.regionsWritten},
          {"evictions", st.evictions},
          {"fetches", st.fetches},
          {"fetch_s", rounded(st.fetchSeconds, 4)},
          {"host_map_peak_mb", rounded(double(st.peakHostBytes) / double(1 << 20), 2)}};
}

JsonField::Value memoryValue(const std::optional<MappingRunStats::DeviceMemory>& memory) {
  if (!memory) return nullptr;
  return JsonField::Object{{"device_local_mb", rounded(memory->deviceLocalMb, 1)},
                           {"host_visible_mb", rounded(memory->hostVisibleMb, 1)},
                           {"unified", memory->unified}};
}

// Each coordinate in its shortest exact form (1e+30, nan, 3000000000).
std::string coordinatesText(const glm::dvec3& p) {
  const auto number = [](double v) {
    char text[32];
    return std::string(text, std::to_chars(text, text + sizeof text, v).ptr);
  };
  std::string text = "(";
  text.append(number(p.x)).append(", ").append(number(p.y)).append(", ").append(number(p.z)).append(")");
  return text;
}

}  // namespace

std::string rejectedRayText(const RejectedRay& r) {
  std::string text = "ray " + std::to_string(r.index);
  text.append(", origin ").append(coordinatesText(r.ray.origin)).append(", sample ").append(coordinatesText(r.ray.sample));
  return text + (r.nonFinite            ? ": a non-finite coordinate"
          : r.nonFiniteIntensity ? ": a NaN or infinite intensity, which NDT-TM cannot fold into its statistics"
                                 : ": too far from the map's origin for 32-bit voxel coordinates");
}

JsonField::Object MappingRunStats::jsonFields() const {
  const IntegrationStats& s = integration;
  const auto count = [](uint64_t n) { return JsonField::Value(n); };
  JsonField::Object fields = {
      {"rays", count(s.rays)},
      {"samples", count(load.points)},
      {"skipped_non_finite", count(load.skippedNonFinite)},
      {"skipped_outside_trajectory", count(load.skippedOutsideTrajectory)},
      {"skipped_backwards", count(load.skippedBackwards)},
      {"skipped_in_box", count(load.skippedInBox)},
      {"skipped_near_sensor", count(load.skippedNearSensor)},
      {"clipped_rays", count(s.clippedRays)},
      {"rejected_rays", count(s.rejectedRays)},
      {"rejected_too_far", count(s.rejectedTooFar)},
      {"rejected_non_finite", count(s.rejectedNonFinite)},
      {"rejected_non_finite_intensity", count(s.rejectedIntensity)},
      {"input_warnings", inputWarnings},
      {"first_rejected_ray", s.firstRejected ? JsonField::Value(rejectedRayText(*s.firstRejected)) : JsonField::Value(nullptr)},
      {"voxel_updates", count(s.voxelUpdates)},
      {"dropped_updates", count(s.droppedUpdates)},
      {"cas_retries", count(s.casRetries)},
      {"region_chunks", count(s.regionChunks)},
      {"gpu_lookup_batches", count(s.gpuLookupBatches)},
      {"rewalked_segments", count(s.rewalkedSegments)},
      {"occupied_voxels", count(counts.occupied)},
      {"free_voxels", count(counts.free)},
      {"regions", count(counts.regions)},
      {"wall_s", rounded(wallSeconds, 4)},
      {"rays_per_s", rounded(raysPerSecond(), 1)},
      {"device", device},
      {"backend", JsonField::Object{{"asked", std::string(mappingBackendName(backend.asked))},
                                    {"ran", std::string(backend.cpu ? "cpu" : "gpu")},
                                    {"reason", backend.reason.empty() ? JsonField::Value(nullptr) : JsonField::Value(backend.reason)}}},
      {"batch_size", count(batchSize)},
      {"update_order", std::string(updateOrderName(order))},
      {"ndt", std::string(ndtModeName(ndt))},
      {"clearance_range", clearanceRange ? JsonField::Value(*clearanceRange) : JsonField::Value(nullptr)},
      {"clearance_regions", count(clearance.regions)},
      {"clearance_s", rounded(clearance.seconds, 4)},
      {"ndt_fold_invocations", count(s.ndtFoldInvocations)},
      {"ndt_sample_voxels", count(s.ndtSampleVoxels)},
      {"output", written},
      {"peak_rss_mb", int64_t(peakResidentMb)},
      {"memory", memoryValue(deviceMemory)}};
  if (store) fields.push_back({"store", storeFields(*store)});
  return fields;
}

}  // namespace voxen
