// What a MappingRun reports about where it ran: device, batches, memory.
#include <sys/resource.h>

#include <algorithm>

#include "mapping_run_parts.hpp"
#include "voxen/context.hpp"
#include "voxen/host/device.hpp"
#include "voxen/host/memory_stats.hpp"

namespace voxen {

std::string deviceNameOf(Context& context, const MapperRunOptions& run) {
  if (run.backend == MapperBackend::Gpu) return context.deviceInfo().name;
  return std::string("CPU reference (") + updateOrderName(run.integration.order) + ")";
}

uint64_t batchSizeOf(const MapperRunOptions& run) {
  if (run.backend == MapperBackend::Gpu) return run.gpu.maxRaysPerBatch;
  return std::max<uint64_t>(run.gpu.maxRaysPerBatch, 4096);
}

int peakResidentMb() {
  struct rusage usage {};
  getrusage(RUSAGE_SELF, &usage);
  return int(usage.ru_maxrss / 1024);  // Linux: kilobytes
}

MappingRunStats::DeviceMemory deviceMemoryOf(const Device& device) {
  const MemoryTotals t = device.memoryStats().totals();
  const auto mb = [](uint64_t bytes) { return double(bytes) / double(1 << 20); };
  return {mb(t.peakDeviceLocal), mb(t.peakHostVisible), t.unified};
}

}  // namespace voxen
