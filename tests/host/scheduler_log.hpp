#pragma once
// Reading the scheduler's recording log in tests: as hazard-oracle input, as text for
// failure messages, and by command name.
#include <string>
#include <vector>

#include "support/hazard_oracle.hpp"
#include "voxen/host/scheduler.hpp"

namespace vt {

inline std::vector<OracleCommand> oracleView(const std::vector<voxen::RecordedCommand>& log) {
  std::vector<OracleCommand> commands;
  for (const auto& c : log) commands.push_back({c.name, c.stage, c.accesses, c.barrierBefore});
  return commands;
}

inline std::string dump(const std::vector<voxen::RecordedCommand>& log) {
  std::string text;
  for (size_t i = 0; i < log.size(); ++i) {
    const auto& b = log[i].barrierBefore;
    text += "\n  #" + std::to_string(i) + " " + log[i].name + " [" + stageName(log[i].stage) + "]";
    if (!b.empty()) text += "  barrier " + stageName(b.srcStages) + " -> " + stageName(b.dstStages);
  }
  return text;
}

// The first command named `name` (nullptr if none); its position in `index`.
inline const voxen::RecordedCommand* find(const std::vector<voxen::RecordedCommand>& log, const std::string& name,
                                          size_t* index = nullptr) {
  for (size_t i = 0; i < log.size(); ++i)
    if (log[i].name == name) {
      if (index) *index = i;
      return &log[i];
    }
  return nullptr;
}

inline bool hasBits(VkFlags set, VkFlags bits) { return (set & bits) == bits; }

// Every hazard in the log covered, every conflicting pair ordered, no barrier on fresh bytes.
inline std::vector<std::string> oracleProblems(const std::vector<voxen::RecordedCommand>& log) {
  const auto commands = oracleView(log);
  std::vector<std::string> problems = checkDirectBarriers(commands);
  for (auto& p : checkChains(commands)) problems.push_back(std::move(p));
  for (auto& p : checkNoSpuriousBarriers(commands)) problems.push_back(std::move(p));
  return problems;
}

}  // namespace vt
