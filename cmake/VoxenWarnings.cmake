# One set of warnings for Voxen's own code: voxen_warnings(TARGET) gives a target -Wall -Wextra
# (missing field initialisers are how designated initialisers leave defaults, so not those).
# VOXEN_WERROR=ON (CI: .ci/run) makes every warning in Voxen's own C++ an error, so none is
# left to pile up; third-party sources built here (volk, C) are not ours to fix and keep theirs.
option(VOXEN_WERROR "Treat warnings in Voxen's own C++ code as errors (CI sets it)" OFF)

function(voxen_warnings TARGET)
  target_compile_options(${TARGET} PRIVATE -Wall -Wextra -Wno-missing-field-initializers
    $<$<AND:$<BOOL:${VOXEN_WERROR}>,$<COMPILE_LANGUAGE:CXX>>:-Werror>)
endfunction()
