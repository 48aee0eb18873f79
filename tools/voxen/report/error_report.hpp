#pragma once
// How the tool prints an error: a line on stderr ("voxen map: error: cloud.ply:12: ..."), or
// with --json one JSON object on stdout, where the run's summary would have been, so a
// program reading the output always gets JSON:
//   {"error": "cloud.ply:12: ...", "command": "map", "file": "cloud.ply", "line": 12, "exit_status": 1}
// "file" (and "line") are given when the message starts with one of the command line's
// arguments, which is how the library's errors name the file they are about, or quotes one
// that looks like a path; never for usage errors, which are about flags.
#include <string>
#include <vector>

namespace voxen::cli {

struct ErrorReport {
  std::string command;  // "map", "bench map"; empty before a command is known
  std::string message;
  int exitStatus = 1;   // 1: the work failed, 2: a usage error
  bool usage = false;   // a usage error: stderr gets "voxen <command>: <message>" without "error:"
  std::string hint;     // a second stderr line, e.g. where to find the options; not in the JSON
};

void printError(const ErrorReport& report, bool json, const std::vector<std::string>& args);

// The message for an allocation failure no command site named (std::bad_alloc, or a
// std::length_error such as "vector::_M_default_append" from a size past what memory holds):
// says that memory ran out, what the exception said, and the process's address-space limit
// (ulimit -v) when one is set. Sites that size memory from an input or a flag name it
// themselves (voxen/host/allocation.hpp); this is the last resort.
std::string outOfMemoryMessage(const std::string& what);

// Whether the arguments ask for --json (also usable before they are parsed).
bool wantsJson(const std::vector<std::string>& args);

}  // namespace voxen::cli
