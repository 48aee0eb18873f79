#include "voxen/testdata/awkward_rays.hpp"

#include "voxen/testdata/split_mix.hpp"

namespace voxen {


std::vector<Ray> awkwardRays(uint64_t seed, size_t count, const glm::dvec3& offset, double voxelMetres, int regionVoxels) {
  SplitMix rng(seed);
  const double regionMetres = voxelMetres * regionVoxels;
  auto coordinate = [&](int range) {
    switch (rng.next() % 4) {
      case 0: return double(int64_t(rng.range(0, 2 * range)) - range) * regionMetres;  // on a region face
      case 1:  // on a voxel face
        return double(int64_t(rng.range(0, 2 * range * regionVoxels)) - range * regionVoxels) * voxelMetres;
      default: return (double(rng.u32()) / 4294967296.0 - 0.5) * 2.0 * range * regionMetres;
    }
  };
  std::vector<Ray> rays;
  rays.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    Ray ray;
    ray.origin = glm::dvec3(coordinate(3), coordinate(3), coordinate(3));
    switch (rng.next() % 5) {
      case 0: ray.sample = ray.origin + glm::dvec3(coordinate(4), 0.0, 0.0); break;  // axis-aligned
      case 1: {  // a diagonal through region edges and corners
        const double t = coordinate(4);
        ray.sample = ray.origin + glm::dvec3(t, t, (rng.next() & 1) ? t : -t);
        break;
      }
      case 2: ray.sample = ray.origin + glm::dvec3(1e-4, -1e-4, 1e-4); break;  // inside one voxel
      default: ray.sample = glm::dvec3(coordinate(5), coordinate(5), coordinate(5)); break;
    }
    ray.origin += offset;
    ray.sample += offset;
    ray.time = 1e-4 * double(i);
    rays.push_back(ray);
  }
  return rays;
}

std::vector<Ray> scatteredRays(uint64_t seed, size_t count, double extent, const glm::dvec3& step) {
  SplitMix rng(seed);
  auto u = [&] { return (double(rng.u32()) / 4294967296.0 - 0.5) * extent; };
  std::vector<Ray> rays(count);
  for (size_t i = 0; i < count; ++i) {
    rays[i].origin = {u(), u(), u()};
    rays[i].sample = rays[i].origin + step;
    rays[i].time = 1e-4 * double(i);
  }
  return rays;
}

}  // namespace voxen
