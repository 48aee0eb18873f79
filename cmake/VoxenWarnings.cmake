# One set of warnings for Voxen's own code: voxen_warnings(TARGET) gives a target -Wall -Wextra
# (missing field initialisers are how designated initialisers leave defaults, so not those).
# VOXEN_WERROR=ON (CI: .ci/run) makes every warning in Voxen's own C++ an error, so none is
# left to pile up; third-party sources built here (volk, C) are not ours to fix and keep theirs.
option(VOXEN_WERROR "Treat warnings in Voxen's own C++ code as errors (CI sets it)" OFF)

# g++ 12 reports `"literal" + std::string(...)` as an overlapping (-Wrestrict) or oversized
# (-Wstringop-overflow) memcpy once libstdc++'s operator+ is inlined at -O2 and up: false
# positives, GCC bug 105329, fixed in g++ 13. Both off for g++ 12 only, so that -Werror does
# not fail on correct code; later compilers keep the warnings.
set(_voxen_no_false_restrict "")
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  set(_voxen_no_false_restrict -Wno-restrict -Wno-stringop-overflow)
endif()

function(voxen_warnings TARGET)
  target_compile_options(${TARGET} PRIVATE -Wall -Wextra -Wno-missing-field-initializers ${_voxen_no_false_restrict}
    $<$<AND:$<BOOL:${VOXEN_WERROR}>,$<COMPILE_LANGUAGE:CXX>>:-Werror>)
endfunction()
