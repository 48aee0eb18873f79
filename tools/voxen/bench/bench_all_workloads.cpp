// The table of `voxen bench all`'s workloads (bench_all_workloads.hpp). Sizes start where
// lavapipe on two cores takes a second or a few, and end at the caps (16 M rays,
// 16 M nodes, clearance on maps of hundreds of regions, the painter at 3840x2160); bench all
// goes as far as the budget allows on the device at hand.
#include "bench/bench_all_workloads.hpp"

#include <cmath>
#include <cstdio>
#include <utility>

#include "report/text_format.hpp"

namespace voxen::cli {

double Figure::speedUp() const {
  if (!(gpu > 0) || !(cpu > 0)) return kNoValue;
  return lowerIsBetter ? cpu / gpu : gpu / cpu;
}

double jsonNumber(const Json& object, const char* key) {
  if (!object.is_object()) return kNoValue;
  const auto it = object.find(key);
  return it != object.end() && it->is_number() ? it->get<double>() : kNoValue;
}

namespace {

double millions(double value) { return value / 1e6; }

// Rays from 65,536 up to `maxRays`, four times as many each step; medians of three runs up
// to `repeatThreeUpTo` rays, one run above (a run of millions of rays is long and steady,
// and the CPU reference's single thread would take most of the budget three times over).
std::vector<WorkloadSize> raySizes(uint64_t maxRays, uint64_t repeatThreeUpTo) {
  std::vector<WorkloadSize> sizes;
  for (uint64_t rays = 65536; rays <= maxRays; rays *= 4) {
    const bool three = rays <= repeatThreeUpTo;
    sizes.push_back({withCommas(rays) + " rays" + (three ? " (median of 3)" : ""),
                     {"--rays", std::to_string(rays), "--repeat", three ? "3" : "1"},
                     double(rays)});
  }
  return sizes;
}

// bench map's summary: a figure per resolution, in rays per second.
std::vector<Figure> mapFigures(const Json& summary, const std::string& prefix) {
  std::vector<Figure> figures;
  if (!summary.contains("runs")) return figures;
  for (const Json& run : summary["runs"]) {
    char what[64];
    std::snprintf(what, sizeof what, "%s%g m", prefix.c_str(), jsonNumber(run, "resolution"));
    figures.push_back({what, "Mrays/s", millions(jsonNumber(run, "gpu_rays_per_s")), millions(jsonNumber(run, "cpu_rays_per_s"))});
  }
  return figures;
}

Workload mapOrder(const std::string& order) {
  return {"occupancy map",
          order + " order",
          {"bench", "map", "--update-order", order},
          raySizes(1u << 24, 1u << 18),
          [order](const Json& summary) { return mapFigures(summary, order + ", "); }};
}

// A layer's cost: the sequential map with the layer, at the sequential map's size at most.
Workload mapLayer(const std::string& layer) {
  Workload w{"map layers",
             "+ " + layer,
             {"bench", "map", "--update-order", "sequential", "--resolution", "0.1", "--layer", layer},
             raySizes(1u << 24, 1u << 18),
             [layer](const Json& summary) { return mapFigures(summary, "+ " + layer + ", "); }};
  w.grownNoFurtherThan = "occupancy map / sequential order";
  return w;
}

Workload coreWorkload() {
  Workload core{"engine core", "core", {"bench", "core"}, {}, [](const Json& s) {
                  return std::vector<Figure>{
                      {"upload through staging ring", "GB/s", jsonNumber(s, "upload_gb_per_s"), jsonNumber(s, "memcpy_gb_per_s")},
                      {"readback through staging ring", "GB/s", jsonNumber(s, "readback_gb_per_s"),
                       jsonNumber(s, "memcpy_gb_per_s")},
                      {"saxpy (uint -> float)", "Melem/s", jsonNumber(s, "gpu_saxpy_melem_per_s"),
                       jsonNumber(s, "cpu_saxpy_melem_per_s")},
                      {"dependent tiny dispatch", "us each", jsonNumber(s, "dispatch_us"), kNoValue, true},
                      {"first dispatch (library to result)", "ms", jsonNumber(s, "first_dispatch_ms"), kNoValue, true},
                      {"hot reload (edit to new result)", "ms", jsonNumber(s, "hot_reload_ms"), kNoValue, true}};
                }};
  for (uint32_t mb : {16u, 64u, 256u, 1024u})
    core.sizes.push_back({std::to_string(mb) + " MiB buffers", {"--mb", std::to_string(mb)}, double(mb)});
  return core;
}

// Occupancy per lidar frame: more frames give steadier medians.
Workload framesWorkload() {
  Workload frames{"lidar frames", "one 64 x 1024 scan", {"bench", "frames"}, {}, [](const Json& s) {
                    std::vector<Figure> figures;
                    if (!s.contains("runs")) return figures;
                    for (const Json& run : s["runs"]) {
                      char what[32];
                      std::snprintf(what, sizeof what, "%g m", jsonNumber(run, "resolution"));
                      figures.push_back({what, "ms/frame", jsonNumber(run, "gpu_ms_per_frame"),
                                         jsonNumber(run, "cpu_ms_per_frame"), true});
                    }
                    return figures;
                  }};
  for (int n : {4, 8, 16, 32, 64, 128})
    frames.sizes.push_back({std::to_string(n) + " frames of 65,536 rays", {"--frames", std::to_string(n)}, double(n)});
  frames.lidarFrames = true;
  return frames;
}

Workload ndtWorkload() {
  Workload ndt{"NDT", "NDT-OM and NDT-TM", {"bench", "ndt"}, {}, [](const Json& s) {
                 auto rate = [&](const std::string& name) {
                   if (s.contains("variants"))
                     for (const Json& v : s["variants"])
                       if (v.value("name", "") == name) return millions(jsonNumber(v, "rays_per_s"));
                   return kNoValue;
                 };
                 char res[32];
                 std::snprintf(res, sizeof res, ", %g m", jsonNumber(s, "resolution"));
                 return std::vector<Figure>{{std::string("NDT-OM") + res, "Mrays/s", rate("GPU NDT-OM"), rate("CPU NDT-OM")},
                                            {std::string("NDT-TM") + res, "Mrays/s", rate("GPU NDT-TM"), rate("CPU NDT-TM")}};
               }};
  for (WorkloadSize size : raySizes(1u << 24, 0)) ndt.sizes.push_back(size);
  return ndt;
}

// The generated scene gives 16 regions at 0.25 m whatever the run's length: larger maps
// are that map tiled side by side (--tiles).
Workload clearanceWorkload() {
  Workload clearance{"clearance", "range 5 m", {"bench", "clearance", "--range", "5", "--repeat", "1"}, {},
                     [](const Json& s) {
                       std::vector<Figure> figures;
                       if (!s.contains("rows")) return figures;
                       for (const Json& row : s["rows"]) {
                         char what[64];
                         std::snprintf(what, sizeof what, "%s, %g m", row.value("technique", "?").c_str(), jsonNumber(row, "range"));
                         figures.push_back({what, "ms/region", jsonNumber(row, "ms_per_region"),
                                            jsonNumber(row, "cpu_ms_per_region"), true});
                       }
                       return figures;
                     }};
  for (int tiles : {1, 2, 3, 4, 6, 8})
    clearance.sizes.push_back({std::to_string(tiles) + " x " + std::to_string(tiles) + " tiles",
                               {"--tiles", std::to_string(tiles)}, double(tiles * tiles)});
  clearance.sizeReported = [](const Json& s) {
    const double regions = jsonNumber(s, "regions"), tiles = jsonNumber(s, "tiles");
    if (std::isnan(regions)) return std::string();
    return withCommas(uint64_t(regions)) + " regions" +
           (tiles > 1 ? " (" + std::to_string(int(tiles)) + " x " + std::to_string(int(tiles)) + " tiles)" : "");
  };
  return clearance;
}

// Queries on a map from one generated scan (its regions fit any cache): items per second
// for each kind, the CPU reference beside.
Workload queryWorkload() {
  Workload query{"queries", "points and 5 m rays", {"bench", "query", "--scans", "1", "--repeat", "1"}, {},
                 [](const Json& s) {
                   std::vector<Figure> figures;
                   if (!s.contains("rows")) return figures;
                   for (const Json& row : s["rows"])
                     figures.push_back({row.value("kind", "?"), "Mqueries/s", millions(jsonNumber(row, "gpu_per_s")),
                                        millions(jsonNumber(row, "cpu_per_s"))});
                   return figures;
                 }};
  for (uint64_t items = 65536; items <= (1u << 22); items *= 4)
    query.sizes.push_back({withCommas(items) + " points and rays",
                           {"--points", std::to_string(items), "--rays", std::to_string(items)}, double(items)});
  return query;
}

// A mapping thread and a query thread on one Mapper (snapshots): each rate alone and shared,
// and the fractions' sum (issue 38's goal: each shared rate at least 0.8 of its own alone on
// a real GPU).
Workload concurrencyWorkload() {
  Workload concurrency{"concurrency", "mapping beside snapshot queries", {"bench", "concurrency", "--repeat", "1"}, {},
                       [](const Json& s) {
                         return std::vector<Figure>{
                             {"mapping alone", "Mrays/s", millions(jsonNumber(s, "map_rays_per_s_alone")), kNoValue},
                             {"mapping while queried", "Mrays/s", millions(jsonNumber(s, "map_rays_per_s_shared")), kNoValue},
                             {"queries alone", "Mpoints/s", millions(jsonNumber(s, "query_points_per_s_alone")), kNoValue},
                             {"queries while mapping", "Mpoints/s", millions(jsonNumber(s, "query_points_per_s_shared")),
                              kNoValue},
                             {"shared fractions' sum", "x alone", jsonNumber(s, "fraction_sum"), kNoValue}};
                       }};
  for (int scans : {10, 40, 160})
    concurrency.sizes.push_back({std::to_string(scans) + " scans of 65,536 rays", {"--scans", std::to_string(scans)},
                                 double(scans)});
  return concurrency;
}

// A planner's frame loop (voxen bench loop): each scan integrated, the clearance at 2 m
// brought up to date and 100,000 clearance queries, medians per frame beside the scan alone
// (issue 38's goal: the whole loop at most 2 ms per scan on a real GPU).
Workload loopWorkload() {
  Workload loop{"frame loop", "scan, clearance at 2 m, 100,000 queries", {"bench", "loop"}, {}, [](const Json& s) {
                  std::vector<Figure> figures;
                  if (!s.contains("median_ms")) return figures;
                  const Json& ms = s["median_ms"];
                  const double scan = jsonNumber(ms, "scan"), after = jsonNumber(ms, "sync_clearance_queries");
                  figures.push_back({"scan alone", "ms/frame", jsonNumber(ms, "scan_alone"), kNoValue, true});
                  figures.push_back({"clearance + queries (+ map back)", "ms/frame", after, kNoValue, true});
                  figures.push_back({"whole loop", "ms/frame", scan + after, kNoValue, true});
                  return figures;
                }};
  // The first frames recompute every region while the map grows: the larger size is the one
  // to quote; the smaller keeps a small budget's run short.
  for (int frames : {5, 20})
    loop.sizes.push_back({std::to_string(frames) + " frames of 65,536 rays", {"--frames", std::to_string(frames)},
                          double(frames)});
  return loop;
}

Workload transformWorkload() {
  Workload transform{"transform tree", "depth 8", {"bench", "transform", "--depth", "8", "--dirty", "1", "0.01", "--repeat", "3"}, {},
                     [](const Json& s) {
                       std::vector<Figure> figures;
                       if (!s.is_array()) return figures;
                       for (const Json& r : s) {
                         const double dirty = jsonNumber(r, "dirty_fraction");
                         char what[64];
                         std::snprintf(what, sizeof what, "depth %g, %g%% changed (%s)", jsonNumber(r, "depth"), dirty * 100.0,
                                       r.value("gpu_update", "?").c_str());
                         figures.push_back({what, "Mtransforms/s", millions(jsonNumber(r, "gpu_transforms_per_s")),
                                            millions(jsonNumber(r, "cpu_transforms_per_s"))});
                       }
                       return figures;
                     }};
  for (uint64_t nodes = 65536; nodes <= (1u << 24); nodes *= 4)
    transform.sizes.push_back({withCommas(nodes) + " nodes", {"--nodes", std::to_string(nodes)}, double(nodes)});
  return transform;
}

// Robot recordings to rays on the host (no GPU work): each container's ns per point beside
// the binary PLY + trajectory path measured in the same run (in the reference column).
Workload inputWorkload() {
  Workload input{"recordings to rays", "one reader thread", {"bench", "input", "--repeat", "3"}, {},
                 [](const Json& s) {
                   std::vector<Figure> figures;
                   if (!s.is_array() || s.empty()) return figures;
                   const double ply = jsonNumber(s[0], "ns_per_point");
                   for (size_t i = 1; i < s.size(); ++i)
                     figures.push_back({s[i].value("input", "?") + " (reference: binary PLY)", "ns/point",
                                        jsonNumber(s[i], "ns_per_point"), ply, true});
                   return figures;
                 }};
  input.hostOnly = true;
  for (int scans : {4, 16, 64, 160})
    input.sizes.push_back({std::to_string(scans) + " scans of 64 x 1024", {"--scans", std::to_string(scans)},
                           double(scans)});
  return input;
}

// The painter at each resolution: the frame, the software rasterizer beside the CPU's and the
// graphics pipeline's.
Workload paintWorkload() {
  Workload paint{"voxel painter", "128^3 grid, a stroke a frame", {"bench", "paint"}, {}, [](const Json& s) {
                   const Json run = s.contains("runs") && !s["runs"].empty() ? s["runs"][0] : Json::object();
                   return std::vector<Figure>{
                       {"frame (all phases)", "ms/frame", jsonNumber(run, "frame_ms"), kNoValue, true},
                       {"software rasterizer", "Mtriangles/s", millions(jsonNumber(run, "sw_triangles_per_s")),
                        millions(jsonNumber(run, "cpu_raster_triangles_per_s"))},
                       {"graphics pipeline rasterizer", "Mtriangles/s", millions(jsonNumber(run, "hw_triangles_per_s")),
                        kNoValue}};
                 }};
  for (const auto& [w, h] : {std::pair{640, 480}, std::pair{1920, 1080}, std::pair{3840, 2160}})
    paint.sizes.push_back({std::to_string(w) + "x" + std::to_string(h), {"--width", std::to_string(w), "--height", std::to_string(h)},
                           double(w) * h});
  paint.reportEverySize = true;
  return paint;
}

// The TSDF of the building's 640 x 480 depth frames (issue 40): integration per frame and the
// final map's mesh, each resolution's GPU beside the CPU reference, in ms (lower is better).
// Small sizes first: two frames at 5 cm take a second or two on lavapipe; the figure
// is 2 cm and 5 cm.
Workload tsdfWorkload() {
  Workload tsdf{"TSDF", "building, 640 x 480 depth frames", {"bench", "tsdf"}, {}, [](const Json& s) {
                  std::vector<Figure> figures;
                  if (!s.contains("runs")) return figures;
                  for (const Json& run : s["runs"]) {
                    char what[64];
                    std::snprintf(what, sizeof what, "integrate a frame, %g m", jsonNumber(run, "resolution"));
                    figures.push_back({what, "ms/frame", jsonNumber(run, "gpu_ms_per_frame"), jsonNumber(run, "cpu_ms_per_frame"), true});
                    const Json mesh = run.contains("mesh") ? run["mesh"] : Json::object();
                    std::snprintf(what, sizeof what, "mesh the map, %g m", jsonNumber(run, "resolution"));
                    figures.push_back({what, "ms", jsonNumber(mesh, "gpu_ms"), jsonNumber(mesh, "cpu_ms"), true});
                  }
                  return figures;
                }};
  tsdf.sizes = {{"2 frames at 5 cm", {"--frames", "2", "--resolution", "0.05"}, 2.0},
                {"10 frames at 5 cm", {"--frames", "10", "--resolution", "0.05"}, 10.0},
                {"30 frames at 2 and 5 cm", {"--frames", "30", "--resolution", "0.02", "0.05"}, 30.0 * 4.0}};
  return tsdf;
}

}  // namespace

// The heightmap of a synthetic terrain (issue 39's real-GPU figure: 100 x 100 m at 0.1 m in at
// most 2 ms), the GPU's whole call beside the CPU reference, in ms (lower is better).
Workload heightmapWorkload() {
  Workload heightmap{"heightmap", "synthetic terrain at 0.1 m", {"bench", "heightmap", "--repeat", "3"}, {},
                     [](const Json& s) {
                       std::vector<Figure> figures;
                       if (!s.is_array() || s.empty()) return figures;
                       const Json& r = s.back();
                       figures.push_back({"whole call (robot 0.8 m, 4 levels)", "ms", jsonNumber(r, "gpu_ms"),
                                          jsonNumber(r, "cpu_ms"), true});
                       figures.push_back({"passes alone", "ms", jsonNumber(r, "gpu_pass_ms"), kNoValue, true});
                       return figures;
                     }};
  for (int metres : {20, 50, 100})
    heightmap.sizes.push_back({std::to_string(metres) + " x " + std::to_string(metres) + " m", {"--size", std::to_string(metres)},
                               double(metres) * metres});
  return heightmap;
}

std::vector<Workload> benchAllWorkloads() {
  std::vector<Workload> workloads{coreWorkload(), mapOrder("sequential"), mapOrder("two-phase")};
  for (const char* layer : {"voxel_mean", "traversal", "hit_miss", "touch_time"}) workloads.push_back(mapLayer(layer));
  for (Workload (*workload)() : {&framesWorkload, &ndtWorkload, &clearanceWorkload, &queryWorkload, &concurrencyWorkload, &loopWorkload,
                                 &transformWorkload, &heightmapWorkload, &tsdfWorkload,
                                 &inputWorkload})
    workloads.push_back(workload());
  // Last: the painter also draws with the graphics pipeline (lavapipe's timestamps after a
  // draw read near zero; each workload is a process of its own, but keep it last all the same).
  workloads.push_back(paintWorkload());
  return workloads;
}

}  // namespace voxen::cli
