#include "voxen/host/profile.hpp"

#include <algorithm>
#include <cstdio>
#include <vector>

namespace voxen {

void Profile::add(const std::string& pass, double ms, bool timed) {
  PassTiming& timing = passes_[pass];
  ++timing.calls;
  timing.totalMs += ms;
  timing.timed = timing.timed || timed;
}

void Profile::print(std::ostream& out) const {
  std::vector<std::pair<std::string, PassTiming>> rows(passes_.begin(), passes_.end());
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.second.totalMs > b.second.totalMs; });
  char line[256];
  std::snprintf(line, sizeof line, "%-32s %10s %12s %12s\n", "pass", "calls", "total ms", "mean us");
  out << line;
  for (const auto& [name, t] : rows) {
    if (t.timed)
      std::snprintf(line, sizeof line, "%-32s %10llu %12.3f %12.1f\n", name.c_str(), (unsigned long long)t.calls, t.totalMs,
                    t.calls ? t.totalMs * 1000.0 / double(t.calls) : 0.0);
    else
      std::snprintf(line, sizeof line, "%-32s %10llu %12s %12s\n", name.c_str(), (unsigned long long)t.calls, "-", "-");
    out << line;
  }
}

}  // namespace voxen
