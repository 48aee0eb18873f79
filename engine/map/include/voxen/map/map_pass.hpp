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

// The same, with `neighbours` resident too (read by the pass's voxel lookups, not in its
// region list, so not among its threads): the regions around `regions` a pass reads across
// their faces. Name only regions the map has (the pass's lookups find no missing one, which
// reads as unobserved; made resident, it would be copied back as a new region). Throws
// Error when the regions and neighbours together outnumber the cache's slots.
MapPassBinding bindMapPass(Scheduler& scheduler, RegionCache& cache, std::span<const RegionKey> regions,
                           std::span<const LayerId> writtenLayers, std::span<const RegionKey> neighbours);

// A Pass over a binding: its uses first, then `extraUses` (the pass's own buffers).
Pass mapPass(const MapPassBinding& binding, std::string name, const Kernel& kernel, PushConstants push,
             std::vector<BufferUse> extraUses = {});

// A pass of a program's own for Mapper::runPass (voxen/mapper.hpp), which binds the map and
// dispatches it in chunks that fit the GPU cache: the pass says what it is, what it writes,
// how far it reads beyond its region, and its push constants for each chunk.
//
//   struct Neighbours : voxen::MapPass {
//     std::string name() const override { return "occupied neighbours"; }
//     std::string kernel() const override { return "custom_layer/occupied_neighbours.comp"; }
//     std::vector<voxen::LayerId> writtenLayers() const override { return {layer}; }
//     uint32_t haloVoxels() const override { return 1; }
//     voxen::PushConstants pushConstants(const voxen::gpu::MapBinding& map) override { return Push{map, ...}; }
//     voxen::LayerId layer;
//   };
//   mapper.runPass(neighbours);
//
// Threads: runPass calls these on the Mapper's mapping thread, in chunk order.
class MapPass {
 public:
  virtual ~MapPass() = default;
  // The pass's name in the scheduler's profile and in errors.
  virtual std::string name() const = 0;
  // The kernel in the Context's shader library: a shader root's "folder/file.comp" or a
  // name given to ShaderLibrary::addSpirv. One thread per voxel of a chunk's regions
  // (binding.regionCount x voxels per region), as the kernel's local size divides them.
  virtual std::string kernel() const = 0;
  // Layers the pass writes (the map gets those it lacks, zero); the others are read.
  virtual std::vector<LayerId> writtenLayers() const = 0;
  // How far beyond its own region, in voxels, a thread reads (6-neighbours: 1): the regions
  // within this distance of a chunk's regions are resident beside them. 0: its region only.
  virtual uint32_t haloVoxels() const { return 0; }
  // The push constants for one dispatch over `map` (gpu::MapBinding first, as the GLSL of
  // map/map_pass.glsl expects).
  virtual PushConstants pushConstants(const gpu::MapBinding& map) = 0;
  // The pass's own buffers with how it uses them, for the scheduler's barriers.
  virtual std::vector<BufferUse> extraUses() { return {}; }
};

// What Mapper::runPass did.
struct MapPassStats {
  uint64_t regions = 0;           // regions the pass ran over (every region of the map in memory)
  uint64_t chunks = 0;            // dispatches: groups of regions that fit the cache with their halos
  uint64_t neighbourLoads = 0;    // halo regions made resident beside a chunk, summed over chunks
  uint64_t voxels = 0;            // threads dispatched (regions x voxels per region)
};

}  // namespace voxen
