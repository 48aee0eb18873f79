#pragma once
// What a MapSnapshot shares between its copies: the frozen map, its version, and the query
// lane of the Mapper that published it.
#include <memory>

#include "query_lane.hpp"
#include "voxen/map_snapshot.hpp"

namespace voxen {

struct MapSnapshot::State {
  std::shared_ptr<const OccupancyMap> map;
  uint64_t version = 0;
  std::shared_ptr<QueryLane> lane;
};

}  // namespace voxen
