#include "report/error_report.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <iostream>

#include <sys/resource.h>

#include "report/json_output.hpp"
#include "voxen/store/store_name.hpp"

namespace voxen::cli {

namespace {

bool isNumber(const std::string& word) {
  double value = 0.0;
  const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), value);
  return ec == std::errc() && end == word.data() + word.size();
}

// The argument the message is about: the one it starts with, followed by ':' (the library's
// "path: ..." and "path:line: ..." forms), else one it quotes ("cannot open map file
// 'a.vxm'"); the longest such argument, or empty.
std::string fileNamedBy(const std::string& message, const std::vector<std::string>& args) {
  std::string leading, quoted;
  for (const auto& arg : args) {
    std::string path = arg;
    if (const size_t eq = arg.find('='); arg.starts_with("--") && eq != std::string::npos) path = arg.substr(eq + 1);
    if (path.empty() || path.starts_with("-") || isNumber(path)) continue;  // a flag or a flag's value
    if (path.size() > leading.size() && message.starts_with(path) && message.size() > path.size() &&
        message[path.size()] == ':')
      leading = path;
    const bool looksLikePath = path.find_first_of("./") != std::string::npos;
    if (looksLikePath && path.size() > quoted.size() && message.find("'" + path + "'") != std::string::npos)
      quoted = path;
  }
  return leading.empty() ? quoted : leading;
}

// The line number after "file:", or 0.
long lineAfter(const std::string& message, const std::string& file) {
  size_t i = file.size() + 1;
  long line = 0;
  const size_t start = i;
  while (i < message.size() && std::isdigit(static_cast<unsigned char>(message[i])) && line < 1000000000L)
    line = line * 10 + (message[i++] - '0');
  return i > start && i < message.size() && message[i] == ':' ? line : 0;
}

}  // namespace

std::string outOfMemoryMessage(const std::string& what) {
  std::string limit;
  rlimit as{};
  if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY)
    limit = "; this process may use at most " + std::to_string(uint64_t(as.rlim_cur) >> 20) +
            " MiB of address space (ulimit -v)";
  return "out of memory: an allocation failed (" + what + ") that this command does not name" + limit +
         ". Give smaller inputs or sizes (a lower --memory-budget where the command has one makes it refuse sizes "
         "before allocating), or run where more memory is free";
}

bool wantsJson(const std::vector<std::string>& args) {
  for (const auto& arg : args) {
    if (arg == "--") break;
    if (arg == "--json") return true;
  }
  return false;
}

namespace {

// The last guard on a store's password: the commands name stores through redactedStoreName,
// but a message from deep in a library (a map file reader handed a URL) may quote an argument
// as the user wrote it.
std::string withoutArgumentSecrets(std::string message, const std::vector<std::string>& args) {
  for (const std::string& arg : args) {
    const size_t eq = arg.find('=');
    message = withoutStoreSecrets(message, arg.starts_with("--") && eq != std::string::npos ? arg.substr(eq + 1) : arg);
  }
  return message;
}

}  // namespace

void printError(const ErrorReport& given, bool json, const std::vector<std::string>& args) {
  ErrorReport report = given;
  report.message = withoutArgumentSecrets(report.message, args);
  report.hint = withoutArgumentSecrets(report.hint, args);
  if (!json) {
    std::cerr << "voxen" << (report.command.empty() ? "" : " " + report.command) << ": "
              << (report.usage ? "" : "error: ") << report.message << "\n";
    if (!report.hint.empty()) std::cerr << report.hint << "\n";
    return;
  }
  Json out;
  out["error"] = report.message;
  if (!report.command.empty()) out["command"] = report.command;
  // A usage error is about a flag or a command, not a file.
  if (const std::string file = report.usage ? std::string() : fileNamedBy(report.message, args); !file.empty()) {
    out["file"] = redactedStoreName(file);
    if (const long line = lineAfter(report.message, file); line > 0) out["line"] = line;
  }
  out["exit_status"] = report.exitStatus;
  std::fflush(stdout);
  printJson(out);
  std::fflush(stdout);
}

}  // namespace voxen::cli
