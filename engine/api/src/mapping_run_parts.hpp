#pragma once
// The pieces of a MappingRun that are not its order of work: the inputs' fingerprints, what
// the run says about its device and batches, and the process's memory.
#include <cstdint>
#include <functional>
#include <string>

#include "voxen/mapping_run.hpp"

namespace voxen {

class Device;

// The content fingerprint of each input (voxen/store/input_fingerprint.hpp), as "NAME
// (content)" settings: a resumed run refuses an input that changed since the run started.
// Each is read whole once, reported through `progress`. An input that is not there is left
// to the reader, which names it.
RunSettings inputFingerprints(const MappingRunOptions& options, const std::function<void(const MappingProgress&)>& progress);

// MappingRunOptions::backend settled for the opened input: options.mapper.run.backend set to
// the backend the run uses, and why. Throws SettingError when the caller set that field.
MappingBackendChoice chooseMappingBackend(MappingRunOptions& options, const RayReader& reader);
// Why the CPU reference would not give the GPU's map bit for bit for these settings and
// `rays` rays (empty: it would).
std::string autoCpuObstacle(const MappingRunOptions& options, uint64_t rays);

// The GPU's name, or "CPU reference (ORDER)".
std::string deviceNameOf(Context& context, const MapperRunOptions& run);
// The rays integrated together: the GPU cuts its input into batches of gpu.maxRaysPerBatch,
// the CPU reference takes each chunk read (at least 4,096 rays) as one batch. In the
// sequential order the map does not depend on it; in the two-phase order it does.
uint64_t batchSizeOf(const MapperRunOptions& run);
// The process's peak resident memory (MB).
int peakResidentMb();
// The most device memory Voxen held at once, by the memory types its buffers came from: on a
// discrete GPU the pools are device-local and only the staging is host-visible; on unified
// memory (lavapipe, integrated GPUs) every buffer is both, and `unified` says so.
MappingRunStats::DeviceMemory deviceMemoryOf(const Device& device);

}  // namespace voxen
