#pragma once
// NDT's mode and settings (IntegrationOptions::ndt), apart from the rest of NDT
// (voxen/occupancy/ndt.hpp: its layers, covariances and summaries), so that integration
// options name them without the shared GPU formulas and glm's matrices.
#include <cstdint>

namespace voxen {

enum class NdtMode { Off, Om, Tm };
const char* ndtModeName(NdtMode mode);  // "off", "om", "tm"

// Every value a setting; defaults follow OHM except the adaptation rate (see
// docs/architecture.md).
struct NdtModel {
  NdtMode mode = NdtMode::Off;
  double sensorNoise = 0.05;        // metres: standard deviation of a return's range
  double adaptationRate = 0.2;      // eta = rate / 2 scales the free-space update, 0..1
  uint32_t sampleThreshold = 3;     // samples before a voxel's Gaussian shapes its misses
  double resetProbability = 0.2;    // a voxel below this occupancy probability ...
  uint32_t resetSamples = 100;      // ... with this many samples restarts its Gaussian
  double initialDeviation = 0.1;    // x resolution: the standard deviation a new Gaussian starts with
  // Samples one GPU invocation folds before a run continues in the next pass (lavapipe stops
  // an invocation's loops after 65,535 iterations). Not a model setting: any value gives
  // the same map.
  uint32_t foldLimit = 16384;
  // Throws Error naming the field when a value is out of range.
  void validate() const;
};

}  // namespace voxen
