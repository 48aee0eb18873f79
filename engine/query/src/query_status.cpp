#include "voxen/query/query_types.hpp"

namespace voxen {

const char* queryStatusName(QueryStatus status) {
  switch (status) {
    case QueryStatus::Observed: return "observed";
    case QueryStatus::Unobserved: return "unobserved";
    case QueryStatus::OutOfRange: return "out_of_range";
    case QueryStatus::OutsideMap: return "outside_map";
  }
  return "unknown";
}

}  // namespace voxen
