#pragma once
// Small helpers shared by the test files: the message of the voxen::Error a call throws,
// and little-endian byte strings for binary fixtures.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>

#include "voxen/host/error.hpp"

namespace vt {

// The message of the voxen::Error that f() throws; fails the test when it throws nothing.
template <typename F>
std::string errorOf(F&& f) {
  try {
    f();
  } catch (const voxen::Error& e) {
    return e.what();
  }
  FAIL("expected a voxen::Error");
  return {};
}

// Little-endian bytes for binary fixtures.
struct Bytes {
  std::string data;
  template <typename T>
  Bytes& put(T v) {
    char tmp[sizeof(T)];
    std::memcpy(tmp, &v, sizeof(T));
    data.append(tmp, sizeof(T));
    return *this;
  }
};

}  // namespace vt
