#include "support/hazard_oracle.hpp"

#include <set>
#include <sstream>

namespace vt {

namespace {

bool contains(VkFlags set, VkFlags subset) { return (set & subset) == subset; }

bool reads(const OracleCommand& c, uint64_t resource) {
  for (const auto& a : c.accesses)
    if (a.resource == resource && a.read) return true;
  return false;
}

bool writes(const OracleCommand& c, uint64_t resource) {
  for (const auto& a : c.accesses)
    if (a.resource == resource && a.write) return true;
  return false;
}

std::set<uint64_t> resourcesOf(const OracleCommand& c) {
  std::set<uint64_t> set;
  for (const auto& a : c.accesses) set.insert(a.resource);
  return set;
}

enum class Hazard { None, RAW, WAW, WAR };

// The hazard of j's access to `resource` against i's (write hazards win: a read-write
// command after a write is both RAW and WAW, and needs what WAW and RAW need).
std::vector<Hazard> hazards(const OracleCommand& i, const OracleCommand& j, uint64_t resource) {
  std::vector<Hazard> list;
  if (writes(i, resource) && reads(j, resource)) list.push_back(Hazard::RAW);
  if (writes(i, resource) && writes(j, resource)) list.push_back(Hazard::WAW);
  if (reads(i, resource) && writes(j, resource)) list.push_back(Hazard::WAR);
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
  for (const auto& a : c.accesses)
    out << " r" << a.resource << (a.read && a.write ? ":rw" : a.write ? ":w" : ":r");
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
  add(VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, "TOP");
  add(VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, "BOTTOM");
  add(VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, "ALL");
  if (stages) text += (text.empty() ? "0x" : "|0x") + std::to_string(stages);
  return text;
}

std::vector<std::string> checkDirectBarriers(const std::vector<OracleCommand>& commands) {
  std::vector<std::string> problems;
  for (size_t j = 0; j < commands.size(); ++j) {
    for (uint64_t resource : resourcesOf(commands[j])) {
      // Walk back from j to the nearest earlier write of the resource (inclusive).
      for (size_t i = j; i-- > 0;) {
        for (Hazard h : hazards(commands[i], commands[j], resource)) {
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
            problems.push_back(std::string(hazardName(h)) + " on resource " + std::to_string(resource) + " between #" +
                               std::to_string(i) + " and #" + std::to_string(j) + " has no covering barrier; commands:" +
                               describeAll(commands));
        }
        if (writes(commands[i], resource)) break;  // earlier accesses are ordered through this write
      }
    }
  }
  return problems;
}

std::vector<std::string> checkChains(const std::vector<OracleCommand>& commands) {
  std::vector<std::string> problems;
  for (size_t j = 0; j < commands.size(); ++j) {
    for (uint64_t resource : resourcesOf(commands[j])) {
      for (size_t i = 0; i < j; ++i) {
        if (hazards(commands[i], commands[j], resource).empty()) continue;
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
  }
  return problems;
}

std::vector<std::string> checkNoSpuriousBarriers(const std::vector<OracleCommand>& commands) {
  std::vector<std::string> problems;
  std::set<uint64_t> touched;
  for (size_t j = 0; j < commands.size(); ++j) {
    bool fresh = true;
    for (uint64_t resource : resourcesOf(commands[j]))
      if (touched.count(resource)) fresh = false;
    if (fresh && !commands[j].barrierBefore.empty())
      problems.push_back(std::string("#").append(std::to_string(j)) + " touches only buffers no earlier command used, yet got a barrier; commands:" +
                         describeAll(commands));
    for (uint64_t resource : resourcesOf(commands[j])) touched.insert(resource);
  }
  return problems;
}

}  // namespace vt
