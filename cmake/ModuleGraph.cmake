# The diagram of the modules and their links in docs/architecture.md, drawn from the targets
# themselves so that it cannot drift from the build: at the end of the configure step,
# voxen_write_module_graph writes <build>/module_graph.md, a Mermaid graph (GitHub draws
# ```mermaid blocks) of every module library (GLOBAL property VOXEN_MODULE_TARGETS, the
# BUILD_ONLY modules in VOXEN_BUILD_ONLY_TARGETS, and voxen_host) and of the links between them
# that their LINK_LIBRARIES and INTERFACE_LINK_LIBRARIES name. Links to anything else (volk,
# glm, zlib, the ROS storage library) are left out: the diagram shows the layering.
#   A --> B   A links B publicly: A's users see B's headers too
#   A -.-> B  A links B privately: B is A's implementation detail
# Modules outside voxen::voxen (the BUILD_ONLY ones, the optional voxen_rosbag) are dashed.
# The test docs_module_graph (cmake/ModuleGraphCheck.cmake) compares the file with the block
# between the module-graph markers in docs/architecture.md; scripts/update_module_graph.sh
# copies it there.

# The module target a link entry names, or "" when it names none: link entries may be wrapped
# in $<LINK_ONLY:...> (CMake's form of a static library's private links in its interface) or
# $<BUILD_INTERFACE:...>, and may use a voxen::name alias.
function(_voxen_graph_link_target ENTRY NODES OUT_TARGET)
  set(_name "${ENTRY}")
  foreach(_wrapper LINK_ONLY BUILD_INTERFACE)
    if(_name MATCHES "^\\$<${_wrapper}:(.*)>$")
      set(_name "${CMAKE_MATCH_1}")
    endif()
  endforeach()
  if(_name MATCHES "^\\$<" OR _name MATCHES "^::@" OR NOT TARGET "${_name}")
    set(${OUT_TARGET} "" PARENT_SCOPE)
    return()
  endif()
  get_target_property(_aliased "${_name}" ALIASED_TARGET)
  if(_aliased)
    set(_name "${_aliased}")
  endif()
  if(_name IN_LIST NODES)
    set(${OUT_TARGET} "${_name}" PARENT_SCOPE)
  else()
    set(${OUT_TARGET} "" PARENT_SCOPE)
  endif()
endfunction()

# The module targets a target links, split by kind: OUT_PUBLIC those its users see too (in its
# INTERFACE_LINK_LIBRARIES as themselves), OUT_PRIVATE the rest (only in LINK_LIBRARIES, or
# in the interface as $<LINK_ONLY:...>).
function(_voxen_graph_links TARGET NODES OUT_PUBLIC OUT_PRIVATE)
  set(_public)
  set(_all)
  get_target_property(_interface ${TARGET} INTERFACE_LINK_LIBRARIES)
  get_target_property(_own ${TARGET} LINK_LIBRARIES)
  foreach(_entry IN LISTS _interface)
    _voxen_graph_link_target("${_entry}" "${NODES}" _linked)
    if(_linked)
      list(APPEND _all ${_linked})
      if(NOT _entry MATCHES "^\\$<LINK_ONLY:")
        list(APPEND _public ${_linked})
      endif()
    endif()
  endforeach()
  foreach(_entry IN LISTS _own)
    _voxen_graph_link_target("${_entry}" "${NODES}" _linked)
    if(_linked)
      list(APPEND _all ${_linked})
    endif()
  endforeach()
  list(REMOVE_DUPLICATES _public)
  list(REMOVE_DUPLICATES _all)
  set(_private ${_all})
  if(_public)
    list(REMOVE_ITEM _private ${_public})
  endif()
  list(SORT _public)
  list(SORT _private)
  set(${OUT_PUBLIC} "${_public}" PARENT_SCOPE)
  set(${OUT_PRIVATE} "${_private}" PARENT_SCOPE)
endfunction()

function(voxen_write_module_graph OUTPUT)
  get_property(_modules GLOBAL PROPERTY VOXEN_MODULE_TARGETS)
  get_property(_build_only GLOBAL PROPERTY VOXEN_BUILD_ONLY_TARGETS)
  set(_nodes voxen_host ${_modules} ${_build_only})
  list(REMOVE_DUPLICATES _nodes)
  list(SORT _nodes)
  # What voxen::voxen carries, so that the rest can be drawn apart.
  set(_facade)
  if(TARGET voxen)
    get_target_property(_facade_links voxen INTERFACE_LINK_LIBRARIES)
    foreach(_entry IN LISTS _facade_links)
      _voxen_graph_link_target("${_entry}" "${_nodes}" _linked)
      if(_linked)
        list(APPEND _facade ${_linked})
      endif()
    endforeach()
  endif()
  # The diagram type first: some Mermaid versions look for it on the first line.
  set(_text "```mermaid\ngraph TD\n")
  string(APPEND _text "  %% Generated from the build's module targets by cmake/ModuleGraph.cmake, not edited by hand:\n")
  string(APPEND _text "  %% scripts/update_module_graph.sh refreshes it. A --> B: A links B publicly, A -.-> B: privately.\n")
  set(_outside)
  foreach(_node IN LISTS _nodes)
    _voxen_graph_links(${_node} "${_nodes}" _public _private)
    if(NOT _public AND NOT _private)
      string(APPEND _text "  ${_node}\n")
    endif()
    foreach(_linked IN LISTS _public)
      string(APPEND _text "  ${_node} --> ${_linked}\n")
    endforeach()
    foreach(_linked IN LISTS _private)
      string(APPEND _text "  ${_node} -.-> ${_linked}\n")
    endforeach()
    if(NOT _node IN_LIST _facade)
      list(APPEND _outside ${_node})
    endif()
  endforeach()
  if(_outside)
    list(JOIN _outside "," _outside_list)
    string(APPEND _text "  classDef outside stroke-dasharray: 5 5\n")
    string(APPEND _text "  class ${_outside_list} outside\n")
  endif()
  string(APPEND _text "```\n")
  file(CONFIGURE OUTPUT ${OUTPUT} CONTENT "${_text}" @ONLY)
endfunction()

# Drawn once every directory has added its targets and links.
cmake_language(DEFER DIRECTORY ${PROJECT_SOURCE_DIR}
  CALL voxen_write_module_graph ${PROJECT_BINARY_DIR}/module_graph.md)
