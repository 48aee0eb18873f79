#pragma once
// The browser page's files as cmake/GenerateWebPage.cmake writes them into the build folder
// (voxen_web_page.cpp, from web/ and three.js in web/node_modules): paths and bytes only.
// web_assets.cpp answers voxen/live/web_assets.hpp's questions from this table.
//
// Threads: constant data, readable from any thread.
#include <cstddef>
#include <span>
#include <string_view>

namespace voxen::live::detail {

struct WebAssetEntry {
  std::string_view path;  // as requested over HTTP: "/index.html", "/three/three.module.js"
  const char* data;
  size_t size;
};

// Every file of the page (empty in a build without it).
std::span<const WebAssetEntry> webAssetEntries();
// Why this build has no page; empty when it has one.
std::string_view webPageMissing();

}  // namespace voxen::live::detail
