// RayLoadStats and RayReadTimes add up with operator+= (issue 36, item 5): the reader sums
// its chunks' counts and times through them. Every count is summed, and the time span is
// the union of the spans of the operands that have rays (an empty chunk's zeros are not a
// time).
#include <catch2/catch.hpp>

#include "voxen/input/ray_source.hpp"

using namespace voxen;

TEST_CASE("RayLoadStats += sums every count", "[input][stats]") {
  RayLoadStats a{.points = 1, .rays = 2, .skippedNonFinite = 3, .skippedOutsideTrajectory = 4, .skippedBackwards = 5,
                 .skippedInBox = 6, .skippedNearSensor = 7, .nonFiniteIntensity = 8};
  a += RayLoadStats{.points = 10, .rays = 20, .skippedNonFinite = 30, .skippedOutsideTrajectory = 40,
                    .skippedBackwards = 50, .skippedInBox = 60, .skippedNearSensor = 70, .nonFiniteIntensity = 80};
  CHECK(a.points == 11);
  CHECK(a.rays == 22);
  CHECK(a.skippedNonFinite == 33);
  CHECK(a.skippedOutsideTrajectory == 44);
  CHECK(a.skippedBackwards == 55);
  CHECK(a.skippedInBox == 66);
  CHECK(a.skippedNearSensor == 77);
  CHECK(a.nonFiniteIntensity == 88);
}

TEST_CASE("RayLoadStats += spans the times of the rays on both sides", "[input][stats]") {
  RayLoadStats total;
  total += RayLoadStats{.points = 5};  // no rays: no time span
  CHECK(total.timeMin == 0.0);
  CHECK(total.timeMax == 0.0);
  total += RayLoadStats{.rays = 1, .timeMin = 5.0, .timeMax = 6.0};  // the first rays set it, 0 is not a time
  CHECK(total.timeMin == 5.0);
  CHECK(total.timeMax == 6.0);
  total += RayLoadStats{.rays = 1, .timeMin = 4.0, .timeMax = 5.5};
  CHECK(total.timeMin == 4.0);
  CHECK(total.timeMax == 6.0);
  total += RayLoadStats{.rays = 1, .timeMin = 5.0, .timeMax = 9.0};
  CHECK(total.timeMin == 4.0);
  CHECK(total.timeMax == 9.0);
  total += RayLoadStats{.points = 3, .timeMin = -100.0, .timeMax = 100.0};  // no rays: its times are not looked at
  CHECK(total.timeMin == 4.0);
  CHECK(total.timeMax == 9.0);
  CHECK(total.rays == 3);
}

TEST_CASE("RayReadTimes += sums every time", "[input][stats]") {
  RayReadTimes t{.readSeconds = 1, .originSeconds = 2, .waitSeconds = 3};
  t += RayReadTimes{.readSeconds = 10, .originSeconds = 20, .waitSeconds = 30};
  CHECK(t.readSeconds == 11);
  CHECK(t.originSeconds == 22);
  CHECK(t.waitSeconds == 33);
}
