// TsdfOptions' checks and record, and a map made ready for TSDF frames.
#include <cmath>
#include <sstream>

#include "voxen/host/setting_error.hpp"
#include "voxen/tsdf/tsdf.hpp"

namespace voxen {

namespace {

[[noreturn]] void invalid(const char* field, const char* words, const std::string& text) {
  throw SettingError(SettingError::Kind::Invalid, std::string("TsdfOptions::") + field, words, text);
}

std::string number(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

}  // namespace

void TsdfOptions::validate(double resolution) const {
  if (!(truncationVoxels >= 1.0 && truncationVoxels <= 64.0))
    invalid("truncationVoxels", "the truncation",
            "{} must be 1 to 64 voxels (got " + number(truncationVoxels) + " voxels, " + number(truncationVoxels * resolution) + " m)");
  if (!(maxWeight >= 1.0 && maxWeight <= 1.0e6))
    invalid("maxWeight", "the largest weight", "{} must be 1 to 1e6 measurements (got " + number(maxWeight) + ")");
  if (!(maxRange > 0) || !std::isfinite(maxRange))
    invalid("maxRange", "the largest depth", "{} must be a positive number of metres (got " + number(maxRange) + ")");
}

std::string TsdfOptions::settingsText() const {
  std::ostringstream s;
  s << "truncation_voxels=" << truncationVoxels << ";max_weight=" << maxWeight
    << ";weighting=" << (weighting == TsdfWeighting::Constant ? "constant" : "linear_drop_off");
  return s.str();
}

void prepareTsdfMap(OccupancyMap& map, const TsdfOptions& options) {
  options.validate(map.model().resolution);
  if (map.regionSize() % gpu::kTsdfBlock != 0)
    throw SettingError(SettingError::Kind::Invalid, "OccupancyModel::regionSize", "the region size",
                       "{} must be a multiple of " + std::to_string(gpu::kTsdfBlock) + " voxels for a TSDF (got " +
                           std::to_string(map.regionSize()) + ")");
  map.addLayer(kTsdfLayer);
  const std::string wanted = options.settingsText(), recorded = map.derivedSettings(kTsdfLayer);
  if (recorded.empty()) {
    map.setDerivedSettings(kTsdfLayer, wanted);
    return;
  }
  if (recorded != wanted)
    throw SettingError(SettingError::Kind::Change, "TsdfOptions::truncationVoxels", "the TSDF settings",
                       "the map's tsdf layer was made with " + recorded + ", these frames would fold with " + wanted +
                           ": use the map's settings for {}, the largest weight and the weighting");
}

}  // namespace voxen
