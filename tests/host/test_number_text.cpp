// Numbers for people (voxen/host/number_text.hpp): the one set of helpers behind the engine's
// messages and the command line's human-readable text (issue 35, item 16).
#include <catch2/catch.hpp>

#include "voxen/host/number_text.hpp"

TEST_CASE("formatCount separates thousands", "[number_text]") {
  CHECK(voxen::formatCount(0) == "0");
  CHECK(voxen::formatCount(999) == "999");
  CHECK(voxen::formatCount(1000) == "1,000");
  CHECK(voxen::formatCount(130964) == "130,964");
  CHECK(voxen::formatCount(18446744073709551615ull) == "18,446,744,073,709,551,615");
}

TEST_CASE("formatNumber and formatFloat print the shortest exact decimal", "[number_text]") {
  CHECK(voxen::formatNumber(0.1) == "0.1");  // not %.17g's 0.10000000000000001 nor 0.100000
  CHECK(voxen::formatNumber(1e-9) == "1e-09");
  CHECK(voxen::formatNumber(3000000000.0) == "3e+09");  // shortest: to_chars picks the exponent
  CHECK(voxen::formatFloat(0.7f) == "0.7");  // a float setting, not the double 0.699999988079071
  CHECK(voxen::formatFloat(3.511f) == "3.511");
  CHECK(voxen::formatFloat(-2.0f) == "-2");
}

TEST_CASE("formatSignificant rounds measurements and separates thousands", "[number_text]") {
  CHECK(voxen::formatSignificant(82734.5) == "82,700");  // not %.3g's 8.27e+04
  CHECK(voxen::formatSignificant(1234567.0) == "1,230,000");
  CHECK(voxen::formatSignificant(-45678.0) == "-45,700");
  CHECK(voxen::formatSignificant(999.7) == "1,000");  // %.3g would say 1e+03
  CHECK(voxen::formatSignificant(12.345) == "12.3");
  CHECK(voxen::formatSignificant(0.0123456) == "0.0123");
  CHECK(voxen::formatSignificant(0.0) == "0");
  CHECK(voxen::formatSignificant(9.999999999, 4) == "10");
  CHECK(voxen::formatSignificant(1e-5) == "1e-05");
  CHECK(voxen::formatSignificant(5e20) == "5e+20");  // beyond 1e15: the shortest exact form
}

TEST_CASE("countText says 1 point and 2 points", "[number_text]") {
  CHECK(voxen::countText(0, "point") == "0 points");
  CHECK(voxen::countText(1, "point") == "1 point");
  CHECK(voxen::countText(2, "point") == "2 points");
  CHECK(voxen::countText(1234, "point") == "1,234 points");
  CHECK(voxen::countText(1, "day", "days") == "1 day");
  CHECK(voxen::countText(3, "match", "matches") == "3 matches");
}
