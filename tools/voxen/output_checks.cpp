#include "output_checks.hpp"

#include "cli_options.hpp"
#include "voxen/host/error.hpp"
#include "voxen/store/store_name.hpp"

namespace voxen::cli {

void checkOutputs(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs) {
  // Never a file named after a connection string and its password.
  for (const NamedPath& output : outputs)
    if (isKeywordConnectionString(output.path))
      throw UsageError(output.name + " '" + redactedStoreName(output.path) + "' is a libpq keyword/value connection string, not a "
                       "file; Voxen names a PostgreSQL store by a URL: postgresql://USER@HOST/DATABASE?...");
  try {
    checkOutputPaths(outputs, inputs);
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
}

}  // namespace voxen::cli
