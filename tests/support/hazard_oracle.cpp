#include "support/hazard_oracle.hpp"

#include <algorithm>
#include <set>
#include <sstream>

namespace vt {

namespace {

bool contains(VkFlags set, VkFlags subset) { return (set & subset) == subset; }

using voxen::ResourceAccess;
using Intervals = std::vector<std::pair<uint64_t, uint64_t>>;  // sorted, disjoint [begin, end)

void addInterval(Intervals& set, uint64_t begin, uint64_t end) {
  set.emplace_back(begin, end);
  std::sort(set.begin(), set.end());
  Intervals merged;
  for (const auto& [b, e] : set) {
    if (!merged.empty() && b <= merged.back().second)
      merged.back().second = std::max(merged.back().second, e);
    else
      merged.emplace_back(b, e);
  }
  set.swap(merged);
}

// Whether some byte of [begin, end) lies outside `set`.
bool leavesUncovered(const Intervals& set, uint64_t begin, uint64_t end) {
  uint64_t cursor = begin;
  for (const auto& [b, e] : set) {
    if (b > cursor) break;
    cursor = std::max(cursor, e);
    if (cursor >= end) return false;
  }
  return cursor < end;
}

enum class Hazard { None, RAW, WAW, WAR };

// The hazards of access `j` against an earlier overlapping access `i` (a read-write access
// after a write is both RAW and WAW, and needs what both need).
std::vector<Hazard> hazards(const ResourceAccess& i, const ResourceAccess& j) {
  std::vector<Hazard> list;
  if (!i.overlaps(j)) return list;
  if (i.write && j.read) list.push_back(Hazard::RAW);
  if (i.write && j.write) list.push_back(Hazard::WAW);
  if (i.read && j.write) list.push_back(Hazard::WAR);
  return list;
}

const char* hazardName(Hazard h) {
  switch (h) {
    case Hazard::RAW: return "read-after-write";
    case Hazard::WAW: return "write-after-write";
    case Hazard::WAR: return "write-after-read";
    default: return "none";
  }
}

std::string describeCommand(const std::vector<OracleCommand>& commands, size_t index) {
  const auto& c = commands[index];
  std::ostringstream out;
  out << "#" << index << " '" << c.name << "' " << stageName(c.stage) << " {";
  for (const auto& a : c.accesses) {
    out << " r" << a.resource << (a.read && a.write ? ":rw" : a.write ? ":w" : ":r");
    if (a.offset != 0 || a.size != ResourceAccess::kWholeResource) out << "[" << a.offset << "," << a.end() << ")";
  }
  out << " } barrier before: ";
  if (c.barrierBefore.empty())
    out << "none";
  else
    out << stageName(c.barrierBefore.srcStages) << " -> " << stageName(c.barrierBefore.dstStages) << " srcAccess 0x"
        << std::hex << c.barrierBefore.srcAccess << " dstAccess 0x" << c.barrierBefore.dstAccess << std::dec;
  return out.str();
}

std::string describeAll(const std::vector<OracleCommand>& commands) {
  std::string text;
  for (size_t k = 0; k < commands.size(); ++k) text += "\n    " + describeCommand(commands, k);
  return text;
}

}  // namespace

std::string stageName(VkPipelineStageFlags stages) {
  if (stages == 0) return "NONE";
  std::string text;
  auto add = [&](VkPipelineStageFlags bit, const char* name) {
    if (stages & bit) {
      text += text.empty() ? "" : "|";
      text += name;
      stages &= ~bit;
    }
  };
  add(VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, "COMPUTE");
  add(VK_PIPELINE_STAGE_TRANSFER_BIT, "TRANSFER");
  add(VK_PIPELINE_STAGE_HOST_BIT, "HOST");
  add(VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT, "INDIRECT");
  add(VK_PIPELINE_STAGE_VERTEX_SHADER_BIT, "VERTEX");
  add(VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT, "FRAGMENT");
  add(VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, "TOP");
  add(VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, "BOTTOM");
  add(VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, "ALL");
  if (stages) text += (text.empty() ? "0x" : "|0x") + std::to_string(stages);
  return text;
}

std::vector<std::string> checkDirectBarriers(const std::vector<OracleCommand>& commands) {
  std::vector<std::string> problems;
  for (size_t j = 0; j < commands.size(); ++j) {
    for (const ResourceAccess& aj : commands[j].accesses) {
      // Walk back from j. `shadow`: bytes of aj's range written by commands between i and j;
      // where they cover the overlap, j depends on the nearer write, not on i.
      Intervals shadow;
      for (size_t i = j; i-- > 0 && leavesUncovered(shadow, aj.offset, aj.end());) {
        for (const ResourceAccess& ai : commands[i].accesses) {
          const std::vector<Hazard> found = hazards(ai, aj);
          if (found.empty() || !leavesUncovered(shadow, std::max(ai.offset, aj.offset), std::min(ai.end(), aj.end())))
            continue;
          for (Hazard h : found) {
            bool covered = false;
            for (size_t k = i + 1; k <= j && !covered; ++k) {
              const voxen::Barrier& b = commands[k].barrierBefore;
              if (b.empty()) continue;
              bool ok = contains(b.srcStages, commands[i].stage) && contains(b.dstStages, commands[j].stage);
              if (h == Hazard::RAW || h == Hazard::WAW) ok = ok && contains(b.srcAccess, voxen::writeAccessOf(commands[i].stage));
              if (h == Hazard::RAW) ok = ok && contains(b.dstAccess, voxen::readAccessOf(commands[j].stage));
              covered = ok;
            }
            if (!covered)
              problems.push_back(std::string(hazardName(h)) + " on resource " + std::to_string(aj.resource) + " between #" +
                                 std::to_string(i) + " and #" + std::to_string(j) + " has no covering barrier; commands:" +
                                 describeAll(commands));
          }
        }
        for (const ResourceAccess& ai : commands[i].accesses)
          if (ai.write && ai.overlaps(aj)) addInterval(shadow, std::max(ai.offset, aj.offset), std::min(ai.end(), aj.end()));
      }
    }
  }
  return problems;
}

std::vector<std::string> checkChains(const std::vector<OracleCommand>& commands) {
  std::vector<std::string> problems;
  for (size_t j = 0; j < commands.size(); ++j) {
    for (size_t i = 0; i < j; ++i) {
      bool conflict = false;
      uint64_t resource = 0;
      for (const ResourceAccess& aj : commands[j].accesses)
        for (const ResourceAccess& ai : commands[i].accesses)
          if (!hazards(ai, aj).empty()) conflict = true, resource = aj.resource;
      if (!conflict) continue;
      // Stages that run after i by some chain of the barriers placed in (i, j].
      VkPipelineStageFlags after = 0;
      for (size_t k = i + 1; k <= j; ++k) {
        const voxen::Barrier& b = commands[k].barrierBefore;
        if (b.empty()) continue;
        if (contains(b.srcStages, commands[i].stage) || (b.srcStages & after)) after |= b.dstStages;
      }
      if (!contains(after, commands[j].stage))
        problems.push_back(std::string("#").append(std::to_string(j)) + " is not ordered after #" + std::to_string(i) +
                           " (conflicting access to resource " + std::to_string(resource) + "); commands:" +
                           describeAll(commands));
    }
  }
  return problems;
}

std::vector<std::string> checkNoSpuriousBarriers(const std::vector<OracleCommand>& commands) {
  std::vector<std::string> problems;
  for (size_t j = 0; j < commands.size(); ++j) {
    bool fresh = true;
    for (size_t i = 0; i < j && fresh; ++i)
      for (const ResourceAccess& ai : commands[i].accesses)
        for (const ResourceAccess& aj : commands[j].accesses)
          if (ai.overlaps(aj)) fresh = false;
    if (fresh && !commands[j].barrierBefore.empty())
      problems.push_back(std::string("#").append(std::to_string(j)) +
                         " touches only bytes no earlier command used, yet got a barrier; commands:" + describeAll(commands));
  }
  return problems;
}

}  // namespace vt
