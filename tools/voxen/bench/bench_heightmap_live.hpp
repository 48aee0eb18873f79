#pragma once
// `voxen bench heightmap --live` (bench_heightmap_live.cpp): the heightmap kept current scan by
// scan while the README run is mapped, beside the whole heightmap computed again.
#include "cli_options.hpp"

namespace voxen::cli {

struct BenchHeightmapLiveArgs {
  int scans = 100;  // the README run's
  int probes = 5;   // the last scans, after each of which the update is timed
};

int benchHeightmapLive(const CommonOptions& options, const BenchHeightmapLiveArgs& args);

}  // namespace voxen::cli
