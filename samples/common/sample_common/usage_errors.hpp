#pragma once
// The exceptions a sample's command-line parser throws (voxel_painter, transform_scene): main
// prints a UsageError with a hint at --help and exits with 2, and prints HelpRequested's
// what() (the help text) and exits with 0.
#include <stdexcept>

namespace voxen_samples {

// A bad flag or value; the message names the flag.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// --help: what() is the help text.
class HelpRequested : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace voxen_samples
