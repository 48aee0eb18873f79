#pragma once
// Voxen's public API in one header: what an embedding program that links voxen::voxen
// includes. Each module's headers can also be included on their own (voxen/<module>/...).
//
//   host       the Vulkan runtime: device, buffers, shader library, scheduler, log sink
//   map        voxel keys, map layers and layouts, the sparse map, the GPU region cache,
//              map files
//   io         sensor input (PLY clouds, trajectories, ray sources), OctoMap files, exports
//   occupancy  occupancy integration on the GPU and its CPU reference, plain and NDT-OM/TM
//   clearance  each voxel's distance to the nearest obstacle within a range (a map layer)
//   query      batched occupancy, ray-cast, clearance and box queries on the GPU, with CPU twins
//   transform  a transform tree: world matrices level by level on the CPU and the GPU
//   painter    the voxel painter (brush, marching cubes, software rasterizer) and map
//              rendering; the rasterizer also draws other passes' triangles, such as
//              instanced boxes
//   primitives GPU building blocks: stable radix sorts, an exclusive scan, stream compaction
//   selftest   a GPU self-test of a device
//
//   api        the front door: a Context (device, shader library, scheduler) and a Mapper
//              (map, integrators, clearance, save/load, rendering); docs/api.md
//
// Names are in namespace voxen; structs shared with the shaders are in voxen::gpu
// (voxen/gpu/...); voxen::detail is private to the library.

#include "voxen/context.hpp"
#include "voxen/mapper.hpp"
#include "voxen/render_map.hpp"

#include "voxen/host/allocation.hpp"
#include "voxen/host/buffer.hpp"
#include "voxen/host/device.hpp"
#include "voxen/host/device_requirements.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/flags.hpp"
#include "voxen/host/log.hpp"
#include "voxen/host/memory_stats.hpp"
#include "voxen/host/number_text.hpp"
#include "voxen/host/profile.hpp"
#include "voxen/host/recorded_command.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/host/setting_error.hpp"
#include "voxen/host/shader_library.hpp"
#include "voxen/host/shader_types.hpp"
#include "voxen/host/streamed_input.hpp"
#include "voxen/host/thread_cpu_clock.hpp"

#include "voxen/atomic_file/output_file.hpp"
#include "voxen/atomic_file/output_paths.hpp"

#include "voxen/map/decimal_voxel.hpp"
#include "voxen/map/layer.hpp"
#include "voxen/map/layer_domain.hpp"
#include "voxen/map/layer_merge.hpp"
#include "voxen/map/map.hpp"
#include "voxen/map/map_comparison.hpp"
#include "voxen/map/map_file.hpp"
#include "voxen/map/map_overlap.hpp"
#include "voxen/map/map_pass.hpp"
#include "voxen/map/memory_budget.hpp"
#include "voxen/map/ray.hpp"
#include "voxen/map/region_cache.hpp"

#include "voxen/export/clearance_export.hpp"
#include "voxen/export/export_box.hpp"
#include "voxen/input/input_format.hpp"
#include "voxen/input/kitti.hpp"
#include "voxen/export/layer_export.hpp"
#include "voxen/export/map_export.hpp"
#include "voxen/export/ndt_ellipsoids.hpp"
#include "voxen/export/octomap_io.hpp"
#include "voxen/input/pcd.hpp"
#include "voxen/input/ply.hpp"
#include "voxen/export/png_writer.hpp"
#include "voxen/input/ray_source.hpp"
#include "voxen/input/recording_info.hpp"
#include "voxen/input/trajectory.hpp"

#include "voxen/store/input_fingerprint.hpp"
#include "voxen/store/map_merge.hpp"
#include "voxen/store/map_store.hpp"
#include "voxen/store/pg_store.hpp"
#include "voxen/store/region_store.hpp"
#include "voxen/store/store_file.hpp"
#include "voxen/store/store_mapping.hpp"
#include "voxen/store/store_name.hpp"
#include "voxen/store/store_types.hpp"
#include "voxen/store/writer_process.hpp"

#include "voxen/clearance/clearance.hpp"
#include "voxen/clearance/gpu_clearance.hpp"
#include "voxen/query/cpu_queries.hpp"
#include "voxen/query/gpu_queries.hpp"
#include "voxen/query/query_types.hpp"
#include "voxen/transform/gpu_transform_tree.hpp"
#include "voxen/transform/transform_tree.hpp"
#include "voxen/occupancy/cpu_integrator.hpp"
#include "voxen/occupancy/gpu_integrator.hpp"
#include "voxen/occupancy/host_stage_times.hpp"
#include "voxen/occupancy/integration_options.hpp"
#include "voxen/occupancy/integration_stats.hpp"
#include "voxen/occupancy/ndt.hpp"
#include "voxen/occupancy/ndt_comparison.hpp"
#include "voxen/occupancy/one_pass_tolerance.hpp"
#include "voxen/occupancy/ndt_integrators.hpp"
#include "voxen/occupancy/prepared_ray_stream.hpp"
#include "voxen/occupancy/prepared_rays.hpp"

#include "voxen/clearance/clearance.hpp"
#include "voxen/clearance/clearance_comparison.hpp"
#include "voxen/clearance/floor_check.hpp"
#include "voxen/clearance/gpu_clearance.hpp"

#include "voxen/transform/gpu_culling.hpp"
#include "voxen/transform/gpu_transform_tree.hpp"
#include "voxen/transform/transform_tree.hpp"

#include "voxen/painter/box_instances.hpp"
#include "voxen/painter/camera.hpp"
#include "voxen/painter/cpu_mesher.hpp"
#include "voxen/painter/map_grid.hpp"
#include "voxen/painter/painter.hpp"
#include "voxen/painter/triangle_rasterizer.hpp"
#include "voxen/painter/view_framing.hpp"

#include "voxen/primitives/exclusive_scan.hpp"
#include "voxen/primitives/radix_sort.hpp"
#include "voxen/primitives/stream_compaction.hpp"

#include "voxen/selftest/self_test.hpp"
