#pragma once
// An independent check of derived barriers: given commands in recording order, each with
// its stage, the buffers it reads and writes and the barrier placed before it, find every
// hazard the barriers fail to cover. Used on BarrierTracker directly (random sequences)
// and on the scheduler's recording log.
//
// Accesses name byte ranges; two accesses conflict only where their ranges overlap.
// For every pair i < j of overlapping accesses to one resource that conflict
// (read-after-write, write-after-write, write-after-read), where some byte of the overlap
// is written by no command strictly between them (otherwise j depends on that nearer
// write instead), some barrier placed before a command k with i < k <= j must have
//   srcStages >= stage(i) and dstStages >= stage(j), and for RAW and WAW also
//   srcAccess >= the write access of stage(i) (the write is made available), and for RAW
//   dstAccess >= the read access of stage(j) (and visible to the reader).
// Pairs with a write in between are then ordered through that write by an execution
// dependency chain; checkChains verifies that too, for every conflicting pair.
#include <volk.h>

#include <string>
#include <vector>

#include "voxen/host/recorded_command.hpp"

namespace vt {

struct OracleCommand {
  std::string name;
  VkPipelineStageFlags stage = 0;
  std::vector<voxen::ResourceAccess> accesses;
  voxen::Barrier barrierBefore;
};

// Descriptions of every uncovered hazard (empty when the barriers are right).
std::vector<std::string> checkDirectBarriers(const std::vector<OracleCommand>& commands);
// Every conflicting pair (adjacent or not) is ordered by a chain of barriers.
std::vector<std::string> checkChains(const std::vector<OracleCommand>& commands);
// Commands whose byte ranges no earlier command touched must get no barrier.
std::vector<std::string> checkNoSpuriousBarriers(const std::vector<OracleCommand>& commands);

std::string stageName(VkPipelineStageFlags stages);

}  // namespace vt
