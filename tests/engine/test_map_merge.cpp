// Merging maps (voxen/map/layer_merge.hpp, voxen/store/map_merge.hpp): each layer's rule on
// hand-made voxels (clamping, unobserved, saturation, pooled means), and the properties a
// user relies on: the output does not depend on the order of the inputs (byte for byte),
// merging is associative, two halves of a run merge into the whole run's map, a merge with
// an empty map is the map itself, and inputs that cannot merge are refused naming both files.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>

#include "support/occupancy_runs.hpp"
#include "support/temp_dir.hpp"
#include "voxen/host/error.hpp"
#include "voxen/map/layer_merge.hpp"
#include "voxen/map/map_file.hpp"
#include "voxen/occupancy/ndt.hpp"
#include "voxen/store/map_merge.hpp"
#include "voxen/store/store_file.hpp"

using namespace voxen;

namespace {

template <class T, size_t N>
std::vector<std::byte> bytesOf(const std::array<T, N>& values) {
  std::vector<std::byte> bytes(sizeof(T) * N);
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

template <class T, size_t N>
std::array<T, N> merged(LayerId id, const std::vector<std::array<T, N>>& inputs, const OccupancyModel& model = {}) {
  std::vector<std::vector<std::byte>> arrays;
  for (const auto& in : inputs) arrays.push_back(bytesOf(in));
  std::vector<std::span<const std::byte>> spans(arrays.begin(), arrays.end());
  std::vector<std::byte> out(sizeof(T) * N);
  mergeLayer(id, model, spans, out);
  std::array<T, N> result;
  std::memcpy(result.data(), out.data(), out.size());
  return result;
}

std::string fileBytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// A small synthetic lidar run with every optional layer, split into halves on a batch
// boundary (65,536 rays), so that each half is mapped in the same batches as in the whole run.
struct Halves {
  OccupancyMap first, second, whole;
};
const Halves& halves() {
  static const Halves h = [] {
    const std::vector<Ray> rays = vt::occupancy::smallLidarRun(10);
    const size_t split = (rays.size() / 2) / 65536 * 65536;
    REQUIRE(split > 0);
    const std::vector<Ray> a(rays.begin(), rays.begin() + split), b(rays.begin() + split, rays.end());
    return Halves{vt::occupancy::runCpu(a, {}).map, vt::occupancy::runCpu(b, {}).map, vt::occupancy::runCpu(rays, {}).map};
  }();
  return h;
}

void requireSameRegion(const Region& a, const Region& b, const MapLayout& layout) {
  for (const LayerId id : layout.ids()) {
    INFO("region " << a.key.x << " " << a.key.y << " " << a.key.z << ", layer " << layerType(id).name);
    REQUIRE(a.layers[id] == b.layers[id]);
  }
}

}  // namespace

TEST_CASE("occupancy merges as added log-odds, clamped once, unobserved adding nothing", "[merge]") {
  const OccupancyModel model;  // clamp [-2, 3.511]
  const float u = kUnobserved;
  const auto out = merged<float, 6>(kOccupancyLayer,
                                    {{u, 0.5f, u, 3.0f, -1.5f, 0.25f}, {u, u, -0.75f, 2.0f, -1.5f, 0.5f}}, model);
  CHECK(out[0] == u);
  CHECK(out[1] == 0.5f);
  CHECK(out[2] == -0.75f);
  CHECK(out[3] == model.clampMax);
  CHECK(out[4] == model.clampMin);
  CHECK(out[5] == 0.75f);
}

TEST_CASE("occupancy sums in a canonical order: three inputs give the same bits in every order", "[merge]") {
  // 3 + 1e-10 rounds in double (34 binary orders apart), 3 - 3 does not: summed in input
  // order, (3 + 1e-10) - 3 and (3 - 3) + 1e-10 are different floats.
  std::array<std::array<float, 1>, 3> inputs{{{3.0f}, {1e-10f}, {-3.0f}}};
  std::sort(inputs.begin(), inputs.end());
  const auto first = merged<float, 1>(kOccupancyLayer, {inputs[0], inputs[1], inputs[2]});
  int orders = 0;
  do {
    INFO("order " << inputs[0][0] << " " << inputs[1][0] << " " << inputs[2][0]);
    CHECK(std::bit_cast<uint32_t>(merged<float, 1>(kOccupancyLayer, {inputs[0], inputs[1], inputs[2]})[0]) ==
          std::bit_cast<uint32_t>(first[0]));
    ++orders;
  } while (std::next_permutation(inputs.begin(), inputs.end()));
  CHECK(orders == 6);
}

TEST_CASE("hit/miss counts and traversal add, saturating at the type's largest value", "[merge]") {
  constexpr uint32_t kMax32 = std::numeric_limits<uint32_t>::max();
  const auto counts = merged<HitMiss, 2>(kHitMissLayer, {{HitMiss{3, 4}, HitMiss{kMax32 - 1, 1}}, {HitMiss{5, 6}, HitMiss{7, 2}}});
  CHECK(counts[0] == HitMiss{8, 10});
  CHECK(counts[1] == HitMiss{kMax32, 3});
  constexpr uint64_t kMax64 = std::numeric_limits<uint64_t>::max();
  const auto length = merged<uint64_t, 2>(kTraversalLayer, {{10, kMax64 - 3}, {20, 9}});
  CHECK(length[0] == 30);
  CHECK(length[1] == kMax64);
}

TEST_CASE("voxel means pool: counts and sums add, and past u32 both scale down keeping the mean", "[merge]") {
  const auto pooled = merged<VoxelMean, 1>(kVoxelMeanLayer, {{VoxelMean{2, {100, 2000, 0}}}, {VoxelMean{3, {300, 1000, 3069}}}});
  CHECK(pooled[0] == VoxelMean{5, {400, 3000, 3069}});
  // 2 x 4e6 samples near the top of the voxel: the sums pass u32 long before the count does.
  const VoxelMean big{4'000'000, {4'000'000u * 1000u, 4'000'000u * 10u, 0}};
  const VoxelMean out = merged<VoxelMean, 1>(kVoxelMeanLayer, {{big}, {big}})[0];
  CHECK(out.count < 8'000'000u);
  CHECK(out.count > 4'000'000u);
  for (int a = 0; a < 3; ++a) CHECK(uint64_t(out.sum[a]) <= 1023ull * out.count);
  CHECK(double(out.sum[0]) / out.count == Approx(1000.0).epsilon(1e-6));
  CHECK(double(out.sum[1]) / out.count == Approx(10.0).epsilon(1e-6));
}

TEST_CASE("touch time merges as the latest", "[merge]") {
  const auto out = merged<double, 3>(kTouchTimeLayer, {{0.0, 5.0, 2.0}, {0.0, 4.0, 7.5}});
  CHECK(out == std::array<double, 3>{0.0, 5.0, 7.5});
}

TEST_CASE("layers without a merge rule are named", "[merge]") {
  CHECK_FALSE(mergeRuleProblem(kOccupancyLayer));
  CHECK_FALSE(mergeRuleProblem(kNdtCovarianceLayer));
  REQUIRE(mergeRuleProblem(kClearanceLayer));
  CHECK_THAT(*mergeRuleProblem(kClearanceLayer), Catch::Contains("clearance"));
  const LayerId opaque = registerOpaqueLayer("merge_test_unknown", 4, 4, 1);
  REQUIRE(mergeRuleProblem(opaque));
  CHECK_THAT(*mergeRuleProblem(opaque), Catch::Contains("merge_test_unknown"));
}

TEST_CASE("merging is commutative: every order of the inputs gives the same bytes", "[merge]") {
  vt::TempDir dir("merge-commutative");
  const Halves& h = halves();
  saveMap(h.first, dir / "a.vxm");
  saveMap(h.second, dir / "b.vxm");
  saveMap(h.whole, dir / "c.vxm");
  mergeMaps({dir / "a.vxm", dir / "b.vxm"}, dir / "ab.vxm");
  mergeMaps({dir / "b.vxm", dir / "a.vxm"}, dir / "ba.vxm");
  CHECK(fileBytes(dir / "ab.vxm") == fileBytes(dir / "ba.vxm"));
  mergeMaps({dir / "a.vxm", dir / "b.vxm", dir / "c.vxm"}, dir / "abc.vxm");
  mergeMaps({dir / "c.vxm", dir / "a.vxm", dir / "b.vxm"}, dir / "cab.vxm");
  CHECK(fileBytes(dir / "abc.vxm") == fileBytes(dir / "cab.vxm"));

  SECTION("a store output holds the same map, and so does a mix of store and map inputs") {
    mergeMaps({dir / "a.vxm", dir / "b.vxm"}, dir / "ab.vxs");
    saveMapToStore(h.second, dir / "b.vxs");
    mergeMaps({dir / "b.vxs", dir / "a.vxm"}, dir / "ba-mixed.vxm");
    CHECK(fileBytes(dir / "ba-mixed.vxm") == fileBytes(dir / "ab.vxm"));
    saveMap(loadMapFromStore(dir / "ab.vxs"), dir / "ab-from-store.vxm");
    CHECK(fileBytes(dir / "ab-from-store.vxm") == fileBytes(dir / "ab.vxm"));
  }
}

// Clamping makes log-odds addition associative only where no partial sum leaves the clamp
// range (the mapper clamps each update as well): there, the two groupings differ only by float
// rounding of the intermediate sum, at most one ulp of the intermediate (2^-22 for values
// below 4). Every other layer is integer or a maximum: bit for bit.
TEST_CASE("merging is associative", "[merge]") {
  vt::TempDir dir("merge-associative");
  const Halves& h = halves();
  saveMap(h.first, dir / "a.vxm");
  saveMap(h.second, dir / "b.vxm");
  saveMap(h.whole, dir / "c.vxm");
  mergeMaps({dir / "a.vxm", dir / "b.vxm"}, dir / "ab.vxm");
  mergeMaps({dir / "ab.vxm", dir / "c.vxm"}, dir / "ab_c.vxm");
  mergeMaps({dir / "b.vxm", dir / "c.vxm"}, dir / "bc.vxm");
  mergeMaps({dir / "a.vxm", dir / "bc.vxm"}, dir / "a_bc.vxm");
  const OccupancyMap left = loadMap(dir / "ab_c.vxm"), right = loadMap(dir / "a_bc.vxm");
  REQUIRE(left.regions().size() == right.regions().size());
  const OccupancyModel& model = left.model();
  uint64_t compared = 0;
  for (const auto& [key, l] : left.regions()) {
    const Region* r = right.findRegion(key);
    REQUIRE(r);
    for (const LayerId id : left.layout().ids())
      if (id != kOccupancyLayer) REQUIRE(l.layers[id] == r->layers[id]);
    const auto value = [](const OccupancyMap& m, const RegionKey& k, size_t i) {
      const Region* region = m.findRegion(k);
      return region ? region->occupancy()[i] : kUnobserved;
    };
    for (size_t i = 0; i < l.occupancy().size(); ++i) {
      const double a = value(h.first, key, i), b = value(h.second, key, i), c = value(h.whole, key, i);
      const auto inRange = [&](double v) { return !std::isfinite(v) || (v >= model.clampMin && v <= model.clampMax); };
      const double ab = (std::isfinite(a) ? a : 0) + (std::isfinite(b) ? b : 0);
      const double bc = (std::isfinite(b) ? b : 0) + (std::isfinite(c) ? c : 0);
      const double abc = ab + (std::isfinite(c) ? c : 0);
      if (!inRange(ab) || !inRange(bc) || !inRange(abc)) continue;
      ++compared;
      REQUIRE(std::isfinite(l.occupancy()[i]) == std::isfinite(r->occupancy()[i]));
      if (std::isfinite(l.occupancy()[i])) REQUIRE(std::abs(l.occupancy()[i] - r->occupancy()[i]) <= 0x1p-21f);
    }
  }
  CHECK(compared > 1000);
}

TEST_CASE("two halves of a run merge into the whole run's map where they do not overlap", "[merge]") {
  vt::TempDir dir("merge-halves");
  const Halves& h = halves();
  saveMap(h.first, dir / "first.vxm");
  saveMap(h.second, dir / "second.vxm");
  mergeMaps({dir / "first.vxm", dir / "second.vxm"}, dir / "merged.vxm");
  const OccupancyMap merged = loadMap(dir / "merged.vxm");
  REQUIRE(merged.layout() == h.whole.layout());
  CHECK(merged.timeOrigin() == h.whole.timeOrigin());
  REQUIRE(merged.regions().size() == h.whole.regions().size());
  uint64_t alone = 0, shared = 0;
  for (const auto& [key, region] : h.whole.regions()) {
    const Region* m = merged.findRegion(key);
    REQUIRE(m);
    const bool inFirst = h.first.findRegion(key), inSecond = h.second.findRegion(key);
    if (inFirst != inSecond) {
      ++alone;
      requireSameRegion(*m, region, h.whole.layout());
    } else {
      // Touched by both: counts, lengths, sample sums and the latest touch are exact sums and
      // maxima of per-ray contributions, so they equal the whole run's too; occupancy does
      // not (the whole run clamps each update in sequence).
      ++shared;
      for (const LayerId id : {kVoxelMeanLayer, kTraversalLayer, kHitMissLayer, kTouchTimeLayer}) {
        INFO("layer " << layerType(id).name);
        REQUIRE(m->layers[id] == region.layers[id]);
      }
    }
  }
  CHECK(alone > 0);
  CHECK(shared > 0);
}

TEST_CASE("a merge with an empty map of the same model is the map itself", "[merge]") {
  vt::TempDir dir("merge-empty");
  const Halves& h = halves();
  // The second half: its time origin (its first ray's time) is not 0, an empty map's is.
  REQUIRE(h.second.timeOrigin() > 0.0);
  saveMap(h.second, dir / "map.vxm");
  saveMap(OccupancyMap(h.second.model(), h.second.layout()), dir / "empty.vxm");
  mergeMaps({dir / "empty.vxm", dir / "map.vxm"}, dir / "merged.vxm");
  CHECK(fileBytes(dir / "merged.vxm") == fileBytes(dir / "map.vxm"));
}

TEST_CASE("inputs that cannot merge are refused naming both files, leaving no output", "[merge]") {
  vt::TempDir dir("merge-refused");
  const Halves& h = halves();
  saveMap(h.first, dir / "a.vxm");
  OccupancyModel coarse = h.first.model();
  coarse.resolution = 0.2;
  saveMap(OccupancyMap(coarse, h.first.layout()), dir / "coarse.vxm");
  saveMap(OccupancyMap(h.first.model(), LayerSet{kHitMissLayer}), dir / "hits.vxm");
  saveMap(OccupancyMap(h.first.model(), ndtLayout(NdtMode::Om)), dir / "ndt.vxm");

  const auto refused = [&](std::vector<std::filesystem::path> inputs, const std::vector<std::string>& words) {
    try {
      mergeMaps(inputs, dir / "out.vxs");
      FAIL("merged");
    } catch (const Error& e) {
      for (const std::string& word : words) CHECK_THAT(e.what(), Catch::Contains(word));
    }
    CHECK_FALSE(std::filesystem::exists(dir / "out.vxs"));
  };
  refused({dir / "a.vxm", dir / "coarse.vxm"}, {"a.vxm", "coarse.vxm", "resolution 0.1 vs 0.2"});
  refused({dir / "a.vxm", dir / "hits.vxm"}, {"a.vxm", "hits.vxm", "layers"});
  refused({dir / "a.vxm", dir / "ndt.vxm"}, {"ndt.vxm", "ndt_covariance"});
  refused({dir / "a.vxm"}, {"at least two"});
  saveMap(h.second, dir / "b.vxm");
  try {
    mergeMaps({dir / "a.vxm", dir / "b.vxm"}, dir / "out.vxm", {.memoryBudgetBytes = 1ull << 20, .budgetHint = "(raise it)"});
    FAIL("merged past the budget");
  } catch (const Error& e) {
    CHECK_THAT(e.what(), Catch::Contains("out.vxm") && Catch::Contains("(raise it)"));
  }
  CHECK_FALSE(std::filesystem::exists(dir / "out.vxm"));
  refused({dir / "a.vxm", dir / "hits.vxm", dir / ".." / dir.path().filename() / "a.vxm"}, {"a.vxm", "same file"});
}
