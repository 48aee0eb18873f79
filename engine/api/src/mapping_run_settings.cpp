// What a store's mapping run records of its settings and inputs, so that a resumed run can be
// checked against the run it continues (voxen/store/store_mapping.hpp).
#include <system_error>

#include "mapping_run_parts.hpp"
#include "voxen/host/number_text.hpp"
#include "voxen/input/pcd.hpp"
#include "voxen/occupancy/ndt.hpp"
#include "voxen/store/input_fingerprint.hpp"

namespace voxen {

RunSettings inputFingerprints(const MappingRunOptions& options, const std::function<void(const MappingProgress&)>& progress) {
  RunSettings prints;
  const std::filesystem::path trajectory = options.trajectory.value_or(std::filesystem::path());
  for (const auto& [name, path] : {std::pair<std::string, std::filesystem::path>{options.inputSettingName, options.input},
                                   {options.trajectorySettingName, trajectory}}) {
    std::error_code ec;
    if (path.empty() || !std::filesystem::exists(path, ec)) continue;
    const uint64_t total = fingerprintBytes(path);
    MappingProgress report{.stage = MappingProgress::Stage::Fingerprint, .setting = name, .total = total, .unit = "bytes"};
    progress(report);
    prints.emplace_back(name + " (content)", inputFingerprint(path, [&](uint64_t read) {
                          report.done = read;
                          progress(report);
                        }));
    report.done = total, report.finished = true;
    progress(report);
  }
  return prints;
}

RunSettings mappingRunSettings(const MappingRunOptions& o) {
  const auto number = [](double v) { return formatNumber(v); };
  const auto absolute = [](const std::filesystem::path& path) {
    std::error_code ec;
    return path.empty() ? std::string() : std::filesystem::absolute(path, ec).string();
  };
  const OccupancyModel& model = o.mapper.model;
  const RayReaderOptions& r = o.reader;
  const IntegrationOptions& integration = o.mapper.run.integration;
  std::string box, origin;
  if (r.exclusion.box)
    for (const glm::dvec3& corner : *r.exclusion.box)
      for (int a = 0; a < 3; ++a) box += (box.empty() ? "" : " ") + number(corner[a]);
  if (r.origin)
    for (int a = 0; a < 3; ++a) origin += (origin.empty() ? "" : " ") + number((*r.origin)[a]);
  RunSettings s = {{"input", absolute(o.input)},
                   {"trajectory", absolute(o.trajectory.value_or(std::filesystem::path()))},
                   {"recording.cloudTopic", r.recording.cloudTopic},
                   {"recording.fixedFrame", r.recording.fixedFrame},
                   {"recording.sensorFrame", r.recording.sensorFrame},
                   {"recording.start", number(r.recording.start)},
                   {"recording.duration", r.recording.duration ? number(*r.recording.duration) : ""},
                   {"recording.deskew", r.recording.deskew ? "yes" : "no"},
                   {"pcdViewpoint", r.pcdViewpoint ? pcdViewpointName(*r.pcdViewpoint) : ""},
                   {"resolution", number(model.resolution)},
                   {"regionSize", std::to_string(model.regionSize)},
                   {"hitProbability", number(model.hitProbability)},
                   {"missProbability", number(model.missProbability)},
                   {"occupancyThreshold", number(model.occupancyThreshold)},
                   {"clamp", number(model.clampMin) + " " + number(model.clampMax)},
                   {"layers", ndtLayout(integration.ndt.mode, MapLayout::of(o.mapper.extraLayers)).names()},
                   {"ray flags", std::to_string(uint32_t(integration.flags.bits()))},
                   {"maxRange", number(integration.maxRange)},
                   {"exclusion.minRange", number(r.exclusion.minRange)},
                   {"exclusion.box", box},
                   {"origin", origin},
                   {"order", updateOrderName(integration.order)},
                   {"ndt", integration.ndt.mode == NdtMode::Off ? "off" : ndtRecordedSettings(integration.ndt)},
                   {"backend", o.backend == MappingBackend::CpuReference ? "cpu" : "gpu"}};
  // The two-phase order's map depends on the batches; the sequential order's does not.
  if (integration.order != UpdateOrder::Sequential) s.emplace_back("batchSize", std::to_string(o.mapper.run.gpu.maxRaysPerBatch));
  return s;
}

}  // namespace voxen
