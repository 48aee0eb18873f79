#pragma once
// A content fingerprint of a mapping run's input: `voxen map --store` records one for every
// input (the cloud or recording, the trajectory) when the run starts, and `--resume` refuses an
// input whose content has changed since, naming the file. A path and a size do not tell an
// edited coordinate or pose: the fingerprint reads every byte.
//
// The fingerprint is XXH64 (seed 0) of the file's bytes, streamed through a 1 MiB buffer
// (several GB/s, so the cost is the read itself; BENCHMARKS.md, "Mapping into a store"). A
// folder input (PCD files, a KITTI sequence) is fingerprinted over its regular files in path
// order, each file's relative path and size hashed before its bytes, so that a renamed,
// added or removed file changes it too.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <string>

namespace voxen {

// XXH64 with seed 0, fed in pieces of any size.
class Xxh64 {
 public:
  Xxh64();
  void update(std::span<const std::byte> bytes);
  uint64_t digest() const;

 private:
  uint64_t lanes_[4];
  std::byte pending_[32];
  size_t pendingBytes_ = 0;
  uint64_t totalBytes_ = 0;
};

// The bytes a fingerprint of `path` reads: a file's size, or the sum over a folder's files.
uint64_t fingerprintBytes(const std::filesystem::path& path);

// "xxh64 0123456789abcdef" for a file or a folder. `progress` (optional) is called with the
// bytes read so far after each buffer. Throws Error naming the file that cannot be read.
std::string inputFingerprint(const std::filesystem::path& path,
                             const std::function<void(uint64_t bytesRead)>& progress = {});

}  // namespace voxen
