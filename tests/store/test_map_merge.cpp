// Merging maps (voxen/map/layer_merge.hpp, voxen/store/map_merge.hpp): each layer's rule on
// hand-made voxels (clamping, unobserved, saturation, pooled means), and the properties a
// user relies on: the output does not depend on the order of the inputs (byte for byte),
// merging is associative (the same bytes in every grouping: the exact occupancy sum and its
// remainder layer), thirds and halves of a run merge into the whole run's map, a merge with
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

namespace {

// Occupancy merges exactly: a region-sized array of one voxel's inputs, merged through
// mergeRegions with the remainder layer, as `voxen merge` does.
struct ExactVoxel {
  float occupancy = kUnobserved;
  int64_t remainder = 0;
};
ExactVoxel mergedVoxel(const std::vector<ExactVoxel>& inputs, const OccupancyModel& model = {}) {
  const MapLayout layout = MapLayout::of(LayerSet{kOccupancyRemainderLayer});
  const size_t n = size_t(model.regionSize) * model.regionSize * model.regionSize;
  std::vector<Region> regions(inputs.size());
  std::vector<const Region*> pointers;
  for (size_t k = 0; k < inputs.size(); ++k) {
    regions[k].layers[kOccupancyLayer].resize(4 * n);
    regions[k].layers[kOccupancyRemainderLayer].resize(8 * n);
    std::memcpy(regions[k].layers[kOccupancyLayer].data(), &inputs[k].occupancy, 4);
    std::memcpy(regions[k].layers[kOccupancyRemainderLayer].data(), &inputs[k].remainder, 8);
    pointers.push_back(&regions[k]);
  }
  const Region out = mergeRegions(layout, model, pointers);
  ExactVoxel v;
  std::memcpy(&v.occupancy, out.layers[kOccupancyLayer].data(), 4);
  std::memcpy(&v.remainder, out.layers[kOccupancyRemainderLayer].data(), 8);
  return v;
}
bool sameBits(const ExactVoxel& a, const ExactVoxel& b) {
  return std::bit_cast<uint32_t>(a.occupancy) == std::bit_cast<uint32_t>(b.occupancy) && a.remainder == b.remainder;
}
double exactLogOdds(const ExactVoxel& v) { return double(v.occupancy) + std::ldexp(double(v.remainder), -kOccupancyRemainderFractionBits); }

}  // namespace

// Before the exact sum, each partial merge clamped what a later one still needed: (3 + 3) + -3
// gave 3.511 - 3 = 0.511, 3 + (3 + -3) gave 3; and float sums of other groupings round
// differently.
TEST_CASE("occupancy merges exactly: every grouping of three inputs gives the same bits", "[merge]") {
  const OccupancyModel model;  // clamp [-2, 3.511]
  const std::vector<std::array<float, 3>> cases = {
      {3.0f, 3.0f, -3.0f},  // a partial sum clamps above
      {-1.5f, -1.5f, 2.5f},  // below
      {3.0f, 1e-3f, 0.3f},   // float sums round: 3.001 + 0.3 and 3 + 0.301
      {0.1f, 0.2f, 0.3f},
      {kUnobserved, 2.5f, 2.0f},
      {1e-10f, -0.7f, 2.9f},  // below the fixed point's resolution: rounded, deterministically
  };
  for (const auto& c : cases) {
    INFO("inputs " << c[0] << " " << c[1] << " " << c[2]);
    const ExactVoxel a{c[0]}, b{c[1]}, d{c[2]};
    const ExactVoxel all = mergedVoxel({a, b, d});
    CHECK(sameBits(mergedVoxel({mergedVoxel({a, b}), d}), all));
    CHECK(sameBits(mergedVoxel({a, mergedVoxel({b, d})}), all));
    CHECK(sameBits(mergedVoxel({mergedVoxel({a, d}), b}), all));
    CHECK(sameBits(mergedVoxel({d, mergedVoxel({b, a})}), all));
    // Stored: the exact sum rounded and clamped once; occupancy + remainder: the exact sum.
    double sum = 0.0;
    for (const float v : c)
      if (isObserved(v)) sum += v;
    CHECK(all.occupancy == std::clamp(float(sum), model.clampMin, model.clampMax));
    CHECK(exactLogOdds(all) == Approx(sum).margin(1e-9));
  }
  SECTION("one observed input keeps its bits, none stays unobserved with no remainder") {
    const ExactVoxel kept = mergedVoxel({{kUnobserved, 0}, {1e-10f, 7}});
    CHECK(std::bit_cast<uint32_t>(kept.occupancy) == std::bit_cast<uint32_t>(1e-10f));
    CHECK(kept.remainder == 7);
    const ExactVoxel none = mergedVoxel({{kUnobserved, 0}, {kUnobserved, 5}});
    CHECK(std::isinf(none.occupancy));
    CHECK(none.remainder == 0);
  }
  SECTION("a sum past what the remainder holds is refused, not wrapped") {
    OccupancyModel wide = model;
    wide.clampMin = -4e6f, wide.clampMax = 4e6f;
    CHECK_THROWS_WITH(mergedVoxel({{3.9e6f, 0}, {3.9e6f, 0}}, wide), Catch::Contains("exact log-odds sum"));
    CHECK_THROWS_WITH(mergedVoxel({{5e6f, 0}, {1.0f, 0}}, wide), Catch::Contains("log-odds"));
  }
}

namespace {

// A small synthetic lidar run cut in three thirds by time on batch boundaries (65,536 rays),
// each mapped in the same batches as in the whole run.
struct Thirds {
  std::array<OccupancyMap, 3> parts;
  OccupancyMap whole;
};
const Thirds& thirds() {
  static const Thirds t = [] {
    const std::vector<Ray> rays = vt::occupancy::smallLidarRun(12);
    REQUIRE(rays.size() == 3 * 65536);
    Thirds t;
    for (size_t k = 0; k < 3; ++k)
      t.parts[k] = vt::occupancy::runCpu(std::vector<Ray>(rays.begin() + k * 65536, rays.begin() + (k + 1) * 65536), {}).map;
    t.whole = vt::occupancy::runCpu(rays, {}).map;
    return t;
  }();
  return t;
}

}  // namespace

// The case: a run cut in three by time, merged in every grouping. Every layer but the
// NDT ones is exactly associative: occupancy through the exact sum and its remainder, counts
// and lengths as integer sums, means as integer sums (while they fit u32), touch time as a
// maximum.
TEST_CASE("merging is associative: every grouping of three thirds of a run gives the same bytes", "[merge]") {
  vt::TempDir dir("merge-associative");
  const Thirds& t = thirds();
  for (size_t k = 0; k < 3; ++k) saveMap(t.parts[k], dir / (std::string(1, char('a' + k)) + ".vxm"));
  const auto merge = [&](std::vector<std::string> in, const std::string& out) {
    std::vector<std::filesystem::path> paths;
    for (const std::string& name : in) paths.push_back(dir / name);
    mergeMaps(paths, dir / out);
    return fileBytes(dir / out);
  };
  merge({"a.vxm", "b.vxm"}, "ab.vxm");
  merge({"b.vxm", "c.vxm"}, "bc.vxm");
  merge({"a.vxm", "c.vxm"}, "ac.vxm");
  const std::string all = merge({"a.vxm", "b.vxm", "c.vxm"}, "abc.vxm");
  CHECK(merge({"ab.vxm", "c.vxm"}, "ab_c.vxm") == all);
  CHECK(merge({"a.vxm", "bc.vxm"}, "a_bc.vxm") == all);
  CHECK(merge({"ac.vxm", "b.vxm"}, "ac_b.vxm") == all);
  CHECK(merge({"c.vxm", "ab.vxm"}, "c_ab.vxm") == all);
  // Through stores (a merged store as an input, a store output) the same map.
  merge({"b.vxm", "c.vxm"}, "bc.vxs");
  merge({"bc.vxs", "a.vxm"}, "bc_a.vxs");
  saveMap(loadMapFromStore(dir / "bc_a.vxs"), dir / "bc_a.vxm");
  CHECK(fileBytes(dir / "bc_a.vxm") == all);

  // The case is one where clamping matters: voxels whose exact sum is outside the clamp range.
  const OccupancyMap merged = loadMap(dir / "abc.vxm");
  REQUIRE(merged.layout().has(kOccupancyRemainderLayer));
  const OccupancyModel& model = merged.model();
  uint64_t clamped = 0, rounded = 0;
  for (const auto& [key, region] : merged.regions()) {
    const auto occupancy = region.occupancy();
    const auto remainder = region.values<int64_t>(kOccupancyRemainderLayer);
    for (size_t i = 0; i < occupancy.size(); ++i) {
      if (remainder[i] == 0) continue;
      REQUIRE(isObserved(occupancy[i]));
      (occupancy[i] == model.clampMin || occupancy[i] == model.clampMax ? clamped : rounded) += 1;
    }
  }
  INFO("voxels clamped " << clamped << ", rounded " << rounded);
  CHECK(clamped > 100);
}

// What the merge of the thirds keeps of the whole run: every layer but occupancy exactly (sums
// and maxima of per-ray contributions); occupancy bit for bit in every voxel one third alone
// observed; elsewhere the whole run clamped each update in sequence where the merge adds the
// thirds' clamped values once, so they agree to within the clamping (measured below).
TEST_CASE("three thirds of a run merge into the whole run's map: exact where one third observed a voxel", "[merge]") {
  vt::TempDir dir("merge-thirds");
  const Thirds& t = thirds();
  for (size_t k = 0; k < 3; ++k) saveMap(t.parts[k], dir / (std::to_string(k) + ".vxm"));
  mergeMaps({dir / "0.vxm", dir / "1.vxm", dir / "2.vxm"}, dir / "merged.vxm");
  const OccupancyMap merged = loadMap(dir / "merged.vxm");
  const OccupancyModel& model = t.whole.model();
  REQUIRE(merged.regions().size() == t.whole.regions().size());
  uint64_t alone = 0, shared = 0, sameBits = 0, sameClass = 0;
  double largest = 0.0;
  for (const auto& [key, region] : t.whole.regions()) {
    const Region* m = merged.findRegion(key);
    REQUIRE(m);
    for (const LayerId id : {kVoxelMeanLayer, kTraversalLayer, kHitMissLayer, kTouchTimeLayer}) {
      INFO("layer " << layerType(id).name);
      REQUIRE(m->layers[id] == region.layers[id]);
    }
    for (size_t i = 0; i < region.occupancy().size(); ++i) {
      int observers = 0;
      for (const OccupancyMap& part : t.parts) {
        const Region* p = part.findRegion(key);
        observers += p && isObserved(p->occupancy()[i]);
      }
      const float w = region.occupancy()[i], v = m->occupancy()[i];
      REQUIRE(isObserved(w) == isObserved(v));
      if (!isObserved(w)) continue;
      if (observers == 1) {
        ++alone;
        REQUIRE(std::bit_cast<uint32_t>(w) == std::bit_cast<uint32_t>(v));
        continue;
      }
      ++shared;
      sameBits += std::bit_cast<uint32_t>(w) == std::bit_cast<uint32_t>(v);
      sameClass += (w >= model.thresholdValue()) == (v >= model.thresholdValue());
      largest = std::max(largest, double(std::abs(w - v)));
    }
  }
  INFO("alone " << alone << ", shared " << shared << ", same bits " << sameBits << ", same class " << sameClass << ", largest "
                << largest);
  CHECK(alone > 1000);
  CHECK(shared > 1000);
  // Measured: 102,330 of 102,422 shared voxels classified alike (99.91 %), 68,468 the same
  // bits, the largest difference 4.82 (a voxel the whole run held at a clamp that the thirds
  // did not reach): never more than the clamp range's width.
  CHECK(double(sameClass) >= 0.995 * double(shared));
  CHECK(double(sameBits) >= 0.5 * double(shared));
  CHECK(largest <= double(model.clampMax) - double(model.clampMin));
}

TEST_CASE("two halves of a run merge into the whole run's map where they do not overlap", "[merge]") {
  vt::TempDir dir("merge-halves");
  const Halves& h = halves();
  saveMap(h.first, dir / "first.vxm");
  saveMap(h.second, dir / "second.vxm");
  mergeMaps({dir / "first.vxm", dir / "second.vxm"}, dir / "merged.vxm");
  const OccupancyMap merged = loadMap(dir / "merged.vxm");
  // The halves share regions: the merge keeps what its clamping and rounding left out.
  REQUIRE(merged.layout() == MapLayout::of(h.whole.layout().optionalLayers() | kOccupancyRemainderLayer));
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
      const auto remainder = m->values<int64_t>(kOccupancyRemainderLayer);
      REQUIRE(std::all_of(remainder.begin(), remainder.end(), [](int64_t r) { return r == 0; }));
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
