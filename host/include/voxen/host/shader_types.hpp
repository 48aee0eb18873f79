#pragma once
// The shader types of ShaderLibrary's public interface: variant defines, compile
// diagnostics and a kernel's workgroup size. The compiler itself is internal.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace voxen {

struct ShaderDiagnostic {
  std::string file;  // display name
  int line = 0;      // 1-based; 0 when glslang gave none
  std::string message;
  std::string str() const;  // "file:line: message"
};

using ShaderDefines = std::vector<std::pair<std::string, std::string>>;

// A compute shader's workgroup size ({0,0,0} when set by specialisation constants).
struct LocalSize {
  uint32_t x = 0, y = 0, z = 0;
};

}  // namespace voxen
