#pragma once
// Voxen's front door: what an embedding program that links voxen::voxen includes to map
// (docs/api.md). It holds the facade and the types its signatures use, nothing more:
//
//   voxen/context.hpp      Context: the device, the shader library and the scheduler
//   voxen/mapper.hpp       Mapper: a map with its integrator, NDT, clearance, queries,
//                          save/load and rendering
//   voxen/render_map.hpp   renderMap: a map drawn to a picture
//   voxen/mapping_run.hpp  MappingRun: a recording mapped into a map file or a store
//
// Every module's headers stay installed for a program that needs more, included one by one
// as voxen/<module>/<name>.hpp:
//
//   host       the Vulkan runtime: device, buffers, shader library, scheduler, log sink
//   map        voxel keys, map layers and layouts, the sparse map, the GPU region cache,
//              map files
//   input      recordings (PLY, PCD, KITTI, ROS bags, MCAP) as point and ray sources, trajectories
//   export     pictures and exports: PNG, PLY, OctoMap files, NDT ellipsoids, layer slices
//   store      region stores (SQLite, PostgreSQL), merging maps, mapping into a store
//   occupancy  occupancy integration on the GPU and its CPU reference, plain and NDT-OM/TM
//   clearance  each voxel's distance to the nearest obstacle within a range (a map layer)
//   query      batched occupancy, ray-cast, clearance and box queries on the GPU, with CPU twins
//   transform  a transform tree: world matrices level by level on the CPU and the GPU
//   painter    the voxel painter (brush, marching cubes, software rasterizer)
//   primitives GPU building blocks: stable radix sorts, an exclusive scan, stream compaction
//   selftest   a GPU self-test of a device
//
// Names are in namespace voxen; structs shared with the shaders are in voxen::gpu
// (voxen/gpu/...); voxen::detail is private to the library. tests/lint/umbrella_header.sh
// checks that this header holds the facade and installed headers only, and
// tests/lint/installed_headers_standalone.sh that every installed header compiles alone.

// The headers use C++20 (designated initializers, std::span, concepts). voxen::voxen asks
// CMake for it (target_compile_features PUBLIC cxx_std_20), but a program built another way,
// or one whose own flags pick an older standard after it, would otherwise meet pages of
// errors deep inside a header; this names the fix instead. MSVC keeps __cplusplus at 199711L
// unless /Zc:__cplusplus is given, so its _MSVC_LANG is the one to read there.
#if defined(_MSVC_LANG) && !defined(__clang__)
#define VOXEN_CPLUSPLUS _MSVC_LANG
#else
#define VOXEN_CPLUSPLUS __cplusplus
#endif
#if VOXEN_CPLUSPLUS < 202002L
#error "Voxen needs C++20: set CMAKE_CXX_STANDARD 20 (or target_compile_features(... cxx_std_20), or -std=c++20)"
#endif
#undef VOXEN_CPLUSPLUS

// The facade.
#include "voxen/context.hpp"
#include "voxen/map_snapshot.hpp"
#include "voxen/mapper.hpp"
#include "voxen/mapping_run.hpp"
#include "voxen/render_map.hpp"

// The types the facade's signatures use (most of them come with it; named here so that a
// program sees what it may rely on).
#include "voxen/clearance/clearance.hpp"       // ClearanceOptions, ClearanceStats
#include "voxen/host/device.hpp"               // Device, DeviceInfo (Context::device(), deviceInfo())
#include "voxen/host/error.hpp"                // Error, VulkanError
#include "voxen/host/setting_error.hpp"        // SettingError, FeatureError
#include "voxen/input/ray_source.hpp"          // RayReader, RayReaderOptions (Mapper::integrateFile)
#include "voxen/input/trajectory.hpp"          // Trajectory (Mapper::integrateCloud)
#include "voxen/map/map.hpp"                   // OccupancyMap, OccupancyModel, VoxelCoord
#include "voxen/map/map_file.hpp"              // MapSaveOptions
#include "voxen/occupancy/host_stage_times.hpp"
#include "voxen/occupancy/integration_options.hpp"
#include "voxen/occupancy/integration_stats.hpp"
#include "voxen/query/query_types.hpp"         // the batched queries' items and answers
#include "voxen/store/store_mapping.hpp"       // StoreMappingOptions (MappingRunOptions)
