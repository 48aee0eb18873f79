#include "voxen/input/mcap_compression.hpp"

#include <lz4frame.h>
#include <zstd.h>

#include "voxen/host/error.hpp"

namespace voxen::mcap::format {

std::optional<Compression> compressionFromName(std::string_view name) {
  if (name.empty()) return Compression::None;
  if (name == "zstd") return Compression::Zstd;
  if (name == "lz4") return Compression::Lz4;
  return std::nullopt;
}

const char* compressionName(Compression c) {
  switch (c) {
    case Compression::Zstd: return "zstd";
    case Compression::Lz4: return "lz4";
    default: return "";
  }
}

Decompressor::Decompressor() {}

Decompressor::~Decompressor() {
  if (zstd_) ZSTD_freeDCtx(static_cast<ZSTD_DCtx*>(zstd_));
  if (lz4_) LZ4F_freeDecompressionContext(static_cast<LZ4F_dctx*>(lz4_));
}

void Decompressor::decompress(Compression c, std::span<const uint8_t> src, uint8_t* dst, uint64_t dstBytes,
                              const std::string& where) {
  // Built only on the error paths: the happy path allocates nothing.
  const auto sizes = [&] {
    return " (" + std::to_string(src.size()) + " compressed bytes, " + std::to_string(dstBytes) + " expected)";
  };
  if (c == Compression::Zstd) {
    if (!zstd_) zstd_ = ZSTD_createDCtx();
    if (!zstd_) throw Error(where + ": cannot create a zstd context");
    const size_t n = ZSTD_decompressDCtx(static_cast<ZSTD_DCtx*>(zstd_), dst, size_t(dstBytes), src.data(), src.size());
    if (ZSTD_isError(n))
      throw Error(where + ": zstd data does not decompress: " + ZSTD_getErrorName(n) + sizes());
    if (n != dstBytes)
      throw Error(where + ": zstd data decompresses to " + std::to_string(n) + " bytes, the chunk says " +
                  std::to_string(dstBytes));
    return;
  }
  if (c == Compression::Lz4) {
    if (!lz4_) {
      LZ4F_dctx* ctx = nullptr;
      if (LZ4F_isError(LZ4F_createDecompressionContext(&ctx, LZ4F_VERSION)))
        throw Error(where + ": cannot create an lz4 context");
      lz4_ = ctx;
    }
    auto* ctx = static_cast<LZ4F_dctx*>(lz4_);
    LZ4F_resetDecompressionContext(ctx);  // a corrupt frame earlier may have left it mid-frame
    const uint8_t* in = src.data();
    size_t inLeft = src.size();
    uint64_t out = 0;
    LZ4F_decompressOptions_t options{};
    size_t hint = 1;
    // One call usually does it all; the loop covers frames the library hands back in steps.
    while (inLeft > 0 && hint != 0) {
      size_t outBytes = size_t(dstBytes - out);
      size_t inBytes = inLeft;
      hint = LZ4F_decompress(ctx, dst + out, &outBytes, in, &inBytes, &options);
      if (LZ4F_isError(hint))
        throw Error(where + ": lz4 data does not decompress: " + LZ4F_getErrorName(hint) + sizes());
      if (inBytes == 0 && outBytes == 0) break;  // no progress: the output is full
      in += inBytes;
      inLeft -= inBytes;
      out += outBytes;
    }
    if (hint != 0)
      throw Error(where + ": lz4 frame ends early or holds more than the chunk says" + sizes() + ", " +
                  std::to_string(out) + " decompressed");
    if (out != dstBytes)
      throw Error(where + ": lz4 data decompresses to " + std::to_string(out) + " bytes, the chunk says " +
                  std::to_string(dstBytes));
    return;
  }
  throw Error(where + ": decompress called for uncompressed records");
}

std::string compress(Compression c, std::span<const uint8_t> src) {
  std::string out;
  if (c == Compression::Zstd) {
    out.resize(ZSTD_compressBound(src.size()));
    const size_t n = ZSTD_compress(out.data(), out.size(), src.data(), src.size(), 1);
    if (ZSTD_isError(n)) throw Error(std::string("zstd compression failed: ") + ZSTD_getErrorName(n));
    out.resize(n);
  } else if (c == Compression::Lz4) {
    LZ4F_preferences_t prefs{};
    prefs.frameInfo.contentSize = src.size();
    out.resize(LZ4F_compressFrameBound(src.size(), &prefs));
    const size_t n = LZ4F_compressFrame(out.data(), out.size(), src.data(), src.size(), &prefs);
    if (LZ4F_isError(n)) throw Error(std::string("lz4 compression failed: ") + LZ4F_getErrorName(n));
    out.resize(n);
  } else {
    out.assign(reinterpret_cast<const char*>(src.data()), src.size());
  }
  return out;
}

}  // namespace voxen::mcap::format
