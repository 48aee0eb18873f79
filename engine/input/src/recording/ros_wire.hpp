#pragma once
// The two wire formats of ROS messages, primitive by primitive: ROS 1 (little-endian, packed,
// strings without NUL) and XCDR1 (an encapsulation header, each primitive aligned to its size
// from the end of that header, strings with their NUL, either byte order). Message layouts
// live in ros_messages.cpp; this file knows nothing of them.
#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "voxen/host/error.hpp"
#include "voxen/input/ros_messages.hpp"

namespace voxen::ros::wire {

template <typename T>
T byteSwapped(T v) {
  uint8_t b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  for (size_t i = 0; i < sizeof(T) / 2; ++i) std::swap(b[i], b[sizeof(T) - 1 - i]);
  std::memcpy(&v, b, sizeof(T));
  return v;
}

class Reader {
 public:
  // Reads the CDR encapsulation header when `encoding` is Cdr.
  Reader(std::span<const uint8_t> bytes, MessageEncoding encoding, const std::string& where);

  uint8_t u8(const char* what) { return get<uint8_t>(what); }
  bool boolean(const char* what) { return get<uint8_t>(what) != 0; }
  uint32_t u32(const char* what) { return get<uint32_t>(what); }
  int32_t i32(const char* what) { return get<int32_t>(what); }
  double f64(const char* what) { return get<double>(what); }
  std::string string(const char* what);
  // A sequence's element count, refused when even `minElementBytes` per element would run
  // past the end (so a corrupt count never reserves gigabytes).
  uint32_t count(const char* what, size_t minElementBytes);
  // `n` raw bytes, in place.
  std::span<const uint8_t> bytes(size_t n, const char* what);
  int64_t rosTimeNs(const char* what);  // ROS 1 time (uint32 sec, uint32 nsec) or CDR Time (int32, uint32)

  [[noreturn]] void fail(const std::string& why) const;
  const std::string& where() const { return where_; }

 private:
  template <typename T>
  T get(const char* what) {
    align(sizeof(T));
    need(sizeof(T), what);
    T v;
    std::memcpy(&v, bytes_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return swap_ ? byteSwapped(v) : v;
  }
  void align(size_t n) {
    if (cdr_) pos_ += (n - (pos_ - 4) % n) % n;
  }
  void need(size_t n, const char* what) const;

  std::span<const uint8_t> bytes_;
  std::string where_;
  size_t pos_ = 0;
  bool cdr_ = false, swap_ = false;
};

class Writer {
 public:
  // Writes the CDR encapsulation header when `encoding` is Cdr.
  Writer(MessageEncoding encoding, bool bigEndianCdr);

  void u8(uint8_t v) { put(v); }
  void boolean(bool v) { put(uint8_t(v ? 1 : 0)); }
  void u32(uint32_t v) { put(v); }
  void i32(int32_t v) { put(v); }
  void f64(double v) { put(v); }
  void string(const std::string& s);
  void bytes(std::span<const uint8_t> b);
  void rosTimeNs(int64_t ns);
  std::vector<uint8_t> take() { return std::move(out_); }

 private:
  template <typename T>
  void put(T v) {
    align(sizeof(T));
    if (swap_) v = byteSwapped(v);
    const size_t at = out_.size();
    out_.resize(at + sizeof(T));
    std::memcpy(out_.data() + at, &v, sizeof(T));
  }
  void align(size_t n) {
    if (cdr_) out_.resize(out_.size() + (n - (out_.size() - 4) % n) % n, 0);
  }

  std::vector<uint8_t> out_;
  bool cdr_ = false, swap_ = false;
};

}  // namespace voxen::ros::wire
