# Build-time shader pipeline: every *.comp (and the few graphics stages, *.vert and *.frag)
# under SHADER_DIR is compiled to SPIR-V with glslangValidator (include dependencies tracked
# through depfiles), then the SPIR-V and every GLSL source file of the compute shaders are
# written into one generated C++ file, so an installed program carries its shaders and can
# still compile compute variants (defines) without a source folder. The variants listed in
# VARIANTS (cmake/ShaderVariants.cmake: "path|NAME=VALUE|...") are compiled here too and
# embedded under "path?NAME=VALUE&..." (detail::embeddedVariantPath).
#
# Every compute shader and variant is also compiled in its float64 flavour (-DVOXEN_FLOAT64=1:
# shaders/common/exact_math.glsl divides and takes roots in doubles) and embedded under
# "...?VOXEN_FLOAT64=1" (or "&VOXEN_FLOAT64=1") where its SPIR-V differs from the plain one,
# that is where the shader includes exact_math.glsl. The plain flavour declares no Float64
# capability, so it runs on every device; the shader library takes the float64 one on a
# device with shaderFloat64. Both are built here, not at run time: a build without glslang
# (VOXEN_HOT_RELOAD=OFF) has both, and no process pays a compile for them.
# One glslangValidator run: SHADER_DIR/REL to SPV with the given -D defines, its include
# dependencies tracked through a depfile.
function(_voxen_glslang SPV SHADER_DIR REL LABEL)
  get_filename_component(_dir ${SPV} DIRECTORY)
  add_custom_command(
    OUTPUT ${SPV}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${_dir}
    COMMAND ${GLSLANG_VALIDATOR} --quiet --target-env vulkan1.2 -I${SHADER_DIR} ${ARGN}
            --depfile ${SPV}.d -o ${SPV} ${SHADER_DIR}/${REL}
    DEPENDS ${SHADER_DIR}/${REL}
    DEPFILE ${SPV}.d
    COMMENT "glslang ${LABEL}"
    VERBATIM)
endfunction()

function(voxen_embed_shaders OUT_CPP SHADER_DIR)
  cmake_parse_arguments(ARG "" "" "VARIANTS" ${ARGN})
  file(GLOB_RECURSE _stages CONFIGURE_DEPENDS RELATIVE ${SHADER_DIR}
    ${SHADER_DIR}/*.comp ${SHADER_DIR}/*.vert ${SHADER_DIR}/*.frag)
  file(GLOB_RECURSE _sources CONFIGURE_DEPENDS RELATIVE ${SHADER_DIR}
    ${SHADER_DIR}/*.comp ${SHADER_DIR}/*.glsl ${SHADER_DIR}/*.h)
  set(_spv_files)
  set(_flavour_keys)
  set(_flavour_files)
  set(_flavour_bases)
  foreach(_rel IN LISTS _stages)
    set(_spv ${CMAKE_CURRENT_BINARY_DIR}/spirv/${_rel}.spv)
    _voxen_glslang(${_spv} ${SHADER_DIR} ${_rel} "${_rel}")
    list(APPEND _spv_files ${_spv})
    if(_rel MATCHES "\\.comp$")
      set(_spv64 ${CMAKE_CURRENT_BINARY_DIR}/spirv/float64/${_rel}.spv)
      _voxen_glslang(${_spv64} ${SHADER_DIR} ${_rel} "${_rel} (float64)" -DVOXEN_FLOAT64=1)
      list(APPEND _spv_files ${_spv64})
      list(APPEND _flavour_keys "${_rel}?VOXEN_FLOAT64=1")
      list(APPEND _flavour_files "${_spv64}")
      list(APPEND _flavour_bases "${_spv}")
    endif()
  endforeach()
  set(_variant_keys)
  set(_variant_files)
  foreach(_variant IN LISTS ARG_VARIANTS)
    string(REPLACE "|" ";" _parts "${_variant}")
    list(POP_FRONT _parts _rel)
    set(_defines)
    set(_key "${_rel}")
    set(_separator "?")
    foreach(_define IN LISTS _parts)
      list(APPEND _defines "-D${_define}")
      string(APPEND _key "${_separator}${_define}")
      set(_separator "&")
    endforeach()
    string(MAKE_C_IDENTIFIER "${_key}" _name)
    set(_spv ${CMAKE_CURRENT_BINARY_DIR}/spirv/variants/${_name}.spv)
    _voxen_glslang(${_spv} ${SHADER_DIR} ${_rel} "${_key}" ${_defines})
    list(APPEND _spv_files ${_spv})
    list(APPEND _variant_keys "${_key}")
    list(APPEND _variant_files "${_spv}")
    set(_spv64 ${CMAKE_CURRENT_BINARY_DIR}/spirv/variants/${_name}_float64.spv)
    _voxen_glslang(${_spv64} ${SHADER_DIR} ${_rel} "${_key} (float64)" ${_defines} -DVOXEN_FLOAT64=1)
    list(APPEND _spv_files ${_spv64})
    list(APPEND _flavour_keys "${_key}&VOXEN_FLOAT64=1")
    list(APPEND _flavour_files "${_spv64}")
    list(APPEND _flavour_bases "${_spv}")
  endforeach()
  set(_source_paths)
  foreach(_rel IN LISTS _sources)
    list(APPEND _source_paths ${SHADER_DIR}/${_rel})
  endforeach()
  add_custom_command(
    OUTPUT ${OUT_CPP}
    COMMAND ${CMAKE_COMMAND} -DSHADER_DIR=${SHADER_DIR}
            -DSPIRV_DIR=${CMAKE_CURRENT_BINARY_DIR}/spirv
            "-DSTAGES=${_stages}" "-DSOURCES=${_sources}" -DOUT=${OUT_CPP}
            "-DVARIANT_KEYS=${_variant_keys}" "-DVARIANT_FILES=${_variant_files}"
            "-DFLAVOUR_KEYS=${_flavour_keys}" "-DFLAVOUR_FILES=${_flavour_files}" "-DFLAVOUR_BASES=${_flavour_bases}"
            -P ${PROJECT_SOURCE_DIR}/cmake/GenerateEmbeddedShaders.cmake
    DEPENDS ${_spv_files} ${_source_paths} ${PROJECT_SOURCE_DIR}/cmake/GenerateEmbeddedShaders.cmake
    COMMENT "Embedding shaders into ${OUT_CPP}"
    VERBATIM)
endfunction()
