// Where a MappingRun maps: MappingBackend::Auto's choice between the GPU and the CPU reference,
// made from the opened input before any device is opened.
#include <string>

#include "mapping_run_parts.hpp"
#include "voxen/host/number_text.hpp"
#include "voxen/host/setting_error.hpp"
#include "voxen/input/ray_source.hpp"

namespace voxen {

const char* mappingBackendName(MappingBackend backend) {
  switch (backend) {
    case MappingBackend::Auto: return "auto";
    case MappingBackend::Gpu: return "gpu";
    case MappingBackend::CpuReference: return "cpu";
  }
  return "?";
}

std::string autoCpuObstacle(const MappingRunOptions& options, uint64_t rays) {
  const IntegrationOptions& integration = options.mapper.run.integration;
  // NDT's formulas run the device's exp, log and sqrt: its last bits are the GPU's own,
  // which the CPU reference does not reproduce.
  if (integration.ndt.mode != NdtMode::Off) return "NDT";
  // The CPU reference's clearance costs about 4 ms per region here against 0.15-0.19 ms on an
  // H100, and the regions are not known before mapping.
  if (options.clearance) return "the clearance";
  switch (integration.order) {
    case UpdateOrder::OnePass:
      // The GPU's one-pass order is whatever the hardware applied last; the CPU reference
      // applies it ray after ray (the sequential order's map).
      return "the one-pass order";
    case UpdateOrder::TwoPhase:
      // The map depends on the batches: the CPU reference's chunks (at least 4,096 rays) and
      // the GPU's batches are the same batch only when the whole input is one.
      if (rays > options.mapper.run.gpu.maxRaysPerBatch) return "the two-phase order over more than one batch";
      return "";
    case UpdateOrder::Sequential:
      // The GPU judges StopOnFirstOccupied on the map as the batch began, the CPU reference's
      // sequential order on the map as the rays before left it.
      if (integration.flags.has(RayFlag::StopOnFirstOccupied)) return "stop-on-occupied in the sequential order";
      return "";
  }
  return "";
}

namespace {

MappingBackendChoice autoChoice(const MappingRunOptions& options, const RayReader& reader) {
  MappingBackendChoice choice{.asked = MappingBackend::Auto};
  // Recordings (bags, MCAP) count bytes: their rays are known only once read.
  if (reader.totalBytes() > 0) {
    choice.reason = "the input's ray count is not known before it is read";
    return choice;
  }
  const uint64_t rays = reader.totalPoints();
  const std::string limit = "at most " + formatCount(options.autoCpuMaxRays);
  if (rays > options.autoCpuMaxRays) {
    choice.reason = formatCount(rays) + " rays, more than " + formatCount(options.autoCpuMaxRays) + " start faster on the GPU";
    return choice;
  }
  if (const std::string obstacle = autoCpuObstacle(options, rays); !obstacle.empty()) {
    choice.reason = formatCount(rays) + " rays, but with " + obstacle + " the CPU reference does not give the GPU's map bit for bit";
    return choice;
  }
  choice.cpu = true;
  choice.reason = formatCount(rays) + " rays, " + limit + " map faster on the CPU reference than the GPU starts (the same map)";
  return choice;
}

}  // namespace

MappingBackendChoice chooseMappingBackend(MappingRunOptions& options, const RayReader& reader) {
  if (options.mapper.run.backend != MapperBackend::Gpu)
    throw SettingError(SettingError::Kind::Invalid, "MapperRunOptions::backend", "the mapper's backend",
                       "{} is the run's to set: choose the CPU reference with MappingRunOptions::backend");
  MappingBackendChoice choice{.asked = options.backend, .cpu = options.backend == MappingBackend::CpuReference};
  if (options.backend == MappingBackend::Auto) choice = autoChoice(options, reader);
  options.mapper.run.backend = choice.cpu ? MapperBackend::CpuReference : MapperBackend::Gpu;
  return choice;
}

}  // namespace voxen
