#pragma once
// A compute pass of a program's own over a map's regions in the GPU region cache: it reads
// and writes the map's layers (built-in or registered by the program) through the GLSL of
// map/map_pass.glsl, the way the engine's clearance passes do. samples/custom_layer shows
// the whole path: register a layer, add it to the map, bind, dispatch, sync, save.
//
//   RegionCache cache(scheduler, map, bytes);            // after map.addLayer(myLayer)
//   const MapPassBinding binding = bindMapPass(scheduler, cache, keys, {myLayer});
//   MyPush push{binding.gpu, ...};                        // gpu::MapBinding first
//   scheduler.dispatchThreads(mapPass(binding, "my pass", *kernel, push), binding.voxels);
//   cache.syncToMap();                                    // the layer is now in `map`
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <vector>

#include "voxen/gpu/map/map_binding.h"
#include "voxen/host/scheduler.hpp"
#include "voxen/map/layer.hpp"
#include "voxen/map/map.hpp"

namespace voxen {

class Kernel;
class RegionCache;

struct MapPassBinding {
  gpu::MapBinding gpu;          // for the pass's push constants (map_binding.h)
  std::vector<BufferUse> uses;  // every buffer `gpu` reaches, for Pass::uses
  uint64_t voxels = 0;          // regions x voxels per region: the threads for one per voxel
};

// Makes `regions` resident in `cache` for the scheduler's current batch and uploads their
// list (with their slots) into the batch's scratch memory, so the binding is valid for
// passes recorded in this batch. The pass's layer pools are declared read, those of
// `writtenLayers` read and written. Throws Error when there are more regions than the cache
// holds, or when a written layer is not in the cache's map.
MapPassBinding bindMapPass(Scheduler& scheduler, RegionCache& cache, std::span<const RegionKey> regions,
                           std::initializer_list<LayerId> writtenLayers);

// A Pass over a binding: its uses first, then `extraUses` (the pass's own buffers).
Pass mapPass(const MapPassBinding& binding, std::string name, const Kernel& kernel, PushConstants push,
             std::vector<BufferUse> extraUses = {});

}  // namespace voxen
