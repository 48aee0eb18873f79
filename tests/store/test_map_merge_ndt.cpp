// Merging NDT maps (voxen/map/layer_merge.hpp: mergeNdtVoxel; voxen/store/map_merge.hpp):
// Gaussians pool as independent sample sets. The rule on samples folded by the reference's
// own formulas against the covariance computed in double from the samples; NDT-OM and NDT-TM
// halves of a run against the whole run (exact where one half holds the samples, within a
// stated tolerance where both do); order independence bit for bit; associativity within the
// same tolerance; inputs of other NDT settings, or without recorded settings, refused.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>

#include "support/ndt_runs.hpp"
#include "support/temp_dir.hpp"
#include "voxen/host/error.hpp"
#include "voxen/map/layer_merge.hpp"
#include "voxen/map/map_file.hpp"
#include "voxen/occupancy/ndt.hpp"
#include "voxen/store/map_merge.hpp"

using namespace voxen;

namespace {

constexpr double kResolution = 0.1;
constexpr float kDeviation = float(0.1 * kResolution);  // NdtModel's default, as ndtParams takes it

struct Sample {
  uint32_t q[3];
  float intensity;
};

double metres(double quantised) { return (quantised + 0.5) / 1024.0 * kResolution; }

// A voxel folded sample by sample as the integrators fold it (ndt_shared.h).
NdtVoxelStats folded(const std::vector<Sample>& samples) {
  NdtVoxelStats v;
  v.covariance = gpu::ndtInitialCovariance(kDeviation);
  for (const Sample& s : samples) {
    const float n = float(v.mean.count);
    float m[3] = {0, 0, 0};
    if (v.mean.count > 0)
      for (int a = 0; a < 3; ++a) m[a] = gpu::ndtOffsetMetres(float(v.mean.sum[a]) / n, float(kResolution));
    v.covariance = gpu::ndtFoldCovariance(v.covariance, n, m[0], m[1], m[2], gpu::ndtOffsetMetres(float(s.q[0]), float(kResolution)),
                                          gpu::ndtOffsetMetres(float(s.q[1]), float(kResolution)),
                                          gpu::ndtOffsetMetres(float(s.q[2]), float(kResolution)));
    v.intensity = gpu::ndtFoldIntensity(v.intensity, n, s.intensity);
    ++v.mean.count;
    for (int a = 0; a < 3; ++a) v.mean.sum[a] += s.q[a];
  }
  return v;
}

// The reference's P of these samples, in double: (M2 + d0^2 I) / n.
glm::dmat3 pooledCovariance(const std::vector<Sample>& samples) {
  glm::dvec3 mean(0.0);
  for (const Sample& s : samples) mean += glm::dvec3(metres(s.q[0]), metres(s.q[1]), metres(s.q[2]));
  mean /= double(samples.size());
  glm::dmat3 m2(0.0);
  for (const Sample& s : samples) {
    const glm::dvec3 d = glm::dvec3(metres(s.q[0]), metres(s.q[1]), metres(s.q[2])) - mean;
    m2 += glm::outerProduct(d, d);
  }
  return (m2 + double(kDeviation) * double(kDeviation) * glm::dmat3(1.0)) / double(samples.size());
}

double largestDifference(const glm::dmat3& a, const glm::dmat3& b) {
  double d = 0.0;
  for (int c = 0; c < 3; ++c)
    for (int r = 0; r < 3; ++r) d = std::max(d, std::abs(a[c][r] - b[c][r]));
  return d;
}

std::vector<Sample> samplesOnAPlane(std::mt19937& rng, size_t n, uint32_t centre) {
  std::normal_distribution<double> along(0.0, 150.0), across(0.0, 8.0), intensity(40.0, 12.0);
  std::vector<Sample> out(n);
  for (Sample& s : out) {
    const auto q = [&](double v) { return uint32_t(std::clamp(double(centre) + v, 0.0, 1023.0)); };
    s.q[0] = q(along(rng));
    s.q[1] = q(along(rng) * 0.5);
    s.q[2] = q(across(rng));
    s.intensity = float(intensity(rng));
  }
  return out;
}

NdtVoxelStats merged(std::vector<NdtVoxelStats> inputs) {
  NdtVoxelStats out;
  mergeNdtVoxel(inputs, NdtMergeModel{kDeviation}, kResolution, out.covariance, out.intensity);
  return out;
}

std::string fileBytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

TEST_CASE("NDT Gaussians merge as pooled samples: the covariance of both sample sets, prior counted once", "[merge][ndt]") {
  std::mt19937 rng(7);
  for (const auto& [na, nb] : {std::pair<size_t, size_t>{1, 1}, {2, 5}, {7, 12}, {300, 40}}) {
    const std::vector<Sample> a = samplesOnAPlane(rng, na, 500), b = samplesOnAPlane(rng, nb, 530);
    std::vector<Sample> both = a;
    both.insert(both.end(), b.begin(), b.end());
    const NdtVoxelStats m = merged({folded(a), folded(b)});
    const glm::dmat3 exact = pooledCovariance(both);
    const glm::dmat3 sequential = ndtCovarianceMatrix(folded(both).covariance);
    const glm::dmat3 got = ndtCovarianceMatrix(m.covariance);
    INFO(na << " + " << nb << " samples");
    // Float factors: the inputs' and the whole run's S carry float rounding of every fold;
    // 1e-5 of the prior's variance d0^2 (1e-4 m^2 here) is far below the spread itself.
    const double tolerance = 1e-5 * largestDifference(exact, glm::dmat3(0.0));
    CHECK(largestDifference(got, exact) <= tolerance);
    CHECK(largestDifference(got, sequential) <= tolerance);
    // Intensity: the population variance of both sets (no prior).
    double mean = 0.0, m2 = 0.0;
    for (const Sample& s : both) mean += s.intensity;
    mean /= double(both.size());
    for (const Sample& s : both) m2 += (s.intensity - mean) * (s.intensity - mean);
    CHECK(m.intensity.mean == Approx(mean).epsilon(1e-6));
    CHECK(m.intensity.variance == Approx(m2 / double(both.size())).epsilon(1e-5).margin(1e-6));
  }
}

TEST_CASE("NDT voxel merge: one input with samples comes out bit for bit, and every order gives the same bits", "[merge][ndt]") {
  std::mt19937 rng(11);
  const NdtVoxelStats a = folded(samplesOnAPlane(rng, 9, 400)), b = folded(samplesOnAPlane(rng, 4, 600)),
                      c = folded(samplesOnAPlane(rng, 17, 512));
  const NdtVoxelStats none{};  // a voxel without samples: all zero
  const NdtVoxelStats alone = merged({none, b, none});
  CHECK(std::memcmp(&alone.covariance, &b.covariance, sizeof b.covariance) == 0);
  CHECK(std::memcmp(&alone.intensity, &b.intensity, sizeof b.intensity) == 0);
  std::array<NdtVoxelStats, 3> inputs{a, b, c};
  const NdtVoxelStats first = merged({a, b, c});
  int orders = 0;
  std::array<int, 3> order{0, 1, 2};
  do {
    const NdtVoxelStats m = merged({inputs[order[0]], inputs[order[1]], inputs[order[2]]});
    CHECK(std::memcmp(&m.covariance, &first.covariance, sizeof m.covariance) == 0);
    CHECK(std::memcmp(&m.intensity, &first.intensity, sizeof m.intensity) == 0);
    ++orders;
  } while (std::next_permutation(order.begin(), order.end()));
  CHECK(orders == 6);
  // Means without a Gaussian (made without NDT): the merged voxel has none either.
  NdtVoxelStats meansOnly = b;
  meansOnly.covariance = {};
  CHECK_FALSE(merged({a, meansOnly}).covariance.s00 > 0.0f);
}

namespace {

struct NdtHalves {
  OccupancyMap first, second, whole;
};

// The small lidar run in NDT mode, split on a batch boundary (each half mapped in the same
// batches as in the whole run) and mapped by the CPU reference.
NdtHalves ndtHalves(NdtMode mode) {
  const std::vector<Ray> rays = vt::occupancy::smallLidarRun(6);
  constexpr size_t kBatch = 16384;
  const size_t split = (rays.size() / 2) / kBatch * kBatch;
  const std::vector<Ray> a(rays.begin(), rays.begin() + split), b(rays.begin() + split, rays.end());
  const IntegrationOptions options = vt::ndt::ndtOptions(mode);
  const OccupancyModel model;
  return NdtHalves{vt::ndt::runNdtCpu(a, options, model, kBatch).map, vt::ndt::runNdtCpu(b, options, model, kBatch).map,
                   vt::ndt::runNdtCpu(rays, options, model, kBatch).map};
}

const NdtHalves& halvesOf(NdtMode mode) {
  static const NdtHalves om = ndtHalves(NdtMode::Om), tm = ndtHalves(NdtMode::Tm);
  return mode == NdtMode::Om ? om : tm;
}

template <class T>
bool sameBits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

}  // namespace

TEST_CASE("NDT halves of a run merge into the whole run's Gaussians", "[merge][ndt]") {
  const NdtMode mode = GENERATE(NdtMode::Om, NdtMode::Tm);
  INFO("NDT " << ndtModeName(mode));
  const NdtHalves& h = halvesOf(mode);
  REQUIRE_FALSE(h.whole.derivedSettings(kNdtCovarianceLayer).empty());
  vt::TempDir dir("merge-ndt-halves");
  saveMap(h.first, dir / "first.vxm");
  saveMap(h.second, dir / "second.vxm");
  mergeMaps({dir / "first.vxm", dir / "second.vxm"}, dir / "merged.vxm");
  mergeMaps({dir / "second.vxm", dir / "first.vxm"}, dir / "reversed.vxm");
  CHECK(fileBytes(dir / "merged.vxm") == fileBytes(dir / "reversed.vxm"));
  const OccupancyMap merged = loadMap(dir / "merged.vxm");
  // The same layers, and what the merge's clamping and rounding left out of occupancy (the
  // halves share regions); a merge's are in id order (ndtLayout puts hit_miss after
  // ndt_covariance).
  REQUIRE(merged.layout().optionalLayers() == (h.whole.layout().optionalLayers() | kOccupancyRemainderLayer));
  CHECK(merged.derivedSettings(kNdtCovarianceLayer) == h.whole.derivedSettings(kNdtCovarianceLayer));
  const bool tm = mode == NdtMode::Tm;
  uint64_t aloneRegions = 0, oneSided = 0, pooled = 0, restarted = 0;
  double worst = 0.0;
  for (const auto& [key, whole] : h.whole.regions()) {
    const Region* m = merged.findRegion(key);
    REQUIRE(m);
    const Region *a = h.first.findRegion(key), *b = h.second.findRegion(key);
    if (!a || !b) {
      ++aloneRegions;
      for (const LayerId id : h.whole.layout().ids()) REQUIRE(m->layers[id] == whole.layers[id]);
      continue;
    }
    const auto cov = [](const Region& r) { return r.values<gpu::NdtCovariance>(kNdtCovarianceLayer); };
    const auto intensity = [](const Region& r) { return r.values<gpu::NdtIntensity>(kNdtIntensityLayer); };
    for (size_t i = 0; i < whole.mean().size(); ++i) {
      const uint32_t na = a->mean()[i].count, nb = b->mean()[i].count, n = whole.mean()[i].count;
      if (na + nb == 0) continue;
      // A Gaussian the whole run restarted (a voxel freed after resetSamples samples) holds
      // fewer samples than the halves: not the same sample set, so not compared.
      if (n != na + nb) {
        ++restarted;
        continue;
      }
      REQUIRE(sameBits(m->mean()[i], whole.mean()[i]));
      if (na == 0 || nb == 0) {
        ++oneSided;
        REQUIRE(sameBits(cov(*m)[i], cov(whole)[i]));
        if (tm) REQUIRE(sameBits(intensity(*m)[i], intensity(whole)[i]));
        continue;
      }
      ++pooled;
      const glm::dmat3 got = ndtCovarianceMatrix(cov(*m)[i]), want = ndtCovarianceMatrix(cov(whole)[i]);
      const double scale = std::max(largestDifference(want, glm::dmat3(0.0)), double(kDeviation) * kDeviation);
      worst = std::max(worst, largestDifference(got, want) / scale);
      if (tm) {
        CHECK(intensity(*m)[i].mean == Approx(intensity(whole)[i].mean).epsilon(1e-5).margin(1e-4));
        CHECK(intensity(*m)[i].variance == Approx(intensity(whole)[i].variance).epsilon(1e-4).margin(1e-3));
      }
    }
  }
  INFO("regions of one half " << aloneRegions << ", voxels with one half's samples " << oneSided << ", with both "
                              << pooled << ", restarted " << restarted << ", worst relative difference " << worst);
  CHECK(aloneRegions > 0);
  CHECK(oneSided > 100);
  CHECK(pooled > 100);
  CHECK(restarted * 100 <= pooled);
  // The whole run folds in float; the merge pools float factors: both round, neither exactly.
  CHECK(worst <= 1e-4);
}

TEST_CASE("NDT merges are associative to float rounding of the covariance", "[merge][ndt]") {
  const NdtHalves& h = halvesOf(NdtMode::Tm);
  vt::TempDir dir("merge-ndt-associative");
  saveMap(h.first, dir / "a.vxm");
  saveMap(h.second, dir / "b.vxm");
  saveMap(h.whole, dir / "c.vxm");
  mergeMaps({dir / "a.vxm", dir / "b.vxm"}, dir / "ab.vxm");
  mergeMaps({dir / "ab.vxm", dir / "c.vxm"}, dir / "ab_c.vxm");
  mergeMaps({dir / "b.vxm", dir / "c.vxm"}, dir / "bc.vxm");
  mergeMaps({dir / "a.vxm", dir / "bc.vxm"}, dir / "a_bc.vxm");
  const OccupancyMap left = loadMap(dir / "ab_c.vxm"), right = loadMap(dir / "a_bc.vxm");
  REQUIRE(left.regions().size() == right.regions().size());
  double worst = 0.0;
  for (const auto& [key, l] : left.regions()) {
    const Region* r = right.findRegion(key);
    REQUIRE(r);
    // Everything but the Gaussians bit for bit, occupancy through its exact sum.
    for (const LayerId id : {kOccupancyLayer, kOccupancyRemainderLayer, kVoxelMeanLayer, kHitMissLayer})
      REQUIRE(l.layers[id] == r->layers[id]);
    const auto lc = l.values<gpu::NdtCovariance>(kNdtCovarianceLayer);
    const auto rc = r->values<gpu::NdtCovariance>(kNdtCovarianceLayer);
    for (size_t i = 0; i < lc.size(); ++i) {
      REQUIRE((lc[i].s00 > 0.0f) == (rc[i].s00 > 0.0f));
      const glm::dmat3 lp = ndtCovarianceMatrix(lc[i]), rp = ndtCovarianceMatrix(rc[i]);
      worst = std::max(worst, largestDifference(lp, rp) / std::max(largestDifference(lp, glm::dmat3(0.0)), 1e-12));
    }
  }
  CHECK(worst <= 1e-5);
}

TEST_CASE("NDT maps of other settings, or without recorded settings, are refused by name", "[merge][ndt]") {
  vt::TempDir dir("merge-ndt-refused");
  const NdtHalves& h = halvesOf(NdtMode::Om);
  saveMap(h.first, dir / "a.vxm");
  OccupancyMap wide = h.second;
  NdtModel other = vt::ndt::ndtModel(NdtMode::Om);
  other.initialDeviation = 0.3;
  wide.setDerivedSettings(kNdtCovarianceLayer, ndtRecordedSettings(other));
  saveMap(wide, dir / "wide.vxm");
  OccupancyMap old = h.second;
  old.setDerivedSettings(kNdtCovarianceLayer, "");
  saveMap(old, dir / "old.vxm");
  OccupancyMap mixed = h.second;
  recordNdtSettings(mixed, other);
  saveMap(mixed, dir / "mixed.vxm");
  const auto refused = [&](const std::filesystem::path& second, const std::vector<std::string>& words) {
    try {
      mergeMaps({dir / "a.vxm", second}, dir / "out.vxm");
      FAIL("merged");
    } catch (const Error& e) {
      for (const std::string& word : words) CHECK_THAT(e.what(), Catch::Contains(word));
    }
    CHECK_FALSE(std::filesystem::exists(dir / "out.vxm"));
  };
  refused(dir / "wide.vxm", {"a.vxm", "wide.vxm", "NDT initial_deviation 0.1 vs 0.3"});
  refused(dir / "old.vxm", {"old.vxm", "do not record the NDT settings", "remake it"});
  refused(dir / "mixed.vxm", {"mixed.vxm", "other NDT settings"});
}
