// voxen/live/web_assets.hpp over the generated table (web_asset_table.hpp): request paths to
// files, and each file's content type from its extension.
#include "voxen/live/web_assets.hpp"

#include "web_asset_table.hpp"

namespace voxen::live {
namespace {

std::string_view contentTypeOf(std::string_view path) {
  struct Type {
    std::string_view extension;
    std::string_view type;
  };
  static constexpr Type types[] = {
      {".html", "text/html; charset=utf-8"}, {".js", "text/javascript; charset=utf-8"},
      {".mjs", "text/javascript; charset=utf-8"}, {".css", "text/css; charset=utf-8"},
      {".json", "application/json"}, {".svg", "image/svg+xml"}, {".png", "image/png"},
      {".ico", "image/x-icon"}, {".wasm", "application/wasm"}};
  for (const Type& t : types)
    if (path.ends_with(t.extension)) return t.type;
  return "application/octet-stream";
}

}  // namespace

std::optional<WebAsset> webAsset(std::string_view path) {
  // A query string or fragment names no other file (browsers send no fragment; be lenient).
  path = path.substr(0, path.find_first_of("?#"));
  if (path.empty() || path == "/") path = "/index.html";
  for (const detail::WebAssetEntry& entry : detail::webAssetEntries()) {
    if (entry.path != path) continue;
    const auto* bytes = reinterpret_cast<const uint8_t*>(entry.data);
    return WebAsset{contentTypeOf(entry.path), std::span<const uint8_t>(bytes, entry.size)};
  }
  return std::nullopt;
}

bool webPageBuilt() { return detail::webPageMissing().empty(); }

std::string_view webPageMissingReason() { return detail::webPageMissing(); }

}  // namespace voxen::live
