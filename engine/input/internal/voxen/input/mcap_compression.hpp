#pragma once
// The chunk compressions MCAP names: none, "zstd" (libzstd) and "lz4" (an LZ4 frame, liblz4).
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace voxen::mcap::format {

enum class Compression : uint8_t { None, Zstd, Lz4 };

std::optional<Compression> compressionFromName(std::string_view name);
const char* compressionName(Compression c);  // "" for none

// Holds the decompression contexts, so that reading chunk after chunk allocates nothing.
class Decompressor {
 public:
  Decompressor();
  ~Decompressor();
  Decompressor(const Decompressor&) = delete;
  Decompressor& operator=(const Decompressor&) = delete;

  // Decompresses all of `src` into exactly `dstBytes` bytes at `dst`; throws Error beginning
  // with `where` when the data is corrupt or gives another size.
  void decompress(Compression c, std::span<const uint8_t> src, uint8_t* dst, uint64_t dstBytes, const std::string& where);

 private:
  void* zstd_ = nullptr;
  void* lz4_ = nullptr;
};

// For the writer: the compressed bytes of `src`.
std::string compress(Compression c, std::span<const uint8_t> src);

}  // namespace voxen::mcap::format
