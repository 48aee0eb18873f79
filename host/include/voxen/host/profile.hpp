#pragma once
// Where GPU time went: per pass name, calls and total GPU milliseconds from timestamps.
#include <cstdint>
#include <map>
#include <ostream>
#include <string>

namespace voxen {

struct PassTiming {
  uint64_t calls = 0;
  double totalMs = 0.0;
  bool timed = false;  // false when the device has no timestamps
};

class Profile {
 public:
  void add(const std::string& pass, double ms, bool timed);
  const std::map<std::string, PassTiming>& passes() const { return passes_; }
  // A table: pass, calls, total ms, mean us; sorted by total time.
  void print(std::ostream& out) const;

 private:
  std::map<std::string, PassTiming> passes_;
};

}  // namespace voxen
