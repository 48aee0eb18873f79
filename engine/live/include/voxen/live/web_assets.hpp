#pragma once
// The browser page `voxen serve` (and `voxen map --serve`) serves beside its Foxglove
// WebSocket stream, on the same port: its files (web/, with three.js from npm) are bundled
// into the library when it is built (cmake/WebPage.cmake), so a running program needs no
// network and no files. A build made without npm's packages has no page: webPageBuilt() is
// false, webAsset() finds nothing, and webPageMissingReason() says why.
//
// Threads: every function may be called from any thread (the assets are constant data).
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace voxen::live {

struct WebAsset {
  std::string_view contentType;  // "text/html; charset=utf-8", "text/javascript", ...
  std::span<const uint8_t> bytes;
};

// The file at an HTTP request's path ("/" is "/index.html"; a query string is ignored), or
// nullopt when the page has no such file.
std::optional<WebAsset> webAsset(std::string_view path);
bool webPageBuilt();
// Why this build has no page (empty when it has one).
std::string_view webPageMissingReason();

}  // namespace voxen::live
