// The collision and distance queries on the GPU (collision_types.hpp): the host prepares
// each item once (collision_prep.hpp, shared with the CPU twins), the passes test voxels
// chunk by chunk of the query's region cache (GpuQueries::mapAccess), and the host finishes
// the answers from the flags and float bits read back, as the CPU twins do.
#include <algorithm>
#include <bit>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include <glm/geometric.hpp>
#include <glm/vec2.hpp>

#include "voxen/host/shader_library.hpp"
#include "voxen/query/collision_prep.hpp"
#include "voxen/query/gpu_queries.hpp"
#include "voxen/query/query_map_access.hpp"

namespace voxen {

namespace {

// Items (points, poses) per round trip, and path pieces per round at most (a round holds
// whole paths, at least one).
constexpr size_t kProbesPerRound = size_t(1) << 20;
constexpr size_t kPiecesPerRound = size_t(1) << 21;

BufferRange scratch(Device& device, std::optional<Buffer>& buffer, const char* name, uint64_t bytes) {
  bytes = std::max<uint64_t>(bytes, 16);
  if (!buffer || buffer->size() < bytes)
    buffer.emplace(device, name, std::max<uint64_t>(bytes, buffer ? buffer->size() * 2 : 0));
  return buffer->range(0, bytes);
}

std::vector<BufferUse> withUses(std::vector<BufferUse> uses, std::initializer_list<BufferUse> more) {
  uses.insert(uses.end(), more.begin(), more.end());
  return uses;
}

}  // namespace

struct GpuCollisionState {
  std::shared_ptr<Kernel> probeKernel, pathKernel, nearestKernel;
  std::optional<Buffer> probes, flags, segments, pieces, starts, best, first;
  std::vector<gpu::CollisionProbe> probesUp;
  std::optional<Buffer> summary;
  // The nearest search's offset table (collision_shared.h NearestPush) for one range.
  std::optional<Buffer> nearestOffsets;
  uint32_t nearestOffsetCount = 0;
  float nearestRange2 = -1.0f;
};

GpuCollisionState& GpuQueries::collision() {
  if (!collision_) {
    ShaderLibrary& library = mapAccess().scheduler.library();
    auto state = std::make_shared<GpuCollisionState>();
    state->probeKernel = library.kernel("query/query_collision_probe.comp");
    state->pathKernel = library.kernel("query/query_collision_path.comp");
    state->nearestKernel = library.kernel("query/query_nearest.comp");
    collision_ = std::move(state);
  }
  return *collision_;
}

namespace {

// Spheres or boxes: st.probesUp's `count` probes tested, their flags read back.
std::vector<uint32_t> runProbes(QueryMapAccess& access, GpuCollisionState& st, uint32_t count, bool box,
                                const SphereParams& sphere) {
  Scheduler& scheduler = access.scheduler;
  Device& device = scheduler.device();
  const BufferRange probes = scratch(device, st.probes, "collision probes", uint64_t(count) * sizeof(gpu::CollisionProbe));
  const BufferRange flags = scratch(device, st.flags, "collision flags", uint64_t(count) * 4);
  scheduler.upload(probes, st.probesUp.data(), uint64_t(count) * sizeof(gpu::CollisionProbe));
  scheduler.fill(flags, 0u);
  access.forEachChunk(kOccupancyLayer, [&](const QueryMapPass& pass) {
    gpu::CollisionProbePush push{};
    push.map = pass.push;
    push.probes = probes.address;
    push.flags = flags.address;
    push.count = count;
    push.box = box ? 1u : 0u;
    push.radius2 = sphere.radius2;
    push.reach = sphere.reach;
    push.threshold = access.map.model().thresholdValue();
    scheduler.dispatchThreads({box ? "collision boxes" : "collision spheres", st.probeKernel.get(), {}, push,
                               withUses(pass.uses, {reads(probes), readsWrites(flags)})},
                              count);
  });
  std::vector<uint32_t> out = scheduler.readback<uint32_t>(flags).get();
  out.resize(count);
  return out;
}

// Region summaries for the path pass (collision_shared.h), from the map's regions in
// memory: their range, or none (no skipping) for a paged map, whose regions not in memory
// the summary could not describe, or a grid of regions too large.
std::optional<BufferRange> pathSummaries(Scheduler& scheduler, GpuCollisionState& st, const OccupancyMap& map) {
  if (map.regionSource() || map.regions().empty()) return std::nullopt;
  RegionKey lo = map.regions().begin()->first, hi = lo;
  for (const auto& [key, region] : map.regions()) {
    lo = {std::min(lo.x, key.x), std::min(lo.y, key.y), std::min(lo.z, key.z)};
    hi = {std::max(hi.x, key.x), std::max(hi.y, key.y), std::max(hi.z, key.z)};
  }
  const int64_t dx = int64_t(hi.x) - lo.x + 1, dy = int64_t(hi.y) - lo.y + 1, dz = int64_t(hi.z) - lo.z + 1;
  if (dx * dy * dz > int64_t(gpu::kQueryMaxGridCells)) return std::nullopt;
  std::vector<uint32_t> words(gpu::kSummaryHeaderWords + size_t(dx * dy * dz), 0u);
  words[0] = uint32_t(lo.x), words[1] = uint32_t(lo.y), words[2] = uint32_t(lo.z);
  words[3] = uint32_t(dx), words[4] = uint32_t(dy), words[5] = uint32_t(dz);
  const float threshold = map.model().thresholdValue();
  constexpr uint32_t kAll = gpu::kSummaryInMap | gpu::kSummaryOccupied | gpu::kSummaryUnobserved;
  for (const auto& [key, region] : map.regions()) {
    uint32_t bits = gpu::kSummaryInMap;
    for (const float value : region.occupancy()) {
      bits |= !isObserved(value) ? gpu::kSummaryUnobserved : (value >= threshold ? gpu::kSummaryOccupied : 0u);
      if (bits == kAll) break;
    }
    words[gpu::kSummaryHeaderWords + size_t((key.x - lo.x) + dx * ((key.y - lo.y) + dy * int64_t(key.z - lo.z)))] = bits;
  }
  const BufferRange range = scratch(scheduler.device(), st.summary, "collision region summaries", words.size() * 4);
  scheduler.upload(range, words.data(), words.size() * 4);
  return range;
}

}  // namespace

std::vector<CollisionAnswer> GpuQueries::sphereCollisions(std::span<const glm::dvec3> points, double radius,
                                                          UnknownSpace unknown) {
  QueryMapAccess access = mapAccess();
  GpuCollisionState& st = collision();
  const SphereParams sphere = sphereParams(access.map.model(), radius);
  std::vector<CollisionAnswer> answers(points.size());
  for (size_t first = 0; first < points.size(); first += kProbesPerRound) {
    const uint32_t count = uint32_t(std::min(kProbesPerRound, points.size() - first));
    st.probesUp.resize(count);
    for (uint32_t i = 0; i < count; ++i) st.probesUp[i] = sphereProbe(access.map.model(), points[first + i], first + i);
    const std::vector<uint32_t> flags = runProbes(access, st, count, false, sphere);
    for (uint32_t i = 0; i < count; ++i) answers[first + i] = finishCollision(flags[i], unknown);
  }
  return answers;
}

std::vector<CollisionAnswer> GpuQueries::boxCollisions(std::span<const BoxPose> poses, const glm::dvec3& size,
                                                       UnknownSpace unknown) {
  QueryMapAccess access = mapAccess();
  GpuCollisionState& st = collision();
  checkBoxSize(access.map.model(), size);
  std::vector<CollisionAnswer> answers(poses.size());
  for (size_t first = 0; first < poses.size(); first += kProbesPerRound) {
    const uint32_t count = uint32_t(std::min(kProbesPerRound, poses.size() - first));
    st.probesUp.resize(count);
    for (uint32_t i = 0; i < count; ++i) st.probesUp[i] = boxProbe(access.map.model(), poses[first + i], size, first + i);
    const std::vector<uint32_t> flags = runProbes(access, st, count, true, {});
    for (uint32_t i = 0; i < count; ++i) answers[first + i] = finishCollision(flags[i], unknown);
  }
  return answers;
}

std::vector<PathAnswer> GpuQueries::pathCollisions(std::span<const glm::dvec3> points, std::span<const uint64_t> offsets,
                                                   double radius, UnknownSpace unknown) {
  QueryMapAccess access = mapAccess();
  GpuCollisionState& st = collision();
  checkPathOffsets(points, offsets);
  Scheduler& scheduler = access.scheduler;
  Device& device = scheduler.device();
  const size_t paths = offsets.size() - 1;
  std::vector<PathAnswer> answers(paths);
  const std::optional<BufferRange> summaries = pathSummaries(scheduler, st, access.map);
  size_t first = 0;
  while (first < paths) {
    // Whole paths while their pieces (estimated from their lengths) stay under the bound.
    size_t last = first;
    double pieces = 0.0;
    while (last < paths && (last == first || pieces < double(kPiecesPerRound))) {
      for (uint64_t j = offsets[last]; j + 1 < offsets[last + 1]; ++j)
        pieces += 2.0 + glm::length(points[j + 1] - points[j]) / access.map.model().resolution /
                            double(gpu::kCollisionPieceVoxels);
      ++last;
    }
    const PreparedPaths prepared = preparePaths(access.map.model(), points, offsets, first, last, radius);
    const uint32_t segmentCount = uint32_t(prepared.segments.size()), pieceCount = uint32_t(prepared.pieces.size());
    const uint32_t pathCount = uint32_t(last - first);
    const BufferRange segRange =
        scratch(device, st.segments, "collision segments", uint64_t(segmentCount) * sizeof(gpu::CollisionSegment));
    const BufferRange pieceRange =
        scratch(device, st.pieces, "collision pieces", uint64_t(pieceCount) * sizeof(gpu::CollisionPiece));
    const BufferRange startRange = scratch(device, st.starts, "collision starts", uint64_t(segmentCount) * 4);
    const BufferRange flagRange = scratch(device, st.flags, "collision flags", uint64_t(pathCount) * 4);
    const BufferRange firstRange = scratch(device, st.first, "collision first segments", uint64_t(pathCount) * 4);
    scheduler.upload(segRange, prepared.segments.data(), uint64_t(segmentCount) * sizeof(gpu::CollisionSegment));
    scheduler.upload(pieceRange, prepared.pieces.data(), uint64_t(pieceCount) * sizeof(gpu::CollisionPiece));
    scheduler.fill(startRange, gpu::kCollisionNoTouch);
    scheduler.fill(flagRange, 0u);
    scheduler.fill(firstRange, gpu::kCollisionNoTouch);
    // Every chunk's flags and first colliding segments before any touch start: the second
    // phase tests only the first colliding segment of each path.
    for (uint32_t phase : {gpu::kCollisionPathFlags, gpu::kCollisionPathStarts})
      access.forEachChunk(kOccupancyLayer, [&](const QueryMapPass& pass) {
        gpu::CollisionPathPush push{};
        push.map = pass.push;
        push.segments = segRange.address;
        push.pieces = pieceRange.address;
        push.starts = startRange.address;
        push.flags = flagRange.address;
        push.first = firstRange.address;
        push.count = pieceCount;
        push.unknownCollides = unknown == UnknownSpace::Occupied ? 1u : 0u;
        push.radius2 = prepared.radius2;
        push.rejectRadius2 = prepared.reject2;
        push.threshold = access.map.model().thresholdValue();
        push.phase = phase;
        push.summary = summaries ? summaries->address : 0;
        scheduler.dispatchThreads(
            {phase == gpu::kCollisionPathFlags ? "collision path flags" : "collision path starts", st.pathKernel.get(),
             {}, push,
             withUses(withUses(pass.uses, {reads(segRange), reads(pieceRange), readsWrites(startRange),
                                           readsWrites(flagRange), readsWrites(firstRange)}),
                      summaries ? std::initializer_list<BufferUse>{reads(*summaries)}
                                : std::initializer_list<BufferUse>{})},
            pieceCount);
      });
    Future<uint32_t> startsRead = scheduler.readback<uint32_t>(startRange);
    const std::vector<uint32_t> flags = scheduler.readback<uint32_t>(flagRange).get();
    const std::vector<uint32_t> starts = startsRead.get();
    for (uint32_t p = 0; p < pathCount; ++p)
      answers[first + p] = finishPath(
          flags[p], std::span<const uint32_t>(starts).subspan(prepared.firstSegment[p],
                                                              prepared.firstSegment[p + 1] - prepared.firstSegment[p]));
    first = last;
  }
  return answers;
}

namespace {

// The offsets within the range by their lower bound sum max(0, |o| - 1/2)^2 (each term and
// the sum exact in float), then by offset code: the order the nearest pass visits them.
std::vector<glm::uvec2> nearestOffsetTable(const NearestParams& params) {
  const int k = int(params.shells);
  std::vector<glm::uvec2> table;
  for (int z = -k; z <= k; ++z)
    for (int y = -k; y <= k; ++y)
      for (int x = -k; x <= k; ++x) {
        auto axis = [](int o) {
          const float c = std::max(0.0f, float(std::abs(o)) - 0.5f);
          return c * c;
        };
        const float bound = (axis(x) + axis(y)) + axis(z);
        if (bound > params.range2) continue;
        table.push_back({uint32_t(x + 64) | uint32_t(y + 64) << 8 | uint32_t(z + 64) << 16,
                         std::bit_cast<uint32_t>(bound)});
      }
  // Non-negative floats order as their bits; ties by the code's (z, y, x) order.
  std::sort(table.begin(), table.end(), [](const glm::uvec2& a, const glm::uvec2& b) {
    return a.y != b.y ? a.y < b.y : (a.x >> 16 != b.x >> 16 ? a.x >> 16 < b.x >> 16 : (a.x & 0xFFFFu) < (b.x & 0xFFFFu));
  });
  return table;
}

BufferRange nearestOffsets(Scheduler& scheduler, GpuCollisionState& st, const NearestParams& params) {
  if (!st.nearestOffsets || st.nearestRange2 != params.range2) {
    const std::vector<glm::uvec2> table = nearestOffsetTable(params);
    st.nearestOffsets.emplace(scheduler.device(), "nearest offsets", table.size() * sizeof(glm::uvec2));
    scheduler.upload(st.nearestOffsets->range(0, table.size() * sizeof(glm::uvec2)), table.data(),
                     table.size() * sizeof(glm::uvec2));
    st.nearestOffsetCount = uint32_t(table.size());
    st.nearestRange2 = params.range2;
  }
  return st.nearestOffsets->range(0, uint64_t(st.nearestOffsetCount) * sizeof(glm::uvec2));
}

// The nearest target voxels of st.probesUp's `count` points; `best` starts as given.
std::vector<gpu::NearestBest> runNearest(QueryMapAccess& access, GpuCollisionState& st, uint32_t count,
                                         const NearestParams& params, bool targetOccupied) {
  Scheduler& scheduler = access.scheduler;
  Device& device = scheduler.device();
  const BufferRange probes = scratch(device, st.probes, "collision probes", uint64_t(count) * sizeof(gpu::CollisionProbe));
  const BufferRange best = scratch(device, st.best, "nearest best", uint64_t(count) * sizeof(gpu::NearestBest));
  scheduler.upload(probes, st.probesUp.data(), uint64_t(count) * sizeof(gpu::CollisionProbe));
  const std::vector<gpu::NearestBest> start(count, nearestStart());
  scheduler.upload(best, start.data(), uint64_t(count) * sizeof(gpu::NearestBest));
  const BufferRange offsets = nearestOffsets(scheduler, st, params);
  access.forEachChunk(kOccupancyLayer, [&](const QueryMapPass& pass) {
    gpu::NearestPush push{};
    push.map = pass.push;
    push.probes = probes.address;
    push.best = best.address;
    push.count = count;
    push.targetOccupied = targetOccupied ? 1u : 0u;
    push.range2 = params.range2;
    push.shells = params.shells;
    push.threshold = access.map.model().thresholdValue();
    push.offsetCount = st.nearestOffsetCount;
    push.offsets = offsets.address;
    scheduler.dispatchThreads({"nearest obstacles", st.nearestKernel.get(), {}, push,
                               withUses(pass.uses, {reads(probes), readsWrites(best), reads(offsets)})},
                              count);
  });
  return scheduler.readback<gpu::NearestBest>(best).get();
}

}  // namespace

std::vector<NearestAnswer> GpuQueries::nearestObstacles(std::span<const glm::dvec3> points, double maxRange) {
  QueryMapAccess access = mapAccess();
  GpuCollisionState& st = collision();
  const OccupancyModel& model = access.map.model();
  const NearestParams params = nearestParams(model, maxRange);
  std::vector<NearestAnswer> answers(points.size());
  std::vector<gpu::CollisionProbe> probes;
  for (size_t first = 0; first < points.size(); first += kProbesPerRound) {
    const uint32_t count = uint32_t(std::min(kProbesPerRound, points.size() - first));
    probes.resize(count);
    for (uint32_t i = 0; i < count; ++i) probes[i] = nearestProbe(model, points[first + i], first + i);
    st.probesUp = probes;
    const std::vector<gpu::NearestBest> best = runNearest(access, st, count, params, true);
    // Points inside an occupied voxel: the nearest voxel that is not, for the signed distance.
    std::vector<uint32_t> insideIndex;
    st.probesUp.clear();
    for (uint32_t i = 0; i < count; ++i)
      if (best[i].flags & gpu::kNearestOwnOccupied) {
        insideIndex.push_back(i);
        st.probesUp.push_back(probes[i]);
      }
    std::vector<gpu::NearestBest> inside;
    if (!insideIndex.empty()) inside = runNearest(access, st, uint32_t(insideIndex.size()), params, false);
    size_t k = 0;
    for (uint32_t i = 0; i < count; ++i) {
      const bool own = k < insideIndex.size() && insideIndex[k] == i;
      answers[first + i] = finishNearest(model, points[first + i], probes[i], best[i], own ? &inside[k] : nullptr, maxRange);
      if (own) ++k;
    }
  }
  return answers;
}

}  // namespace voxen
