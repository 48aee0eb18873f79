#include "output_checks.hpp"

#include "cli_options.hpp"
#include "voxen/host/error.hpp"

namespace voxen::cli {

void checkOutputs(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs) {
  try {
    checkOutputPaths(outputs, inputs);
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
}

}  // namespace voxen::cli
