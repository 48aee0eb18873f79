#include "recording/ros_wire.hpp"

#include <cstdio>
#include <limits>

namespace voxen::ros::wire {

namespace {

constexpr bool kHostBigEndian = std::endian::native == std::endian::big;

std::string hexByte(uint8_t b) {
  char s[8];
  std::snprintf(s, sizeof s, "0x%02x", b);
  return s;
}

}  // namespace

Reader::Reader(std::span<const uint8_t> bytes, MessageEncoding encoding, const std::string& where)
    : bytes_(bytes), where_(where), cdr_(encoding == MessageEncoding::Cdr) {
  bool bigEndian = false;
  if (cdr_) {
    need(4, "the CDR encapsulation header");
    // Byte 1 is the byte order; byte 0 and the 16 bits above it select XCDR1 plain CDR.
    if (bytes_[0] != 0 || bytes_[1] > 1)
      fail("unknown CDR encapsulation " + hexByte(bytes_[0]) + " " + hexByte(bytes_[1]) +
           " (expected 0x00 0x00 CDR_BE or 0x00 0x01 CDR_LE)");
    bigEndian = bytes_[1] == 0;
    pos_ = 4;
  }
  swap_ = bigEndian != kHostBigEndian;
}

void Reader::fail(const std::string& why) const { throw Error(where_ + ": " + why); }

void Reader::need(size_t n, const char* what) const {
  if (pos_ > bytes_.size() || n > bytes_.size() - pos_)
    fail("the message ends too early: " + std::string(what) + " needs " + std::to_string(n) + " byte" +
         (n == 1 ? "" : "s") + " at byte " + std::to_string(pos_) + " but the message has only " +
         std::to_string(bytes_.size()) + " bytes");
}

std::string Reader::string(const char* what) {
  const uint32_t length = u32(what);
  const std::span<const uint8_t> b = bytes(length, what);
  if (!cdr_) return std::string(b.begin(), b.end());
  // Some writers store an empty string as length 0 rather than a lone NUL.
  if (length == 0) return {};
  if (b.back() != 0)
    fail(std::string(what) + ": the CDR string of " + std::to_string(length) + " bytes ending at byte " +
         std::to_string(pos_) + " does not end in a NUL");
  return std::string(b.begin(), b.end() - 1);
}

uint32_t Reader::count(const char* what, size_t minElementBytes) {
  const uint32_t n = u32(what);
  const size_t left = bytes_.size() - std::min(pos_, bytes_.size());
  if (minElementBytes > 0 && n > left / minElementBytes)
    fail("the message ends too early: " + std::string(what) + " counts " + std::to_string(n) +
         " elements after byte " + std::to_string(pos_) + " but the message has only " +
         std::to_string(bytes_.size()) + " bytes");
  return n;
}

std::span<const uint8_t> Reader::bytes(size_t n, const char* what) {
  need(n, what);
  const auto b = bytes_.subspan(pos_, n);
  pos_ += n;
  return b;
}

int64_t Reader::rosTimeNs(const char* what) {
  const int64_t sec = cdr_ ? int64_t(i32(what)) : int64_t(u32(what));
  const int64_t nsec = int64_t(u32(what));
  return sec * 1000000000 + nsec;
}

Writer::Writer(MessageEncoding encoding, bool bigEndianCdr) : cdr_(encoding == MessageEncoding::Cdr) {
  const bool bigEndian = cdr_ && bigEndianCdr;
  swap_ = bigEndian != kHostBigEndian;
  if (cdr_) out_ = {0x00, uint8_t(bigEndian ? 0x00 : 0x01), 0x00, 0x00};
}

void Writer::string(const std::string& s) {
  u32(uint32_t(s.size() + (cdr_ ? 1 : 0)));
  out_.insert(out_.end(), s.begin(), s.end());
  if (cdr_) out_.push_back(0);
}

void Writer::bytes(std::span<const uint8_t> b) { out_.insert(out_.end(), b.begin(), b.end()); }

void Writer::rosTimeNs(int64_t ns) {
  // Floor division, so a time before the epoch keeps 0 <= nsec < 1e9 as ROS requires.
  int64_t sec = ns / 1000000000, nsec = ns % 1000000000;
  if (nsec < 0) {
    sec -= 1;
    nsec += 1000000000;
  }
  const int64_t lo = cdr_ ? std::numeric_limits<int32_t>::min() : 0;
  const int64_t hi = cdr_ ? std::numeric_limits<int32_t>::max() : std::numeric_limits<uint32_t>::max();
  if (sec < lo || sec > hi)
    throw Error("stamp " + std::to_string(ns) + " ns does not fit the " + (cdr_ ? "CDR" : "ROS 1") + " time's seconds");
  if (cdr_) i32(int32_t(sec));
  else u32(uint32_t(sec));
  u32(uint32_t(nsec));
}

}  // namespace voxen::ros::wire
