#pragma once
// A progress line on stderr for long work: done/total, rate and ETA, redrawn in place on a
// terminal (at most 5 times a second) and printed as a plain line every 5 s otherwise. Counts carry
// thousands separators and the rate three significant digits ("82,700 rays/s").
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

#include "voxen/host/number_text.hpp"

namespace voxen::cli {

class Progress {
 public:
  // `unit` names what is counted ("rays", "regions"): the rate is per second of it.
  Progress(std::string what, uint64_t total, bool enabled = true, const char* unit = "rays")
      : what_(std::move(what)), total_(total), enabled_(enabled), tty_(isatty(STDERR_FILENO)), unit_(unit) {}

  void update(uint64_t done) {
    if (!enabled_) return;
    const auto now = Clock::now();
    const double sinceDraw = std::chrono::duration<double>(now - lastDraw_).count();
    if (sinceDraw < (tty_ ? 0.2 : 5.0)) return;
    lastDraw_ = now;
    draw(done, false);
  }
  void finish(uint64_t done) {
    if (enabled_) draw(done, true);
  }

 private:
  using Clock = std::chrono::steady_clock;
  void draw(uint64_t done, bool last) {
    const double seconds = std::chrono::duration<double>(Clock::now() - start_).count();
    const double rate = seconds > 0 ? double(done) / seconds : 0.0;
    char line[256];
    if (total_ > 0) {
      const double fraction = std::min(1.0, double(done) / double(total_));
      const int filled = int(fraction * 30);
      const double eta = rate > 0 ? double(total_ - std::min(done, total_)) / rate : 0.0;
      std::snprintf(line, sizeof line, "%s [%-30s] %5.1f%%  %s %s/s  ETA %s s", what_.c_str(),
                    std::string(filled, '#').c_str(), fraction * 100.0, formatSignificant(rate).c_str(), unit_,
                    formatCount(uint64_t(std::llround(eta))).c_str());
    } else {
      std::snprintf(line, sizeof line, "%s %s  %s %s/s", what_.c_str(), formatCount(done).c_str(),
                    formatSignificant(rate).c_str(), unit_);
    }
    if (tty_)
      std::fprintf(stderr, "\r%s\033[K%s", line, last ? "\n" : "");
    else
      std::fprintf(stderr, "%s\n", line);
    std::fflush(stderr);
  }

  std::string what_;
  uint64_t total_;
  bool enabled_, tty_;
  const char* unit_;
  Clock::time_point start_ = Clock::now(), lastDraw_ = Clock::now();
};

}  // namespace voxen::cli
