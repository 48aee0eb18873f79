// The Mapper's collision and distance queries (mapper_collision.cpp): on the GPU (every
// batch, hostQueryVoxels 0), with small batches on the host (the default), and on the CPU
// reference backend, each equal to the CPU twins on the Mapper's own map, and a free and a
// colliding item worked out by hand.
#include <catch2/catch.hpp>

#include <vector>

#include "support/gpu_fixture.hpp"
#include "support/occupancy_runs.hpp"
#include "voxen/context.hpp"
#include "voxen/mapper.hpp"
#include "voxen/query/cpu_queries.hpp"

namespace {

using namespace voxen;

template <class T>
void requireSame(const std::vector<T>& a, const std::vector<T>& b) {
  REQUIRE(a.size() == b.size());
  size_t mismatches = 0;
  for (size_t i = 0; i < a.size(); ++i) mismatches += !(a[i] == b[i]);
  CHECK(mismatches == 0);
}

}  // namespace

TEST_CASE("Mapper collision queries equal the CPU twins on every backend and batch size", "[api][mapper][collision]") {
  Context ctx(vt::gpu().scheduler);
  const std::vector<Ray> rays = vt::occupancy::smallLidarRun(1);
  for (MapperBackend backend : {MapperBackend::Gpu, MapperBackend::CpuReference})
    for (uint64_t hostVoxels : {uint64_t(0), uint64_t(512)}) {
      INFO("backend " << int(backend) << ", hostQueryVoxels " << hostVoxels);
      MapperOptions o;
      o.model.resolution = 0.1;
      o.run.backend = backend;
      o.run.gpu = {.cacheBytes = 64ull << 20, .maxRaysPerBatch = 1u << 16};
      o.run.hostQueryVoxels = hostVoxels;
      Mapper mapper(ctx, o);
      mapper.integrate(rays);
      vt::Rng rng(7);
      std::vector<glm::dvec3> points;
      for (int i = 0; i < 300; ++i)
        points.push_back({double(rng.next() % 2000) * 0.005 - 5.0, double(rng.next() % 2000) * 0.005 - 5.0,
                          double(rng.next() % 600) * 0.005});
      std::vector<BoxPose> poses;
      for (size_t i = 0; i < points.size(); ++i) poses.push_back({points[i], double(i) * 0.1});
      const std::vector<uint64_t> offsets{0, 100, 200, 300};
      const OccupancyMap& map = mapper.map();
      requireSame(mapper.sphereCollisions(points, 0.25), cpuSphereCollisions(map, points, 0.25));
      requireSame(mapper.boxCollisions(poses, {0.6, 0.4, 0.3}, UnknownSpace::Report),
                  cpuBoxCollisions(map, poses, {0.6, 0.4, 0.3}, UnknownSpace::Report));
      requireSame(mapper.pathCollisions(points, offsets, 0.2, UnknownSpace::Free),
                  cpuPathCollisions(map, points, offsets, 0.2, UnknownSpace::Free));
      requireSame(mapper.nearestObstacles(points, 0.8), cpuNearestObstacles(map, points, 0.8));
      // One point, small enough for the host at the default: half way along a ray, in a voxel
      // the rays crossed (free), a sphere of radius 0 touches only that voxel.
      const std::vector<glm::dvec3> one{(rays[5].origin + rays[5].sample) * 0.5};
      REQUIRE(map.classify(map.voxelAt(one[0])) == VoxelClass::Free);
      const auto sphere = mapper.sphereCollisions(one, 0.0);
      CHECK_FALSE(sphere[0].collides);
      CHECK(sphere[0].status == QueryStatus::Observed);
      // A sphere at a ray's end (the voxel it hit) collides.
      size_t hit = 0;
      while (hit < rays.size() && !(map.classify(map.voxelAt(rays[hit].sample)) == VoxelClass::Occupied)) ++hit;
      REQUIRE(hit < rays.size());
      CHECK(mapper.sphereCollisions(std::vector<glm::dvec3>{rays[hit].sample}, 0.0)[0].collides);
    }
}
