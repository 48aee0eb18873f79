# Build-time shader pipeline: every *.comp (and the few graphics stages, *.vert and *.frag)
# under SHADER_DIR is compiled to SPIR-V with glslangValidator (include dependencies tracked
# through depfiles), then the SPIR-V and every GLSL source file of the compute shaders are
# written into one generated C++ file, so an installed program carries its shaders and can
# still compile compute variants (defines) without a source folder. The variants listed in
# VARIANTS (cmake/ShaderVariants.cmake: "path|NAME=VALUE|...") are compiled here too and
# embedded under "path?NAME=VALUE&..." (detail::embeddedVariantPath).
function(voxen_embed_shaders OUT_CPP SHADER_DIR)
  cmake_parse_arguments(ARG "" "" "VARIANTS" ${ARGN})
  file(GLOB_RECURSE _stages CONFIGURE_DEPENDS RELATIVE ${SHADER_DIR}
    ${SHADER_DIR}/*.comp ${SHADER_DIR}/*.vert ${SHADER_DIR}/*.frag)
  file(GLOB_RECURSE _sources CONFIGURE_DEPENDS RELATIVE ${SHADER_DIR}
    ${SHADER_DIR}/*.comp ${SHADER_DIR}/*.glsl ${SHADER_DIR}/*.h)
  set(_spv_files)
  foreach(_rel IN LISTS _stages)
    set(_spv ${CMAKE_CURRENT_BINARY_DIR}/spirv/${_rel}.spv)
    get_filename_component(_spv_dir ${_spv} DIRECTORY)
    add_custom_command(
      OUTPUT ${_spv}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${_spv_dir}
      COMMAND ${GLSLANG_VALIDATOR} --quiet --target-env vulkan1.2 -I${SHADER_DIR}
              --depfile ${_spv}.d -o ${_spv} ${SHADER_DIR}/${_rel}
      DEPENDS ${SHADER_DIR}/${_rel}
      DEPFILE ${_spv}.d
      COMMENT "glslang ${_rel}"
      VERBATIM)
    list(APPEND _spv_files ${_spv})
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
    add_custom_command(
      OUTPUT ${_spv}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_CURRENT_BINARY_DIR}/spirv/variants
      COMMAND ${GLSLANG_VALIDATOR} --quiet --target-env vulkan1.2 -I${SHADER_DIR} ${_defines}
              --depfile ${_spv}.d -o ${_spv} ${SHADER_DIR}/${_rel}
      DEPENDS ${SHADER_DIR}/${_rel}
      DEPFILE ${_spv}.d
      COMMENT "glslang ${_key}"
      VERBATIM)
    list(APPEND _spv_files ${_spv})
    list(APPEND _variant_keys "${_key}")
    list(APPEND _variant_files "${_spv}")
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
            -P ${PROJECT_SOURCE_DIR}/cmake/GenerateEmbeddedShaders.cmake
    DEPENDS ${_spv_files} ${_source_paths} ${PROJECT_SOURCE_DIR}/cmake/GenerateEmbeddedShaders.cmake
    COMMENT "Embedding shaders into ${OUT_CPP}"
    VERBATIM)
endfunction()
