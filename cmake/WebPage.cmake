# voxen_add_web_page(TARGET): bundles the browser page that `voxen serve` serves (web/: index.html,
# *.css, js/*.js; and three.js with its OrbitControls from web/node_modules, which
# `npm ci --prefix web` installs) into TARGET at build time, as a generated C++ file that
# implements voxen/live/web_assets.hpp (engine/live/web/web_assets.cpp answers from its table).
# A running program needs neither network nor files for the page.
#
# Without web/node_modules/three the generated file holds no page, and says why
# (webPageMissingReason()); the build goes on. The check is redone when that folder appears or
# goes (a CONFIGURE_DEPENDS glob), so `npm ci --prefix web` and a build are enough.
# Sets the global property VOXEN_WEB_PAGE (ON or OFF) for the tests.
#
# Where each file is served (the page's import map names the three.js paths):
#   web/index.html, web/style.css, web/js/x.js     -> /index.html, /style.css, /js/x.js
#   node_modules/three/build/three.{module,core}.js -> /three/three.{module,core}.js
#   node_modules/three/examples/jsm/controls/OrbitControls.js -> /three/addons/controls/OrbitControls.js
set(_voxen_web_root ${CMAKE_CURRENT_LIST_DIR}/..)

function(_voxen_web_page_files ROOT URLS_VAR FILES_VAR MISSING_VAR)
  set(_web ${ROOT}/web)
  file(GLOB _page CONFIGURE_DEPENDS RELATIVE ${_web} ${_web}/*.html ${_web}/*.css ${_web}/js/*.js)
  # Only three's package.json is globbed: a glob into node_modules would walk thousands of
  # files at every build. Its appearing or going reconfigures.
  file(GLOB _three_package CONFIGURE_DEPENDS ${_web}/node_modules/three/package.json)
  set(_three
    "/three/three.module.js|node_modules/three/build/three.module.js"
    "/three/three.core.js|node_modules/three/build/three.core.js"
    "/three/addons/controls/OrbitControls.js|node_modules/three/examples/jsm/controls/OrbitControls.js")
  set(_urls)
  set(_files)
  set(_missing "")
  if(NOT "index.html" IN_LIST _page)
    set(_missing "web/index.html is missing from the source tree")
  endif()
  foreach(_pair IN LISTS _three)
    string(REPLACE "|" ";" _pair "${_pair}")
    list(GET _pair 0 _url)
    list(GET _pair 1 _rel)
    if(NOT _three_package OR NOT EXISTS ${_web}/${_rel})
      set(_missing "web/${_rel} (npm package three) is missing when this was built: run `npm ci --prefix web` (or scripts/setup.sh), then build again")
      break()
    endif()
    list(APPEND _urls ${_url})
    list(APPEND _files ${_web}/${_rel})
  endforeach()
  foreach(_rel IN LISTS _page)
    list(APPEND _urls /${_rel})
    list(APPEND _files ${_web}/${_rel})
  endforeach()
  set(${URLS_VAR} "${_urls}" PARENT_SCOPE)
  set(${FILES_VAR} "${_files}" PARENT_SCOPE)
  set(${MISSING_VAR} "${_missing}" PARENT_SCOPE)
endfunction()

function(voxen_add_web_page TARGET)
  _voxen_web_page_files(${_voxen_web_root} _urls _files _missing)
  set(_dir ${CMAKE_CURRENT_BINARY_DIR}/web_page)
  set(_out ${_dir}/voxen_web_page.cpp)
  set(_manifest ${_dir}/manifest.cmake)
  # The manifest is rewritten only when it changes, so a reconfigure alone regenerates nothing.
  if(_missing)
    set(_urls)
    set(_files)
  endif()
  file(WRITE ${_manifest}.tmp
    "set(WEB_URLS [==[${_urls}]==])\nset(WEB_FILES [==[${_files}]==])\nset(WEB_MISSING [==[${_missing}]==])\n")
  file(COPY_FILE ${_manifest}.tmp ${_manifest} ONLY_IF_DIFFERENT)
  add_custom_command(
    OUTPUT ${_out}
    COMMAND ${CMAKE_COMMAND} -DMANIFEST=${_manifest} -DOUT=${_out} -P ${_voxen_web_root}/cmake/GenerateWebPage.cmake
    DEPENDS ${_manifest} ${_voxen_web_root}/cmake/GenerateWebPage.cmake ${_files}
    COMMENT "Bundling the browser page (web/)"
    VERBATIM)
  target_sources(${TARGET} PRIVATE ${_out} ${_voxen_web_root}/engine/live/web/web_assets.cpp)
  target_include_directories(${TARGET} PRIVATE $<BUILD_INTERFACE:${_voxen_web_root}/engine/live/web>)
  if(_missing)
    message(STATUS "Voxen browser page: OFF (${_missing})")
    set_property(GLOBAL PROPERTY VOXEN_WEB_PAGE OFF)
  else()
    file(READ ${_voxen_web_root}/web/node_modules/three/package.json _three_json)
    string(JSON _three_version ERROR_VARIABLE _no_version GET "${_three_json}" version)
    message(STATUS "Voxen browser page: ON (web/, three ${_three_version})")
    set_property(GLOBAL PROPERTY VOXEN_WEB_PAGE ON)
  endif()
endfunction()
