#pragma once
// What `voxen map` says when a run is done: the summary (text, or one JSON object from
// MappingRunStats' fields plus --profile's), the profile, and the warnings on stderr; and the
// words for a run that updated no voxel.
#include <string>

#include "cli_options.hpp"
#include "commands/map/map_args.hpp"
#include "voxen/mapping_run.hpp"

namespace voxen::cli {

// The summary on stdout (--json: one object), --profile's figures, the warnings on stderr.
void reportMapRun(const CommonOptions& options, const MapArgs& args, MappingRun& run, Context& context,
                  const MappingRunStats& stats);

// Why a run updated no voxel, every count that is not 0, for the error that refuses its empty
// map: the points the reader dropped and the rays the integrator rejected, by reason.
std::string emptyMapReasons(const RayLoadStats& load, const IntegrationStats& integrated);

}  // namespace voxen::cli
